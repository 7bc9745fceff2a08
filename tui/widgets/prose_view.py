"""A recipe's prose, rendered as Markdown in the current language."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult

from pitfalls.i18n import t
from pitfalls.tui.widgets.recipe_pane import RecipePane
from pitfalls.tui.widgets.welcome import Welcome

if TYPE_CHECKING:
    from pitfalls.catalogue.model import Recipe


def prose_markdown(recipe: Recipe | None, lang: str) -> str:
    """The Markdown document shown for `recipe`: its title, a fallback note, its prose."""
    if recipe is None:
        return t("tui.no_recipe", lang)
    used, text = recipe.prose_with_fallback(lang)
    parts = [f"# {recipe.text(recipe.title, lang)}"]
    if used != lang:
        wanted, shown = t(f"lang.{lang}", lang), t(f"lang.{used}", lang)
        parts.append(f"> {t('show.fallback', lang, wanted=wanted, used=shown)}")
    parts.append(text)
    return "\n\n".join(parts)


class ProseView(RecipePane):
    """Scrolls the Markdown of the open recipe."""

    DEFAULT_CSS = """
    ProseView > Markdown {
        margin: 0 1;
    }
    ProseView > #prose-placeholder {
        padding: 1 2;
    }
    """

    def compose(self) -> ComposeResult:
        """The welcome; the Markdown widget replaces it when a recipe is first opened."""
        yield Welcome(id="prose-placeholder")

    def render_recipe(self) -> None:
        """Draw the prose as Markdown (the Markdown widget replaces the welcome)."""
        if self.recipe is None:
            recipes = list(self.app.registry)  # type: ignore[attr-defined]
            self.query_one("#prose-placeholder", Welcome).show_for(recipes, self._lang)
            return
        document = prose_markdown(self.recipe, self._lang)
        # Deferred: the Markdown widget pulls in markdown-it, which the first paint does not need.
        # lazy: Textual costs ~0.1 s to import; only the TUI needs it
        from textual.widgets import Markdown

        markdowns = self.query(Markdown)
        if markdowns:
            markdowns.first().update(document)
            return
        self.query_one("#prose-placeholder", Welcome).remove()
        self.mount(Markdown(document))
