"""`pitfalls doctor`: what this machine offers, and what in the catalogue is broken."""

from __future__ import annotations

import json
import platform
import sys
from typing import Any, Optional

import typer

from pitfalls._version import __version__
from pitfalls.cli.common import (
    LANG_OPTION,
    echo,
    installed_torch_version,
    language,
    plain_output,
    registry,
)
from pitfalls.i18n import t


def _probe_devices(python: Optional[str]) -> dict[str, Any]:
    """Ask a child process which devices torch sees (never in this process)."""
    # lazy: the runner only for what runs snippets
    from pitfalls.runner import ProcessPool, RunnerUnavailable, probe_device, python_for

    try:
        with ProcessPool(python=python_for(python)) as pool:
            device, env = probe_device(pool, "auto", 120.0)
            return {"auto": device, **env}
    except RunnerUnavailable as err:
        return {"error": str(err)}
    except Exception as err:  # the probe must never take doctor down
        return {"error": f"{type(err).__name__}: {err}"}


def doctor(
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    python: Optional[str] = typer.Option(
        None,
        "--python",
        envvar="PITFALLS_PYTHON",
        help="Check this interpreter's torch.",
        show_default=False,
    ),
    lang: Optional[str] = LANG_OPTION,
) -> None:
    """Show Python, torch, the devices torch can use, and any recipe that is broken.

    Exits 1 when a recipe failed to load or lacks problem/fix, 0 otherwise.
    """
    # lazy: the catalogue is loaded only by a command that needs recipes
    from pitfalls.catalogue.snippet_check import missing_functions

    lang = language(lang)
    catalogue = registry(report=False)
    problems = [
        {"path": p.path, "reason": p.reason, "source": p.source, "severity": p.severity}
        for p in catalogue.problems
    ]
    for recipe in catalogue:
        missing = missing_functions(recipe.snippet_path)
        if isinstance(missing, str):
            problems.append(
                {
                    "path": str(recipe.snippet_path),
                    "reason": missing,
                    "source": recipe.source,
                    "severity": "error",
                }
            )
        elif missing:
            reason = "snippet.py defines no " + " and ".join(f"{m}(device)" for m in missing)
            problems.append(
                {
                    "path": str(recipe.snippet_path),
                    "reason": reason,
                    "source": recipe.source,
                    "severity": "error",
                }
            )
    torch_version = installed_torch_version() if not python else None
    devices = _probe_devices(python) if (torch_version or python) else {}
    sources = sorted({r.source for r in catalogue})
    data = {
        "pitfalls": __version__,
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "torch": devices.get("torch") or torch_version,
        "cuda": devices.get("cuda"),
        "devices": devices.get("devices", []),
        "default_device": devices.get("auto"),
        "device_probe_error": devices.get("error"),
        "recipes": len(catalogue),
        "sources": sources,
        "problems": problems,
    }
    errors = [p for p in problems if p["severity"] == "error"]
    if as_json:
        echo(json.dumps(data, ensure_ascii=False, indent=2))
        raise typer.Exit(1 if errors else 0)
    not_installed = t("doctor.not_installed", lang)
    rows = [
        ("pitfalls", __version__),
        (t("doctor.python", lang), f"{data['python']} ({sys.executable})"),
        (t("doctor.torch", lang), data["torch"] or not_installed),
    ]
    if data["torch"]:
        rows.append(("CUDA", data["cuda"] or "—"))
        device_text = ", ".join(data["devices"]) or (data["device_probe_error"] or "?")
        rows.append((t("doctor.devices", lang), device_text))
    rows.append((t("doctor.recipes", lang), f"{len(catalogue)} ({', '.join(sources)})"))
    rows.append(
        (t("doctor.problems", lang), str(len(problems)) if problems else t("doctor.none", lang))
    )
    if plain_output():
        for key, value in rows:
            echo(f"{key}\t{value}")
        for p in problems:
            echo(f"{p['severity']}\t{p['path']}\t{p['reason']}")
    else:
        # lazy: Rich loads only when something is drawn
        from rich.markup import escape
        from rich.table import Table

        # lazy: Rich and the registry only when the command prints or reads recipes
        from pitfalls.cli.common import console

        table = Table(show_header=False, show_edge=False, pad_edge=False)
        table.add_column(style="bold")
        table.add_column(overflow="fold")
        for key, value in rows:
            table.add_row(escape(key), escape(value))
        out = console()
        out.print(table)
        for p in problems:
            style = "red" if p["severity"] == "error" else "yellow"
            out.print(
                f"[{style}]{p['severity']}[/] {escape(p['path'])}: {escape(p['reason'])}",
                highlight=False,
                markup=True,
            )
    raise typer.Exit(1 if errors else 0)
