"""Verifying every recipe: a progress bar and one table row per result as it lands."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, ProgressBar, Static

from pitfalls.i18n import t
from pitfalls.render.results import mark, verify_summary

if TYPE_CHECKING:
    from pitfalls.runner import RunResult, VerifyReport

STATUS_OK = {"held": True, "skipped": True}


class VerifyPanel(Vertical):
    """Shows the progress and results of `verify` over the whole catalogue.

    Every method may be called before the panel is composed (it is mounted after the first
    frame): they then only update the state, which `on_mount` shows.
    """

    DEFAULT_CSS = """
    VerifyPanel > #verify-status {
        height: auto;
        padding: 0 1;
        color: $text-muted;
    }
    VerifyPanel > ProgressBar {
        padding: 0 1;
        height: 1;
        display: none;
    }
    VerifyPanel.-started > ProgressBar {
        display: block;
    }
    VerifyPanel > DataTable {
        height: 1fr;
    }
    """

    def __init__(self, **kwargs: object) -> None:
        """Create an idle panel.

        Args:
            **kwargs: Passed on to `Vertical`.
        """
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.results: list[RunResult] = []
        self.report: VerifyReport | None = None
        self.problem = ""
        self.running = False
        self._device = "auto"
        self._lang = "en"
        self._total = 1  # the progress bar's total and progress
        self._done = 0
        self._composed = False

    def compose(self) -> ComposeResult:
        """Status, progress and the result table."""
        yield Static(id="verify-status")
        # A known total from the start: an indeterminate bar animates, and costs, while idle.
        yield ProgressBar(total=1, show_eta=False, id="verify-progress")
        yield DataTable(cursor_type="row", zebra_stripes=True, id="verify-table")

    def on_mount(self) -> None:
        """Follow the app's language (its watcher shows the state now)."""
        self._composed = True
        self.watch(self.app, "lang", self._language_changed)

    def _language_changed(self, lang: str) -> None:
        self._lang = lang
        self._refresh_view()

    def start(self, total: int, device: str) -> None:
        """Reset for a new verify run.

        Args:
            total: How many recipes will report.
            device: The device, as chosen.
        """
        self.results = []
        self.report = None
        self.problem = ""
        self.running = True
        self._device = device
        self._total, self._done = max(total, 1), 0
        self.add_class("-started")
        self._refresh_view()

    def add_result(self, result: RunResult) -> None:
        """Add one recipe's result.

        Args:
            result: The result that just landed.
        """
        self.results.append(result)
        self._done += 1
        if self._composed:
            self.query_one(ProgressBar).advance(1)
            self._add_row(result)

    def finish(self, report: VerifyReport | None, problem: str = "") -> None:
        """Show the summary, or why the run could not start.

        Args:
            report: The finished report, or None.
            problem: Why there is no report.
        """
        self.running = False
        self.report = report
        self.problem = problem
        if report is not None:
            # The report is in catalogue order, which reads better than arrival order.
            self.results = list(report.results)
        self._refresh_view()

    def _add_row(self, result: RunResult) -> None:
        lang = self._lang
        status = result.status
        reason = result.skipped or (result.error or {}).get("message", "")
        findings = result.findings or []  # a claim that does not tell problem from fix
        if findings and not reason:
            reason = "; ".join(f.message(lang) for f in findings)
        ok = STATUS_OK.get(status, False) and not findings
        symbol = "-" if status == "skipped" else mark(ok)
        self.query_one(DataTable).add_row(
            result.recipe.id,
            f"{symbol} {t(f'tui.status.{status}', lang)}",
            f"{result.duration:.1f} s",
            reason,
        )

    def _refresh_view(self) -> None:
        if not self._composed:  # on_mount shows the state
            return
        lang = self._lang
        self.query_one(ProgressBar).update(total=self._total, progress=self._done)
        table = self.query_one(DataTable)
        table.clear(columns=True)
        table.add_columns(
            t("verify.col.recipe", lang),
            t("tui.verify_status", lang),
            t("verify.col.time", lang),
            t("verify.col.reason", lang),
        )
        for result in self.results:
            self._add_row(result)
        status = self.query_one("#verify-status", Static)
        if self.running:
            status.update(t("tui.verify_running", lang, device=self._device))
        elif self.problem:
            status.update(t("tui.no_torch", lang, reason=self.problem))
        elif self.report is not None:
            summary = verify_summary(self.report, lang)
            title = t("verify.title", lang, device=self.report.device)
            status.update(f"{title}: {summary}")
        else:
            status.update(t("tui.verify_idle", lang))
