"""Series observations: the data model under a recipe's `[[plot]]`, without drawing.

A plot names an observation that holds `{"x": [...], "y": {"name": [...]}}`. This module says
whether a value has that shape (a broken one is a failed claim, see
`pitfalls.catalogue.verdict`), whether the two sides' series can share axes, and what `run
--json` reports about each plot. Drawing them is `pitfalls.render.charts`' job.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from pitfalls.catalogue.model import Plot
from pitfalls.i18n import t

if TYPE_CHECKING:
    from pitfalls.catalogue.model import Recipe

SERIES_SHAPE = '{"x": [...], "y": {"name": [...]}}'


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def series_problem(value: Any, kind: str = "line") -> str | None:
    """Why `value` is not a series observation for a `kind` chart, or None when it is."""
    if not isinstance(value, dict) or "x" not in value or "y" not in value:
        got = "a table without x and y" if isinstance(value, dict) else type(value).__name__
        return f"expected series {SERIES_SHAPE}, got {got}"
    extra = sorted(str(k) for k in value if k not in ("x", "y"))
    if extra:
        return f"unexpected key {extra[0]!r} beside x and y"
    xs = value["x"]
    if not isinstance(xs, list) or not xs:
        return "x must be a non-empty list"
    categories = kind == "bar" and all(isinstance(x, str) for x in xs)
    if not categories and not all(is_number(x) for x in xs):
        return "x must hold numbers" + (" or, for a bar chart, strings" if kind == "bar" else "")
    ys = value["y"]
    if not isinstance(ys, dict) or not ys:
        return "y must map series names to lists of numbers"
    for name, values in ys.items():
        if not isinstance(values, list):
            return f"series {name!r} is not a list"
        if len(values) != len(xs):
            return f"series {name!r} has {len(values)} values for {len(xs)} x values"
        if not all(v is None or is_number(v) for v in values):
            return f"series {name!r} holds something other than numbers"
    return None


def series_summary(value: Any, lang: str) -> str:
    """`2 series × 60 points`, for the observation table (the chart shows the values)."""
    ys = value.get("y", {})
    return t("chart.summary", lang, series=len(ys), points=len(value.get("x", [])))


def is_series(value: Any) -> bool:
    """Whether an observation has the series shape (for any kind of chart)."""
    return isinstance(value, dict) and series_problem(value, "bar") is None


def observations_of(problem: Any, fix: Any) -> dict[str, Any]:
    """The per-side observations in the form `plot_checks` and `build_charts` read."""
    return {"problem": problem, "fix": fix}


def side_value(plot: Plot, observations: dict[str, Any], side: str) -> tuple[Any, str | None]:
    """(the observation, why it is not a valid series or None) for one side of a plot."""
    data = observations.get(side)
    if not isinstance(data, dict):
        return None, f"the {side} side returned no observations"
    if plot.key not in data:
        return None, f"no observation named {plot.key!r}"
    value = data[plot.key]
    return value, series_problem(value, plot.kind)


def shared_axes(plot: Plot, values: dict[str, Any]) -> bool:
    """Whether the sides' series can share one pair of axes."""
    if len(values) < 2:
        return True
    xs = [value["x"] for value in values.values()]
    categorical = [all(isinstance(x, str) for x in x_values) for x_values in xs]
    if plot.kind == "bar":
        # Grouped bars need the same categories on every side.
        return all(x_values == xs[0] for x_values in xs)
    return not any(categorical)


def plots_data(recipe: Recipe, problem: Any, fix: Any) -> list[dict[str, Any]]:
    """`run --json`'s description of each plot: the table, whether each side's series have
    the shape, how many points each series has and how many are not finite, and whether the
    sides share one chart. The values themselves are the observations, under `problem`/`fix`."""
    observations = observations_of(problem, fix)
    described = []
    for plot in recipe.plots:
        entry = plot.to_dict()
        sides: dict[str, Any] = {}
        valid = {}
        for side in plot.sides:
            value, reason = side_value(plot, observations, side)
            if reason is not None:
                sides[side] = {"valid": False, "reason": reason}
                continue
            valid[side] = value
            sides[side] = {
                "valid": True,
                "series": [
                    {
                        "name": name,
                        "points": len(ys),
                        "not_finite": sum(
                            1 for y in ys if is_number(y) and not math.isfinite(float(y))
                        ),
                        "missing": sum(1 for y in ys if y is None),
                    }
                    for name, ys in value["y"].items()
                ],
            }
        entry["sides_observed"] = sides
        entry["shared_axes"] = len(valid) > 1 and shared_axes(plot, valid)
        described.append(entry)
    return described
