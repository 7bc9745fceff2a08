"""`pitfalls lint`'s codes and findings: what every check reports, and what the checks share.
The checks run from `pitfalls.authoring.linter`.

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
literals alone with no torch or NumPy call on the way (pitfalls.authoring.literals). The computed
case is an error in the built-in catalogue and a warning in third-party packs, until the
next minor release (see recipes/README.md). PIT028 is likewise an error in the built-in
catalogue (every recipe there has a theme) and a warning in third-party packs.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
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


def codes_table() -> str:
    """The codes as aligned plain-text lines, for `lint --help`."""
    return "\n".join(f"{c.code}  {c.severity:<7}  {c.summary}" for c in CODES.values())


def languages_present(folder: Path) -> tuple[str, ...]:
    """The prose languages the folder has files for."""
    return tuple(lang for lang in LANGS if (folder / f"{lang}.md").is_file())


def read_text(path: Path) -> str | None:
    if not path.is_file():  # missing, a folder, or a FIFO that would block
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
