"""The base of the panes that show one aspect of the open recipe (prose, snippet, metadata)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.containers import VerticalScroll

if TYPE_CHECKING:
    from pitfalls.catalogue.model import Recipe


class RecipePane(VerticalScroll):
    """A scrolling pane that renders the open recipe in the app's language.

    `show` may be called before the pane is mounted (hidden tabs are mounted after the first
    frame): it then only notes the recipe, and mounting renders it.
    """

    def __init__(self, **kwargs: object) -> None:
        """Create an empty pane.

        Args:
            **kwargs: Passed on to `VerticalScroll`.
        """
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.recipe: Recipe | None = None
        self._lang = "en"
        self._ready = False

    def on_mount(self) -> None:
        """Follow the app's language; the watcher renders the pane right away."""
        self._ready = True
        self.watch(self.app, "lang", self._language_changed)

    def _language_changed(self, lang: str) -> None:
        self._lang = lang
        self.render_recipe()

    def show(self, recipe: Recipe) -> None:
        """Show `recipe` in this pane, from the top.

        Args:
            recipe: The recipe to show.
        """
        self.recipe = recipe
        if self._ready:
            self.render_recipe()
            self.scroll_home(animate=False)

    def render_recipe(self) -> None:
        """Draw `self.recipe` (or the "choose a recipe" hint) in `self._lang`."""
        raise NotImplementedError
