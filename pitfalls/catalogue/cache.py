"""A metadata cache for recipe folders, so that listing a catalogue of thousands stays quick.

Parsing TOML in pure Python costs about 2 ms per recipe; a cache hit costs one `listdir` and one
`stat`. Each folder of recipes gets one marshal file under the user's cache directory, keyed by
each recipe.toml's mtime and size and by the names present in its folder, so any edit, added or
removed file invalidates that entry. Only recipes that loaded cleanly are cached: a malformed
one is parsed (and reported) every time. Set PITFALLS_CACHE=0 to turn the cache off.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from pathlib import Path
from typing import Any, Callable

from pitfalls.catalogue.model import ErrorFragment, LegacyError, Recipe

CACHE_VERSION = 6


def cache_dir() -> Path | None:
    """Where cache files live, or None when caching is off."""
    if os.environ.get("PITFALLS_CACHE", "1") == "0":
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pitfalls"


def cache_file(folder: Path, kind: str = "recipes") -> Path | None:
    """The cache file of a folder of recipes (`kind`: recipes or search), None when off."""
    root = cache_dir()
    if root is None:
        return None
    digest = hashlib.sha1(str(folder.resolve()).encode("utf-8")).hexdigest()[:16]
    # marshal loads several times faster than json and needs no import; its format is tied
    # to the Python version, hence the tag in the name.
    tag = sys.implementation.cache_tag or "python"
    return root / f"{kind}-{digest}.{tag}.marshal"


def folder_key(toml_stat: os.stat_result, present: list[str]) -> list[Any]:
    """What must not change for a cached entry to stay valid."""
    return [toml_stat.st_mtime_ns, toml_stat.st_size, sorted(present)]


def recipe_to_entry(recipe: Recipe) -> dict[str, Any]:
    """A cached form of a loaded recipe (everything but its path, source and prose)."""
    return {
        "id": recipe.id,
        "title": recipe.title,
        "summary": recipe.summary,
        "aliases": list(recipe.aliases),
        "tags": list(recipe.tags),
        "devices": list(recipe.devices),
        "torch": recipe.torch,
        "references": list(recipe.references),
        "requires": list(recipe.requires),
        "errors": [e.to_dict() for e in recipe.errors],
        "legacy_errors": [e.to_dict() for e in recipe.legacy_errors],
        "questions": {lang: list(qs) for lang, qs in recipe.questions.items()},
        "related": list(recipe.related),
        "numpy": recipe.numpy,
        "python": recipe.python,
        "slow": recipe.slow,
        "theme": recipe.theme,
    }


def _well_formed(entry: dict[str, Any]) -> bool:
    """Whether a cached entry has the shape `recipe_to_entry` writes."""
    try:
        scalars = [entry["id"], entry["torch"]]
        tables = [entry["title"], entry["summary"]]
        lists = [entry[k] for k in ("aliases", "tags", "devices", "references")]
    except KeyError:
        return False
    scalars.append(entry.get("theme", ""))
    lists.append(entry.get("requires", []))
    lists.append(entry.get("related", []))
    extras = (entry.get("errors", []), entry.get("legacy_errors", []))
    if not all(
        isinstance(v, list) and all(isinstance(e, dict) and _is_str(e.get("text")) for e in v)
        for v in extras
    ):
        return False
    questions = entry.get("questions", {})
    if not isinstance(questions, dict) or not all(
        isinstance(qs, list) and all(map(_is_str, qs)) for qs in questions.values()
    ):
        return False
    return (
        all(map(_is_str, scalars))
        and all(isinstance(t, dict) and all(map(_is_str, (*t, *t.values()))) for t in tables)
        and all(isinstance(v, list) and all(map(_is_str, v)) for v in lists)
    )


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def recipe_from_entry(entry: dict[str, Any], folder: Path, source: str) -> Recipe:
    """Rebuild a Recipe from its cached form."""
    return Recipe(
        id=entry["id"],
        path=folder,
        title=entry["title"],
        summary=entry["summary"],
        aliases=tuple(entry["aliases"]),
        tags=tuple(entry["tags"]),
        devices=tuple(entry["devices"]),
        torch=entry["torch"],
        references=tuple(entry["references"]),
        requires=tuple(entry.get("requires", ())),
        errors=tuple(
            ErrorFragment(
                e["text"],
                tuple(e.get("devices", ())),
                **{k: e[k] for k in ("torch", "numpy", "python") if k in e},
            )
            for e in entry.get("errors", ())
        ),
        legacy_errors=tuple(
            LegacyError(e["text"], e.get("source", "")) for e in entry.get("legacy_errors", ())
        ),
        questions={lang: tuple(qs) for lang, qs in entry.get("questions", {}).items()},
        related=tuple(entry.get("related", ())),
        numpy=entry.get("numpy", ""),
        python=entry.get("python", ""),
        slow=entry.get("slow", ""),
        theme=entry.get("theme", ""),
        source=source,
    )


class FolderCache:
    """The cache of one folder of recipe folders: read once, written back if it changed."""

    # Search indexes live in a file of their own ("search"), so that `list` never loads them.
    def __init__(self, folder: Path, kind: str = "recipes", version: Any = CACHE_VERSION) -> None:
        self.entries: dict[str, Any] = {}
        self.changed = False
        self.version = version
        self.file = cache_file(folder, kind)
        if self.file is None:
            return
        try:
            data = marshal.loads(self.file.read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            return
        if isinstance(data, dict) and data.get("version") == self.version:
            entries = data.get("entries")
            # A damaged or foreign file that still unmarshals is a cache miss, not a crash.
            self.entries = entries if isinstance(entries, dict) else {}

    def get(self, name: str, key: list[Any]) -> dict[str, Any] | None:
        """The cached recipe data for folder `name`, if its key still matches."""
        entry = self.entries.get(name)
        if isinstance(entry, dict) and entry.get("key") == key:
            recipe = entry.get("recipe")
            if isinstance(recipe, dict) and _well_formed(recipe):
                return recipe
        return None

    def put(self, name: str, key: list[Any], recipe: Recipe) -> None:
        """Remember a recipe that loaded cleanly."""
        self.put_data(name, key, recipe_to_entry(recipe))

    def get_data(self, name: str, key: list[Any]) -> Any:
        """Whatever was stored for folder `name` under `key`, unchecked (None if stale)."""
        entry = self.entries.get(name)
        if isinstance(entry, dict) and entry.get("key") == key:
            return entry.get("recipe")
        return None

    def put_data(self, name: str, key: list[Any], data: Any) -> None:
        """Store data for folder `name` under `key`."""
        self.entries[name] = {"key": key, "recipe": data}
        self.changed = True

    def forget(self, name: str) -> None:
        """Drop a folder that no longer loads cleanly."""
        if self.entries.pop(name, None) is not None:
            self.changed = True

    def save(self) -> None:
        """Write the cache back atomically; a read-only home just means no cache."""
        if not self.changed or self.file is None:
            return
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.file.with_suffix(f".{os.getpid()}.tmp")
            payload = {"version": self.version, "entries": self.entries}
            temporary.write_bytes(marshal.dumps(payload))
            os.replace(temporary, self.file)
        except OSError:
            pass


def cached_render(
    key_parts: list[Any], render: Callable[[], str], wait: Callable[[], bool] | None = None
) -> str:
    """Text from `render()`, memoised on disk under a digest of `key_parts`.

    `show` uses this for its rendered page: highlighting a snippet with Pygments costs more
    than the rest of the command, and the result depends only on the recipe's files, the
    language and the terminal (all in the key). On a miss, `wait()` (when given) waits for
    another process that may be writing this entry, and returns whether there was one.
    """
    root = cache_dir()
    if root is None:
        return render()
    digest = hashlib.sha1(repr(key_parts).encode("utf-8")).hexdigest()
    file = root / "pages" / f"{digest}.txt"
    for attempt in range(2):
        try:
            return file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            pass
        if attempt or wait is None or not wait():
            break
    text = render()
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        temporary = file.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, file)
    except OSError:
        pass
    return text


def files_signature(folder: Path, names: tuple[str, ...]) -> list[Any]:
    """(name, mtime_ns, size) of each file that exists: changes when any of them is edited."""
    signature: list[Any] = []
    for name in names:
        try:
            stat = os.stat(folder / name)
        except OSError:
            continue
        signature.append((name, stat.st_mtime_ns, stat.st_size))
    return signature
