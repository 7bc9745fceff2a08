"""Charts from series observations: the `[[plot]]` format, the shape check that is part of
the claim, the rendered text (axes, markers, labels in each language), and when `run` draws.

Most tests run in-process on canned observations (the fake runner's documents go through the
real verdict); the end-to-end ones run the CLI on a pseudo-terminal and need torch.
"""

from __future__ import annotations

import json
import math
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

import pitfalls.cli.execute as execute
from conftest import FIXTURES, TESTS, needs_torch, run_cli
from pitfalls.catalogue.loader import RecipeError, parse_plot
from pitfalls.catalogue.model import Plot
from pitfalls.catalogue.registry import Registry, Source
from pitfalls.catalogue.series import observations_of, series_problem
from pitfalls.cli import app
from pitfalls.render.charts import (
    build_charts,
    chart_renderable,
    format_number,
    linear_ticks,
    log_ticks,
)
from pitfalls.tui.fakes import FakeRunner

CHARTS = FIXTURES / "tui_charts"
STEPS = list(range(1, 13))
DIVERGING = [4.0**k for k in range(10)] + [math.inf, math.nan]
CONVERGING = [0.64**k for k in range(1, 13)]
DOCUMENT = {
    "problem": {"diverges": True, "loss_per_step": {"x": STEPS, "y": {"lr = 1.5": DIVERGING}}},
    "fix": {"diverges": False, "loss_per_step": {"x": STEPS, "y": {"lr = 0.1": CONVERGING}}},
}
BROKEN = {
    "problem": {"diverges": True, "loss_per_step": [1.0, 2.0]},
    "fix": {"diverges": False, "loss_per_step": {"x": STEPS, "y": {"lr = 0.1": [0.5]}}},
}
BRAILLE = {chr(c) for c in range(0x2801, 0x2900)}
HALF_BLOCKS = set("▖▗▘▙▚▛▜▝▞▟▀▄▌▐")


def chart_recipe():
    return Registry.load([Source(CHARTS, "fixtures")]).resolve("tui-chart")


def fake_result(document: dict):
    recipe = chart_recipe()
    return FakeRunner({recipe.id: document})._result(recipe, "cpu")


def rendered(chart, width: int = 100, height: int = 16) -> str:
    console = Console(width=width, record=True, force_terminal=True, color_system="256")
    console.print(chart_renderable(chart, width, height))
    return console.export_text()


# -- the format ----------------------------------------------------------------------------


def test_a_series_observation_is_x_and_named_y_lists_of_equal_length() -> None:
    assert series_problem({"x": [1, 2], "y": {"a": [1.0, math.nan], "b": [None, 3]}}) is None
    assert "expected series" in series_problem([1, 2])
    assert "expected series" in series_problem({"x": [1]})
    assert "2 values for 3 x values" in series_problem({"x": [1, 2, 3], "y": {"a": [1, 2]}})
    assert "numbers" in series_problem({"x": [1], "y": {"a": [True]}})
    assert "unexpected key 'z'" in series_problem({"x": [1], "y": {"a": [1]}, "z": 0})
    assert "non-empty" in series_problem({"x": [], "y": {"a": []}})
    # Categories are for bar charts only.
    assert series_problem({"x": ["a", "b"], "y": {"n": [1, 2]}}, "bar") is None
    assert "x must hold numbers" in series_problem({"x": ["a", "b"], "y": {"n": [1, 2]}})


def test_plot_tables_are_validated_with_useful_messages() -> None:
    plot = parse_plot({"key": "k", "title": "Loss"}, 0)
    assert plot == Plot("k", title={"en": "Loss"})
    assert plot.sides == ("problem", "fix") and plot.kind == "line"
    bad = [
        ({"kind": "line"}, "`key`"),
        ({"key": "k", "kind": "pie"}, "`kind` must be one of line, scatter, bar"),
        ({"key": "k", "sides": ["problem", "problem"]}, "`sides`"),
        ({"key": "k", "ylog": "yes"}, "`ylog` must be true or false"),
        ({"key": "k", "kind": "bar", "ylog": True}, "a bar chart has linear axes"),
        ({"key": "k", "ylogg": True}, "unknown key `ylogg`"),
        ({"key": "k", "title": {"fr": "x"}}, "unknown language `fr`"),
    ]
    for raw, message in bad:
        with pytest.raises(RecipeError, match=message):
            parse_plot(raw, 0)


