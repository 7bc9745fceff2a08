"""Deciding `reproduced` and `fixed` from observations: the claim is data, never hard-coded."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pitfalls.catalogue.model import SERIES_OP, WARNINGS_KEY, Expectation, Recipe
from pitfalls.catalogue.series import series_problem, series_summary

_MISSING = object()


@dataclass(frozen=True)
class Check:
    """One expectation evaluated against the observations of one run."""

    expectation: Expectation
    applies: bool
    holds: bool
    actual: Any
    reason: str = ""
    side: str = ""  # the side whose observation was read (an invariant is checked on each)

    @property
    def on(self) -> str:
        """The side this check read: `problem` or `fix`."""
        return self.side or self.expectation.side

    @property
    def kind(self) -> str:
        """`claim` (counts toward reproduced/fixed) or `invariant` (checked, never counted)."""
        return "invariant" if self.expectation.is_invariant else "claim"

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form, as `run --json` prints it: `side` is the side read, `kind` says
        whether it is a claim or an invariant (declared with `side = "both"`)."""
        data = self.expectation.to_dict()
        data.update(
            {
                "side": self.on,
                "kind": self.kind,
                "description": self.expectation.describe(),
                "applies": self.applies,
                "holds": self.holds,
                "actual": None if self.actual is _MISSING else self.actual,
            }
        )
        if self.reason:
            data["reason"] = self.reason
        return data


@lru_cache(maxsize=256)
def version_in_range(version: str | None, spec: str) -> bool | None:
    """Whether `version` lies in the PEP 440 range `spec`; None when either is unknown."""
    if not spec:
        return True
    if not version:
        return None
    # lazy: packaging only off the fast path (plain version ranges need none)
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        return SpecifierSet(spec).contains(Version(version), prereleases=True)
    except (InvalidSpecifier, InvalidVersion):
        return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _equal(actual: Any, wanted: Any) -> bool:
    # bool is an int in Python; `True == 1` must not satisfy `equals = true` for a count.
    if isinstance(wanted, bool) or isinstance(actual, bool):
        return isinstance(actual, bool) and isinstance(wanted, bool) and actual is wanted
    if _is_number(actual) and _is_number(wanted):
        return actual == wanted
    if isinstance(actual, (list, tuple)) and isinstance(wanted, (list, tuple)):
        return len(actual) == len(wanted) and all(map(_equal, actual, wanted))
    return type(actual) is type(wanted) and actual == wanted


def compare(exp: Expectation, actual: Any) -> tuple[bool, str]:
    """Apply the expectation's comparison to an observed value: (holds, reason if not)."""
    op, wanted = exp.op, exp.value
    if op == "equals":
        return _equal(actual, wanted), ""
    if op == "one_of":
        return any(_equal(actual, w) for w in wanted), ""
    if op in ("lt", "le", "gt", "ge", "isclose"):
        if not _is_number(actual):
            return False, f"expected a number, got {type(actual).__name__}"
        if op == "isclose":
            rel = exp.rel_tol if exp.rel_tol is not None else 1e-9
            absolute = exp.abs_tol if exp.abs_tol is not None else 0.0
            return math.isclose(actual, wanted, rel_tol=rel, abs_tol=absolute), ""
        result = {
            "lt": actual < wanted,
            "le": actual <= wanted,
            "gt": actual > wanted,
            "ge": actual >= wanted,
        }[op]
        return bool(result), ""
    if op == "contains":
        if isinstance(actual, str):
            return isinstance(wanted, str) and wanted in actual, ""
        if isinstance(actual, (list, tuple)):
            return any(_equal(item, wanted) for item in actual), ""
        return False, f"expected a string or a list, got {type(actual).__name__}"
    if op == "warns":
        return _compare_warnings(wanted, actual)
    if op == SERIES_OP:
        problem = series_problem(actual, wanted)
        return problem is None, problem or ""
    if op == "raises":
        if not isinstance(actual, str) or not actual.strip():
            return False, "expected an exception observed as 'Type: message'"
        type_name, _, message = actual.partition(": ")
        types = _as_list(wanted.get("type"))
        if type_name.strip() not in types:
            return False, f"raised {type_name.strip() or 'nothing'}, not {' or '.join(types)}"
        matches = [m for m in _as_list(wanted.get("match", "")) if m is not None]
        if matches and not any(m in message for m in matches):
            return False, "the message does not contain the expected text"
        return True, ""
    return False, f"unknown comparison {op!r}"


