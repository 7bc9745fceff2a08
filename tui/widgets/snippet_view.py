"""A recipe's snippet, syntax-highlighted in colours that follow the app's theme."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from pitfalls.i18n import t

if TYPE_CHECKING:
    from pitfalls.model import Recipe


class SnippetView(VerticalScroll):
    """Scrolls the snippet source; nothing is highlighted until a recipe is opened.

    `show` may be called before the view is composed (it is mounted after the first frame):
    it then only notes the recipe, which `on_mount` shows.
    """

    DEFAULT_CSS = """
    SnippetView > Static {
        width: auto;
        padding: 0 1;
    }
    """

    def __init__(self, **kwargs: object) -> None:
        """Create an empty view.

        Args:
            **kwargs: Passed on to `VerticalScroll`.
        """
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.recipe: Recipe | None = None
        self._lang = "en"
        self._composed = False

    def compose(self) -> ComposeResult:
        """One Static holding the highlighted source."""
        yield Static()

    def on_mount(self) -> None:
        """Follow the app's language and theme (the theme's watcher shows the snippet now)."""
        self._composed = True
        self.watch(self.app, "lang", self._language_changed)
        self.watch(self.app, "theme", lambda _theme: self._render_snippet())

    def _language_changed(self, lang: str) -> None:
        self._lang = lang
        if self.recipe is None:
            self._render_snippet()

    def show(self, recipe: Recipe) -> None:
        """Show `recipe`'s snippet.

        Args:
            recipe: The recipe to show.
        """
        self.recipe = recipe
        if self._composed:
            self._render_snippet()
            self.scroll_home(animate=False)

    def _render_snippet(self) -> None:
        if not self._composed:  # on_mount renders it
            return
        static = self.query_one(Static)
        if self.recipe is None:
            static.update(t("tui.no_recipe", self._lang))
            return
        # Deferred: rich.syntax pulls in pygments, which the first paint does not need.
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
