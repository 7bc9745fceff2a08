"""Claims, invariants and themes (issue #24): `side = "both"` is checked on each side and
never counted toward reproduced/fixed, yet a failing one makes the run fail; `theme` is one
of a fixed list, cached, and carried in --json."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES, needs_torch, run_cli
from pitfalls.catalogue.checked import revision
from pitfalls.catalogue.loader import RecipeError, load_recipe, parse_expectation
from pitfalls.catalogue.model import THEMES, Expectation, Recipe
from pitfalls.catalogue.registry import Registry, Source
from pitfalls.catalogue.verdict import evaluate
from pitfalls.i18n import t
from pitfalls.runner.result import RunResult

CLAIMS = FIXTURES / "claims"


def _recipe(*expectations: Expectation) -> Recipe:
    recipe = Recipe(id="x", path=Path("/nonexistent"), title={}, summary={})
    recipe._expectations = expectations
    recipe._plots = ()
    return recipe


def _result(recipe: Recipe, problem: dict, fix: dict) -> RunResult:
    result = RunResult(recipe, "cpu", device="cpu", problem=problem, fix=fix)
    result.checks, result.reproduced, result.fixed = evaluate(recipe, problem, fix, "2.5", "cpu")
    return result


def test_side_both_is_an_invariant_and_other_sides_are_refused() -> None:
    exp = parse_expectation({"side": "both", "key": "k", "equals": 1}, 0)
    assert exp.is_invariant and exp.sides() == ("problem", "fix")
    assert parse_expectation({"side": "fix", "key": "k", "equals": 1}, 0).sides() == ("fix",)
    with pytest.raises(RecipeError, match="problem or fix .* or both"):
        parse_expectation({"side": "either", "key": "k", "equals": 1}, 0)


def test_an_invariant_is_checked_on_each_side_but_never_counted() -> None:
    claim = Expectation("problem", "bad", "equals", True)
    invariant = Expectation("both", "same", "equals", 1)
    recipe = _recipe(claim, invariant)
    result = _result(recipe, {"bad": True, "same": 1}, {"bad": False, "same": 1})
    invariants = [c for c in result.checks if c.kind == "invariant"]
    assert [(c.on, c.holds) for c in invariants] == [("problem", True), ("fix", True)]
    assert result.reproduced
    # The fix side has only the invariant: an invariant is no evidence that the fix held.
    assert not result.fixed and result.status == "claim_failed"


def test_a_failing_invariant_fails_the_run_though_both_sides_hold() -> None:
    recipe = _recipe(
        Expectation("problem", "bad", "equals", True),
        Expectation("fix", "bad", "equals", False),
        Expectation("both", "same", "equals", 1),
    )
    held = _result(recipe, {"bad": True, "same": 1}, {"bad": False, "same": 1})
    assert held.status == "held" and held.invariants_held
    broken = _result(recipe, {"bad": True, "same": 1}, {"bad": False, "same": 2})
    assert broken.reproduced and broken.fixed  # read from the claims alone
    assert not broken.invariants_held
    assert broken.status == "claim_failed" and broken.exit_code == 1
    from pitfalls.render.results import verdict_text

    assert verdict_text(broken, "en") == t("run.verdict.invariant_failed", "en")
    data = broken.to_dict()
    assert data["invariants_held"] is False
    failed = [e for e in data["expectations"] if not e["holds"]]
    assert failed == [{**failed[0], "side": "fix", "kind": "invariant", "description": "same == 1"}]


def test_a_gated_invariant_that_does_not_apply_does_not_fail() -> None:
    recipe = _recipe(
        Expectation("problem", "bad", "equals", True),
        Expectation("fix", "bad", "equals", False),
        Expectation("both", "same", "equals", 1, devices=("cuda",)),
    )
    result = _result(recipe, {"bad": True}, {"bad": False})
    assert result.status == "held"
    assert [c.applies for c in result.checks if c.kind == "invariant"] == [False, False]


def test_theme_is_validated_and_carried(tmp_path: Path) -> None:
    folder = tmp_path / "k-invariant-holds"
    shutil.copytree(CLAIMS / "k-invariant-holds", folder)
    assert load_recipe(folder).theme == "autograd"
    assert load_recipe(folder).to_dict()["theme"] == "autograd"
    toml = folder / "recipe.toml"
    toml.write_text(toml.read_text().replace('theme = "autograd"', 'theme = "gradients"'))
    with pytest.raises(RecipeError, match="`theme` must be one of autograd, numerics"):
        load_recipe(folder)
    toml.write_text(toml.read_text().replace('theme = "gradients"\n', ""))
    assert load_recipe(folder).theme == ""


def test_every_theme_has_a_name_in_both_languages() -> None:
    for theme in THEMES:
        english, chinese = t(f"theme.{theme}", "en"), t(f"theme.{theme}", "zh")
        assert english and chinese and f"theme.{theme}" not in (english, chinese)
        assert english != chinese or theme == "mps"  # "Apple MPS" is its name in both


def test_the_cache_keeps_the_theme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "recipes"
    shutil.copytree(CLAIMS / "k-invariant-holds", folder / "k-invariant-holds")
    first = Registry.load([Source(folder, "PITFALLS_PATH")]).resolve("k-invariant-holds")
    assert list((tmp_path / "cache" / "pitfalls").glob("recipes-*.marshal"))
    second = Registry.load([Source(folder, "PITFALLS_PATH")]).resolve("k-invariant-holds")
    assert second.theme == first.theme == "autograd"
    # An edit of the theme invalidates the entry like any other edit.
    toml = folder / "k-invariant-holds" / "recipe.toml"
    toml.write_text(toml.read_text().replace('"autograd"', '"numerics"'))
    stat = toml.stat()
    os.utime(toml, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    third = Registry.load([Source(folder, "PITFALLS_PATH")]).resolve("k-invariant-holds")
    assert third.theme == "numerics"


def test_revision_ignores_the_theme_and_follows_an_invariant(tmp_path: Path) -> None:
    folder = tmp_path / "k-invariant-holds"
    shutil.copytree(CLAIMS / "k-invariant-holds", folder)
    before = revision(load_recipe(folder))
    toml = folder / "recipe.toml"
    text = toml.read_text()
    toml.write_text(text.replace('theme = "autograd"', 'theme = "numerics"'))
    assert revision(load_recipe(folder)) == before  # grouping is not what ran
    # Turning a claim into an invariant changes what a run checks.
    toml.write_text(text.replace('side = "fix"\nkey = "error"', 'side = "both"\nkey = "error"'))
    assert revision(load_recipe(folder)) != before


def test_show_and_list_json_carry_the_theme() -> None:
    env = {"PITFALLS_PATH": str(CLAIMS)}
    shown = json.loads(run_cli("show", "k-invariant-holds", "--json", env=env).stdout)
    assert shown["theme"] == "autograd"
    listed = json.loads(run_cli("list", "--json", env=env).stdout)
    mine = {r["id"]: r["theme"] for r in listed if r["id"].startswith("k-invariant")}
    assert mine == {"k-invariant-holds": "autograd", "k-invariant-fails": "autograd"}


@needs_torch
def test_run_shows_a_failing_invariant_and_exits_1() -> None:
    env = {"PITFALLS_PATH": str(CLAIMS)}
    result = run_cli("run", "k-invariant-fails", "--device", "cpu", "--json", env=env)
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["reproduced"] and data["fixed"] and not data["invariants_held"]
    assert data["status"] == "claim_failed"
    kinds = [(e["kind"], e["side"], e["holds"]) for e in data["expectations"]]
    assert ("invariant", "fix", False) in kinds and ("invariant", "problem", True) in kinds
    plain = run_cli("run", "k-invariant-fails", "--device", "cpu", env=env)
    assert plain.returncode == 1
    assert "✗\tinvariant (fix)\tshares_storage == true" in plain.stdout
    assert t("run.verdict.invariant_failed", "en") in plain.stdout
    good = run_cli("run", "k-invariant-holds", "--device", "cpu", env=env)
    assert good.returncode == 0, good.stdout


def test_lint_reports_an_unknown_theme_and_accepts_invariants(tmp_path: Path) -> None:
    from pitfalls.authoring.linter import lint_paths

    folder = tmp_path / "fixture-pit028"
    shutil.copytree(FIXTURES / "lint" / "PIT028" / "fixture-pit028", folder)
    toml = folder / "recipe.toml"
    text = toml.read_text(encoding="utf-8")
    invariant = '\n[[expect]]\nside = "both"\nkey = "all_non_negative"\none_of = [true, false]\n'
    toml.write_text(text.replace("[questions]", invariant + "\n[questions]"), encoding="utf-8")
    assert {f.code for f in lint_paths([folder])[0]} == {"PIT028"}
    toml.write_text('theme = "gradients"\n' + text, encoding="utf-8")
    findings = lint_paths([folder])[0]
    assert [(f.code, f.severity) for f in findings] == [("PIT003", "error")]
    assert "`theme` must be one of" in findings[0].message


def test_a_missing_theme_is_an_error_for_built_ins_and_a_warning_in_packs(tmp_path: Path) -> None:
    from pitfalls.authoring.linter import lint_paths

    fixture = FIXTURES / "lint" / "PIT028" / "fixture-pit028"
    assert [(f.code, f.severity) for f in lint_paths([fixture])[0]] == [("PIT028", "warning")]
    builtins = tmp_path / "recipes"
    shutil.copytree(fixture, builtins / "fixture-pit028")
    found = lint_paths([builtins / "fixture-pit028"], builtins=builtins)[0]
    assert ("PIT028", "error") in [(f.code, f.severity) for f in found]
