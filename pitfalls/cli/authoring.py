"""Authoring commands: `pitfalls new` scaffolds a recipe, `pitfalls lint` checks recipes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from pitfalls.authoring.lint import CODES
from pitfalls.cli.common import echo, fail, language, plain_output, warn
from pitfalls.i18n import t


def new(
    recipe_id: str = typer.Argument(..., metavar="ID", help="The new recipe's id."),
    directory: Optional[str] = typer.Option(None, "--dir", help="Parent folder [default: .]."),
) -> None:
    """Scaffold a recipe folder DIR/ID: recipe.toml, en.md, zh.md and snippet.py.

    Every place to fill in is marked TODO (lint code PIT019), and the snippet's stubs fail
    their expectations, so `pitfalls run` exits 1 until the demonstration is written.
    Exits 2 when ID is not a valid id or DIR/ID already exists.
    """
    # lazy: the linter and scaffold only for `lint` and `new`
    from pitfalls.authoring.linter import builtin_names
    from pitfalls.authoring.scaffold import write_scaffold
    from pitfalls.catalogue.loader import ID_PATTERN
    from pitfalls.catalogue.registry import builtin_dir

    lang = language()
    if not ID_PATTERN.match(recipe_id):
        fail(t("new.bad_id", lang, id=recipe_id), 2)
    parent = Path(directory or ".").expanduser()
    target = parent / recipe_id
    if target.exists():
        fail(t("new.exists", lang, path=target), 2)
    try:
        folder = write_scaffold(parent, recipe_id)
    except FileExistsError:  # created between the check and the write
        fail(t("new.exists", lang, path=target), 2)
    except OSError as err:
        fail(t("new.cannot_write", lang, path=target, reason=err.strerror or err), 2)
    if any(recipe_id in names for _, names in builtin_names(builtin_dir())):
        warn(t("new.clash", lang, id=recipe_id))
    echo(t("new.created", lang, path=folder))
    echo(t("new.next", lang, path=folder, parent=parent, id=recipe_id))


def _lint_help() -> str:
    # Built from pitfalls.authoring.lint.CODES so the help cannot drift from the checks. The \b line
    # stops click from re-wrapping the table into one paragraph.
    table = "\n".join(f"  {c.code}  {c.severity:<7}  {c.summary}" for c in CODES.values())
    return (
        "Check recipes and report findings under numbered codes.\n\n"
        "PATHS are recipe folders or folders of recipe folders [default: the built-in "
        "catalogue]. Ids and aliases must also be unique against the built-in recipes.\n\n"
        "Output: one finding per line, `path:line: CODE severity: message`; --json prints a "
        "list. Exits 1 when any finding is an error, 0 when there are none or only warnings, "
        "2 on a bad path.\n\n"
        f"\b\nCodes:\n{table}"
    )


# A module-level singleton: a list-typed default built inline would trip ruff's B008.
PATHS_ARGUMENT = typer.Argument(
    None, metavar="[PATHS]...", help="Recipe folders or folders of them.", show_default=False
)


def lint(
    paths: Optional[list[str]] = PATHS_ARGUMENT,
    as_json: bool = typer.Option(False, "--json", help="Print the findings as a JSON list."),
    check_links: bool = typer.Option(
        False, "--check-links", help="Also fetch every reference URL (needs the network)."
    ),
) -> None:
    # lazy: the linter and scaffold only for `lint` and `new`
    from pitfalls.authoring.lint import recipe_folders
    from pitfalls.authoring.linter import lint_paths
    from pitfalls.catalogue.registry import builtin_dir

    lang = language()
    folders = [Path(p).expanduser() for p in paths] if paths else [builtin_dir()]
    for folder in folders:
        if not folder.is_dir():
            fail(t("lint.bad_path", lang, path=folder), 2)
        if not recipe_folders(folder):
            fail(t("lint.no_recipes", lang, path=folder), 2)
    findings, count = lint_paths(folders, check_links=check_links)
    errors = sum(f.severity == "error" for f in findings)
    if as_json:
        echo(json.dumps([f.to_dict() for f in findings], ensure_ascii=False, indent=2))
    else:
        _print_findings(findings)
        warnings = len(findings) - errors
        summary = t("lint.summary", lang, errors=errors, warnings=warnings, recipes=count)
        warn(summary if findings else t("lint.clean", lang, recipes=count))
    raise typer.Exit(1 if errors else 0)


lint.__doc__ = _lint_help()


def _print_findings(findings: list) -> None:
    """One finding per line; severity in colour on a terminal, plain when piped."""
    if plain_output():
        for finding in findings:
            echo(str(finding))
        return
    # lazy: Rich loads only when something is drawn
    from rich.markup import escape

    # lazy: Rich and the registry only when the command prints or reads recipes
    from pitfalls.cli.common import console

    out = console()
    for finding in findings:
        style = "red" if finding.severity == "error" else "yellow"
        where = f"{finding.path}:{finding.line}" if finding.line else finding.path
        out.print(
            f"{escape(where)}: [bold]{finding.code}[/] [{style}]{finding.severity}[/]: "
            f"{escape(finding.message)}",
            highlight=False,
            soft_wrap=True,
        )
