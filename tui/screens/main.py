"""The main screen: the filterable recipe list on the left, the open recipe on the right.

Everything that blocks (the device probe, reading prose for the filter, runs, verify) runs in
a thread worker that posts a message from `pitfalls.tui.messages` back to this screen.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Select, Static
from textual.worker import get_current_worker

from pitfalls.catalogue.model import LANGS
from pitfalls.i18n import t
from pitfalls.tui import messages
from pitfalls.tui.localise import localise_bindings
from pitfalls.tui.widgets.device_bar import DeviceBar
from pitfalls.tui.widgets.filter_input import FilterInput
from pitfalls.tui.widgets.recipe_list import RecipeList
from pitfalls.tui.widgets.recipe_view import RecipeView
from pitfalls.tui.widgets.tag_select import TagSelect

if TYPE_CHECKING:
    from pitfalls.catalogue.model import Recipe
    from pitfalls.tui.app import PitfallsApp

# The longest the start-up workers wait for the first frame before starting anyway, and how
# often they look whether the app was quit meanwhile (seconds).
FIRST_PAINT_WAIT = 1.0
FIRST_PAINT_POLL = 0.02


class MainScreen(Screen[None]):
    """Browse, read and run recipes."""

    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", id="filter"),
        Binding("escape", "leave_filter", "Leave filter", id="leave", show=False),
        Binding("r", "run_recipe", "Run", id="run"),
        Binding("c", "cancel_run", "Cancel run", id="cancel"),
        Binding("d", "cycle_device", "Device", id="device"),
        Binding("t", "focus_tags", "Tag", id="tag", show=False),
        Binding("v", "verify_all", "Verify all", id="verify"),
        Binding("f", "toggle_folds", "Fold all", id="fold"),
        Binding("e", "show_doctor", "Environment", id="doctor"),
    ]

    def __init__(self) -> None:
        """Create the screen; the app holds the registry and the runner."""
        super().__init__()
        self.busy: str | None = None  # "run" or "verify" while a worker runs snippets
        # Set once the first frame is out; the probe and the prose index wait for it.
        self._first_paint = threading.Event()

    @property
    def pitfalls_app(self) -> PitfallsApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        """Header, sidebar (filter, tags, list, count), device bar and tabs, footer."""
        recipes = list(self.pitfalls_app.registry)
        tags = sorted({tag for recipe in recipes for tag in recipe.tags})
        yield Header(icon="")
        with Horizontal(id="body"):
            with Vertical(id="sidebar"):
                yield FilterInput(id="filter")
                yield TagSelect(tags, id="tags")
                yield RecipeList(recipes, id="recipes")
                yield Static(id="count")
            with Vertical(id="detail"):
                yield DeviceBar(id="devices")
                yield RecipeView(id="view")
        yield Footer()

    def on_mount(self) -> None:
        """Start the probe and the prose indexing; focus the list."""
        self.watch(self.app, "lang", self._language_changed)
        self.query_one(RecipeList).focus()
        # Started now, so that `workers.wait_for_complete()` sees them, but they wait for the
        # first frame: the probe's child (importing torch) and reading prose took CPU and the
        # GIL from it, 50-130 ms later on a two-core machine.
        self.probe_devices()
        self.index_prose()

    def first_frame_shown(self) -> None:
        """Called by the app on Textual's Ready (its first frame is out): collect garbage as
        usual, fill the hidden tabs, and let the waiting workers start."""
        # lazy: start-up state, only where a command began
        from pitfalls._startup import restore_gc

        restore_gc()
        self.query_one(RecipeView).fill_deferred_panes()
        self._first_paint.set()

    def _language_changed(self, lang: str) -> None:
        localise_bindings(self, lang)
        self.refresh_bindings()
        self.title = t("tui.title", lang)
        self.sub_title = t("tui.subtitle", lang)
        self._update_count()

    def _update_count(self) -> None:
        recipes = self.query_one(RecipeList)
        lang = self.pitfalls_app.lang
        total = len(self.pitfalls_app.registry)
        text = t("tui.count", lang, shown=len(recipes.shown), total=total)
        if not recipes.shown:
            text = f"{t('tui.no_match', lang)}\n{text}"
        self.query_one("#count", Static).update(text)

    # -- workers -----------------------------------------------------------------------

    def _wait_for_first_paint(self) -> bool:
        """Block this worker's thread until the first frame is out; False if cancelled."""
        worker = get_current_worker()
        waited = 0.0
        while not self._first_paint.wait(FIRST_PAINT_POLL) and waited < FIRST_PAINT_WAIT:
            if worker.is_cancelled:  # the app quit before its first frame
                return False
            waited += FIRST_PAINT_POLL
        return not worker.is_cancelled

    @work(thread=True, exclusive=True, exit_on_error=False, group="probe")
    def probe_devices(self) -> None:
        """Ask a child process which devices exist (the UI process never imports torch)."""
        if not self._wait_for_first_paint():
            return
        report = self.pitfalls_app.probe()
        self.post_message(messages.DevicesProbed(report))

    @work(thread=True, exclusive=True, exit_on_error=False, group="prose")
    def index_prose(self) -> None:
        """Read every recipe's prose after the first paint, so the filter can search it."""
        if not self._wait_for_first_paint():
            return
        texts = {}
        for recipe in self.pitfalls_app.registry:
            parts = [recipe.prose(lang) or "" for lang in LANGS]
            texts[recipe.id] = "\n".join(parts).casefold()
        self.post_message(messages.ProseIndexed(texts))

    @work(thread=True, exclusive=True, exit_on_error=False, group="run")
    def run_in_child(self, recipe: Recipe, device: str) -> None:
        """Run `recipe` on `device` in a child process, streaming its output here.

        Args:
            recipe: The recipe to run.
            device: auto, cpu, cuda or mps.
        """
        runner = self.pitfalls_app.runner

        def forward(text: str) -> None:
            self.post_message(messages.RunOutputReceived(recipe.id, text))

        try:
            result = runner.run(recipe, device, forward)
        except Exception as err:  # no torch, no interpreter, a broken runner: show, carry on
            kind = getattr(err, "kind", type(err).__name__)
            message = str(err)
            if kind == "torch_missing":
                python = getattr(runner, "python", None) or "python"
                message = (
                    f"{message}\n{t('err.torch_missing', self.pitfalls_app.lang, python=python)}"
                )
            self.post_message(messages.RunFailed(recipe.id, kind, message))
            return
        self.post_message(messages.RunFinished(result))

    @work(thread=True, exclusive=True, exit_on_error=False, group="verify")
    def verify_in_children(self, recipes: list[Recipe], device: str) -> None:
        """Run every recipe on `device`, posting each result as it lands.

        Args:
            recipes: The recipes to verify.
            device: auto, cpu, cuda or mps.
        """

        def forward(result: object) -> None:
            self.post_message(messages.VerifyProgressed(result))  # type: ignore[arg-type]

        try:
            report = self.pitfalls_app.runner.verify(recipes, device, forward)
        except Exception as err:  # a missing device or torch: say so in the panel
            reason = getattr(err, "reason", None) or str(err)
            self.post_message(messages.VerifyFinished(None, reason))
            return
        self.post_message(messages.VerifyFinished(report))

    # -- worker messages ---------------------------------------------------------------

    def on_devices_probed(self, message: messages.DevicesProbed) -> None:
        """Mark unavailable devices in the chooser."""
        self.pitfalls_app.device_report = message.report
        self.query_one(DeviceBar).set_report(message.report)

    def on_prose_indexed(self, message: messages.ProseIndexed) -> None:
        """Let the filter search prose too."""
        self.query_one(RecipeList).add_prose(message.texts)
        self._update_count()

    def on_run_output_received(self, message: messages.RunOutputReceived) -> None:
        """Stream output into the run panel."""
        self.query_one(RecipeView).run_panel.append_output(message.text)

    def on_run_finished(self, message: messages.RunFinished) -> None:
        """Show the result (or the error panel the result calls for)."""
        self.busy = None
        self.query_one(RecipeView).run_panel.finish(message.result)
        self.refresh_bindings()

    def on_run_failed(self, message: messages.RunFailed) -> None:
        """Show why nothing could run."""
        self.busy = None
        self.query_one(RecipeView).run_panel.fail(message.kind, message.message)
        self.refresh_bindings()

    def on_verify_progressed(self, message: messages.VerifyProgressed) -> None:
        """Add a row and advance the bar."""
        self.query_one(RecipeView).verify_panel.add_result(message.result)

    def on_verify_finished(self, message: messages.VerifyFinished) -> None:
        """Show the summary."""
        self.busy = None
        self.query_one(RecipeView).verify_panel.finish(message.report, message.problem)
        self.refresh_bindings()

    # -- widget messages ---------------------------------------------------------------

    @on(Input.Changed, "#filter")
    def _filter_changed(self) -> None:
        self._apply_filter()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self) -> None:
        # Enter in the filter opens the first match: type, Enter, read.
        recipes = self.query_one(RecipeList)
        recipe = recipes.highlighted_recipe
        recipes.focus()
        if recipe is not None:
            self.open(recipe)

    @on(Select.Changed, "#tags")
    def _tag_changed(self) -> None:
        self._apply_filter()

    def _apply_filter(self) -> None:
        tag = self.query_one(TagSelect).value
        query = self.query_one(FilterInput).query_text
        self.query_one(RecipeList).apply_filter(query, tag if isinstance(tag, str) else "")
        self._update_count()

    def on_recipe_list_recipe_selected(self, message: RecipeList.RecipeSelected) -> None:
        """Open the chosen recipe."""
        self.open(message.recipe)

    # -- methods called by the app and the palette --------------------------------------

    def open(self, recipe: Recipe) -> None:
        """Open `recipe` in the tabs and put the list's cursor on it.

        Args:
            recipe: The recipe to open.
        """
        self.query_one(RecipeView).open(recipe)
        self.query_one(RecipeList).select_recipe(recipe.id)
        self.sub_title = recipe.id

    def start_run(self, recipe: Recipe) -> None:
        """Run `recipe` on the chosen device, unless something is already running.

        Args:
            recipe: The recipe to run.
        """
        device = self._device_for_a_run()
        if device is None:
            return
        self.busy = "run"
        view = self.query_one(RecipeView)
        if view.recipe is None or view.recipe.id != recipe.id:
            self.open(recipe)
        view.run_panel.start(recipe, device)
        view.active_tab = "run"
        self.refresh_bindings()
        self.run_in_child(recipe, device)

    # -- actions -------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Show `cancel` only while something runs, so the footer says when it applies."""
        if action == "cancel_run":
            return self.busy is not None
        return True

    def action_focus_filter(self) -> None:
        """Focus the filter box."""
        self.query_one(FilterInput).focus()

    def action_leave_filter(self) -> None:
        """Leave the filter (or the tag chooser) for the list."""
        if isinstance(self.focused, (FilterInput, TagSelect)):
            self.query_one(RecipeList).focus()

    def action_toggle_folds(self) -> None:
        """Fold every theme of the list, or unfold them all when all are folded."""
        recipes = self.query_one(RecipeList)
        recipes.toggle_all()
        recipes.focus()

    def action_show_doctor(self) -> None:
        """Show the environment checks; a check's recipe chosen there opens here."""
        # lazy: the doctor's screen only when asked for
        from pitfalls.tui.screens.doctor import DoctorScreen

        self.app.push_screen(DoctorScreen(self.pitfalls_app.lang), self._doctor_closed)

    def _doctor_closed(self, recipe_id: str | None) -> None:
        if not recipe_id:
            return
        if recipe_id not in self.pitfalls_app.registry.recipes:
            lang = self.pitfalls_app.lang
            self.notify(t("tui.doctor.no_recipe", lang, id=recipe_id), severity="warning")
            return
        self.pitfalls_app.open_recipe(recipe_id)

    def action_focus_tags(self) -> None:
        """Open the tag chooser."""
        tags = self.query_one(TagSelect)
        tags.focus()
        tags.expanded = True

    def action_run_recipe(self) -> None:
        """Run the open recipe, or the one under the list's cursor."""
        recipe = self.query_one(RecipeView).recipe
        if self.focused is self.query_one(RecipeList) or recipe is None:
            recipe = self.query_one(RecipeList).highlighted_recipe or recipe
        if recipe is None:
            self.notify(t("tui.open_first", self.pitfalls_app.lang), severity="warning")
            return
        self.start_run(recipe)

    def action_cancel_run(self) -> None:
        """Cancel the run or verify in progress (the child's whole process group ends)."""
        if self.busy is None:
            self.notify(t("tui.nothing_to_cancel", self.pitfalls_app.lang))
            return
        self.pitfalls_app.runner.cancel()

    def _device_for_a_run(self) -> str | None:
        """The chosen device, or None (with a notice) when busy or the device is missing."""
        lang = self.pitfalls_app.lang
        if self.busy:
            self.notify(t("tui.busy", lang), severity="warning")
            return None
        device = self.query_one(DeviceBar).device
        report = self.pitfalls_app.device_report
        if report is not None and not report.is_available(device):
            message = report.problem or t("tui.device_unavailable", lang, device=device)
            self.notify(message, severity="error")
            return None
        return device

    def action_cycle_device(self) -> None:
        """Choose the next available device."""
        self.query_one(DeviceBar).cycle()

    def action_verify_all(self) -> None:
        """Verify every recipe of the catalogue on the chosen device."""
        device = self._device_for_a_run()
        if device is None:
            return
        recipes = list(self.pitfalls_app.registry)
        self.busy = "verify"
        view = self.query_one(RecipeView)
        view.verify_panel.start(len(recipes), device)
        view.active_tab = "verify"
        self.refresh_bindings()
        self.verify_in_children(recipes, device)
