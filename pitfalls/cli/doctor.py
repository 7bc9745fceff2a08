"""`pitfalls doctor`: what this machine offers, what in its setup will bite, and what in the
catalogue is broken."""

from __future__ import annotations

import json
import platform
import sys
from typing import Any, Optional

import typer

from pitfalls._version import __version__
from pitfalls.cli.common import LANG_OPTION, echo, language, plain_output, registry
from pitfalls.doctor import GROUPS, Check, Probe, System, run_checks, run_probe
from pitfalls.i18n import t

PROBE_TIMEOUT = 120.0  # a first CUDA initialisation can take tens of seconds


def _devices(probe: Probe) -> tuple[list[str], Optional[str]]:
    """The devices torch can use, and the one `--device auto` picks, as the runner names them."""
    if probe.status != "ok" or probe.get("torch_error"):
        return [], None
    devices = ["cpu"] + [
        f"cuda:{d['index']} ({d['name']})" for d in probe.get("cuda_devices") or []
    ]
    if probe.get("mps_available"):
        devices.append("mps")
    auto = (
        "cuda:0" if probe.get("cuda_devices") else ("mps" if probe.get("mps_available") else "cpu")
    )
    return devices, auto


def _catalogue_problems(catalogue: Any) -> list[dict[str, Any]]:
    # lazy: the catalogue is loaded only by a command that needs recipes
    from pitfalls.catalogue.snippet_check import missing_functions

    problems = [
        {"path": p.path, "reason": p.reason, "source": p.source, "severity": p.severity}
        for p in catalogue.problems
    ]
    for recipe in catalogue:
        missing = missing_functions(recipe.snippet_path)
        if isinstance(missing, str):
            reason = missing
        elif missing:
            reason = "snippet.py defines no " + " and ".join(f"{m}(device)" for m in missing)
        else:
            continue
        problems.append(
            {
                "path": str(recipe.snippet_path),
                "reason": reason,
                "source": recipe.source,
                "severity": "error",
            }
        )
    return problems


def doctor(
    as_json: bool = typer.Option(False, "--json", help="Print JSON (schema in the README)."),
    python: Optional[str] = typer.Option(
        None,
        "--python",
        envvar="PITFALLS_PYTHON",
        help="Check this interpreter's torch (and its NumPy and OpenMP runtimes).",
        show_default=False,
    ),
    lang: Optional[str] = LANG_OPTION,
) -> None:
    """Check this machine for environment pitfalls, and the catalogue for broken recipes.

    Each check says what it found, what to do, and which recipe explains it: the torch build
    against the GPU and its driver, the GPU's architecture against the wheel's kernels,
    CUDA_VISIBLE_DEVICES, /dev/shm, the open-files limit, NumPy's ABI, OpenMP runtimes, MPS on
    macOS, modules that shadow torch, and the allocator and MPS variables. torch is imported
    only in a child process, with a timeout.

    Exits 1 when a check finds a problem or a recipe failed to load or lacks problem/fix,
    0 otherwise (warnings do not change the exit code).
    """
    lang = language(lang)
    catalogue = registry(report=False)
    problems = _catalogue_problems(catalogue)
    probe = run_probe(python, timeout=PROBE_TIMEOUT)
    checks = run_checks(System(), probe)
    devices, auto = _devices(probe)
    sources = sorted({r.source for r in catalogue})
    probe_error = None
    if probe.status in ("failed", "timeout"):
        probe_error = probe.detail
    elif probe.get("torch_error") and probe.status != "no_torch":
        probe_error = probe.get("torch_error")
    data = {
        "pitfalls": __version__,
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "torch": probe.get("torch") if probe.status == "ok" else None,
        "cuda": probe.get("cuda_version"),
        "devices": devices,
        "default_device": auto,
        "device_probe_error": probe_error,
        "recipes": len(catalogue),
        "sources": sources,
        "problems": problems,
        "checks": [c.to_dict() for c in checks],
    }
    failed = any(p["severity"] == "error" for p in problems) or any(
        c.status == "problem" for c in checks
    )
    code = 1 if failed else 0
    if as_json:
        echo(json.dumps(data, ensure_ascii=False, indent=2))
        raise typer.Exit(code)
    rows = [
        ("pitfalls", __version__),
        (t("doctor.python", lang), f"{data['python']} ({sys.executable})"),
        (t("doctor.torch", lang), data["torch"] or t("doctor.not_installed", lang)),
    ]
    if data["torch"]:
        rows.append(("CUDA", data["cuda"] or "—"))
        rows.append((t("doctor.devices", lang), ", ".join(devices) or (probe_error or "?")))
    rows.append((t("doctor.recipes", lang), f"{len(catalogue)} ({', '.join(sources)})"))
    rows.append(
        (t("doctor.problems", lang), str(len(problems)) if problems else t("doctor.none", lang))
    )
    if plain_output():
        _plain(rows, problems, checks, lang)
    else:
        _rich(rows, problems, checks, lang)
    raise typer.Exit(code)