def _compare_warnings(wanted: Any, actual: Any) -> tuple[bool, str]:
    """`warns`: some recorded warning has the type and message; `false`: none was recorded."""
    if not isinstance(actual, list):
        return False, "no warnings were recorded for this side"
    if wanted is False:
        return not actual, "" if not actual else f"{len(actual)} warning(s) were raised"
    types = _as_list(wanted.get("type"))
    matches = [m for m in _as_list(wanted.get("match", "")) if m is not None]
    for item in actual:
        if not isinstance(item, str):
            continue
        category, _, message = item.partition(": ")
        if category.strip() in types and (not matches or any(m in message for m in matches)):
            return True, ""
    if not actual:
        return False, "the side raised no warning"
    return False, f"none of the {len(actual)} warning(s) matches"


def gates_apply(
    gates: dict[str, str], devices: tuple[str, ...], versions: dict[str, str | None], device: str
) -> bool:
    """Whether version gates (`{"torch": ">=2.0"}`) and device types hold in this run.

    A gate on a package whose version is unknown (NumPy not installed) does not apply.
    """
    if devices and device not in devices:
        return False
    return all(bool(version_in_range(versions.get(name), spec)) for name, spec in gates.items())


def evaluate(
    recipe: Recipe,
    problem: dict[str, Any] | None,
    fix: dict[str, Any] | None,
    torch_version: str | None,
    device_type: str,
    *,
    versions: dict[str, str | None] | None = None,
    warnings: dict[str, list[str]] | None = None,
) -> tuple[list[Check], bool, bool]:
    """Check every expectation; returns (checks, reproduced, fixed).

    A side holds when every claim on it that applies to this torch, NumPy, Python and device
    holds, and at least one applies: a side with nothing to check never counts as holding.
    An invariant (`side = "both"`) gives one check per side and is never counted here: see
    `invariants_hold`. `warnings` are the warnings the runner recorded per side, read by
    `warns` expectations.
    """
    versions = {"torch": torch_version, **(versions or {})}
    observations = {"problem": dict(problem or {}), "fix": dict(fix or {})}
    for side, sides_data in (("problem", problem), ("fix", fix)):
        if sides_data is not None and warnings is not None:
            observations[side].setdefault(WARNINGS_KEY, list(warnings.get(side) or []))
    checks: list[Check] = []
    for exp in recipe.expectations:
        applies = gates_apply(exp.gates(), exp.devices, versions, device_type)
        for side in exp.sides():
            checks.append(check_one(exp, side, observations[side], applies))
    checks.extend(plot_checks(recipe, observations))

    def side_holds(side: str) -> bool:
        applicable = [
            c for c in checks if c.applies and c.kind == "claim" and c.expectation.side == side
        ]
        return bool(applicable) and all(c.holds for c in applicable)

    reproduced = problem is not None and side_holds("problem")
    fixed = fix is not None and side_holds("fix")
    return checks, reproduced, fixed


def check_one(exp: Expectation, side: str, observed: dict[str, Any], applies: bool) -> Check:
    """One expectation read against one side's observations (`applies`: its gates hold)."""
    actual = observed.get(exp.key, _MISSING)
    if not applies:
        return Check(exp, False, False, actual, "does not apply here", side)
    if actual is _MISSING:
        return Check(exp, True, False, actual, f"no observation named {exp.key!r}", side)
    holds, reason = compare(exp, actual)
    return Check(exp, True, holds, actual, reason, side)


def invariants_hold(checks: list[Check]) -> bool:
    """Whether every invariant check that applies held (True when there is none)."""
    return all(c.holds for c in checks if c.applies and c.kind == "invariant")


def plot_checks(recipe: Recipe, observations: dict[str, dict[str, Any]]) -> list[Check]:
    """Each `[[plot]]` side's shape check: its observation must hold series, or the claim
    fails, as an expectation would. `actual` is a short summary, not the series again."""
    checks = []
    for plot in recipe.plots:
        for side in plot.sides:
            exp = plot.expectation(side)
            actual = observations[side].get(plot.key, _MISSING)
            if actual is _MISSING:
                reason = f"no observation named {plot.key!r} to plot"
                checks.append(Check(exp, True, False, actual, reason))
                continue
            holds, reason = compare(exp, actual)
            summary = series_summary(actual, "en") if holds else type(actual).__name__
            checks.append(Check(exp, True, holds, summary, reason))
    return checks


def error_proofs(recipe: Recipe, checks: list[Check], device_type: str, versions: dict) -> list:
    """For each `errors` fragment: "proven" (an expectation matching it applied and held),
    "failed" (one applied and failed) or "not proven here" (none applied in this run)."""
    proofs = []
    for fragment in recipe.errors:
        covering = [c for c in checks if fragment.text in c.expectation.matches()]
        if not gates_apply(fragment.gates(), fragment.devices, versions, device_type):
            status = "not proven here"
        elif any(c.applies and c.holds for c in covering):
            status = "proven"
        elif any(c.applies for c in covering):
            status = "failed"
        else:
            status = "not proven here"
        proofs.append({**fragment.to_dict(), "status": status})
    return proofs
