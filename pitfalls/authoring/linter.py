"""`pitfalls lint` over a set of folders: each folder's checks (lint_checks), the checks across
recipes (findability, duplicate names) and the ones that call out (external), as one sorted
list of findings. The codes and what a finding is: `pitfalls.authoring.lint`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from pitfalls.authoring.external import check_urls, format_findings
from pitfalls.authoring.findability import catalogue_findings
from pitfalls.authoring.lint import Finding, Identity, display_path, recipe_folders
from pitfalls.authoring.lint_checks import check_recipe
from pitfalls.catalogue.loader import RecipeError, read_toml
from pitfalls.catalogue.registry import builtin_dir


def lint_paths(
    paths: Iterable[Path], *, check_links: bool = False, builtins: Path | None = None
) -> tuple[list[Finding], int]:
    """Lint every recipe folder under `paths`: (findings sorted by file and line, recipes seen).

    Ids and aliases must be unique across the linted recipes and the built-in catalogue
    (`builtins`, default: the installed one), so a pack cannot shadow a built-in.
    """
    folders = list(dict.fromkeys(f for p in paths for f in recipe_folders(p)))
    findings: list[Finding] = []
    identities: list[Identity] = []
    urls: list[tuple[str, Path, int | None]] = []
    builtin_root = (builtins or builtin_dir()).resolve()
    for folder in folders:
        found, identity, references = check_recipe(folder)
        if folder.resolve().parent == builtin_root:  # the built-in catalogue: full severity
            found = [replace(f, pack_severity="") for f in found]
        findings.extend(found)
        identities.append(identity)
        urls.extend((url, folder, line) for url, line in references)
    findings.extend(_duplicates(identities, builtins or builtin_dir()))
    findings.extend(catalogue_findings(folders, builtins or builtin_dir()))
    findings.extend(format_findings(folders))
    if check_links:
        findings.extend(check_urls(urls))
    findings.sort(key=lambda f: (f.path, f.line or 0, f.code))
    return findings, len(folders)


def _duplicates(identities: list[Identity], builtins: Path) -> list[Finding]:
    """PIT006 for each id or alias claimed earlier in the linted set or by a built-in."""
    linted = {identity.folder.resolve() for identity in identities}
    owners: dict[str, str] = {}
    for folder, names in builtin_names(builtins):
        if folder.resolve() not in linted:
            for name in names:
                owners.setdefault(name, f"the built-in recipe {folder.name!r}")
    findings = []
    for identity in identities:
        toml = display_path(identity.folder / "recipe.toml")
        mine = {name for kind, name, _ in identity.names if kind == "id"}
        for kind, name, line in identity.names:
            if kind == "alias" and name in mine:
                continue  # an alias equal to the recipe's own id is harmless
            owner = owners.get(name)
            if owner is not None:
                message = f"{kind} {name!r} is already used by {owner}"
                findings.append(Finding("PIT006", toml, message, line))
        for _, name, _ in identity.names:
            owners.setdefault(name, f"the recipe at {display_path(identity.folder)}")
    return findings


def builtin_names(builtins: Path) -> list[tuple[Path, list[str]]]:
    """(folder, [id, *aliases]) of each readable built-in recipe; broken ones are skipped,
    since linting a pack must not fail on the catalogue's own problems."""
    result = []
    if not builtins.is_dir():
        return result
    for folder in recipe_folders(builtins):
        try:
            data = read_toml(folder / "recipe.toml")
        except RecipeError:
            continue
        names = [data.get("id", folder.name), *data.get("aliases", [])]
        result.append((folder, [n.lower() for n in names if isinstance(n, str)]))
    return result