def test_plots_load_lazily_with_the_expectations_and_show_in_show_json() -> None:
    recipe = chart_recipe()
    assert recipe.plots[0].key == "loss_per_step" and recipe.plots[0].ylog
    assert recipe.to_dict()["plots"][0]["legend"] == {
        "lr = 0.1": {"en": "lr = 0.1", "zh": "学习率 0.1"}
    }


# -- the claim ------------------------------------------------------------------------------


def test_each_plotted_side_is_a_check_that_holds_for_good_series() -> None:
    result = fake_result(DOCUMENT)
    series_checks = [c for c in result.checks if c.expectation.op == "series"]
    assert [(c.expectation.side, c.holds) for c in series_checks] == [
        ("problem", True),
        ("fix", True),
    ]
    assert result.status == "held"
    assert series_checks[0].to_dict()["actual"] == "1 series × 12 points"


def test_a_broken_plot_is_a_failed_claim_not_a_crash() -> None:
    result = fake_result(BROKEN)
    failed = {c.expectation.side: c.reason for c in result.checks if not c.holds}
    assert "expected series" in failed["problem"]
    assert "1 values for 12 x values" in failed["fix"]
    assert result.status == "claim_failed" and result.exit_code == 1
    observations = observations_of(result.problem, result.fix)
    assert build_charts(result.recipe.plots, observations, "en") == []
    data = result.to_dict()
    sides = data["plots"][0]["sides_observed"]
    assert sides["problem"] == {"valid": False, "reason": failed["problem"]}
    assert data["plots"][0]["shared_axes"] is False


def test_a_missing_series_observation_fails_its_side() -> None:
    document = {"problem": {"diverges": True}, "fix": DOCUMENT["fix"]}
    result = fake_result(document)
    reasons = [c.reason for c in result.checks if not c.holds]
    assert reasons == ["no observation named 'loss_per_step' to plot"]
    assert not result.reproduced and result.fixed


# -- layout and rendering -------------------------------------------------------------------


def test_problem_and_fix_share_one_chart_when_they_share_axes() -> None:
    recipe = chart_recipe()
    charts = build_charts(recipe.plots, observations_of(DOCUMENT["problem"], DOCUMENT["fix"]), "en")
    assert len(charts) == 1
    assert [s.label for s in charts[0].series] == ["problem · lr = 1.5", "fix · lr = 0.1"]
    # Bars over different categories cannot be grouped: one chart per side.
    bars = Plot("n", kind="bar", title={"en": "Counts"})
    observations = {
        "problem": {"n": {"x": ["a", "b"], "y": {"n": [1, 2]}}},
        "fix": {"n": {"x": ["a", "c"], "y": {"n": [1, 1]}}},
    }
    titles = [c.title for c in build_charts((bars,), observations, "en")]
    assert titles == ["Counts · problem", "Counts · fix"]


def test_the_rendered_chart_has_axes_ticks_markers_legend_and_labels() -> None:
    charts = build_charts(
        chart_recipe().plots, observations_of(DOCUMENT["problem"], DOCUMENT["fix"]), "en"
    )
    text = rendered(charts[0])
    lines = text.splitlines()
    assert "Training loss per step" in text
    assert "↑ loss (log scale)" in text and "step →" in text
    assert any("┌" in line and "┐" in line for line in lines)
    assert any("└" in line and "┬" in line for line in lines)
    assert sum("┤" in line for line in lines) >= 3  # labelled y ticks
    assert "1e5" in text or "10000" in text  # powers of ten on the log axis
    # Each series has its own marker texture, repeated in the legend.
    assert BRAILLE & set(text) and HALF_BLOCKS & set(text)
    assert "⠿⠿ problem · lr = 1.5" in text and "▞▞ fix · lr = 0.1" in text
    # inf and NaN are not drawn as values: marked at the top edge and counted.
    assert "▲" in text and "▲ NaN or +inf, off the top" in text
    assert "problem · lr = 1.5: 2 of 12 points cannot be drawn, marked ▲ at the edge" in text
    assert max(len(line) for line in lines) <= 100


