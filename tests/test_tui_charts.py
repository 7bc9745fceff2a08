"""The Run tab's charts: drawn with textual-plotext from the fake runner's series, in the
selected language, redrawn on resize, and absent (with the claim failed) when broken."""

from __future__ import annotations

import io
import subprocess
import sys

from test_charts import BROKEN, CHARTS, DOCUMENT

from pitfalls.catalogue.registry import Registry, Source
from pitfalls.tui.app import PitfallsApp
from pitfalls.tui.fakes import FakeRunner
from pitfalls.tui.widgets.run_panel import RunPanel

SIZE = (100, 40)


def make_app(document: dict, lang: str = "en") -> PitfallsApp:
    registry = Registry.load([Source(CHARTS, "fixtures")])
    return PitfallsApp(lang=lang, registry=registry, runner=FakeRunner({"tui-chart": document}))


async def settle(app: PitfallsApp, pilot) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


async def run_chart(app: PitfallsApp, pilot) -> RunPanel:
    await settle(app, pilot)
    app.open_recipe("tui-chart", run=True)
    await settle(app, pilot)
    return app.screen.query_one(RunPanel)


def canvas_lines(panel: RunPanel) -> list[str]:
    from pitfalls.tui.widgets.chart_view import ChartCanvas

    canvas = panel.query_one(ChartCanvas)
    return str(canvas.render()).splitlines()


def plain(static) -> str:
    """What a Static shows, as plain text (its content may be any Rich renderable)."""
    from rich.console import Console

    console = Console(width=200, record=True, file=io.StringIO())
    console.print(static.content)
    return console.export_text()


def texts(panel: RunPanel) -> str:
    from textual.widgets import Static

    from pitfalls.tui.widgets.chart_view import ChartView

    view = panel.query_one(ChartView)
    return "\n".join(plain(static) for static in view.query(Static))


async def test_the_run_tab_draws_the_chart_below_the_observations() -> None:
    app = make_app(DOCUMENT)
    async with app.run_test(size=SIZE) as pilot:
        panel = await run_chart(app, pilot)
        assert panel.result is not None and panel.result.status == "held"
        lines = canvas_lines(panel)
        assert any("┤" in line for line in lines) and any("└" in line for line in lines)
        assert any(set(line) & {"⠉", "⠒", "⠤", "⣀"} for line in lines)
        shown = texts(panel)
        assert "Training loss per step" in shown and "↑ loss (log scale)" in shown
        assert "problem · lr = 1.5" in shown and "fix · lr = 0.1" in shown
        assert "2 of 12 points cannot be drawn" in shown
        report = panel.query_one("#run-report")
        order = [child.id for child in report.children]
        assert order.index("run-result") < order.index("run-charts") < order.index("run-checks")


async def test_switching_language_relabels_the_chart() -> None:
    app = make_app(DOCUMENT)
    async with app.run_test(size=SIZE) as pilot:
        panel = await run_chart(app, pilot)
        await pilot.press("l")
        await settle(app, pilot)
        shown = texts(panel)
        assert "每一步的训练 loss" in shown and "↑ 损失（对数刻度）" in shown
        assert "问题 · lr = 1.5" in shown and "修复 · 学习率 0.1" in shown
        assert "Training loss" not in shown


async def test_the_chart_is_redrawn_to_fit_a_resized_terminal() -> None:
    app = make_app(DOCUMENT)
    async with app.run_test(size=SIZE) as pilot:
        panel = await run_chart(app, pilot)
        wide = max(len(line) for line in canvas_lines(panel))
        await pilot.resize_terminal(140, 40)
        await settle(app, pilot)
        wider = max(len(line) for line in canvas_lines(panel))
        from pitfalls.tui.widgets.chart_view import ChartCanvas

        assert wider == panel.query_one(ChartCanvas).size.width
        await pilot.resize_terminal(80, 30)
        await settle(app, pilot)
        narrow = max(len(line) for line in canvas_lines(panel))
        assert narrow < wide < wider


async def test_a_broken_plot_shows_no_chart_and_fails_the_claim() -> None:
    from pitfalls.tui.widgets.chart_view import ChartView

    app = make_app(BROKEN)
    async with app.run_test(size=SIZE) as pilot:
        panel = await run_chart(app, pilot)
        assert panel.result is not None and panel.result.status == "claim_failed"
        assert not panel.query(ChartView)
        checks = plain(panel.query_one("#run-checks"))
        assert "✗" in checks and "loss_per_step holds series for a line chart" in checks


async def test_a_new_run_clears_the_old_chart() -> None:
    from pitfalls.tui.widgets.chart_view import ChartView

    app = make_app(DOCUMENT)
    async with app.run_test(size=SIZE) as pilot:
        panel = await run_chart(app, pilot)
        assert len(panel.query(ChartView)) == 1
        app.runner.documents["tui-chart"] = BROKEN
        app.open_recipe("tui-chart", run=True)
        await settle(app, pilot)
        assert not panel.query(ChartView)


def test_the_app_imports_no_plotting_library_until_a_chart_is_shown() -> None:
    code = (
        "import sys, pitfalls.tui.app, pitfalls.tui.backend, pitfalls.tui.widgets.run_panel;"
        "import pitfalls.render.charts, pitfalls.runner.result;"
        "print(','.join(m for m in ('plotext', 'textual_plotext') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
