"""A recipe's snippet, syntax-highlighted in colours that follow the app's theme."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.widgets import Static

from pitfalls.i18n import t
from pitfalls.tui.widgets.recipe_pane import RecipePane

if TYPE_CHECKING:
    pass


class SnippetView(RecipePane):
    """Scrolls the snippet source; nothing is highlighted until a recipe is opened."""

    DEFAULT_CSS = """
    SnippetView > Static {
        width: auto;
        padding: 0 1;
    }
    """

    def compose(self) -> ComposeResult:
        """One Static holding the highlighted source."""
        yield Static()

    def on_mount(self) -> None:
        """Follow the app's language and theme."""
        super().on_mount()
        self.watch(self.app, "theme", lambda _theme: self.render_recipe(), init=False)

    def render_recipe(self) -> None:
        """Draw the highlighted source, in colours for the current theme."""
        if not self._ready:  # mounting renders it
            return
        static = self.query_one(Static)
        if self.recipe is None:
            static.update(t("tui.no_recipe", self._lang))
            return
        # Deferred: rich.syntax pulls in pygments, which the first paint does not need.
        # lazy: Rich loads only when something is drawn
        from rich.syntax import Syntax

        try:
            code = self.recipe.snippet()
        except OSError as err:
            static.update(f"{self.recipe.snippet_path}: {err.strerror}")
            return
        dark = self.app.current_theme.dark
        static.update(
            Syntax(
                code,
                "python",
                theme="monokai" if dark else "default",
                line_numbers=True,
                word_wrap=False,
                background_color="default",  # the widget's own background, from the theme
            )
        )
