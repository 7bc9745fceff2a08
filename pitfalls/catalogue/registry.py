"""The catalogue: where recipes come from, which ones failed to load, and resolving a word.

Sources, in order of precedence: the built-in recipes, folders on `PITFALLS_PATH`, and
installed packs (entry point group `pitfalls.recipes`). A later source never overrides an
earlier one: a clashing id is a load problem and a clashing alias is dropped with a warning.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from pitfalls.catalogue.cache import FolderCache
from pitfalls.catalogue.loader import RecipeError, load_recipe
from pitfalls.catalogue.model import Recipe

BUILTIN_DIR = Path(__file__).resolve().parents[2] / "recipes"
PACK_GROUP = "pitfalls.recipes"


def builtin_dir() -> Path:
    """The folder of the built-in recipes, in a checkout or an installed wheel."""
    # `pitfalls.recipes` is mapped onto the repo's `recipes/` folder; find_spec locates it
    # without importing anything heavy.
    # lazy: standard library only this path needs, kept off start-up
    from importlib.util import find_spec

    spec = find_spec("pitfalls.recipes")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return BUILTIN_DIR


class LoadProblem(NamedTuple):
    """A recipe folder or pack that was skipped, and why."""

    path: str
    reason: str
    source: str
    severity: str = "error"  # "error": skipped; "warning": loaded with something dropped

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class Source(NamedTuple):
    """A folder holding recipe folders, with a label shown by `list` (built-in, path, a pack)."""

    folder: Path
    label: str


class ResolveError(LookupError):
    """A word that names no recipe, or more than one; carries the candidates."""

    def __init__(self, word: str, kind: str, candidates: list[str]) -> None:
        super().__init__(word)
        self.word = word
        self.kind = kind  # "unknown" or "ambiguous"
        self.candidates = candidates


def path_sources(env: str | None = None) -> list[Source]:
    """The folders on PITFALLS_PATH (os.pathsep-separated), in order."""
    value = os.environ.get("PITFALLS_PATH", "") if env is None else env
    return [Source(Path(p).expanduser(), "PITFALLS_PATH") for p in value.split(os.pathsep) if p]


class PackEntry(NamedTuple):
    """One `pitfalls.recipes` entry point: a name and the package it names."""

    name: str
    value: str


def pack_entry_points(paths: Iterable[str] | None = None) -> list[PackEntry]:
    """The `pitfalls.recipes` entry points of the installed distributions.

    This reads `*.dist-info/entry_points.txt` files directly: importlib.metadata would do the
    same but costs ~30 ms of imports on every `list` and `show`. As with importlib.metadata,
    the first distribution of a name on sys.path wins.
    """
    seen: set[str] = set()
    found: list[PackEntry] = []
    for folder in sys.path if paths is None else paths:
        try:
            entries = sorted(os.scandir(folder or "."), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if not entry.name.endswith((".dist-info", ".egg-info")):
                continue
            distribution = entry.name.rsplit("-", 1)[0].split("-")[0].lower().replace("_", "-")
            if distribution in seen:
                continue
            seen.add(distribution)
            try:
                with open(os.path.join(entry.path, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                continue
            if f"[{PACK_GROUP}]" in text:
                found.extend(_parse_group(text))
    return found


def _parse_group(text: str) -> list[PackEntry]:
    points, inside = [], False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            inside = line == f"[{PACK_GROUP}]"
        elif inside and "=" in line and not line.startswith(("#", ";")):
            name, value = (part.strip() for part in line.split("=", 1))
            points.append(PackEntry(name, value))
    return points


def pack_sources(problems: list[LoadProblem]) -> list[Source]:
    """Installed packs, located without importing their code where possible."""
    sources: list[Source] = []
    try:
        points = pack_entry_points()
    except Exception as err:  # a broken distribution's metadata must not stop the others
        problems.append(LoadProblem("<entry points>", f"cannot read packs: {err}", "pack"))
        return sources
    for point in sorted(points, key=lambda p: p.name):
        label = f"pack:{point.name}"
        module = point.value.split(":", 1)[0].strip()
        try:
            locations = _package_folders(module)
        except Exception as err:  # an import error in the pack's parent package
            problems.append(LoadProblem(module, f"pack {point.name!r} is broken: {err}", label))
            continue
        if not locations:
            reason = f"pack {point.name!r} names {module!r}, which is not an installed package"
            problems.append(LoadProblem(module, reason, label))
            continue
        sources.extend(Source(Path(loc), label) for loc in locations)
    return sources


def _package_folders(module: str) -> list[str]:
    """The folders of the package `module`, found without running its parents' __init__.py.

    A pack's top-level package may import torch or worse; listing recipes must not. Only a
    package that plain sys.path folders cannot locate (an editable install's finder, a zip)
    falls back to importlib's find_spec, which imports the parent packages.
    """
    # lazy: standard library only this path needs, kept off start-up
    from importlib.machinery import PathFinder
    from importlib.util import find_spec

    parts = module.split(".")
    search: list[str] | None = None
    for depth in range(1, len(parts) + 1):
        spec = PathFinder.find_spec(".".join(parts[:depth]), search)
        if spec is None or spec.submodule_search_locations is None:
            break
        search = list(spec.submodule_search_locations)
    else:
        return search or []
    spec = find_spec(module)
    return list(spec.submodule_search_locations or []) if spec else []


def _recipe_folders(folder: Path) -> Iterator[Path]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        try:
            is_folder = entry.is_dir()
        except OSError:  # a symlink loop, say: not a recipe folder
            continue
        if is_folder and not entry.name.startswith((".", "_")):
            yield Path(entry.path)


@dataclass
class Registry:
    """All loaded recipes, the problems met while loading, and lookup by word."""

    recipes: dict[str, Recipe] = field(default_factory=dict)
    problems: list[LoadProblem] = field(default_factory=list)
    _aliases: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, sources: Iterable[Source] | None = None, *, packs: bool = True) -> Registry:
        """Load the built-ins, PITFALLS_PATH and (optionally) installed packs."""
        registry = cls()
        if sources is None:
            sources = [Source(builtin_dir(), "built-in"), *path_sources()]
            if packs:
                sources = [*sources, *pack_sources(registry.problems)]
        for source in sources:
            if not source.folder.is_dir():
                reason = "is not a folder (from PITFALLS_PATH)"
                registry.problems.append(LoadProblem(str(source.folder), reason, source.label))
                continue
            cache = FolderCache(source.folder)
            for folder in _recipe_folders(source.folder):
                if not (folder / "recipe.toml").exists() and source.label != "built-in":
                    # Tolerate unrelated folders (a pack's __pycache__, a docs folder) in packs
                    # and paths, but only when they hold no recipe files at all.
                    if not any((folder / n).exists() for n in ("snippet.py", "en.md", "zh.md")):
                        continue
                registry._add_folder(folder, source.label, cache)
            cache.save()
        return registry

    def _add_folder(self, folder: Path, label: str, cache: FolderCache | None = None) -> None:
        try:
            recipe = load_recipe(folder, label, cache)
        except RecipeError as err:
            self.problems.append(LoadProblem(str(folder), str(err), label))
            return
        if recipe.id in self.recipes or recipe.id in self._aliases:
            owner = self.recipes.get(recipe.id) or self.recipes[self._aliases[recipe.id]]
            reason = f"id {recipe.id!r} is already taken by {owner.source} recipe at {owner.path}"
            self.problems.append(LoadProblem(str(folder), reason, label))
            return
        kept = []
        for alias in recipe.aliases:
            if alias in self.recipes or alias in self._aliases or alias == recipe.id:
                if alias == recipe.id:
                    continue
                reason = f"alias {alias!r} clashes with an existing id or alias and is ignored"
                self.problems.append(LoadProblem(str(folder), reason, label, "warning"))
                continue
            kept.append(alias)
        recipe.aliases = tuple(kept)
        self.recipes[recipe.id] = recipe
        for alias in kept:
            self._aliases[alias] = recipe.id

    def __iter__(self) -> Iterator[Recipe]:
        return iter(sorted(self.recipes.values(), key=lambda r: r.id))

    def __len__(self) -> int:
        return len(self.recipes)

    def with_tag(self, tag: str | None) -> list[Recipe]:
        """Recipes carrying `tag` (case-insensitive), or all of them when tag is None."""
        if not tag:
            return list(self)
        wanted = tag.lower()
        return [r for r in self if wanted in (t.lower() for t in r.tags)]

    def resolve(self, word: str) -> Recipe:
        """Find a recipe by id, then alias (case-insensitive), then unique prefix."""
        key = word.strip().lower()
        if key in self.recipes:
            return self.recipes[key]
        if key in self._aliases:
            return self.recipes[self._aliases[key]]
        names = sorted({*self.recipes, *self._aliases})
        matches = sorted({self._id_of(n) for n in names if key and n.startswith(key)})
        if len(matches) == 1:
            return self.recipes[matches[0]]
        if len(matches) > 1:
            raise ResolveError(word, "ambiguous", matches)
        close = difflib.get_close_matches(key, names, n=3, cutoff=0.6)
        suggestions = list(dict.fromkeys(self._id_of(n) for n in close))
        raise ResolveError(word, "unknown", suggestions)

    def _id_of(self, name: str) -> str:
        return name if name in self.recipes else self._aliases[name]
