"""The first screen's right-hand side, before a recipe is opened: the themes with their
counts, how to find a recipe (words or a pasted error) and the keys that matter."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Static

from pitfalls.i18n import t
from pitfalls.tui.widgets.recipe_list import by_theme, theme_name

if TYPE_CHECKING:
    from rich.console import RenderableType

    from pitfalls.catalogue.model import Recipe

# (keys shown, or the i18n key of a word for them; the i18n key of what they do), in the
# order a newcomer needs them.
KEYS = (
    ("/", "tui.welcome.type"),
    ("tui.welcome.paste_key", "tui.welcome.paste"),
    ("↑ ↓ enter", "tui.welcome.move"),
    ("← → f", "tui.welcome.fold"),
    ("r  d  e  ?", "tui.welcome.keys"),
)


def welcome(recipes: list[Recipe], lang: str) -> RenderableType:
    """What the pane shows with no recipe open, in `lang`.

    Args:
        recipes: The catalogue, counted by theme.
        lang: en or zh.
    """
    # lazy: Rich loads only when something is drawn
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    keys = Table.grid(padding=(0, 2))
    keys.add_column(style="bold", no_wrap=True)
    keys.add_column(overflow="fold")  # Chinese has no spaces to wrap at: fold it
    for shown, key in KEYS:
        keys.add_row(t(shown, lang) if shown.startswith("tui.") else shown, t(key, lang))
    groups = by_theme(recipes)
    # Two columns of "count  name": a name that does not fit loses its end, never its count.
    themes = Table.grid(padding=(0, 2, 0, 0), expand=True)
    for _ in range(2):
        themes.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    half = (len(groups) + 1) // 2
    for index in range(half):
        cells = []
        for theme, members in (groups[index], *groups[index + half : index + half + 1]):
            cell = Text(f"{len(members):>3}  ", "dim")
            cell.append(theme_name(theme, lang))
            cells.append(cell)
        themes.add_row(*cells)
    return Group(
        Text(t("tui.welcome.intro", lang, n=len(recipes)), overflow="fold"),
        Text(""),
        keys,
        Text(""),
        Text(t("tui.welcome.themes", lang), "bold"),
        themes,
    )


class Welcome(Static):
    """The welcome text, redrawn in the app's language by the pane that holds it."""

    def show_for(self, recipes: list[Recipe], lang: str) -> None:
        """Draw the welcome for `recipes` in `lang`.

        Args:
            recipes: The catalogue.
            lang: en or zh.
        """
        self.update(welcome(recipes, lang))
