"""The pitfalls Textual app: browse, search, read and run recipes from the keyboard.

The app holds what every screen shares (registry, runner, language, device report); the main
screen does the work. Snippets run in child processes through the runner: this process never
imports torch.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive

from pitfalls.i18n import SUPPORTED, choose_language
from pitfalls.tui.commands import RecipeCommands
from pitfalls.tui.localise import localise_bindings
from pitfalls.tui.screens.main import MainScreen

if TYPE_CHECKING:
    from textual.screen import Screen

    from pitfalls.catalogue.registry import Registry
    from pitfalls.doctor import Check
    from pitfalls.tui.backend import DeviceReport, RecipeRunner


# Seconds the doctor's probe child may take to import torch and NumPy.
DOCTOR_PROBE_TIMEOUT = 60.0


def environment_checks(python: str | None) -> list[Check]:
    """`pitfalls doctor`'s checks for the interpreter `python` (None: this one); blocks while
    a child imports torch.

    Args:
        python: The snippet interpreter, as the runner was given it.
    """
    # lazy: the doctor's checks only when the environment is examined
    from pitfalls.doctor import System, run_checks, run_probe

    return run_checks(System(), run_probe(python, timeout=DOCTOR_PROBE_TIMEOUT))


class PitfallsApp(App[None]):
    """The TUI. Pass `registry`, `runner`, `probe` and `doctor` to replace the real ones (tests
    do)."""

    # Absolute, because Textual resolves a relative path against a subclass's own file.
    CSS_PATH = Path(__file__).with_name("app.tcss")
    TITLE = "pitfalls"
    COMMANDS = App.COMMANDS | {RecipeCommands}
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", id="quit", priority=True),
        Binding("question_mark", "help", "Help", id="help"),
        Binding("l", "toggle_language", "中文", id="lang"),
        # Declared here (Textual adds an English-only one otherwise) so the footer translates it.
        Binding("ctrl+p", "command_palette", "Commands", id="palette", show=False, priority=True),
    ]

    lang: reactive[str] = reactive("en", init=False)

    def __init__(
        self,
        lang: str | None = None,
        registry: Registry | None = None,
        runner: RecipeRunner | None = None,
        probe: Callable[[], DeviceReport] | None = None,
        doctor: Callable[[], list[Check]] | None = None,
    ) -> None:
        """Create the app.

        Args:
            lang: en or zh; None chooses as the CLI does (PITFALLS_LANG, LANGUAGE, LANG...).
            registry: The catalogue; None loads the built-ins, PITFALLS_PATH and packs.
            runner: Runs snippets; None uses child processes through `pitfalls.runner`.
            probe: Finds the devices; None asks the runner.
            doctor: Runs the environment checks (blocking; the doctor screen calls it in a
                worker); None probes the runner's interpreter as `pitfalls doctor` does.
        """
        super().__init__()
        if registry is None:
            # lazy: the catalogue is loaded only by a command that needs recipes
            from pitfalls.catalogue.registry import Registry

            registry = Registry.load()  # TOML only: prose is read lazily, after first paint
        if runner is None:
            # lazy: the TUI and Textual only when the TUI opens
            from pitfalls.tui.backend import ProcessRunner

            runner = ProcessRunner()
        self.registry = registry
        self.runner = runner
        self.probe = probe or runner.probe
        self.doctor = doctor or partial(environment_checks, getattr(runner, "python", None))
        self.device_report: DeviceReport | None = None
        self.set_reactive(PitfallsApp.lang, choose_language(lang))

    def get_default_screen(self) -> Screen[None]:
        """The main screen."""
        return MainScreen()

    @property
    def main_screen(self) -> MainScreen:
        """The main screen, wherever the screen stack is."""
        return next(s for s in self.screen_stack if isinstance(s, MainScreen))

    def on_mount(self) -> None:
        """Follow the language, report recipes that failed to load."""
        self.watch(self, "lang", self._language_changed)
        # lazy: the string tables only when a message is printed
        from pitfalls.i18n import t

        for problem in self.registry.problems:
            key = "err.load_warning" if problem.severity == "warning" else "err.load_problem"
            self.notify(
                t(key, self.lang, path=problem.path, reason=problem.reason),
                severity="warning",
                timeout=8,
            )

    def on_ready(self) -> None:
        """The first frame is out: the main screen may do what it put off until then."""
        screen = next((s for s in self.screen_stack if isinstance(s, MainScreen)), None)
        if screen is not None:
            screen.first_frame_shown()

    def _language_changed(self, lang: str) -> None:
        localise_bindings(self, lang)
        self.refresh_bindings()

    def on_unmount(self) -> None:
        """End every child process, so that quitting mid-run leaves nothing behind."""
        self.runner.close()

    async def action_quit(self) -> None:
        """Close the runner first, so that a worker blocked on a child returns at once."""
        self.runner.close()
        self.exit()

    def action_toggle_language(self) -> None:
        """Switch between English and Chinese."""
        self.lang = SUPPORTED[(SUPPORTED.index(self.lang) + 1) % len(SUPPORTED)]

    def action_help(self) -> None:
        """Show the bindings."""
        # lazy: the TUI and Textual only when the TUI opens
        from pitfalls.tui.screens.help import HelpScreen  # only when asked: keeps start-up lean

        if isinstance(self.screen, HelpScreen):
            return
        keys = []
        for node in (self, self.main_screen):
            for _key, binding in node._bindings:
                if binding.id:
                    keys.append((self.get_key_display(binding), binding.id))
        self.push_screen(HelpScreen(keys, self.lang))

    def open_recipe(self, recipe_id: str, run: bool = False) -> None:
        """Open a recipe by id, and run it when `run` is true (used by the palette).

        Args:
            recipe_id: The recipe's id.
            run: Also start a run on the chosen device.
        """
        recipe = self.registry.resolve(recipe_id)
        screen = self.main_screen
        screen.open(recipe)
        if run:
            screen.start_run(recipe)


def run_app(lang: str | None = None) -> None:
    """Run the TUI until the user quits.

    Args:
        lang: en or zh, or None to choose from the environment.
    """
    PitfallsApp(lang=lang).run()
