"""`?`: every key binding with its description, in the current language."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from pitfalls.i18n import t
from pitfalls.tui.localise import binding_description

if TYPE_CHECKING:
    from rich.console import RenderableType

# Keys that are not bindings of ours but that a reader needs: (key, binding id).
EXTRA_KEYS = (("enter", "open"), ("left / right", "group"), ("tab / shift+tab", "tabs"))


class HelpScreen(ModalScreen[None]):
    """A modal listing the bindings; Esc, `?` or `q` closes it."""

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
    }
    HelpScreen > VerticalScroll {
        width: 72;
        max-width: 100%;
        height: auto;
        max-height: 100%;
        border: round $primary;
        border-title-color: $primary;
        border-title-style: bold;
        background: $surface;
        padding: 0 1;
    }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", show=False),
        Binding("question_mark", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(self, keys: list[tuple[str, str]], lang: str) -> None:
        """Create the screen.

        Args:
            keys: (displayed key, binding id) pairs, in the order to list them.
            lang: The language to describe them in.
        """
        super().__init__()
        self.keys = keys
        self.lang = lang

    def compose(self) -> ComposeResult:
        """The intro and the table, in one scrolling box."""
        with VerticalScroll() as box:
            box.border_title = t("tui.help_title", self.lang)
            yield Static(self._body())

    def _body(self) -> RenderableType:
        # lazy: Rich loads only when something is drawn
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        table = Table(show_edge=False, expand=True, box=None, padding=(0, 2, 0, 0))
        table.add_column(t("tui.col.key", self.lang), style="bold", no_wrap=True)
        table.add_column(t("tui.col.action", self.lang))
        seen = set()
        for key, binding_id in [*self.keys, *EXTRA_KEYS]:
            if (key, binding_id) in seen:
                continue
            seen.add((key, binding_id))
            table.add_row(key, binding_description(binding_id, self.lang, binding_id))
        intro = Text(t("tui.help_intro", self.lang))
        closing = Text(t("tui.help_close", self.lang), "dim")
        return Group(intro, Text(""), table, Text(""), closing)

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)
