"""Snapshot tests of the TUI's main screens, in English and Chinese.

Stable by construction: the fixture recipes (not the built-ins, which others edit), a fake
runner and probe (no torch version, timing or GPU name), cursor blink off, workers awaited.
Regenerate with `pytest tests/test_tui_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from pitfalls.catalogue.registry import Registry, Source
from pitfalls.doctor import Check
from pitfalls.tui.app import PitfallsApp
from pitfalls.tui.fakes import FakeDoctor, FakeRunner

FIXTURES = Path(__file__).parent / "fixtures" / "tui_recipes"
SIZE = (100, 32)

RAISED_TRACE = (
    "Traceback (most recent call last):\n"
    '  File "snippet.py", line 5, in problem\n'
    '    raise ValueError("boom from the tui-raise fixture")\n'
    "ValueError: boom from the tui-raise fixture"
)
DOCUMENTS = {
    "half-overflow": {
        "problem": {"is_finite": False, "value": "inf"},
        "fix": {"is_finite": True, "value": "120000.0"},
    },
    "tui-raise": {
        "error": {
            "kind": "exception",
            "stage": "problem",
            "message": "ValueError: boom from the tui-raise fixture",
            "traceback": RAISED_TRACE,
        },
    },
    "tui-sleep": {"problem": {"slept": True}, "fix": {"slept": False}},
}


def make_app(lang: str) -> PitfallsApp:
    registry = Registry.load([Source(FIXTURES, "fixtures")])
    return PitfallsApp(lang=lang, registry=registry, runner=FakeRunner(DOCUMENTS))


async def steady(pilot) -> None:
    """No blinking cursor, no worker in flight, every message handled."""
    for widget in pilot.app.query(Input):
        widget.cursor_blink = False
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def driver(*keys: str, tab: str | None = None, open_id: str | None = None, run: bool = False):
    """A run_before that opens a recipe, presses keys and shows a tab."""

    async def run_before(pilot) -> None:
        await steady(pilot)
        if open_id:
            pilot.app.open_recipe(open_id, run=run)
            await steady(pilot)
        if keys:
            await pilot.press(*keys)
            await steady(pilot)
        if tab:
            from pitfalls.tui.widgets.recipe_view import RecipeView

            pilot.app.screen.query_one(RecipeView).active_tab = tab
            await steady(pilot)

    return run_before


LANGS = ["en", "zh"]


@pytest.mark.parametrize("lang", LANGS)
def test_start(snap_compare, lang: str) -> None:
    assert snap_compare(make_app(lang), terminal_size=SIZE, run_before=driver())


def test_start_small_terminal(snap_compare) -> None:
    assert snap_compare(make_app("en"), terminal_size=(80, 24), run_before=driver())


@pytest.mark.parametrize("lang", LANGS)
def test_folded_small_terminal(snap_compare, lang: str) -> None:
    """Every theme folded (`f`): the headings with their counts, on a narrow terminal."""
    assert snap_compare(make_app(lang), terminal_size=(80, 24), run_before=driver("f"))


@pytest.mark.parametrize("lang", LANGS)
def test_prose(snap_compare, lang: str) -> None:
    run_before = driver(open_id="half-overflow")
    assert snap_compare(make_app(lang), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("lang", LANGS)
def test_snippet(snap_compare, lang: str) -> None:
    run_before = driver(open_id="half-overflow", tab="snippet")
    assert snap_compare(make_app(lang), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("lang", LANGS)
def test_info(snap_compare, lang: str) -> None:
    run_before = driver(open_id="half-overflow", tab="info")
    assert snap_compare(make_app(lang), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("lang", LANGS)
def test_filtered(snap_compare, lang: str) -> None:
    run_before = driver("slash", *"snippet")
    assert snap_compare(make_app(lang), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("lang", LANGS)
def test_run_result(snap_compare, lang: str) -> None:
    run_before = driver(open_id="half-overflow", run=True)
    assert snap_compare(make_app(lang), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("lang", LANGS)
def test_run_error_panel(snap_compare, lang: str) -> None:
    run_before = driver(open_id="tui-raise", run=True)
    assert snap_compare(make_app(lang), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("lang", LANGS)
def test_verify(snap_compare, lang: str) -> None:
    assert snap_compare(make_app(lang), terminal_size=SIZE, run_before=driver("v"))


DOCTOR_CHECKS = [
    Check("cuda", "ok", "CUDA 12.4, 1 device", "", ""),
    Check(
        "numpy-abi",
        "problem",
        "NumPy 2.1 with a torch built against NumPy 1",
        "pip install 'numpy<2'",
        "numpy-abi-mismatch",
    ),
    Check("shm", "warning", "/dev/shm is 64 MB", "use --shm-size=8g", "tui-sleep"),
]


@pytest.mark.parametrize("lang", LANGS)
def test_doctor(snap_compare, lang: str) -> None:
    """`e`: the environment checks (canned, so no machine reaches the screenshot)."""
    app = make_app(lang)
    app.doctor = FakeDoctor(DOCTOR_CHECKS)
    assert snap_compare(app, terminal_size=SIZE, run_before=driver("e"))


@pytest.mark.parametrize("lang", LANGS)
def test_help(snap_compare, lang: str) -> None:
    assert snap_compare(make_app(lang), terminal_size=SIZE, run_before=driver("question_mark"))


CHART_FIXTURES = Path(__file__).parent / "fixtures" / "tui_charts"


def make_chart_app(lang: str) -> PitfallsApp:
    from test_charts import DOCUMENT

    registry = Registry.load([Source(CHART_FIXTURES, "fixtures")])
    return PitfallsApp(lang=lang, registry=registry, runner=FakeRunner({"tui-chart": DOCUMENT}))


@pytest.mark.parametrize("lang", LANGS)
def test_run_chart(snap_compare, lang: str) -> None:
    """A run with a chart, scrolled so that the chart fills the report."""

    async def run_before(pilot) -> None:
        await driver(open_id="tui-chart", run=True)(pilot)
        screen = pilot.app.screen
        report = screen.query_one("#run-report")
        report.scroll_to_widget(screen.query_one("#run-charts"), animate=False, top=True)
        await steady(pilot)

    assert snap_compare(make_chart_app(lang), terminal_size=(100, 40), run_before=run_before)
