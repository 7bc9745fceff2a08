"""Rendering a run result, shared by the CLI and the TUI: rich renderables and plain lines.

Verdicts use ✓ and ✗ symbols as well as colour, so that they read without colour too.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pitfalls.catalogue.series import is_series, series_summary
from pitfalls.catalogue.statements import context_keys, context_text
from pitfalls.i18n import t

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.text import Text

    from pitfalls.runner import VerifyReport
    from pitfalls.runner.result import RunResult


def console(stderr: bool = False) -> Console:
    """A rich console; colour and width follow the terminal."""
    # lazy: Rich loads only when something is drawn
    from rich.console import Console

    no_color = bool(os.environ.get("NO_COLOR"))
    return Console(stderr=stderr, no_color=no_color, highlight=False, soft_wrap=False)


def format_value(value: Any) -> str:
    """A compact, stable text form of an observation."""
    if isinstance(value, float):
        return (
            repr(value)
            if value != value or value in (float("inf"), float("-inf"))
            else (f"{value:.6g}")
        )
    if isinstance(value, str):
        return value
    if value is None:
        return "—"
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def mark(ok: bool) -> str:
    """✓ or ✗."""
    return "✓" if ok else "✗"


def verdict_text(result: RunResult, lang: str) -> str:
    """One line that says what the run showed."""
    if result.skipped:
        return t("run.skipped", lang, reason=result.skipped)
    if result.error:
        return t("run.verdict.error", lang, message=result.error.get("message", ""))
    if not result.reproduced:
        return t("run.verdict.not_reproduced", lang)
    if not result.fixed:
        return t("run.verdict.not_fixed", lang)
    if not result.invariants_held:
        return t("run.verdict.invariant_failed", lang)
    return t("run.verdict.held", lang)


def environment_text(result: RunResult, lang: str) -> str:
    """`on cpu (x86_64), torch 2.13.0, Python 3.11.7`."""
    env = result.environment
    return t(
        "run.env",
        lang,
        device=result.device or result.requested_device,
        device_name=env.get("device_name") or "?",
        torch=env.get("torch") or "?",
        python=env.get("python") or "?",
    )


def notes(result: RunResult, lang: str) -> list[str]:
    """Notices shown beside the verdict: torch out of range, undeclared device."""
    found = []
    if result.output_truncated:
        found.append(t("run.output_truncated", lang))
    if result.torch_in_range is False:
        found.append(
            t("run.out_of_range", lang, torch=result.torch_version, range=result.recipe.torch)
        )
    device = result.device or result.requested_device
    if not result.skipped and result.device and not result.recipe.supports_device(device):
        found.append(
            t(
                "run.device_not_declared",
                lang,
                devices=", ".join(result.recipe.devices),
                device=device,
            )
        )
    return found


def observation_rows(result: RunResult, lang: str = "en") -> list[tuple[str, str, str]]:
    """(name, problem value, fix value) for every observation of either side. Series are
    summarised (`2 series × 60 points`): the chart shows them and `--json` carries them."""

    problem = result.problem or {}
    fix = result.fix or {}
    names = list(dict.fromkeys([*problem, *fix]))

    def cell(side: dict[str, Any], name: str) -> str:
        if name not in side:
            return ""
        value = side[name]
        return series_summary(value, lang) if is_series(value) else format_value(value)

    return [(name, cell(problem, name), cell(fix, name)) for name in names]


def _context(result: RunResult) -> str:
    """The observations no expectation reads, in one line (see pitfalls.catalogue.statements)."""
    return context_text(result)


def check_label(check: Any, lang: str) -> str:
    """`problem`, `fix`, or for an invariant `invariant (problem)`, in `lang`."""
    side = t(f"run.{check.on}", lang)
    if check.kind == "invariant":
        return t("run.invariant_on", lang, side=side)
    return side


def plain_lines(result: RunResult, lang: str) -> list[str]:
    """The result as plain, tab-separated lines for pipes and NO_COLOR."""
    lines = [f"{result.recipe.id}\t{environment_text(result, lang)}"]
    problem_label, fix_label = t("run.problem", lang), t("run.fix", lang)
    lines.append(f"{t('run.observation', lang)}\t{problem_label}\t{fix_label}")
    lines.extend("\t".join(row) for row in observation_rows(result, lang))
    # Claims first, then invariants (labelled `invariant (side)`), then the context line.
    for check in sorted(result.checks, key=lambda c: c.kind == "invariant"):
        state = mark(check.holds) if check.applies else "-"
        side = check_label(check, lang)
        extra = f"\t{check.reason}" if check.reason else ""
        lines.append(f"{state}\t{side}\t{check.expectation.describe()}{extra}")
    context = _context(result)
    if context:
        lines.append(f"context\t{context}")
    lines.append(
        f"{t('run.reproduced', lang)}\t{t('run.yes' if result.reproduced else 'run.no', lang)}"
    )
    lines.append(f"{t('run.fixed', lang)}\t{t('run.yes' if result.fixed else 'run.no', lang)}")
    lines.extend(notes(result, lang))
    lines.append(verdict_text(result, lang))
    return lines


def result_renderable(
    result: RunResult, lang: str, charts: Sequence[RenderableType] = ()
) -> RenderableType:
    """The result as a rich renderable: observations side by side, `charts` below them, then
    checks and verdict."""
    # lazy: Rich loads only when something is drawn
    from rich.console import Group

    return Group(result_head(result, lang), *charts, result_tail(result, lang))


def result_head(result: RunResult, lang: str) -> RenderableType:
    """What comes above the charts: the environment line and the observations table."""
    # lazy: Rich loads only when something is drawn
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    parts: list[Any] = [Text(f"{result.recipe.id} · {environment_text(result, lang)}", "dim")]
    table = Table(expand=False, show_edge=False, pad_edge=False)
    table.add_column(t("run.observation", lang), style="bold", overflow="fold")
    table.add_column(t("run.problem", lang), style="red", overflow="fold")
    table.add_column(t("run.fix", lang), style="green", overflow="fold")

    context = context_keys(result)
    for row in observation_rows(result, lang):
        # Text, not markup: an observation such as `[false, true]` is data, not a style tag.
        # Context (an observation no expectation reads) is dimmed; the tail names it too.
        dim = all(
            row[0] in context[side] for side, cell in zip(("problem", "fix"), row[1:]) if cell
        )
        table.add_row(*(Text(cell, "dim") if dim else Text(cell) for cell in row))
    if table.row_count:
        parts.append(table)
    return Group(*parts)


def result_tail(result: RunResult, lang: str) -> RenderableType:
    """What comes below the charts: checks, notes and the verdict."""
    # lazy: Rich loads only when something is drawn
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    parts: list[Any] = []
    for title, kind in (("run.claims", "claim"), ("run.invariants", "invariant")):
        group = [c for c in result.checks if c.kind == kind]
        if not group:
            continue
        # The title above the table, not in it: a table title wraps to the table's width.
        parts.append(Text(t(title, lang), "italic"))
        checks = Table(show_header=False, box=None, pad_edge=False)
        checks.add_column("", width=1)
        checks.add_column("", overflow="fold")
        checks.add_column("", overflow="fold")
        for check in group:
            if not check.applies:
                symbol = Text("-", "dim")
                detail = Text(t("run.n_a", lang), "dim")
            else:
                symbol = Text(mark(check.holds), "green" if check.holds else "bold red")
                detail = Text(check.reason or "", "red")
            side = t(f"run.{check.on}", lang)  # the table's title says claim or invariant
            colon = "：" if lang == "zh" else ": "
            checks.add_row(symbol, Text(f"{side}{colon}{check.expectation.describe()}"), detail)
        parts.append(checks)
    context = _context(result)
    if context:
        parts.append(Text(t("run.context", lang, keys=context), "dim"))
    for note in notes(result, lang):
        parts.append(Text(note, "yellow"))
    style = "bold green" if result.status == "held" else "bold red"
    if result.skipped:
        style = "yellow"
    parts.append(Text(verdict_text(result, lang), style))
    return Group(*parts)


def inline_text(text: str, code_style: str = "bold cyan") -> Text:
    """A one-line Markdown string (a title, a summary) as rich Text: `code` spans styled,
    backticks dropped, everything else literal."""
    # lazy: Rich loads only when something is drawn
    from rich.text import Text

    result = Text()
    for index, part in enumerate(text.split("`")):
        # Odd parts sat between backticks; an unmatched backtick leaves a literal tail.
        result.append(part, style=code_style if index % 2 else "")
    return result


def verify_summary(report: VerifyReport, lang: str) -> str:
    """`9 held, 0 claims failed, 0 failed to run, 0 skipped`, in `lang`."""
    counts = report.counts()
    return t(
        "verify.summary",
        lang,
        held=counts.get("held", 0),
        claim_failed=counts.get("claim_failed", 0),
        error=counts.get("error", 0) + counts.get("unavailable", 0),
        skipped=counts.get("skipped", 0),
    )
