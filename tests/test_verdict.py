"""Every comparison kind decides the verdict, and each can fail."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from pitfalls.catalogue.loader import RecipeError, parse_expectation
from pitfalls.catalogue.model import Recipe
from pitfalls.catalogue.verdict import compare, evaluate, version_in_range


def exp(**raw: object):
    return parse_expectation({"side": "problem", "key": "x", **raw}, 0)


@pytest.mark.parametrize(
    ("raw", "good", "bad"),
    [
        ({"equals": False}, False, True),
        ({"equals": 3}, 3.0, 4),
        ({"equals": "a"}, "a", "b"),
        ({"equals": [1, 2]}, [1, 2], [2, 1]),
        ({"one_of": ["a", "b"]}, "b", "c"),
        ({"lt": 1.0}, 0.5, 1.0),
        ({"le": 1.0}, 1.0, 1.5),
        ({"gt": 0}, 1, 0),
        ({"ge": 2}, 2, 1.9),
        ({"isclose": 1.0, "rel_tol": 1e-3}, 1.0005, 1.01),
        ({"isclose": 0.0, "abs_tol": 1e-6}, 1e-7, 1e-3),
        ({"contains": "inplace"}, "modified by an inplace op", "nothing here"),
        ({"contains": "weight"}, ["bias", "weight"], ["bias"]),
        (
            {"raises": {"type": "RuntimeError", "match": "version"}},
            "RuntimeError: bad version counter",
            "ValueError: bad version counter",
        ),
        (
            {"raises": {"type": "RuntimeError", "match": "version"}},
            "RuntimeError: bad version counter",
            "RuntimeError: something else",
        ),
        (
            {"raises": {"type": ["RuntimeError", "EOFError"], "match": ["killed", "exited"]}},
            "EOFError: worker exited unexpectedly",
            "KeyError: worker exited unexpectedly",
        ),
    ],
)
def test_each_comparison_holds_and_fails(raw: dict, good: object, bad: object) -> None:
    expectation = exp(**raw)
    assert compare(expectation, good)[0] is True
    assert compare(expectation, bad)[0] is False


def test_bool_is_not_a_number_for_equals() -> None:
    assert compare(exp(equals=True), 1)[0] is False
    assert compare(exp(equals=1), True)[0] is False


def test_order_comparisons_reject_non_numbers_and_nan() -> None:
    assert compare(exp(lt=1), "0")[0] is False
    assert compare(exp(gt=0), math.nan)[0] is False
    assert compare(exp(isclose=1.0), math.nan)[0] is False


def test_raises_rejects_a_non_exception_observation() -> None:
    assert compare(exp(raises={"type": "RuntimeError"}), None)[0] is False
    assert compare(exp(raises={"type": "RuntimeError"}), "")[0] is False


@pytest.mark.parametrize(
    "raw",
    [
        {},
        {"equals": 1, "lt": 2},
        {"lt": "one"},
        {"one_of": 3},
        {"raises": "RuntimeError"},
        {"equals": 1, "torch": "not a range"},
        {"equals": 1, "devices": ["tpu"]},
    ],
)
def test_malformed_expectations_are_rejected(raw: dict) -> None:
    with pytest.raises(RecipeError):
        exp(**raw)


def test_bad_side_is_rejected() -> None:
    with pytest.raises(RecipeError):
        parse_expectation({"side": "either", "key": "x", "equals": 1}, 0)  # "both": invariant


def _recipe(*expectations) -> Recipe:
    return Recipe("r", Path("."), {"en": "R"}, {}, _expectations=tuple(expectations))


def test_version_and_device_limits_decide_what_applies() -> None:
    new_only = parse_expectation({"side": "problem", "key": "x", "equals": 1, "torch": ">=2.8"}, 0)
    cuda_only = parse_expectation(
        {"side": "problem", "key": "y", "equals": 1, "devices": ["cuda"]}, 1
    )
    always = parse_expectation({"side": "fix", "key": "z", "equals": 0}, 2)
    recipe = _recipe(new_only, cuda_only, always)
    checks, reproduced, fixed = evaluate(recipe, {"x": 1, "y": 5}, {"z": 0}, "2.13.0+cpu", "cpu")
    assert [c.applies for c in checks] == [True, False, True]
    assert reproduced and fixed
    # On an old torch nothing applies to the problem side: it must not count as reproduced.
    checks, reproduced, fixed = evaluate(recipe, {"x": 1, "y": 5}, {"z": 0}, "2.1.0", "cpu")
    assert not reproduced and fixed
    # On CUDA the device-limited expectation applies and fails.
    _, reproduced, _ = evaluate(recipe, {"x": 1, "y": 5}, {"z": 0}, "2.13.0", "cuda")
    assert not reproduced


def test_a_missing_observation_fails_its_expectation() -> None:
    recipe = _recipe(parse_expectation({"side": "problem", "key": "x", "equals": 1}, 0))
    checks, reproduced, _ = evaluate(recipe, {}, {}, "2.13.0", "cpu")
    assert not reproduced
    assert "no observation" in checks[0].reason


def test_no_fix_observations_never_count_as_fixed() -> None:
    recipe = _recipe(parse_expectation({"side": "fix", "key": "x", "equals": 1}, 0))
    assert evaluate(recipe, {}, None, "2.13.0", "cpu")[2] is False


def test_version_in_range_handles_local_versions_and_unknowns() -> None:
    assert version_in_range("2.13.0+cpu", ">=2.8") is True
    assert version_in_range("2.7.1", ">=2.8") is False
    assert version_in_range(None, ">=2.8") is None
    assert version_in_range("2.13.0", "") is True


@pytest.mark.parametrize(
    ("field", "raw", "message"),
    [
        ("errors", {"errors": ["  "]}, "empty"),
        ("legacy_errors", {"legacy_errors": [{"text": "", "source": "https://x"}]}, "empty"),
        ("questions", {"questions": {"en": ["q?"], "fr": ["q ?"]}}, "unknown language"),
    ],
)
def test_findability_fields_reject_what_would_mislead_search(
    field: str, raw: dict, message: str
) -> None:
    from pitfalls.catalogue import loader

    parse = {
        "errors": loader.parse_errors,
        "legacy_errors": loader.parse_legacy_errors,
        "questions": loader.parse_questions,
    }[field]
    with pytest.raises(RecipeError, match=message):
        parse(raw)
