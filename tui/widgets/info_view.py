"""A recipe's metadata: ids, tags, devices, torch range, references."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widgets import Static

from pitfalls.catalogue.statements import gate_note, grouped
from pitfalls.i18n import t
from pitfalls.tui.localise import inline_code
from pitfalls.tui.widgets.recipe_pane import RecipePane

if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual.app import ComposeResult

    from pitfalls.catalogue.model import Recipe


def info_renderable(recipe: Recipe | None, lang: str) -> RenderableType:
    """A two-column table of `recipe`'s metadata in `lang`."""
    # lazy: Rich loads only when something is drawn
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
    if recipe.theme:
        table.add_row(t("show.theme", lang), t(f"theme.{recipe.theme}", lang))
    table.add_row(t("show.tags", lang), ", ".join(recipe.tags) or "—")
    table.add_row(t("show.devices", lang), ", ".join(recipe.devices))
    table.add_row(t("show.torch", lang), recipe.torch or "—")
    # lazy: the torch-version record only for the line that shows it
    from pitfalls.catalogue.checked import summary, summary_line

    checked = summary_line(summary(recipe), lang)
    if checked:
        table.add_row(t("checked.label", lang), checked)
    table.add_row(t("tui.source", lang), recipe.source)
    references = Text()
    for index, url in enumerate(recipe.references):
        if index:
            references.append("\n")
        references.append(url, style=f"link {url}")
    table.add_row(t("show.references", lang), references if recipe.references else "—")
    _add_statements(table, recipe, lang)
    if recipe.related:
        table.add_row(t("show.related", lang), ", ".join(recipe.related))
    # lazy: the rule table only for pages and rule codes
    from pitfalls.catalogue.rule_table import RULES_LABEL, rules_line

    if rules_line(recipe.id):
        label = RULES_LABEL.get(lang, RULES_LABEL["en"]).replace("`", "")
        table.add_row(label, rules_line(recipe.id))
    return table


def _add_statements(table: Any, recipe: Recipe, lang: str) -> None:
    """What a run checks: the claims of each side, then the invariants (as `show` lists
    them); any other observation is context, shown after a run."""
    try:
        groups = grouped(recipe.expectations)
    except (OSError, ValueError):  # recipe.toml unreadable since loading
        return
    for group, label in (
        ("problem", "tui.claims.problem"),
        ("fix", "tui.claims.fix"),
        ("both", "tui.invariants"),
    ):
        lines = []
        for exp in groups[group]:
            note = gate_note(exp)
            lines.append(exp.describe() + (f" ({note})" if note else ""))
        if lines:
            table.add_row(t(label, lang), "\n".join(lines))


class InfoView(RecipePane):
    """Scrolls the metadata table of the open recipe."""

    DEFAULT_CSS = """
    InfoView > Static {
        padding: 0 1;
    }
    """

    def compose(self) -> ComposeResult:
        """One Static holding the table."""
        yield Static()

    def render_recipe(self) -> None:
        """Draw the metadata table."""
        self.query_one(Static).update(info_renderable(self.recipe, self._lang))
