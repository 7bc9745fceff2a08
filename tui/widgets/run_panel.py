"""One run of one recipe: its streamed output, then its result or an error panel."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.reactive import reactive
from textual.widgets import Log, Static

from pitfalls.i18n import t
from pitfalls.tui.widgets.error_panel import ErrorPanel, snippet_trace

if TYPE_CHECKING:
    from pitfalls.catalogue.model import Recipe
    from pitfalls.runner import RunResult


class RunPanel(Vertical):
    """Status line, report (error panel and result) and the snippet's output.

    `state` is one of idle, running, done; CSS decides what each state shows. Every method
    may be called before the panel is composed (it is mounted after the first frame): they
    then only update the state, which `on_mount` shows, and output waits in a buffer.
    """

    DEFAULT_CSS = """
    RunPanel > #run-status {
        height: auto;
        padding: 0 1;
        color: $text-muted;
    }
    RunPanel > #run-report {
        height: 1fr;
        display: none;
    }
    RunPanel > #run-report > #run-result, RunPanel > #run-report > #run-checks {
        padding: 0 1;
        height: auto;
    }
    RunPanel > #run-report > #run-charts {
        height: auto;
    }
    RunPanel > #run-output {
        height: 1fr;
        display: none;
        border: round $panel;
        border-title-color: $text-muted;
    }
    RunPanel.-running > #run-output,
    RunPanel.-done > #run-output {
        display: block;
    }
    RunPanel.-done > #run-report {
        display: block;
    }
    RunPanel.-done > #run-output {
        height: auto;
        max-height: 12;
    }
    """

    state: reactive[str] = reactive("idle")

    def __init__(self, **kwargs: object) -> None:
        """Create an idle panel.

        Args:
            **kwargs: Passed on to `Vertical`.
        """
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.recipe: Recipe | None = None
        self.result: RunResult | None = None
        self.failure: tuple[str, str] | None = None  # (kind, message) when no result came
        self._device = "auto"
        self._lang = "en"
        self._composed = False
        self._pending_output: list[str] = []  # output received before the Log existed
        self._charts_shown: tuple[int, str] | None = None  # (result id, language) drawn

    def compose(self) -> ComposeResult:
        """Status, report and output."""
        yield Static(id="run-status")
        with VerticalScroll(id="run-report"):
            yield ErrorPanel(id="run-error")
            # Observations, the charts below them, then the checks and the verdict: the
            # order `pitfalls run` prints them in.
            yield Static(id="run-result")
            yield Vertical(id="run-charts")
            yield Static(id="run-checks")
        yield Log(id="run-output", highlight=False, auto_scroll=True)

    def on_mount(self) -> None:
        """Follow the app's language (its watcher shows the state now); write held output."""
        self._composed = True
        self.watch(self.app, "lang", self._language_changed)
        if self._pending_output:
            self.query_one("#run-output", Log).write("".join(self._pending_output))
            self._pending_output.clear()

    def watch_state(self, state: str) -> None:
        """Let CSS show what belongs to the state."""
        for name in ("idle", "running", "done"):
            self.set_class(state == name, f"-{name}")

    def _language_changed(self, lang: str) -> None:
        self._lang = lang
        self.query_one("#run-output", Log).border_title = t("run.output", lang)
        self._refresh_view()

    def show_recipe(self, recipe: Recipe) -> None:
        """Point the idle panel at `recipe` (a finished run of another recipe stays shown).

        Args:
            recipe: The recipe that `r` would run.
        """
        if self.state == "idle":
            self.recipe = recipe
            self._refresh_view()

    def start(self, recipe: Recipe, device: str) -> None:
        """Clear the panel for a new run.

        Args:
            recipe: The recipe about to run.
            device: The device it runs on, as chosen.
        """
        self.recipe = recipe
        self.result = None
        self.failure = None
        self._device = device
        self._pending_output.clear()
        if self._composed:
            self.query_one("#run-output", Log).clear()
        self.state = "running"
        self._refresh_view()

    def append_output(self, text: str) -> None:
        """Stream a chunk of the snippet's output.

        Args:
            text: Output, not necessarily whole lines.
        """
        if self._composed:
            self.query_one("#run-output", Log).write(text)
        else:
            self._pending_output.append(text)

    def finish(self, result: RunResult) -> None:
        """Show a run's result.

        Args:
            result: The result, possibly carrying an error.
        """
        self.result = result
        self.state = "done"
        self._refresh_view()

    def fail(self, kind: str, message: str) -> None:
        """Show a run that produced no result at all.

        Args:
            kind: Why, such as `torch_missing`.
            message: What happened, in one line.
        """
        self.failure = (kind, message)
        self.state = "done"
        self._refresh_view()

    @property
    def cancelled(self) -> bool:
        """Whether the last run ended because the user cancelled it."""
        return bool(self.result and (self.result.error or {}).get("kind") == "cancelled")

    def _refresh_view(self) -> None:
        if not self._composed:  # on_mount shows the state
            return
        # lazy: rendering (and Rich) only when printing for a terminal
        from pitfalls.render.results import result_head, result_tail

        status = self.query_one("#run-status", Static)
        error_panel = self.query_one("#run-error", ErrorPanel)
        result_view = self.query_one("#run-result", Static)
        checks_view = self.query_one("#run-checks", Static)
        lang = self._lang
        if self.state == "idle":
            key = "tui.idle" if self.recipe is not None else "tui.open_first"
            status.update(t(key, lang, id=self.recipe.id if self.recipe else ""))
            return
        if self.state == "running":
            assert self.recipe is not None
            running = t("run.running", lang, id=self.recipe.id, device=self._device)
            status.update(f"{running}  {t('tui.running', lang)}")
            error_panel.clear()
            result_view.update("")
            checks_view.update("")
            self._show_charts(None)
            return
        error_panel.clear()
        result_view.update("")
        checks_view.update("")
        if self.failure is not None:
            self._show_charts(None)
            kind, message = self.failure
            status.update("")
            error_panel.show_error(kind, message, "", lang)
            return
        result = self.result
        assert result is not None
        error = result.error or {}
        if self.cancelled:
            status.update(t("tui.cancelled", lang))
            self._show_charts(None)
            return
        status.update(t("tui.idle", lang, id=result.recipe.id))
        if error:
            detail = snippet_trace(error.get("traceback") or "")
            if not detail and result.output.strip():
                detail = "\n".join(result.output.rstrip().splitlines()[-15:])
            error_panel.show_error(
                error.get("kind", "error"), error.get("message", ""), detail, lang
            )
        result_view.update(result_head(result, lang))
        self._show_charts(result)
        checks_view.update(result_tail(result, lang))

    def _show_charts(self, result: RunResult | None) -> None:
        """Mount a ChartView per chart of `result` (none for None), in the panel's language;
        kept as they are when the result and language have not changed."""
        # lazy: rendering (and Rich) only when printing for a terminal
        from pitfalls.render.charts import charts_for

        shown = None if result is None else (id(result), self._lang)
        if shown == self._charts_shown:
            return
        self._charts_shown = shown
        container = self.query_one("#run-charts", Vertical)
        container.remove_children()
        charts = charts_for(result, self._lang) if result is not None else []
        if not charts:
            return
        try:
            # Deferred: textual-plotext and plotext cost about 60 ms, paid at the first chart.
            # lazy: the TUI and Textual only when the TUI opens
            from pitfalls.tui.widgets.chart_view import ChartView
        except ImportError as err:
            container.mount(Static(t("chart.unavailable", self._lang, error=err)))
            return
        container.mount_all(ChartView(chart) for chart in charts)