def test_the_rendered_chart_speaks_chinese() -> None:
    charts = build_charts(
        chart_recipe().plots, observations_of(DOCUMENT["problem"], DOCUMENT["fix"]), "zh"
    )
    text = rendered(charts[0])
    assert "每一步的训练 loss" in text
    assert "↑ 损失（对数刻度）" in text and "步数 →" in text
    assert "问题 · lr = 1.5" in text and "修复 · 学习率 0.1" in text
    assert "超出上边" in text


def test_charts_fit_the_width_they_are_given() -> None:
    charts = build_charts(
        chart_recipe().plots, observations_of(DOCUMENT["problem"], DOCUMENT["fix"]), "en"
    )
    for width in (60, 140):
        canvas = [line for line in rendered(charts[0], width).splitlines() if "┤" in line]
        assert canvas and max(len(line.rstrip()) for line in canvas) == width


def test_ticks_are_round_and_labels_short() -> None:
    assert linear_ticks(0, 144, 4) == [0, 50, 100]
    assert [label for label in map(format_number, (0.05, 120, 1e-45, 2.5e6, 0.000195))] == [
        "0.05",
        "120",
        "1e-45",
        "2.5e6",
        "1.95e-4",
    ]
    assert [v for _, v in log_ticks(-60, 0, 4)] == [1e-60, 1e-40, 1e-20, 1.0]
    assert [v for _, v in log_ticks(math.log10(0.025), math.log10(0.1), 4)] == [0.05, 0.1]


def test_log_axes_drop_non_positive_values_at_the_bottom_edge() -> None:
    plot = Plot("e", sides=("fix",), ylog=True, title={"en": "Error"})
    observations = {"fix": {"e": {"x": [1, 2, 3], "y": {"float64": [0.0, 1e-9, -math.inf]}}}}
    (chart,) = build_charts((plot,), observations, "en")
    assert chart.series[0].bottom == [1.0, 3.0]
    text = rendered(chart)
    assert "▼" in text and "2 of 3 points cannot be drawn" in text


# -- the CLI --------------------------------------------------------------------------------


class _Pool:
    python = sys.executable

    def close(self, wait: bool = True) -> None:
        pass


@pytest.fixture
def fake_run(monkeypatch: pytest.MonkeyPatch):
    """`pitfalls run tui-chart` in-process: the fake runner's result, no torch, no child."""

    def use(document: dict, terminal: bool = True) -> None:
        monkeypatch.setenv("PITFALLS_PATH", str(CHARTS))
        monkeypatch.setattr(execute, "_start_pool", lambda python, lang, timeout: _Pool())
        monkeypatch.setattr(
            "pitfalls.runner.run_recipe",
            lambda recipe, device, timeout, pool: FakeRunner({recipe.id: document})._result(
                recipe, device
            ),
        )
        monkeypatch.setattr(execute, "plain_output", lambda: not terminal)

    return use


def invoke(*args: str):
    return CliRunner().invoke(app, ["run", "tui-chart", "--device", "cpu", *args])


def test_run_on_a_terminal_draws_the_chart_below_the_table(fake_run) -> None:
    fake_run(DOCUMENT)
    result = invoke()
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.index("loss_per_step") < out.index("Training loss per step")
    assert out.index("Training loss per step") < out.index("Claims")
    assert "1 series × 12 points" in out and "┤" in out and "⠿⠿ problem · lr = 1.5" in out
    assert "✓  problem: loss_per_step holds series for a line chart" in out


