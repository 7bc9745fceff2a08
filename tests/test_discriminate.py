"""The discrimination check of `verify` (issue #24), on fixture recipes built to fail each rule
and on ones that pass: a claim that also holds on the other side's observation, and a side
with no claim that the other side's observations fail."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import FIXTURES, needs_torch, run_cli
from pitfalls.catalogue.model import Expectation, Recipe
from pitfalls.catalogue.verdict import evaluate
from pitfalls.runner.discriminate import BOTH_HOLD, NO_CLAIM, findings
from pitfalls.runner.result import RunResult

CLAIMS = FIXTURES / "claims"
ENV = {"PITFALLS_PATH": str(CLAIMS)}
FLAGGED = ["k-both-hold", "k-one-sided", "k-no-discriminating", "k-warns-both"]
CLEAN = ["k-invariant-holds", "k-warns-ok", "k-gated"]


def _shape(found: list[dict]) -> set[tuple]:
    return {(f["rule"], f["side"], f.get("key")) for f in found}


@pytest.fixture(scope="module")
def verified() -> dict[str, dict]:
    result = run_cli("verify", *FLAGGED, *CLEAN, "--device", "cpu", "--json", env=ENV)
    assert result.returncode == 1, result.stderr[-2000:]
    return {run["id"]: run for run in json.loads(result.stdout)}


@needs_torch
def test_every_fixture_holds_so_only_the_findings_differ(verified: dict[str, dict]) -> None:
    assert {run["id"]: run["status"] for run in verified.values()} == dict.fromkeys(
        FLAGGED + CLEAN, "held"
    )


@needs_torch
def test_a_claim_that_holds_on_both_sides_is_flagged(verified: dict[str, dict]) -> None:
    assert _shape(verified["k-both-hold"]["findings"]) == {(BOTH_HOLD, "problem", "shape")}
    found = verified["k-both-hold"]["findings"][0]
    assert found["other_value"] == [2, 3] and found["expectation"] == "shape == [2, 3]"
    # A claim that holds on its side, and on the other side too, of every kind of comparison.
    assert _shape(verified["k-no-discriminating"]["findings"]) == {
        (BOTH_HOLD, "fix", "loss_is_finite"),
        (BOTH_HOLD, "fix", "steps"),
        (NO_CLAIM, "fix", None),
    }


@needs_torch
def test_a_side_deciding_on_keys_the_other_lacks_is_flagged(verified: dict[str, dict]) -> None:
    found = verified["k-one-sided"]["findings"]
    assert _shape(found) == {(NO_CLAIM, "problem", None), (NO_CLAIM, "fix", None)}
    assert {f["side"]: f["one_sided_keys"] for f in found} == {
        "problem": ["error"],
        "fix": ["result"],
    }
    assert "return them on both sides" in found[0]["message"]


@needs_torch
def test_warns_claims_are_compared_with_the_other_sides_warnings(
    verified: dict[str, dict],
) -> None:
    assert _shape(verified["k-warns-both"]["findings"]) == {
        (BOTH_HOLD, "problem", "warnings"),
        (NO_CLAIM, "problem", None),
    }
    assert verified["k-warns-ok"]["findings"] == []


@needs_torch
def test_paired_claims_invariants_and_gated_claims_pass(verified: dict[str, dict]) -> None:
    for recipe_id in CLEAN:
        assert verified[recipe_id]["findings"] == [], recipe_id


@needs_torch
def test_a_finding_alone_makes_verify_exit_1_and_is_printed(tmp_path: Path) -> None:
    clean = run_cli("verify", *CLEAN, "--device", "cpu", env=ENV)
    assert clean.returncode == 0, clean.stdout
    junit = tmp_path / "report.xml"
    flagged = run_cli(
        "verify", "k-both-hold", "k-warns-ok", "--device", "cpu", "--junit", str(junit), env=ENV
    )
    assert flagged.returncode == 1
    rows = {line.split("\t")[0]: line.split("\t") for line in flagged.stdout.splitlines()}
    assert rows["k-both-hold"][:4] == ["k-both-hold", "held", "✓", "✓"]
    assert rows["k-both-hold"][5] == (
        "the problem claim `shape == [2, 3]` also holds on the fix side "
        "([2, 3]): it does not tell problem from fix"
    )
    assert rows["k-warns-ok"][5] == ""
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1"
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    failure = cases["k-both-hold"].find("failure")
    assert failure is not None and "does not tell problem from fix" in failure.get("message", "")
    assert list(cases["k-warns-ok"]) == []
    chinese = run_cli("--lang", "zh", "verify", "k-both-hold", "--device", "cpu", env=ENV)
    assert "区分不了问题与修复" in chinese.stdout


def _result(recipe: Recipe, problem: dict | None, fix: dict | None, **extra) -> RunResult:
    result = RunResult(recipe, "cpu", device="cpu", problem=problem, fix=fix, **extra)
    result.checks, result.reproduced, result.fixed = evaluate(
        recipe, problem, fix, "2.5.0", "cpu", warnings=result.warnings
    )
    return result


def _recipe(*expectations: Expectation) -> Recipe:
    recipe = Recipe(id="x", path=Path("/nonexistent"), title={}, summary={})
    recipe._expectations, recipe._plots = expectations, ()
    return recipe


def test_a_run_that_did_not_finish_has_no_findings() -> None:
    recipe = _recipe(Expectation("problem", "k", "equals", 1), Expectation("fix", "k", "equals", 1))
    assert {f.rule for f in findings(_result(recipe, {"k": 1}, {"k": 1}))} == {BOTH_HOLD, NO_CLAIM}
    failed = _result(recipe, {"k": 1}, None, error={"kind": "raised", "message": "x"})
    assert findings(failed) == []


def test_invariants_are_not_compared_and_torch_gates_follow_the_run() -> None:
    recipe = _recipe(
        Expectation("problem", "k", "equals", 1),
        Expectation("fix", "k", "equals", 2),
        Expectation("both", "same", "equals", True),
        Expectation("problem", "same", "equals", True, torch="<2.0"),
    )
    assert findings(_result(recipe, {"k": 1, "same": True}, {"k": 2, "same": True})) == []
    old = RunResult(recipe, "cpu", device="cpu", problem={"k": 1, "same": True})
    old.fix = {"k": 2, "same": True}
    old.checks, _, _ = evaluate(recipe, old.problem, old.fix, "1.13.1", "cpu")
    assert [(f.rule, f.side, f.expectation.key) for f in findings(old)] == [
        (BOTH_HOLD, "problem", "same")
    ]


def test_a_side_with_no_applicable_claim_is_left_to_the_verdict() -> None:
    recipe = _recipe(
        Expectation("problem", "k", "equals", 1),
        Expectation("fix", "k", "equals", 2, devices=("cuda",)),
    )
    result = _result(recipe, {"k": 1}, {"k": 2})
    assert result.status == "claim_failed" and findings(result) == []


@needs_torch
def test_skip_slow_leaves_out_recipes_marked_slow() -> None:
    both = run_cli("verify", "k-slow", "k-warns-ok", "--device", "cpu", "--json", env=ENV)
    assert [r["id"] for r in json.loads(both.stdout)] == ["k-slow", "k-warns-ok"]
    fast = run_cli(
        "verify", "k-slow", "k-warns-ok", "--skip-slow", "--device", "cpu", "--json", env=ENV
    )
    assert fast.returncode == 0, fast.stderr
    assert [r["id"] for r in json.loads(fast.stdout)] == ["k-warns-ok"]
    nothing = run_cli("verify", "k-slow", "--skip-slow", "--device", "cpu", env=ENV)
    assert nothing.returncode == 1
    assert "Every chosen recipe is marked slow" in nothing.stderr
    assert "Traceback" not in nothing.stderr


def test_skip_slow_is_documented_in_help() -> None:
    result = run_cli("verify", "--help", env={"COLUMNS": "200"})
    assert "--skip-slow" in result.stdout and "marked `slow`" in result.stdout


@needs_torch
def test_every_verify_result_carries_findings_even_a_skipped_one() -> None:
    from conftest import ROBUST

    env = {"PITFALLS_PATH": f"{CLAIMS}:{ROBUST}"}
    result = run_cli("verify", "k-warns-ok", "t-cuda-only", "--device", "cpu", "--json", env=env)
    runs = {r["id"]: r for r in json.loads(result.stdout)}
    assert runs["t-cuda-only"]["status"] == "skipped"
    assert runs["t-cuda-only"]["findings"] == [] and runs["k-warns-ok"]["findings"] == []
