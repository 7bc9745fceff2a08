"""The command palette provider: jump to, or run, any recipe by name (ctrl+p)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

from pitfalls.i18n import t

if TYPE_CHECKING:
    from pitfalls.catalogue.model import Recipe
    from pitfalls.tui.app import PitfallsApp


class RecipeCommands(Provider):
    """Offers `Open: <title>` and `Run: <title>` for every recipe, matched by id and title."""

    def _commands(self) -> list[tuple[str, str, Recipe, bool]]:
        app: PitfallsApp = self.app  # type: ignore[assignment]
        lang = app.lang
        commands = []
        for recipe in app.registry:
            title = recipe.text(recipe.title, lang).replace("`", "")
            help_text = t("tui.palette.help", lang, id=recipe.id)
            # The id goes into the searched text so that `detach` finds its recipe even when
            # the title is in Chinese.
            for run, key in ((False, "tui.palette.open"), (True, "tui.palette.run")):
                text = f"{t(key, lang, title=title)} ({recipe.id})"
                commands.append((text, help_text, recipe, run))
        return commands

    def _callback(self, recipe: Recipe, run: bool) -> None:
        app: PitfallsApp = self.app  # type: ignore[assignment]
        app.open_recipe(recipe.id, run=run)

    async def discover(self) -> Hits:
        """Every open command, shown before anything is typed."""
        for text, help_text, recipe, run in self._commands():
            if not run:
                yield DiscoveryHit(text, partial(self._callback, recipe, run), help=help_text)

    async def search(self, query: str) -> Hits:
        """Open and run commands whose text fuzzily matches `query`.

        Args:
            query: What the user typed.
        """
        matcher = self.matcher(query)
        for text, help_text, recipe, run in self._commands():
            score = matcher.match(text)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(text),
                    partial(self._callback, recipe, run),
                    help=help_text,
                )