def _plain(rows, problems, checks: list[Check], lang: str) -> None:
    for key, value in rows:
        echo(f"{key}\t{value}")
    for p in problems:
        echo(f"{p['severity']}\t{p['path']}\t{p['reason']}")
    for c in checks:
        echo("\t".join(["check", c.status, c.id, c.found, c.advice, c.recipe]).rstrip("\t"))


STYLES = {"ok": "green", "warning": "yellow", "problem": "red", "unknown": "dim"}
MARKS = {"ok": "✓", "warning": "!", "problem": "✗", "unknown": "?"}


def _rich(rows, problems, checks: list[Check], lang: str) -> None:
    # lazy: Rich's table and markup cost import time that piped output never pays
    from rich.markup import escape
    from rich.table import Table

    # lazy: Rich and the registry only when the command prints or reads recipes
    from pitfalls.cli.common import console

    out = console()
    table = Table(show_header=False, show_edge=False, pad_edge=False)
    table.add_column(style="bold")
    table.add_column(overflow="fold")
    for key, value in rows:
        table.add_row(escape(key), escape(value))
    out.print(table)
    for p in problems:
        style = "red" if p["severity"] == "error" else "yellow"
        out.print(
            f"[{style}]{p['severity']}[/] {escape(p['path'])}: {escape(p['reason'])}",
            highlight=False,
        )
    out.print()
    out.print(f"[bold]{escape(t('doctor.checks', lang))}[/]", highlight=False)
    for group in ("torch", "libraries", "system"):
        members = [c for c in checks if GROUPS.get(c.id, "torch") == group]
        if not members:
            continue
        out.print(f"  [bold dim]{escape(t(f'doctor.group.{group}', lang))}[/]", highlight=False)
        # One row a check; what it found, what to do and the recipe fold inside their column.
        grid = Table(show_header=False, show_edge=False, box=None, pad_edge=False)
        grid.add_column(width=5, no_wrap=True)
        grid.add_column(no_wrap=True, style="bold")
        grid.add_column(overflow="fold")
        for c in members:
            style = STYLES.get(c.status, "")
            mark = f"[{style}]{MARKS.get(c.status, '?')}[/]"
            text = escape(c.found)
            if c.status != "ok":
                label = escape(t(f"doctor.status.{c.status}", lang))
                text = f"[{style}]{label}[/]: {text}"
                if c.advice:
                    text += f"\n→ {escape(c.advice)}"
                if c.recipe:
                    see = escape(t("doctor.see", lang))
                    text += f"\n{see} [cyan]pitfalls show {escape(c.recipe)}[/]"
            grid.add_row("    " + mark, escape(c.id), text)
        out.print(grid, highlight=False)
    n_problems = sum(c.status == "problem" for c in checks)
    n_warnings = sum(c.status == "warning" for c in checks)
    out.print(
        "  " + escape(t("doctor.summary", lang, problems=n_problems, warnings=n_warnings)),
        highlight=False,
    )
