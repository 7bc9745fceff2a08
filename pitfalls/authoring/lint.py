"""`pitfalls lint`: check recipe folders and report findings under numbered codes.

Like tldr-lint and ruff, every finding carries a stable code. The table below is generated
from `CODES`, which is also what `pitfalls lint --help` prints; each code has one failing
fixture under tests/fixtures/lint/.

| code   | severity | what it means |
|--------|----------|---------------|
| PIT001 | error    | a required file is missing: recipe.toml, snippet.py, or all prose |
| PIT002 | error    | recipe.toml is not valid TOML |
| PIT003 | error    | a required key of recipe.toml is missing or has the wrong type |
| PIT004 | error    | an id or alias is not lowercase letters, digits and single hyphens |
| PIT005 | error    | the id differs from the folder name |
| PIT006 | error    | an id or alias is already used by another recipe (or a built-in) |
| PIT007 | warning  | the recipe has prose in only one language |
| PIT008 | error    | the prose does not have exactly the required `##` sections, in order |
| PIT009 | error    | en.md and zh.md do not carry the same code blocks in the same order |
| PIT010 | error    | a `python` code block is not an excerpt of snippet.py |
| PIT011 | error    | snippet.py does not parse |
| PIT012 | error    | snippet.py does not define problem(device) and fix(device) |
| PIT013 | error    | snippet.py is not formatted (`ruff format --check`; skipped without ruff) |
| PIT014 | error    | a reference is not an http(s) URL |
| PIT015 | error    | a reference could not be fetched (only with --check-links) |
| PIT016 | error    | a title or summary is missing in English or Chinese |
| PIT017 | error    | a torch range is not a PEP 440 version range |
| PIT018 | error    | an expectation is invalid, or a side (problem/fix) has none |
| PIT019 | error    | a `TODO` placeholder (as left by `pitfalls new`) still needs filling in |
| PIT020 | warning  | a code block's info string is missing or not one the format knows |
| PIT021 | error    | an `errors` fragment is not proven by an expectation, or none is listed |
| PIT022 | error    | an `errors` fragment is only a type, or shared with another recipe |
| PIT023 | error    | `[questions]` lacks 3 to 6 questions in English or Chinese |
| PIT024 | error    | `related` is missing, or names a recipe that does not exist |
| PIT025 | error    | a `legacy_errors` entry has no source URL |
| PIT026 | error    | an expectation cannot fail: its observation is fixed in snippet.py |
| PIT027 | error    | a `[[plot]]` is invalid, untranslated, or names no observation of snippet.py |
| PIT028 | error    | the top-level `theme` is missing (an unknown theme is PIT003) |

PIT026 covers an observation returned as a literal and, since issue #24, one computed from
literals alone with no torch or NumPy call on the way (pitfalls.lint_literals). The computed
case is an error in the built-in catalogue and a warning in third-party packs, until the
next minor release (see recipes/README.md). PIT028 is likewise an error in the built-in
catalogue (every recipe there has a theme) and a warning in third-party packs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from pitfalls.catalogue.model import LANGS

RECIPE_FILES = ("recipe.toml", "snippet.py", "en.md", "zh.md")


@dataclass(frozen=True)
class Code:
    """A lint code's declaration: its severity and a one-line description for the docs."""

    code: str
    severity: str
    summary: str


