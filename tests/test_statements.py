"""Claims, invariants and context shown apart (issue #24): in `run` (text and --json), in
`show`, in the TUI's info and run panels (both built on pitfalls.render and statements)."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from conftest import FIXTURES, needs_torch, run_cli
from pitfalls.catalogue.model import Expectation, Recipe
from pitfalls.catalogue.statements import context_keys, context_text, gate_note
from pitfalls.catalogue.verdict import evaluate
from pitfalls.render.results import plain_lines, result_tail
from pitfalls.runner.result import RunResult

CLAIMS = FIXTURES / "claims"
ENV = {"PITFALLS_PATH": str(CLAIMS)}


def _result() -> RunResult:
    recipe = Recipe(id="x", path=Path("/nonexistent"), title={}, summary={})
    recipe._expectations = (
        Expectation("both", "same", "equals", 1),
        Expectation("problem", "bad", "equals", True),
        Expectation("fix", "bad", "equals", False),
        Expectation("fix", "speed", "gt", 1, devices=("cuda",)),
    )
    recipe._plots = ()
    problem = {"bad": True, "same": 1, "rows": 4, "only_here": 0}
    fix = {"bad": False, "same": 1, "rows": 4, "speed": 0.5}
    result = RunResult(recipe, "cpu", device="cpu", problem=problem, fix=fix)
    result.checks, result.reproduced, result.fixed = evaluate(recipe, problem, fix, "2.5", "cpu")
    return result


def _text(renderable) -> str:
    console = Console(width=100, color_system=None, record=True)
    with console.capture() as capture:
        console.print(renderable)
    return capture.get()


def test_context_is_what_no_expectation_reads_gated_or_not() -> None:
    result = _result()
    # `speed` has a cuda-only claim: not context, though the claim does not apply on CPU.
    assert context_keys(result) == {"problem": ["rows", "only_here"], "fix": ["rows"]}
    assert context_text(result) == "rows, only_here (problem)"
    assert result.to_dict()["context"] == {"problem": ["rows", "only_here"], "fix": ["rows"]}
    assert gate_note(Expectation("fix", "k", "gt", 1, devices=("cuda",), torch=">=2.4")) == (
        "cuda only; torch >=2.4"
    )


def test_plain_run_lists_claims_then_invariants_then_context() -> None:
    lines = plain_lines(_result(), "en")
    checks = [line for line in lines if line[:2] in ("✓\t", "✗\t", "-\t", "co")]
    assert checks == [
        "✓\tproblem\tbad == true",
        "✓\tfix\tbad == false",
        "-\tfix\tspeed > 1\tdoes not apply here",
        "✓\tinvariant (problem)\tsame == 1",
        "✓\tinvariant (fix)\tsame == 1",
        "context\trows, only_here (problem)",
    ]


def test_the_terminal_run_shows_three_sections() -> None:
    text = _text(result_tail(_result(), "en"))
    claims, invariants = text.index("Claims"), text.index("Invariants (checked on both sides")
    context = text.index("Context (observed, not checked): rows, only_here (problem)")
    assert claims < text.index("problem: bad == true") < invariants
    assert invariants < text.index("problem: same == 1") < context
    chinese = _text(result_tail(_result(), "zh"))
    assert "结论" in chinese and "不变式" in chinese and "背景观测" in chinese


def test_show_lists_claims_per_side_and_invariants() -> None:
    page = run_cli("show", "k-invariant-holds", env=ENV).stdout
    assert "**theme**: Autograd" in page
    section = page[page.index("## What a run checks") : page.index("## Snippet")]
    problem = section.index("**Claims on the problem side")
    fix = section.index("**Claims on the fix side")
    invariants = section.index("**Invariants")
    assert problem < section.index('`error raises "ValueError" matching "bad input"`') < fix
    assert fix < section.index('`error == "no error"`') < invariants
    assert invariants < section.index("`shares_storage == true`")
    assert "context" in section
    data = json.loads(run_cli("show", "k-invariant-holds", "--json", env=ENV).stdout)
    kinds = [(e["side"], e["kind"]) for e in data["expectations"]]
    invariant = ("both", "invariant")
    assert kinds == [("problem", "claim"), ("fix", "claim"), invariant, invariant]
    zh = run_cli("show", "k-invariant-holds", "--lang", "zh", env=ENV).stdout
    assert "## 运行时检查什么" in zh and "**不变式" in zh and "自动求导" in zh


def test_the_tui_info_view_lists_claims_and_invariants() -> None:
    from pitfalls.catalogue.registry import Registry, Source
    from pitfalls.tui.widgets.info_view import info_renderable

    recipe = Registry.load([Source(CLAIMS, "PITFALLS_PATH")]).resolve("k-invariant-holds")
    text = _text(info_renderable(recipe, "en"))
    assert "theme" in text and "Autograd" in text
    assert text.index("problem claims") < text.index("fix claims") < text.index("invariants")
    assert "shares_storage == true" in text


@needs_torch
def test_run_json_carries_kinds_and_context() -> None:
    data = json.loads(
        run_cli("run", "k-invariant-holds", "--device", "cpu", "--json", env=ENV).stdout
    )
    assert data["context"] == {"problem": ["input"], "fix": ["input"]}
    assert {(e["kind"], e["side"]) for e in data["expectations"]} == {
        ("claim", "problem"),
        ("claim", "fix"),
        ("invariant", "problem"),
        ("invariant", "fix"),
    }


def _flagging_runner():
    """A fake runner whose held verify results carry one discrimination finding each."""
    from test_tui import HELD

    from pitfalls.runner.discriminate import NO_CLAIM, Finding
    from pitfalls.tui.fakes import FakeRunner

    class Runner(FakeRunner):
        def _result(self, recipe, device, cancelled=False):
            result = super()._result(recipe, device, cancelled)
            result.findings = [Finding(NO_CLAIM, "fix")] if result.status == "held" else []
            return result

    return Runner(HELD)


async def test_the_tui_verify_panel_shows_a_finding() -> None:
    from test_tui import SIZE, make_app, settle
    from textual.widgets import DataTable

    from pitfalls.tui.widgets.verify_panel import VerifyPanel

    app = make_app(runner=_flagging_runner())
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("v")
        await settle(app, pilot)
        table = app.screen.query_one(VerifyPanel).query_one(DataTable)
        rows = {str(table.get_row_at(i)[0]): table.get_row_at(i) for i in range(table.row_count)}
        status, reason = str(rows["half-overflow"][1]), str(rows["half-overflow"][3])
        assert status.startswith("✗") and "no fix claim fails" in reason
