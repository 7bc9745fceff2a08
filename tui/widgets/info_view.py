"""A recipe's metadata: ids, tags, devices, torch range, references."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.containers import VerticalScroll
from textual.widgets import Static

from pitfalls.i18n import t
from pitfalls.tui.localise import inline_code

if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual.app import ComposeResult

    from pitfalls.model import Recipe


def info_renderable(recipe: Recipe | None, lang: str) -> RenderableType:
    """A two-column table of `recipe`'s metadata in `lang`."""
    from rich.table import Table
    from rich.text import Text

    if recipe is None:
        return Text(t("tui.no_recipe", lang))
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    table.add_row(t("col.id", lang), recipe.id)
    table.add_row(t("col.title", lang), inline_code(recipe.text(recipe.title, lang)))
    table.add_row(t("tui.summary", lang), inline_code(recipe.text(recipe.summary, lang)))
    if recipe.aliases:
        table.add_row(t("show.aliases", lang), ", ".join(recipe.aliases))
    table.add_row(t("show.tags", lang), ", ".join(recipe.tags) or "—")
    table.add_row(t("show.devices", lang), ", ".join(recipe.devices))
    table.add_row(t("show.torch", lang), recipe.torch or "—")
    table.add_row(t("tui.source", lang), recipe.source)
    references = Text()
    for index, url in enumerate(recipe.references):
        if index:
            references.append("\n")
        references.append(url, style=f"link {url}")
    table.add_row(t("show.references", lang), references if recipe.references else "—")
    return table


class InfoView(VerticalScroll):
    """Scrolls the metadata table of the open recipe.

    `show` may be called before the view is composed (it is mounted after the first frame):
    it then only notes the recipe, which `on_mount` shows.
    """

    DEFAULT_CSS = """
    InfoView > Static {
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
        """One Static holding the table."""
        yield Static()

    def on_mount(self) -> None:
        """Follow the app's language (its watcher shows the table now)."""
        self._composed = True
        self.watch(self.app, "lang", self._language_changed)

    def _language_changed(self, lang: str) -> None:
        self._lang = lang
        self.query_one(Static).update(info_renderable(self.recipe, lang))

    def show(self, recipe: Recipe) -> None:
        """Show `recipe`'s metadata.

        Args:
            recipe: The recipe to show.
        """
        self.recipe = recipe
        if self._composed:
            self.query_one(Static).update(info_renderable(recipe, self._lang))