def test_run_draws_in_the_chosen_language(fake_run) -> None:
    fake_run(DOCUMENT)
    out = invoke("--lang", "zh").output
    assert "每一步的训练 loss" in out and "修复 · 学习率 0.1" in out and "1 组序列 × 12 个点" in out


def test_no_plot_draws_nothing(fake_run) -> None:
    fake_run(DOCUMENT)
    out = invoke("--no-plot").output
    assert "loss_per_step" in out and "┤" not in out and "Training loss per step" not in out


def test_plain_output_draws_nothing(fake_run) -> None:
    fake_run(DOCUMENT, terminal=False)
    out = invoke().output
    assert "loss_per_step\t1 series × 12 points\t1 series × 12 points" in out
    assert "┤" not in out and "Training loss per step" not in out


def test_a_broken_plot_reads_as_a_failed_claim_on_the_terminal(fake_run) -> None:
    fake_run(BROKEN)
    result = invoke()
    assert result.exit_code == 1
    assert "✗  problem: loss_per_step holds series for a line chart" in result.output
    assert "Traceback" not in result.output and "┤" not in result.output


def test_run_json_carries_the_series_and_describes_the_plots(fake_run) -> None:
    fake_run(DOCUMENT)
    result = invoke("--json")
    data = json.loads(result.output)
    assert data["problem"]["loss_per_step"]["y"]["lr = 1.5"][-2:] == ["inf", "nan"]
    assert data["fix"]["loss_per_step"]["x"] == STEPS
    (plot,) = data["plots"]
    assert plot["key"] == "loss_per_step" and plot["kind"] == "line" and plot["ylog"] is True
    assert plot["title"] == {"en": "Training loss per step", "zh": "每一步的训练 loss"}
    assert plot["shared_axes"] is True
    problem = plot["sides_observed"]["problem"]
    assert problem["series"] == [{"name": "lr = 1.5", "points": 12, "not_finite": 2, "missing": 0}]
    assert "┤" not in result.output


# -- end to end, on a pseudo-terminal -------------------------------------------------------


def on_terminal(*args: str, env: dict[str, str] | None = None, columns: int = 90) -> str:
    """The real CLI's output on a pseudo-terminal of `columns` x 40."""
    import fcntl
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    full_env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    full_env.update({"PITFALLS_PATH": str(CHARTS), **(env or {})})
    process = subprocess.Popen(
        [sys.executable, "-m", "pitfalls", *args],
        stdin=follower,
        stdout=follower,
        stderr=subprocess.DEVNULL,
        env=full_env,
        cwd=str(TESTS),
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    process.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


@needs_torch
@pytest.mark.slow
def test_a_real_run_on_a_terminal_draws_and_the_switches_turn_it_off() -> None:
    drawn = on_terminal("run", "tui-chart", "--device", "cpu")
    assert "Training loss per step" in drawn and "┤" in drawn and "\x1b[" in drawn
    assert "⠿⠿ problem · lr = 1.5" in drawn
    for args, env in (
        (("--no-plot",), {}),
        ((), {"NO_COLOR": "1"}),
        ((), {"TERM": "dumb"}),
    ):
        out = on_terminal("run", "tui-chart", "--device", "cpu", *args, env=env)
        assert "diverges" in out and "┤" not in out, (args, env)


@needs_torch
@pytest.mark.slow
def test_a_real_piped_run_prints_no_chart() -> None:
    done = run_cli("run", "tui-chart", "--device", "cpu", env={"PITFALLS_PATH": str(CHARTS)})
    assert done.returncode == 0, done.stderr
    assert "loss_per_step\t1 series × 12 points" in done.stdout and "┤" not in done.stdout


def test_the_chart_fixture_is_a_clean_recipe() -> None:
    from pitfalls.authoring.linter import lint_paths

    findings, _ = lint_paths([Path(CHARTS)])
    assert [f for f in findings if f.severity == "error"] == []
