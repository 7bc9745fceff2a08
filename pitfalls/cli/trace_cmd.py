"""`pitfalls trace -- COMMAND...`: the command line face of `pitfalls.trace`."""

from __future__ import annotations

from typing import Optional

import typer

from pitfalls.cli.common import LANG_OPTION, fail, language, registry, warn
from pitfalls.doctor import ENVIRONMENT_RECIPES
from pitfalls.i18n import t

TRACE_HELP_EPILOG = """
Exit codes: the command's own; 127 when it is not found and 126 when it cannot be executed;
128+N when it died of signal N; 2 for a usage error of `trace` itself.
"""


def trace(
    command: list[str] = typer.Argument(
        None, metavar="-- COMMAND [ARGS]...", help="The command to run, after `--`."
    ),
    lang: Optional[str] = LANG_OPTION,
) -> None:
    """Run a command untouched; if it dies with a Python error a recipe explains, say which.

    Output passes through live: on a terminal the command gets a pseudo-terminal, so progress
    bars and colours work; piped, bytes pass through as they come. Example:
    `pitfalls trace -- python train.py --epochs 3`.
    """
    lang = language(lang)
    if not command:
        fail(t("trace.no_command", lang), 2)
    # lazy: only `trace` needs it
    from pitfalls.trace import run_traced

    traced = run_traced(list(command))
    if traced.error:
        key = "trace.not_found" if traced.error == "not found" else "trace.cannot_execute"
        warn(f"pitfalls: {t(key, lang, command=command[0])}")
        raise typer.Exit(traced.returncode)
    if traced.returncode != 0:
        _explain(traced.traceback_text(), lang)
    raise typer.Exit(traced.returncode)


def _explain(traceback_text: str | None, lang: str) -> None:
    """One short block naming the recipe, when the traceback matches one confidently."""
    if not traceback_text:
        return
    # lazy: search's index and tables only when searching
    from pitfalls.search.ranking import best_match

    try:
        hit = best_match(registry(report=False), traceback_text)
    except Exception:  # noqa: BLE001 - a hint must never turn the command's exit into ours
        return
    if hit is None:
        return
    recipe = hit.recipe
    lines = [
        "",
        t("trace.hint", lang, id=recipe.id, title=recipe.text(recipe.title, lang)),
        f"  {t('trace.read', lang)}: pitfalls show {recipe.id}",
        f"  {t('trace.run', lang)}: pitfalls run {recipe.id}",
    ]
    if recipe.id in ENVIRONMENT_RECIPES or getattr(recipe, "theme", None) == "environment":
        lines.append(f"  {t('trace.doctor', lang)}: pitfalls doctor")
    warn("\n".join(lines))