CODES: dict[str, Code] = {
    c.code: c
    for c in (
        Code("PIT001", "error", "a required file is missing (recipe.toml, snippet.py, prose)"),
        Code("PIT002", "error", "recipe.toml is not valid TOML"),
        Code("PIT003", "error", "a required key of recipe.toml is missing or has the wrong type"),
        Code("PIT004", "error", "an id or alias is not lowercase letters, digits and hyphens"),
        Code("PIT005", "error", "the id differs from the folder name"),
        Code("PIT006", "error", "an id or alias is already used by another recipe"),
        Code("PIT007", "warning", "the recipe has prose in only one language"),
        Code("PIT008", "error", "the prose lacks the required ## sections, in order"),
        Code("PIT009", "error", "en.md and zh.md do not carry the same code blocks"),
        Code("PIT010", "error", "a python code block is not an excerpt of snippet.py"),
        Code("PIT011", "error", "snippet.py does not parse"),
        Code("PIT012", "error", "snippet.py does not define problem(device) and fix(device)"),
        Code("PIT013", "error", "snippet.py is not formatted (ruff format --check)"),
        Code("PIT014", "error", "a reference is not an http(s) URL"),
        Code("PIT015", "error", "a reference could not be fetched (--check-links)"),
        Code("PIT016", "error", "a title or summary is missing in English or Chinese"),
        Code("PIT017", "error", "a torch range is not a PEP 440 version range"),
        Code("PIT018", "error", "an expectation is invalid, or a side has none"),
        Code("PIT019", "error", "a TODO placeholder from `pitfalls new` is still there"),
        Code("PIT020", "warning", "a code block's info string is missing or unknown"),
        Code("PIT021", "error", "an errors fragment is not proven by an expectation"),
        Code("PIT022", "error", "an errors fragment is not specific (a bare type, or shared)"),
        Code("PIT023", "error", "[questions] lacks 3 to 6 questions in a language"),
        Code("PIT024", "error", "related is missing or names a recipe that does not exist"),
        Code("PIT025", "error", "a legacy_errors entry has no source URL"),
        Code("PIT026", "error", "an expectation cannot fail: its observation is fixed"),
        Code("PIT027", "error", "a [[plot]] is invalid, untranslated, or names no observation"),
        Code("PIT028", "error", "the top-level `theme` is missing"),
    )
}

# Info strings the recipe format knows; anything else is probably a typo (`pyhton`).
KNOWN_BLOCK_LANGUAGES = ("python", "text", "console", "bash", "sh", "shell", "toml", "diff")
PYTHON_LANGUAGES = ("python", "py", "python3")
TODO_MARKER = re.compile(r"\bTODO\b")


@dataclass(frozen=True)
class Finding:
    """One problem found in one file, at a line where known."""

    code: str
    path: str
    message: str
    line: int | None = None
    # A finding of a newer rule under an existing code can be milder in a third-party pack
    # than in the built-in catalogue: the severity it has there (see `lint_paths`).
    pack_severity: str = ""

    @property
    def severity(self) -> str:
        """`error` or `warning`, as declared in CODES (or `pack_severity` in a pack)."""
        return self.pack_severity or CODES[self.code].severity

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.code} {self.severity}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form, as `lint --json` prints it."""
        data = {k: v for k, v in asdict(self).items() if k != "pack_severity"}
        return {**data, "severity": self.severity}


@dataclass
class Identity:
    """The names a recipe claims, with where they are written, for the uniqueness check."""

    folder: Path
    names: list[tuple[str, str, int | None]] = field(default_factory=list)  # kind, name, line


def display_path(path: Path) -> str:
    """`path` relative to the working directory when it lies below it, else absolute."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def line_of(text: str, pattern: str) -> int | None:
    """The 1-based line of the first match of the regex `pattern` in `text`, if any."""
    match = re.search(pattern, text, flags=re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else None


def looks_like_recipe(folder: Path) -> bool:
    """Whether `folder` holds any of a recipe's files (so it is a recipe, maybe a broken one)."""
    return any((folder / name).is_file() for name in RECIPE_FILES)


def recipe_folders(path: Path) -> list[Path]:
    """`path` itself when it is a recipe folder, else the recipe folders directly inside it."""
    if looks_like_recipe(path):
        return [path]
    children = sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
    return [child for child in children if looks_like_recipe(child)]


def lint_paths(
    paths: Iterable[Path], *, check_links: bool = False, builtins: Path | None = None
) -> tuple[list[Finding], int]:
    """Lint every recipe folder under `paths`: (findings sorted by file and line, recipes seen).

    Ids and aliases must be unique across the linted recipes and the built-in catalogue
    (`builtins`, default: the installed one), so a pack cannot shadow a built-in.
    """
    from pitfalls.authoring.findability import catalogue_findings
    from pitfalls.authoring.lint_checks import check_recipe, check_urls, format_findings
    from pitfalls.catalogue.registry import builtin_dir

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
    from pitfalls.catalogue.loader import RecipeError, read_toml

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


def codes_table() -> str:
    """The codes as aligned plain-text lines, for `lint --help`."""
    return "\n".join(f"{c.code}  {c.severity:<7}  {c.summary}" for c in CODES.values())


def languages_present(folder: Path) -> tuple[str, ...]:
    """The prose languages the folder has files for."""
    return tuple(lang for lang in LANGS if (folder / f"{lang}.md").is_file())
