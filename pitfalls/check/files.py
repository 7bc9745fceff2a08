"""Which files `pitfalls check` reads: `.py` and `.ipynb`, recursively, minus what a project
never wants linted (VCS folders, virtual environments, build output, `.gitignore`d paths).

Files named on the command line are always checked, as in ruff.
"""

from __future__ import annotations

import fnmatch
import os
import stat
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
        if not os.path.isfile(path):  # False, not PermissionError, in a folder we cannot enter
            return
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return
        # lazy: pathspec only for exclude globs
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
) -> tuple[list[Path], list[Path], list[tuple[Path, str]]]:
    """(files to check, paths that do not exist, (path, reason) for each path that exists
    but cannot be read or listed), in a stable order. With `force_exclude`, `exclude`
    applies to files named on the command line too (for pre-commit)."""
    found: list[Path] = []
    missing: list[Path] = []
    unreadable: list[tuple[Path, str]] = []
    seen: set[Path] = set()
    globs = Globs(exclude, root)
    for path in paths:
        try:
            is_dir = stat.S_ISDIR(os.stat(path).st_mode)
        except (FileNotFoundError, NotADirectoryError):
            missing.append(path)
            continue
        except OSError as err:  # a folder on the way we may not enter, a symlink loop
            unreadable.append((path, err.strerror or str(err)))
            continue
        if force_exclude and _excluded_with_parents(path, globs, root):
            continue
        if not is_dir:
            if path not in seen:
                seen.add(path)
                found.append(path)
            continue
        ignores = _Ignores()
        if respect_gitignore:
            for folder in _git_ancestors(path):
                ignores.add(folder)
        walk = _Walk(globs, ignores, respect_gitignore, unreadable)
        for file in walk.files(path):
            if file not in seen:
                seen.add(file)
                found.append(file)
    return found, missing, unreadable


def _excluded_with_parents(path: Path, globs: Globs, root: Path) -> bool:
    """Whether `path` or a folder above it (up to `root`) is excluded."""
    resolved, top = path.resolve(), root.resolve()
    for candidate in (resolved, *resolved.parents):
        if candidate == top or top not in candidate.parents:
            break
        if globs.match(candidate):
            return True
    return False


@dataclass
class _Walk:
    """One walk down a folder: what to skip, and the folders that could not be listed."""

    exclude: Globs
    ignores: _Ignores
    gitignore: bool
    unreadable: list[tuple[Path, str]]
    # (device, inode) of each folder entered: a symlink back up (`ln -s .. sub/up`) made
    # the walk endless, each cycle doubling the paths to visit.
    entered: set[tuple[int, int]] = field(default_factory=set)

    def files(self, top: Path) -> Iterator[Path]:
        """Files under `top` in sorted order; scandir's cached types avoid a stat per file,
        and anything that is not a regular file (a FIFO would block the reader) is left out."""
        try:
            info = os.stat(top)
            entries = sorted(os.scandir(top), key=lambda e: e.name)
        except OSError as err:
            self.unreadable.append((top, err.strerror or str(err)))
            return
        if (info.st_dev, info.st_ino) in self.entered:
            return
        self.entered.add((info.st_dev, info.st_ino))
        if self.gitignore:
            self.ignores.add(top)
        folders = []
        for entry in entries:
            child = Path(entry.path)
            try:
                is_dir = entry.is_dir()
                is_file = not is_dir and entry.is_file()
            except OSError:
                continue
            if is_dir:
                if self.exclude.match(child) or os.path.isfile(child / "pyvenv.cfg"):
                    continue  # a virtual environment under any name
                if self.gitignore and self.ignores.ignored(child, True):
                    continue
                folders.append(child)
            elif is_file and entry.name.endswith(SUFFIXES):
                ignored = self.gitignore and self.ignores.ignored(child, False)
                if ignored or self.exclude.match(child):
                    continue
                yield child
        for folder in folders:
            yield from self.files(folder)
