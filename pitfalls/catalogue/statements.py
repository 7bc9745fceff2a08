"""Claims, invariants and context (issue #24): how a recipe's statements are told apart.

- a **claim** is an expectation on one side (`side = "problem"` or `"fix"`): evidence that the
  pitfall reproduced, or that the fix held; only claims decide `reproduced` and `fixed`;
- an **invariant** (`side = "both"`) is checked on each side and shown with its result, but
  never counted as evidence (a failing one still fails the run: see RunResult.status);
- **context** is an observation no expectation reads: shown, never evaluated.

Shared by `run`, `show`, `verify --json` and the TUI. No torch, no rich at import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pitfalls.catalogue.model import SIDES, Expectation
from pitfalls.i18n import t

if TYPE_CHECKING:
    from pitfalls.catalogue.model import Recipe
    from pitfalls.runner.result import RunResult

CLAIM = "claim"
INVARIANT = "invariant"
CONTEXT = "context"


def kind_of(expectation: Expectation) -> str:
    """`claim` or `invariant`."""
    return INVARIANT if expectation.is_invariant else CLAIM


def grouped(expectations: tuple[Expectation, ...]) -> dict[str, list[Expectation]]:
    """The expectations as {"problem": claims, "fix": claims, "both": invariants}."""
    groups: dict[str, list[Expectation]] = {"problem": [], "fix": [], "both": []}
    for exp in expectations:
        groups[exp.side].append(exp)
    return groups


def gate_note(exp: Expectation) -> str:
    """Where an expectation applies, when it is gated: `cuda only; torch >=2.4` (or "")."""
    parts = []
    if exp.devices:
        parts.append(f"{', '.join(exp.devices)} only")
    parts.extend(f"{name} {spec}" for name, spec in exp.gates().items())
    return "; ".join(parts)


def read_keys(recipe: Recipe, side: str) -> set[str]:
    """The observations of `side` that some expectation or chart reads (gated or not)."""
    keys = {e.key for e in recipe.expectations if side in e.sides()}
    try:
        keys.update(p.key for p in recipe.plots if side in p.sides)
    except ValueError:  # recipe.toml edited into something unreadable since loading
        pass
    return keys


def context_keys(result: RunResult) -> dict[str, list[str]]:
    """Per side, the observations the run returned that no expectation reads, in order."""
    context: dict[str, list[str]] = {}
    for side in SIDES:
        observed = getattr(result, side) or {}
        read = read_keys(result.recipe, side)
        context[side] = [key for key in observed if key not in read]
    return context


def expectation_data(exp: Expectation) -> dict[str, Any]:
    """An expectation as `show --json` lists it: as in recipe.toml, with its kind."""
    return {**exp.to_dict(), "kind": kind_of(exp), "description": exp.describe()}


def _code(text: str) -> str:
    """`text` as a Markdown code span, whatever backticks it holds."""
    fence = "``" if "`" in text else "`"
    pad = " " if fence == "``" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def context_text(result: RunResult) -> str:
    """The context observations in one line: `input, steps (fix)`; a key only one side
    returns is marked with that side. Empty when there is none."""
    context = context_keys(result)
    names = list(dict.fromkeys([*context["problem"], *context["fix"]]))
    present = {side: set(getattr(result, side) or {}) for side in SIDES}
    parts = []
    for name in names:
        sides = [side for side in SIDES if name in present[side]]
        parts.append(name if len(sides) == 2 else f"{name} ({sides[0]})")
    return ", ".join(parts)


def claims_markdown(recipe: Recipe, lang: str) -> list[str]:
    """`show`'s section on what a run checks: claims per side, then invariants (Markdown
    lines, empty when the recipe has no expectation)."""
    try:
        groups = grouped(recipe.expectations)
    except (OSError, ValueError):  # recipe.toml unreadable since loading: nothing to list
        return []
    if not any(groups.values()):
        return []
    lines = [f"## {t('show.checks', lang)}", ""]
    for group, label in (
        ("problem", "show.claims.problem"),
        ("fix", "show.claims.fix"),
        ("both", "show.invariants"),
    ):
        if not groups[group]:
            continue
        lines += [f"**{t(label, lang)}**", ""]
        for exp in groups[group]:
            note = gate_note(exp)
            lines.append(f"- {_code(exp.describe())}" + (f" *({note})*" if note else ""))
        lines.append("")
    lines += [t("show.context_note", lang), ""]
    return lines
