"""Which files `pitfalls check` reads: `.py` and `.ipynb`, recursively, minus what a project
never wants linted (VCS folders, virtual environments, build output, `.gitignore`d paths).

Files named on the command line are always checked, as in ruff.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

SUFFIXES = (".py", ".pyi", ".ipynb")
# ruff's default `exclude`.
DEFAULT_EXCLUDE = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pyenv",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    ".vscode",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
    "__pycache__",
)


class Globs:
    """ruff-style globs: a pattern names a path by its name or by its path from `root`."""

    def __init__(self, patterns: list[str], root: Path) -> None:
        self.root = root.resolve()
        self.names: set[str] = set()
        self.globs: list[str] = []
        for pattern in patterns:
            pattern = pattern.rstrip("/")
            if pattern.startswith("**/"):
                pattern = pattern[3:]
            if not any(c in pattern for c in "*?[/"):
                self.names.add(pattern)
            else:
                self.globs.append(pattern)

    def match(self, path: Path) -> bool:
        if path.name in self.names:
            return True
        if not self.globs:
            return False
        try:
            relative = path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            relative = path.as_posix()
        return any(
            fnmatch.fnmatchcase(path.name, g)
            or fnmatch.fnmatchcase(relative, g)
            or fnmatch.fnmatchcase(relative, g + "/*")  # a folder pattern names its contents
            for g in self.globs
        )


def glob_matches(pattern: str, path: Path, root: Path) -> bool:
    """Whether one glob names `path` (see Globs)."""
    return Globs([pattern], root).match(path)


@dataclass
class _Ignores:
    """The .gitignore files met on the way down, each matched relative to its folder."""

    specs: list[tuple[Path, object]] = field(default_factory=list)

    def add(self, folder: Path) -> None:
        path = folder / ".gitignore"
        if not path.is_file():
            return
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return
        import pathspec  # deferred: only trees with a .gitignore pay for it

        self.specs.append((folder, pathspec.GitIgnoreSpec.from_lines(lines)))

    def ignored(self, path: Path, is_dir: bool) -> bool:
        for folder, spec in self.specs:
            try:
                relative = path.relative_to(folder).as_posix()
            except ValueError:
                continue
            if spec.match_file(relative + ("/" if is_dir else "")):  # type: ignore[attr-defined]
                return True
        return False


def _git_ancestors(start: Path) -> list[Path]:
    """The folders from the repository root down to `start`'s parent, if inside a git repo."""
    chain: list[Path] = []
    for folder in start.resolve().parents:
        chain.append(folder)
        if (folder / ".git").exists():
            return list(reversed(chain))
    return []


def discover(
    paths: list[Path],
    root: Path,
    exclude: list[str],
    respect_gitignore: bool = True,
    force_exclude: bool = False,
) -> tuple[list[Path], list[Path]]:
    """(files to check, paths that do not exist), in a stable order. With `force_exclude`,
    `exclude` applies to files named on the command line too (for pre-commit)."""
    found: list[Path] = []
    missing: list[Path] = []
    seen: set[Path] = set()
    globs = Globs(exclude, root)
    for path in paths:
        if not path.exists():
            missing.append(path)
            continue
        if force_exclude and _excluded_with_parents(path, globs, root):
            continue
        if not path.is_dir():
            if path not in seen:
                seen.add(path)
                found.append(path)
            continue
        ignores = _Ignores()
        if respect_gitignore:
            for folder in _git_ancestors(path):
                ignores.add(folder)
        for file in _walk(path, globs, ignores, respect_gitignore):
            if file not in seen:
                seen.add(file)
                found.append(file)
    return found, missing


def _excluded_with_parents(path: Path, globs: Globs, root: Path) -> bool:
    """Whether `path` or a folder above it (up to `root`) is excluded."""
    resolved, top = path.resolve(), root.resolve()
    for candidate in (resolved, *resolved.parents):
        if candidate == top or top not in candidate.parents:
            break
        if globs.match(candidate):
            return True
    return False


def _walk(top: Path, exclude: Globs, ignores: _Ignores, gitignore: bool) -> Iterator[Path]:
    """Files under `top` in sorted order; scandir's cached types avoid a stat per file, and
    anything that is not a regular file (a FIFO would block the reader) is left out."""
    if gitignore:
        ignores.add(top)
    try:
        entries = sorted(os.scandir(top), key=lambda e: e.name)
    except OSError:
        return
    folders = []
    for entry in entries:
        child = Path(entry.path)
        try:
            is_dir = entry.is_dir()
            is_file = not is_dir and entry.is_file()
        except OSError:
            continue
        if is_dir:
            if exclude.match(child) or (child / "pyvenv.cfg").is_file():
                continue  # a virtual environment under any name
            if gitignore and ignores.ignored(child, True):
                continue
            folders.append(child)
        elif is_file and entry.name.endswith(SUFFIXES):
            if exclude.match(child) or gitignore and ignores.ignored(child, False):
                continue
            yield child
    for folder in folders:
        yield from _walk(folder, exclude, ignores, gitignore)
