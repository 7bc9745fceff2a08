"""The discrimination check of `pitfalls verify`: does each claim tell problem from fix?

A claim is evidence only if it could fail, and the run holds the best witness of that: the
other side's observations. After a run, on the device it ran on, two rules are applied to
every claim whose gates (torch, NumPy, Python, device) apply there; invariants (`side =
"both"`) and a chart's series check are not claims and are left out.

- `does_not_discriminate`: a claim that held on its side, on a key both sides returned, that
  also holds when applied to the other side's observation of that key. It cannot tell the
  problem from the fix. A `warns` claim is applied to the other side's recorded warnings.
- `no_discriminating_claim`: a side with at least one applicable claim, none of which fails
  on the other side's observations. A claim on a key the other side does not return is never
  counted as failing there (there is nothing to compare): the paired-key convention (both
  sides return each deciding key) is what lets this rule see it.

A side with no applicable claim at all is not reported here: the verdict already fails it. A
recipe that did not run to the end (an error, a skip) has no findings.

A claim on a key only one side returns, which restates arithmetic through a torch call, is
not found by either rule: that is left to review (see recipes/README.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pitfalls.catalogue.model import SERIES_OP, SIDES, WARNINGS_KEY, Expectation
from pitfalls.catalogue.verdict import compare
from pitfalls.i18n import t

if TYPE_CHECKING:
    from pitfalls.runner.result import RunResult

BOTH_HOLD = "does_not_discriminate"
NO_CLAIM = "no_discriminating_claim"
RULES = (BOTH_HOLD, NO_CLAIM)


def other(side: str) -> str:
    """The side opposite `side`."""
    return "fix" if side == "problem" else "problem"


def _short(value: Any, limit: int = 80) -> str:
    try:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Finding:
    """One claim (or one side) that does not tell problem from fix, in one run."""

    rule: str
    side: str
    expectation: Expectation | None = None  # the claim, for `does_not_discriminate`
    other_value: Any = None  # the other side's observation the claim also holds on
    one_sided: tuple[str, ...] = field(default=())  # keys the other side does not return

    def message(self, lang: str = "en") -> str:
        """One line that says what was found and what to do, in `lang`."""
        side, there = t(f"run.{self.side}", lang), t(f"run.{other(self.side)}", lang)
        if self.rule == BOTH_HOLD and self.expectation is not None:
            return t(
                "verify.finding.both_hold",
                lang,
                side=side,
                other=there,
                claim=self.expectation.describe(),
                value=_short(self.other_value),
            )
        text = t("verify.finding.no_claim", lang, side=side, other=there)
        if self.one_sided:
            keys = ", ".join(self.one_sided)
            text += t("verify.finding.one_sided", lang, other=there, keys=keys)
        return text

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form, as `verify --json` carries it per recipe."""
        data: dict[str, Any] = {"rule": self.rule, "side": self.side}
        if self.expectation is not None:
            data["key"] = self.expectation.key
            data["expectation"] = self.expectation.describe()
            data["other_value"] = self.other_value
        if self.one_sided:
            data["one_sided_keys"] = list(self.one_sided)
        data["message"] = self.message("en")
        return data


def observations(result: RunResult) -> dict[str, dict[str, Any]] | None:
    """Each side's observations as the claims read them (recorded warnings included), or
    None when the run did not produce both sides."""
    if result.skipped or result.error or result.problem is None or result.fix is None:
        return None
    observed = {"problem": dict(result.problem), "fix": dict(result.fix)}
    for side in SIDES:
        if side in result.warnings:
            observed[side].setdefault(WARNINGS_KEY, list(result.warnings[side]))
    return observed


def findings(result: RunResult) -> list[Finding]:
    """The discrimination findings of one run (see the module docstring for the rules)."""
    observed = observations(result)
    if observed is None:
        return []
    claims = [
        c
        for c in result.checks
        if c.applies and c.kind == "claim" and c.expectation.op != SERIES_OP
    ]
    found: list[Finding] = []
    for side in SIDES:
        mine = [c for c in claims if c.on == side]
        if not mine:
            continue
        there = observed[other(side)]
        discriminating = False
        one_sided: list[str] = []
        for check in mine:
            exp = check.expectation
            if exp.key not in there:
                one_sided.append(exp.key)
                continue
            holds_there, _ = compare(exp, there[exp.key])
            if not holds_there:
                discriminating = True
            elif check.holds:
                found.append(Finding(BOTH_HOLD, side, exp, there[exp.key]))
        if not discriminating:
            keys = tuple(dict.fromkeys(one_sided))
            found.append(Finding(NO_CLAIM, side, one_sided=keys))
    return found
