"""`e`: the `pitfalls doctor` environment checks, run in a worker; Enter opens a check's recipe.

The checks need a probe child that imports torch (about 2 s), so the screen opens at once with
a loading line and fills in when the worker's message arrives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from pitfalls.i18n import t

if TYPE_CHECKING:
    from rich.text import Text

    from pitfalls.doctor import Check
    from pitfalls.tui.app import PitfallsApp

# How each status is marked, as in `pitfalls doctor`.
MARKS = {"ok": ("✓", "green"), "warning": ("!", "yellow"), "problem": ("✗", "bold red")}
UNKNOWN_MARK = ("?", "dim")
GROUP_ORDER = ("torch", "libraries", "system")


def check_prompt(check: Check, lang: str) -> Text:
    """One check as an option: its mark and id, what was found, the advice and the recipe."""
    # lazy: Rich loads only when something is drawn
    from rich.text import Text

    mark, style = MARKS.get(check.status, UNKNOWN_MARK)
    text = Text(f"{mark} ", style)
    text.append(check.id, "bold")
    if check.status != "ok":
        text.append(f"  {t(f'doctor.status.{check.status}', lang)}", style)
    text.append(f"\n  {check.found}")
    if check.status != "ok" and check.advice:
        text.append(f"\n  → {check.advice}")
    if check.recipe:
        text.append(f"\n  {t('doctor.see', lang)} ", "dim")
        text.append(check.recipe, "cyan")
    return text


def in_report_order(checks: list[Check]) -> list[tuple[str, list[Check]]]:
    """The checks in the groups `pitfalls doctor` shows them in (empty groups left out)."""
    # lazy: the doctor's checks only when the environment is examined
    from pitfalls.doctor import GROUPS

    groups = [(g, [c for c in checks if GROUPS.get(c.id, "torch") == g]) for g in GROUP_ORDER]
    return [(group, members) for group, members in groups if members]


class DoctorScreen(ModalScreen["str | None"]):
    """A modal over the main screen; dismissed with the recipe id to open, or None."""

    DEFAULT_CSS = """
    DoctorScreen {
        align: center middle;
    }
    DoctorScreen > Vertical {
        width: 90;
        max-width: 100%;
        height: 90%;
        border: round $primary;
        border-title-color: $primary;
        border-title-style: bold;
        background: $surface;
        padding: 0 1;
    }
    DoctorScreen #doctor-status {
        height: auto;
        margin: 0 0 1 0;
    }
    DoctorScreen OptionList, DoctorScreen OptionList:focus {
        height: 1fr;
        border: none;
        padding: 0;
    }
    DoctorScreen #doctor-hint {
        height: auto;
        color: $text-muted;
    }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", show=False),
        Binding("e", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
    ]

    class Checked(Message):
        """The worker finished: the checks, or why there are none."""

        def __init__(self, checks: list[Check] | None, problem: str = "") -> None:
            super().__init__()
            self.checks = checks
            self.problem = problem

    def __init__(self, lang: str) -> None:
        """Create the screen.

        Args:
            lang: The language of the report.
        """
        super().__init__()
        self.lang = lang
        self.checks: list[Check] | None = None  # None until the worker has answered
        self._by_option: dict[str, Check] = {}  # option id -> its check

    @property
    def pitfalls_app(self) -> PitfallsApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        """A status line (loading, then the summary), the checks, a hint."""
        with Vertical() as box:
            box.border_title = t("doctor.checks", self.lang)
            yield Static(t("tui.doctor.loading", self.lang), id="doctor-status")
            yield OptionList(id="doctor-checks")
            yield Static(t("tui.doctor.hint", self.lang), id="doctor-hint")

    def on_mount(self) -> None:
        """Start the checks; the screen is already drawn with its loading line."""
        self.query_one(OptionList).focus()
        self.run_checks()

    @work(thread=True, exclusive=True, exit_on_error=False, group="doctor")
    def run_checks(self) -> None:
        """Probe the snippet interpreter in a child and run every check (blocks ~2 s)."""
        try:
            checks = self.pitfalls_app.doctor()
        except Exception as err:  # a broken probe must not take the app down: say so
            self.post_message(self.Checked(None, f"{type(err).__name__}: {err}"))
            return
        self.post_message(self.Checked(checks))

    def on_doctor_screen_checked(self, message: DoctorScreen.Checked) -> None:
        """Fill the list, or show why the checks could not run."""
        # lazy: Rich loads only when something is drawn
        from rich.text import Text

        status = self.query_one("#doctor-status", Static)
        if message.checks is None:
            status.update(t("tui.doctor.failed", self.lang, problem=message.problem))
            return
        self.checks = message.checks
        problems = sum(c.status == "problem" for c in message.checks)
        warnings = sum(c.status == "warning" for c in message.checks)
        status.update(t("doctor.summary", self.lang, problems=problems, warnings=warnings))
        options: list[Option] = []
        for group, members in in_report_order(message.checks):
            heading = Text(t(f"doctor.group.{group}", self.lang), "bold")
            options.append(Option(heading, id=f"group:{group}", disabled=True))
            for index, check in enumerate(members):
                options.append(Option(check_prompt(check, self.lang), id=f"{group}:{index}"))
        checks_list = self.query_one(OptionList)
        checks_list.clear_options()
        checks_list.add_options(options)
        first = next((i for i, o in enumerate(options) if not o.disabled), None)
        checks_list.highlighted = first
        self._by_option = {
            f"{group}:{index}": check
            for group, members in in_report_order(message.checks)
            for index, check in enumerate(members)
        }

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter on a check with a recipe opens that recipe."""
        event.stop()
        check = self._by_option.get(event.option.id or "")
        if check is not None and check.recipe:
            self.dismiss(check.recipe)

    def action_close(self) -> None:
        """Close the report."""
        self.dismiss(None)
