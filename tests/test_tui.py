"""Pilot tests of the TUI, one per flow: filter, open, language, run, cancel, error, verify.

Most tests use the fixture recipes under tests/fixtures/tui_recipes and a fake runner; the
ones marked `slow` run real snippets in child processes on the CPU.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pitfalls.catalogue.registry import Registry, Source
from pitfalls.doctor import Check
from pitfalls.runner import RunnerUnavailable
from pitfalls.tui.app import PitfallsApp
from pitfalls.tui.backend import DeviceReport
from pitfalls.tui.fakes import FakeDoctor, FakeRunner
from pitfalls.tui.screens.doctor import in_report_order
from pitfalls.tui.screens.help import HelpScreen
from pitfalls.tui.widgets.device_bar import DeviceBar
from pitfalls.tui.widgets.error_panel import ErrorPanel
from pitfalls.tui.widgets.filter_input import FilterInput
from pitfalls.tui.widgets.prose_view import ProseView
from pitfalls.tui.widgets.recipe_list import RecipeList
from pitfalls.tui.widgets.recipe_view import RecipeView
from pitfalls.tui.widgets.run_panel import RunPanel
from pitfalls.tui.widgets.tag_select import TagSelect
from pitfalls.tui.widgets.verify_panel import VerifyPanel

FIXTURES = Path(__file__).parent / "fixtures" / "tui_recipes"
SIZE = (100, 32)
HELD = {"half-overflow": {"problem": {"is_finite": False}, "fix": {"is_finite": True}}}


def fixture_registry() -> Registry:
    """The three fixture recipes, independent of edits to the built-ins."""
    return Registry.load([Source(FIXTURES, "fixtures")])


def make_app(lang: str = "en", **kwargs: object) -> PitfallsApp:
    kwargs.setdefault("registry", fixture_registry())
    kwargs.setdefault("runner", FakeRunner(HELD))
    return PitfallsApp(lang=lang, **kwargs)  # type: ignore[arg-type]


async def settle(app: PitfallsApp, pilot) -> None:
    """Wait for workers (probe, prose index, runs) and the messages they post."""
    await app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


def shown_ids(app: PitfallsApp) -> list[str]:
    return [r.id for r in app.screen.query_one(RecipeList).shown]


async def test_first_screen_lists_every_recipe() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert shown_ids(app) == ["half-overflow", "tui-raise", "tui-sleep"]
        assert isinstance(app.focused, RecipeList)
        assert app.screen.query_one(ProseView).recipe is None


def option_ids(app: PitfallsApp) -> list[str]:
    return [option.id for option in app.screen.query_one(RecipeList).options]


async def test_recipes_are_grouped_by_theme_and_fold_from_the_keyboard() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        recipes = app.screen.query_one(RecipeList)
        # THEMES order; recipes without a theme last, under their own heading.
        assert option_ids(app) == [
            "theme:numerics",
            "half-overflow",
            "theme:",
            "tui-raise",
            "tui-sleep",
        ]
        assert str(recipes.get_option("theme:numerics").prompt).endswith("Losses and numerics  1")
        assert str(recipes.get_option("theme:").prompt).endswith("No theme  2")
        assert recipes.highlighted_recipe.id == "half-overflow"  # the cursor starts on a recipe
        await pilot.press("left")  # folds the cursor's theme and moves to its heading
        assert option_ids(app) == ["theme:numerics", "theme:", "tui-raise", "tui-sleep"]
        assert recipes.highlighted_theme == "numerics"
        await pilot.press("enter")  # on a heading, Enter unfolds (and opens nothing)
        await pilot.pause()
        assert "half-overflow" in option_ids(app)
        assert app.screen.query_one(ProseView).recipe is None
        await pilot.press("left", "down", "down", "left")  # fold numerics, then "no theme"
        assert option_ids(app) == ["theme:numerics", "theme:"]
        await pilot.press("right")  # unfolds the heading under the cursor
        assert option_ids(app) == ["theme:numerics", "theme:", "tui-raise", "tui-sleep"]
        await pilot.press("f")  # folds all
        assert option_ids(app) == ["theme:numerics", "theme:"]
        assert shown_ids(app) == ["half-overflow", "tui-raise", "tui-sleep"]  # all still match
        await pilot.press("f")  # every theme folded: unfolds all
        assert len(option_ids(app)) == 5


async def test_the_filter_searches_folded_themes_and_opening_unfolds() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f")
        assert option_ids(app) == ["theme:numerics", "theme:"]
        app.open_recipe("tui-sleep")  # the palette's jump: its theme unfolds, the cursor on it
        await pilot.pause()
        recipes = app.screen.query_one(RecipeList)
        assert recipes.highlighted_recipe.id == "tui-sleep"
        assert option_ids(app) == ["theme:numerics", "theme:", "tui-raise", "tui-sleep"]
        await pilot.press("f", "slash", *"overflow")
        assert option_ids(app) == ["theme:numerics", "half-overflow"]
        await pilot.press("enter")  # opens the first match
        await pilot.pause()
        assert app.screen.query_one(RecipeView).recipe.id == "half-overflow"


async def test_the_first_screen_shows_themes_search_and_keys_in_both_languages() -> None:
    from rich.console import Console

    from pitfalls.tui.widgets.welcome import Welcome

    def text_of(welcome: Welcome) -> str:
        console = Console(width=80, record=True, file=open(os.devnull, "w"))
        console.print(welcome.content)
        return console.export_text()

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        welcome = app.screen.query_one(Welcome)
        english = text_of(welcome)
        assert "3 PyTorch pitfalls" in english
        assert "1  Losses and numerics" in english and "2  No theme" in english
        assert "paste" in english and "traceback" in english and "fold" in english
        await pilot.press("l")
        await pilot.pause()
        chinese = text_of(welcome)
        assert "共 3 个" in chinese and "1  损失函数与数值" in chinese and "2  未分类" in chinese
        assert "粘贴" in chinese
        await pilot.press("enter")  # opening a recipe replaces the welcome with its prose
        await pilot.pause()
        assert not app.screen.query(Welcome)


async def test_filter_matches_ids_titles_chinese_and_prose() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        assert isinstance(app.focused, FilterInput)
        await pilot.press(*"fp16")  # an alias
        assert shown_ids(app) == ["half-overflow"]
        filter_box = app.screen.query_one(FilterInput)
        filter_box.value = "溢出"  # Chinese title
        await pilot.pause()
        assert shown_ids(app) == ["half-overflow"]
        filter_box.value = "累加"  # only in zh.md: needs the prose index
        await pilot.pause()
        assert shown_ids(app) == ["half-overflow"]
        filter_box.value = "snippet that"
        await pilot.pause()
        assert shown_ids(app) == ["tui-raise", "tui-sleep"]
        filter_box.value = "no such thing"
        await pilot.pause()
        assert shown_ids(app) == []
        await pilot.press("escape")
        assert isinstance(app.focused, RecipeList)


async def test_letters_typed_in_the_filter_never_trigger_bindings() -> None:
    runner = FakeRunner(HELD)
    app = make_app(runner=runner)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", "r", "l", "d", "v", "c", "f", "e", "question_mark")
        await settle(app, pilot)
        assert app.screen.query_one(FilterInput).value == "rldvcfe?"
        assert app.lang == "en"
        assert runner.runs == []
        assert not isinstance(app.screen, HelpScreen)
        from pitfalls.tui.screens.doctor import DoctorScreen

        assert not isinstance(app.screen, DoctorScreen)


async def test_filter_by_tag() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.screen.query_one(TagSelect).value = "test"
        await pilot.pause()
        assert shown_ids(app) == ["tui-raise", "tui-sleep"]
        app.screen.query_one(TagSelect).value = ""
        await pilot.pause()
        assert len(shown_ids(app)) == 3


async def test_open_shows_prose_snippet_and_metadata() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")
        await pilot.pause()
        view = app.screen.query_one(RecipeView)
        assert view.recipe is not None and view.recipe.id == "half-overflow"
        assert view.active_tab == "prose"
        await pilot.press("tab")  # focus moves on; the tabs are reachable by keyboard
        view.active_tab = "snippet"
        await pilot.pause()
        view.active_tab = "info"
        await pilot.pause()
        from pitfalls.tui.widgets.info_view import InfoView

        assert app.screen.query_one(InfoView).recipe is view.recipe


async def test_switching_language_relabels_the_whole_ui() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("enter", "l")
        await pilot.pause()
        assert app.lang == "zh"
        screen = app.screen
        from textual.widgets import TabbedContent

        tabs = screen.query_one(TabbedContent)
        assert tabs.get_tab("prose").label.plain == "正文"
        assert screen.query_one(FilterInput).placeholder == "筛选条目（/）"
        descriptions = {b.id: b.description for _, b in screen._bindings if b.id}
        assert descriptions["run"] == "运行"
        prose = screen.query_one(ProseView)
        assert "溢出" in prose.query_one("Markdown")._markdown
        recipes = screen.query_one(RecipeList)
        assert "溢出" in str(recipes.get_option("half-overflow").prompt)
        assert "损失函数与数值" in str(recipes.get_option("theme:numerics").prompt)
        from pitfalls.tui.widgets.tag_select import TagSelect

        assert screen.query_one(TagSelect)._options[0][0] == "全部标签"
        await pilot.press("l")
        assert app.lang == "en"
        await pilot.pause()
        assert screen.query_one(TagSelect)._options[0][0] == "all tags"


async def test_help_lists_bindings_and_closes() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        ids = [binding_id for _, binding_id in app.screen.keys]
        for wanted in (
            "run",
            "cancel",
            "lang",
            "device",
            "help",
            "verify",
            "filter",
            "fold",
            "doctor",
            "quit",
        ):
            assert wanted in ids
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_device_chooser_marks_and_skips_unavailable_devices() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        bar = app.screen.query_one(DeviceBar)
        assert bar.device == "auto"
        await pilot.press("d")
        assert bar.device == "cpu"
        await pilot.press("d")  # cuda and mps are absent from the fake report
        assert bar.device == "auto"
        from textual.widgets import Select

        labels = [str(prompt) for prompt, _ in bar.query_one(Select)._options]
        assert "cuda (unavailable)" in labels and "cpu" in labels


async def test_fake_run_shows_the_result() -> None:
    runner = FakeRunner(HELD)
    app = make_app(runner=runner)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        panel = app.screen.query_one(RunPanel)
        assert runner.runs == [("half-overflow", "auto")]
        assert panel.result is not None and panel.result.status == "held"
        assert app.screen.query_one(RecipeView).active_tab == "run"


async def test_run_without_torch_shows_an_error_panel_and_carries_on() -> None:
    class NoTorch(FakeRunner):
        def run(self, recipe, device, on_output):
            raise RunnerUnavailable("torch_missing", "torch cannot be imported")

    app = make_app(runner=NoTorch())
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        panel = app.screen.query_one(ErrorPanel)
        assert panel.has_class("-shown")
        assert "torch" in str(panel.render())
        await pilot.press("down", "r")  # still usable
        await settle(app, pilot)
        assert app.screen.query_one(RunPanel).failure is not None


async def test_fake_cancel() -> None:
    runner = FakeRunner(HELD, block=True)
    app = make_app(runner=runner)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await pilot.pause()
        assert app.screen.busy == "run"
        await pilot.press("r")  # a second run is refused while one is going
        await pilot.press("c")
        await settle(app, pilot)
        panel = app.screen.query_one(RunPanel)
        assert panel.cancelled
        assert app.screen.busy is None
        assert len(runner.runs) == 1


async def test_verify_reports_progress() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("v")
        await settle(app, pilot)
        panel = app.screen.query_one(VerifyPanel)
        assert [r.recipe.id for r in panel.results] == ["half-overflow", "tui-raise", "tui-sleep"]
        assert panel.report is not None and panel.report.counts()["held"] == 1
        assert app.screen.query_one(RecipeView).active_tab == "verify"


async def test_palette_opens_and_runs_a_recipe() -> None:
    runner = FakeRunner(HELD)
    app = make_app(runner=runner)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"raise")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.query_one(RecipeView).recipe.id == "tui-raise"
        app.open_recipe("half-overflow", run=True)
        await settle(app, pilot)
        assert runner.runs == [("half-overflow", "auto")]


async def test_small_terminal_and_resize() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert app.screen.query_one(RecipeList).region.width >= 24


async def test_quit_closes_the_runner() -> None:
    runner = FakeRunner(HELD)
    app = make_app(runner=runner)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+q")
    assert runner.closed


def test_device_report_parses_the_probe() -> None:
    report = DeviceReport.from_devices(["cpu", "cuda:0 (NVIDIA H200)"], "2.5.0")
    assert report.is_available("cuda:1") and report.is_available("auto")
    assert not report.is_available("mps")
    assert report.names == {"cuda": "NVIDIA H200"}
    assert not DeviceReport(problem="no torch").is_available("cpu")


def test_importing_the_app_does_not_import_torch() -> None:
    code = (
        "import sys, pitfalls.tui.app, pitfalls.tui.backend;"
        "assert 'torch' not in sys.modules, 'torch was imported';"
        "print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


# -- real runs in child processes ----------------------------------------------------------


def real_app(lang: str = "en") -> PitfallsApp:
    from pitfalls.tui.backend import ProcessRunner

    return PitfallsApp(lang=lang, registry=fixture_registry(), runner=ProcessRunner(timeout=60))


async def wait_until(pilot, condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the TUI"
        await pilot.pause(0.1)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie has exited; only its parent has not reaped it yet.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
async def test_real_run_on_cpu() -> None:
    pytest.importorskip("torch")
    app = real_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("d")  # auto -> cpu once the probe has answered, else stays valid
        await pilot.press("r")
        panel = app.screen.query_one(RunPanel)
        await wait_until(pilot, lambda: panel.state == "done")
        assert panel.result is not None, panel.failure
        assert panel.result.status == "held", panel.result.error
        assert "float16: inf" in panel.result.output


@pytest.mark.slow
async def test_real_cancel_ends_the_child(tmp_path, monkeypatch) -> None:
    pytest.importorskip("torch")
    pid_file = tmp_path / "pid"
    monkeypatch.setenv("PITFALLS_TUI_TEST_PIDFILE", str(pid_file))
    app = real_app()
    async with app.run_test(size=SIZE) as pilot:
        app.open_recipe("tui-sleep", run=True)
        await wait_until(pilot, pid_file.exists)
        await wait_until(pilot, lambda: bool(pid_file.read_text()))
        pid = int(pid_file.read_text())
        assert pid_alive(pid)
        await pilot.press("c")
        panel = app.screen.query_one(RunPanel)
        await wait_until(pilot, lambda: panel.state == "done", timeout=20)
        assert panel.cancelled
        await wait_until(pilot, lambda: not pid_alive(pid), timeout=10)
        # The pool is still usable after a cancel.
        app.open_recipe("half-overflow", run=True)
        await wait_until(pilot, lambda: panel.state == "done" and not panel.cancelled)
        assert panel.result is not None and panel.result.status == "held"


@pytest.mark.slow
async def test_real_error_shows_the_error_panel() -> None:
    pytest.importorskip("torch")
    app = real_app("zh")
    async with app.run_test(size=SIZE) as pilot:
        app.open_recipe("tui-raise", run=True)
        panel = app.screen.query_one(RunPanel)
        await wait_until(pilot, lambda: panel.state == "done")
        error = app.screen.query_one(ErrorPanel)
        assert error.has_class("-shown")
        assert "boom from the tui-raise fixture" in str(error.render())
        assert error.border_title == "运行失败"
        await pilot.press("l")  # the app carries on
        assert app.lang == "en"


@pytest.mark.slow
async def test_quitting_mid_run_leaves_no_child(tmp_path, monkeypatch) -> None:
    pytest.importorskip("torch")
    pid_file = tmp_path / "pid"
    monkeypatch.setenv("PITFALLS_TUI_TEST_PIDFILE", str(pid_file))
    app = real_app()
    started = time.monotonic()
    async with app.run_test(size=SIZE) as pilot:
        app.open_recipe("tui-sleep", run=True)
        await wait_until(pilot, lambda: pid_file.exists() and bool(pid_file.read_text()))
        pid = int(pid_file.read_text())
        await pilot.press("ctrl+q")
    deadline = time.monotonic() + 10
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not pid_alive(pid)
    assert time.monotonic() - started < 45  # quitting did not wait for the 60 s sleep


@pytest.mark.slow
async def test_real_run_of_a_builtin_recipe() -> None:
    pytest.importorskip("torch")
    registry = Registry.load(packs=False)
    if "detach" not in registry.recipes:
        pytest.skip("the built-in detach recipe is not present")
    from pitfalls.tui.backend import ProcessRunner

    app = PitfallsApp(lang="en", registry=registry, runner=ProcessRunner(timeout=120))
    async with app.run_test(size=SIZE) as pilot:
        app.open_recipe("detach", run=True)
        panel = app.screen.query_one(RunPanel)
        await wait_until(pilot, lambda: panel.state == "done", timeout=120)
        assert panel.result is not None, panel.failure
        assert panel.result.status in ("held", "claim_failed"), panel.result.error


@pytest.mark.slow
async def test_a_hang_times_out_with_a_resize_mid_run(tmp_path, monkeypatch) -> None:
    pytest.importorskip("torch")
    from pitfalls.tui.backend import ProcessRunner

    pid_file = tmp_path / "pid"
    monkeypatch.setenv("PITFALLS_TUI_TEST_PIDFILE", str(pid_file))
    app = PitfallsApp(lang="en", registry=fixture_registry(), runner=ProcessRunner(timeout=3))
    async with app.run_test(size=SIZE) as pilot:
        app.open_recipe("tui-sleep", run=True)
        await wait_until(pilot, lambda: pid_file.exists() and bool(pid_file.read_text()))
        pid = int(pid_file.read_text())
        await pilot.resize_terminal(80, 24)  # the layout reflows while the child runs
        await pilot.pause()
        await pilot.resize_terminal(*SIZE)
        panel = app.screen.query_one(RunPanel)
        await wait_until(pilot, lambda: panel.state == "done", timeout=30)
        error = app.screen.query_one(ErrorPanel)
        assert error.has_class("-shown")
        assert "timed out after 3 s" in str(error.render())
        assert not pid_alive(pid)
        await pilot.press("l")  # the app carries on
        assert app.lang == "zh"


TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/home/me/train.py", line 42, in <module>\n'
    "    loss.backward()\n"
    "RuntimeError: one of the variables needed for gradient computation has been modified by "
    "an inplace operation: [torch.FloatTensor [4]], which is output 0 of SigmoidBackward0, is "
    "at version 1; expected version 0 instead.\n"
)


async def test_a_pasted_traceback_ranks_with_the_search() -> None:
    from textual import events

    from pitfalls.catalogue.registry import builtin_dir

    app = make_app(registry=Registry.load([Source(builtin_dir(), "built-in")]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        filter_box = app.screen.query_one(FilterInput)
        filter_box.post_message(events.Paste(TRACEBACK))
        await pilot.pause()
        await pilot.pause()
        # Input alone would keep "Traceback (most recent call last):"; the box shows the error
        # line alone (Input's own paste handler must not append to it) and keeps the paste.
        assert filter_box.value.startswith("RuntimeError: one of the variables")
        assert "Traceback" not in filter_box.value
        assert filter_box.pasted == TRACEBACK and filter_box.query_text == TRACEBACK
        assert shown_ids(app)[0] == "inplace-autograd"
        # Typing over the paste goes back to plain filtering.
        filter_box.value = "focal"
        await pilot.pause()
        assert filter_box.pasted == ""
        assert "focal-loss" in shown_ids(app) and "inplace-autograd" not in shown_ids(app)


async def test_a_one_line_paste_is_pasted_once() -> None:
    from textual import events

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        filter_box = app.screen.query_one(FilterInput)
        filter_box.post_message(events.Paste("focal"))
        await pilot.pause()
        await pilot.pause()
        assert filter_box.value == "focal" and filter_box.pasted == ""


async def test_a_typed_sentence_without_substring_match_is_searched() -> None:
    from pitfalls.catalogue.registry import builtin_dir

    app = make_app(registry=Registry.load([Source(builtin_dir(), "built-in")]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.screen.query_one(FilterInput).value = "验证集结果每次都不一样"
        await pilot.pause()
        assert shown_ids(app)[0] == "train-eval"


# -- the environment checks (`e`) ----------------------------------------------------------

DOCTOR_CHECKS = [
    Check("cuda", "ok", "CUDA 12.4, 1 device", "", ""),
    Check(
        "numpy-abi",
        "problem",
        "NumPy 2.1 with a torch built against NumPy 1",
        "pip install 'numpy<2'",
        "numpy-abi-mismatch",
    ),
    Check(
        "shm", "warning", "/dev/shm is 64 MB", "run the container with --shm-size=8g", "tui-sleep"
    ),
]


def check_rows(app: PitfallsApp) -> list[str]:
    from textual.widgets import OptionList

    options = app.screen.query_one("#doctor-checks", OptionList).options
    return [str(o.prompt).split("\n")[0] for o in options]


async def test_doctor_shows_loading_then_the_checks_and_opens_a_recipe() -> None:
    from textual.widgets import Static

    from pitfalls.tui.screens.doctor import DoctorScreen

    doctor = FakeDoctor(DOCTOR_CHECKS, block=True)
    app = make_app(doctor=doctor)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("e")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DoctorScreen)
        status = screen.query_one("#doctor-status", Static)
        assert "Checking the environment" in str(status.content)  # painted before the probe
        assert check_rows(app) == [] and screen.checks is None
        doctor.release()
        await settle(app, pilot)
        assert "1 problem(s), 1 warning(s)" in str(status.content)
        rows = check_rows(app)
        assert rows == [
            "torch and devices",
            "✓ cuda",
            "libraries",
            "✗ numpy-abi  problem",
            "system",
            "! shm  warning",
        ]
        await pilot.press("down", "down")  # the headings are skipped: cuda, numpy-abi, shm
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        assert not isinstance(app.screen, DoctorScreen)
        assert app.screen.query_one(RecipeView).recipe.id == "tui-sleep"
        # A recipe this catalogue lacks: a notice, nothing opened, the app carries on.
        await pilot.press("e")
        await settle(app, pilot)
        await pilot.press("down", "enter")
        await pilot.pause()
        assert not isinstance(app.screen, DoctorScreen)
        assert app.screen.query_one(RecipeView).recipe.id == "tui-sleep"
        assert any("numpy-abi-mismatch" in n.message for n in app._notifications)
        assert doctor.calls == 2


async def test_doctor_runs_the_real_checks_on_a_fake_probe(tmp_path) -> None:
    from pitfalls.doctor import Probe, System, run_checks

    system = System(
        root=tmp_path,
        env={},
        platform="linux",
        machine="x86_64",
        cwd=tmp_path,
        cpu_count=4,
        run=lambda argv, timeout: None,
        nofile=lambda: (65536, 65536),
        fs_size=lambda path: None,
    )
    probe = Probe("no_torch", detail="No module named 'torch'")
    expected = run_checks(system, probe)
    assert expected  # the report below must have rows to compare
    app = make_app(doctor=FakeDoctor(system=system, probe=probe))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        assert app.screen.checks == expected
        rows = [row for row in check_rows(app) if row[:1] in "✓✗!?"]
        assert [row.split()[1] for row in rows] == [
            c.id for _, members in in_report_order(expected) for c in members
        ]
        await pilot.press("escape")
        assert app.screen.query(RecipeList)  # back on the main screen


async def test_a_failing_doctor_says_why_and_the_app_carries_on() -> None:
    from textual.widgets import Static

    def broken() -> list:
        raise RuntimeError("no interpreter at /nowhere/python")

    app = make_app(doctor=broken)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        status = app.screen.query_one("#doctor-status", Static)
        assert "no interpreter at /nowhere/python" in str(status.content)
        await pilot.press("escape", "l")
        assert app.lang == "zh"


@pytest.mark.slow
async def test_real_doctor_probes_torch_in_a_child() -> None:
    pytest.importorskip("torch")
    import sys as _sys

    from pitfalls.doctor import STATUSES
    from pitfalls.tui.screens.doctor import DoctorScreen

    app = make_app()  # the real checks: a child of this interpreter imports torch
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("e")
        screen = app.screen
        assert isinstance(screen, DoctorScreen)
        await wait_until(pilot, lambda: screen.checks is not None, timeout=120)
        assert screen.checks and {c.status for c in screen.checks} <= set(STATUSES)
        done = subprocess.run(
            [
                _sys.executable,
                "-c",
                "import sys, pitfalls.tui.screens.doctor; print('torch' in sys.modules)",
            ],
            capture_output=True,
            text=True,
        )
        assert done.stdout.strip() == "False"  # the screen itself never imports torch
