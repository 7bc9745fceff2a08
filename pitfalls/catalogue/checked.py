"""The record of which torch versions each recipe's claim was run on, and what it showed.

The record is `checked.json` in a folder of recipes (the built-in one ships in the wheel). Only
`tools/torch-matrix` writes it: one row per recipe, torch version and device, with the status
of the claim there (held, claim_failed, error, skipped), the platform, device, Python and
NumPy, the date, and the revision of the recipe that ran: a hash of the snippet and of the
expectations with their gates. Editing the snippet or an expectation changes the revision, so
the rows of the old one are shown as "recorded for an earlier revision" and not as proof; the
declared torch range is deliberately not part of it, because correcting a range from the
record must not void the record.

Reading never imports torch. `summary()` is memoised on disk (keyed by the record's and the
recipe's files and the installed torch), so `show` pays a few `stat` calls for it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pitfalls.catalogue.cache import cached_render, files_signature
from pitfalls.catalogue.verdict import version_in_range
from pitfalls.i18n import t

if TYPE_CHECKING:
    from pitfalls.catalogue.model import Recipe

RECORD_NAME = "checked.json"
SCHEMA = 1
STATUSES = ("held", "claim_failed", "error", "skipped")
# Bump when the summary's shape changes, so that memoised summaries are not reused.
SUMMARY_VERSION = 1
_RECIPE_FILES = ("recipe.toml", "snippet.py")


def record_path(folder: Path) -> Path:
    """Where the record of the recipes in `folder` lives."""
    return folder / RECORD_NAME


def revision(recipe: Recipe) -> str:
    """A hash of what a run checks: the snippet, and the expectations with their gates.

    Canonical: JSON with sorted keys, so reformatting recipe.toml or editing its prose, titles,
    references or torch range leaves it unchanged. The recipe-wide NumPy/Python gates and the
    extra modules it requires are part of it; the device list is not (adding `cuda` does not
    void the CPU rows). A chart's series check is a claim too (a broken series fails the run):
    which observation each `[[plot]]` reads, on which sides, as what kind; its texts are not.
    """
    snippet = recipe.snippet().replace("\r\n", "\n")
    what: dict[str, Any] = {
        "snippet": snippet,
        "expect": [e.to_dict() for e in recipe.expectations],
        "numpy": recipe.numpy,
        "python": recipe.python,
        "requires": sorted(recipe.requires),
    }
    if recipe.plots:  # absent otherwise, so that recipes without charts keep their revision
        what["plots"] = [p.expectation(side).to_dict() for p in recipe.plots for side in p.sides]
    text = json.dumps(what, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


_LOADED: dict[str, tuple[Any, dict[str, Any]]] = {}


def load_record(path: Path) -> dict[str, Any]:
    """The record at `path` as {"schema": 1, "recipes": {id: [row, ...]}}; empty if absent
    or unreadable (a broken record must never break `show`)."""
    try:
        stat = os.stat(path)
    except OSError:
        return {"schema": SCHEMA, "recipes": {}}
    key = (stat.st_mtime_ns, stat.st_size)
    cached = _LOADED.get(str(path))
    if cached and cached[0] == key:
        return cached[1]
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict) or not isinstance(data.get("recipes"), dict):
        data = {"schema": SCHEMA, "recipes": {}}
    _LOADED[str(path)] = (key, data)
    return data


WRITER_MARK = '"written_by": "tools/torch-matrix'


def rows_for(recipe: Recipe) -> list[dict[str, Any]] | None:
    """The recorded rows of `recipe`, or None when its folder keeps no record at all."""
    path = record_path(recipe.path.parent)
    if not path.is_file():
        return None
    rows = None
    if str(path) not in _LOADED:
        rows = _rows_of_one(path, recipe.id)
    if rows is None:
        rows = load_record(path)["recipes"].get(recipe.id, [])
    if not isinstance(rows, list):
        return []
    return [r for r in rows if isinstance(r, dict) and isinstance(r.get("torch"), str)]


def _rows_of_one(path: Path, recipe_id: str) -> list[Any] | None:
    """One recipe's rows, parsed alone: the tool writes each recipe as `    "id": [` and one
    row a line, and parsing the whole record (hundreds of kB) would cost `show` more than
    everything else this module does. None when the file is not in that shape."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if WRITER_MARK not in text[:200]:
        return None
    start = text.find(f"\n    {json.dumps(recipe_id)}: [\n")
    if start < 0:
        return [] if f"{json.dumps(recipe_id)}:" not in text else None
    start = text.index("[", start)
    end = text.find("\n    ]", start)
    try:
        rows = json.loads(text[start:end] + "\n]")
    except ValueError:
        return None
    return rows if isinstance(rows, list) else None


@lru_cache(maxsize=1)
def installed_torch() -> str | None:
    """The installed torch's version, from its `.dist-info` folder: what importlib.metadata
    finds first on sys.path, without parsing torch's large METADATA file (which costs more
    than the rest of this). torch is never imported."""
    for folder in sys.path:
        # Only a folder holding the torch package can hold its dist-info: one stat each
        # instead of listing the standard library.
        if not os.path.isdir(os.path.join(folder or ".", "torch")):
            continue
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith("torch-") and name.endswith(".dist-info"):
                return name[len("torch-") : -len(".dist-info")]
    # lazy: standard library only this path needs, kept off start-up
    from importlib import metadata  # an egg or an unusual layout

    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return None


def _version_key(text: str) -> Any:
    # lazy: packaging only off the fast path (plain version ranges need none)
    from packaging.version import InvalidVersion, Version

    try:
        return (0, Version(text))
    except InvalidVersion:
        return (1, text)


def _public(version: str) -> str:
    return version.split("+", 1)[0]


def short_device_name(name: str) -> str:
    """`H200` for `NVIDIA H200`: the vendor adds nothing on a line this short."""
    for prefix in ("NVIDIA ", "AMD "):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def _runs(versions: list[str], wanted: set[str]) -> list[list[str]]:
    """Consecutive stretches of `versions` (sorted) that are in `wanted`: [[first, last]]."""
    runs: list[list[str]] = []
    previous_in = False
    for version in versions:
        if version in wanted:
            if previous_in:
                runs[-1][1] = version
            else:
                runs.append([version, version])
        previous_in = version in wanted
    return runs


def summarise(
    rows: list[dict[str, Any]] | None,
    current: str | None,
    devices: tuple[str, ...],
    installed: str | None,
) -> dict[str, Any]:
    """What the record says about one recipe, as JSON-able data.

    `current` is the recipe's revision now. `groups` hold the rows of that revision, one group
    per device type and name, with the stretches of versions where the claim held, failed or
    did not run. `stale` counts rows of earlier revisions (`stale_groups` describe them when no
    current row exists). `gpu_missing`: the recipe declares cuda and no current GPU row exists.
    `outside`: the installed torch lies outside every checked version.
    """
    if rows is None:
        return {"state": "no_record"}
    fresh = [r for r in rows if r.get("revision") == current]
    stale = [r for r in rows if r.get("revision") != current]
    summary: dict[str, Any] = {
        "state": "current" if fresh else ("stale" if stale else "none"),
        "revision": current,
        "groups": _groups(fresh),
        "stale": len(stale),
        "gpu_missing": "cuda" in devices
        and not any(r.get("device") == "cuda" and r.get("status") != "skipped" for r in fresh),
        "installed": installed,
        "outside": False,
    }
    if not fresh and stale:
        summary["stale_groups"] = _groups(stale)
    checked = [
        _public(r["torch"]) for r in (fresh or stale) if r.get("status") in ("held", "claim_failed")
    ]
    if installed and checked:
        keys = sorted(_version_key(v) for v in checked)
        mine = _version_key(_public(installed))
        summary["outside"] = mine[0] == 0 and keys[0][0] == 0 and not keys[0] <= mine <= keys[-1]
    return summary


def _groups(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_device: dict[tuple[str, str], dict[str, str]] = {}
    for row in rows:
        device = str(row.get("device") or "cpu")
        name = str(row.get("device_name") or "")
        by_device.setdefault((device, name), {})[_public(row["torch"])] = str(row.get("status"))
    groups = []
    for (device, name), statuses in sorted(by_device.items()):
        ran = sorted((v for v, s in statuses.items() if s != "skipped"), key=_version_key)
        if not ran:
            continue

        def where(status: str, statuses: dict[str, str] = statuses, ran: list[str] = ran) -> Any:
            return _runs(ran, {v for v, s in statuses.items() if s == status})

        groups.append(
            {
                "device": device,
                "device_name": name,
                "held": where("held"),
                "held_count": sum(1 for s in statuses.values() if s == "held"),
                "claim_failed": where("claim_failed"),
                "error": where("error"),
            }
        )
    return groups


def summary(recipe: Recipe, installed: str | None | bool = False) -> dict[str, Any]:
    """`summarise` for `recipe`, memoised on disk; `installed` defaults to the torch here."""
    if installed is False:
        installed = installed_torch()

    key = [
        "checked-summary",
        SUMMARY_VERSION,
        str(recipe.path),
        recipe.id,
        files_signature(recipe.path.parent, (RECORD_NAME,)),
        files_signature(recipe.path, _RECIPE_FILES),
        list(recipe.devices),
        installed,
    ]

    def compute() -> str:
        rows = rows_for(recipe)
        current = None
        if rows is not None:
            try:
                current = revision(recipe)
            except (OSError, ValueError):
                current = None
        return json.dumps(summarise(rows, current, recipe.devices, installed))

    try:
        data = json.loads(cached_render(key, compute))
    except ValueError:
        data = json.loads(compute())
    return data if isinstance(data, dict) else {"state": "no_record"}


def _span(run: list[str]) -> str:
    return run[0] if run[0] == run[1] else f"{run[0]}–{run[1]}"


def _device_label(group: dict[str, Any], lang: str, several_cpus: bool) -> str:
    comma = "，" if lang == "zh" else ", "
    if group["device"] == "cpu":
        name = group["device_name"] if several_cpus else ""
    else:
        name = short_device_name(group["device_name"])
    return f"{group['device'].upper()}{comma}{name}" if name else group["device"].upper()


def _held_text(groups: list[dict[str, Any]], lang: str) -> str:
    several = sum(1 for g in groups if g["device"] == "cpu") > 1
    parts = []
    for group in groups:
        if not group["held"]:
            continue
        label = _device_label(group, lang, several)
        count = group["held_count"]
        key = "checked.group_one" if count == 1 else "checked.group"
        spans = ", ".join(_span(run) for run in group["held"])
        parts.append(t(key, lang, versions=spans, device=label, n=count))
    return t("checked.list_sep", lang).join(parts)


def summary_line(data: dict[str, Any], lang: str) -> str:
    """The one line `show` prints under the title (empty when the folder keeps no record)."""
    state = data.get("state")
    if state == "no_record" or state is None:
        return ""
    clauses: list[str] = []
    if state == "none":
        clauses.append(t("checked.none", lang))
    elif state == "stale":
        held = _held_text(data.get("stale_groups", []), lang)
        clauses.append(
            t("checked.stale_all", lang, groups=held) if held else t("checked.stale_none", lang)
        )
    else:
        groups = data.get("groups", [])
        held = _held_text(groups, lang)
        several = sum(1 for g in groups if g["device"] == "cpu") > 1
        if held:
            clauses.append(t("checked.held", lang, groups=held))
        for group in groups:
            label = _device_label(group, lang, several)
            for status in ("claim_failed", "error"):
                if group[status]:
                    spans = ", ".join(_span(run) for run in group[status])
                    clauses.append(t(f"checked.{status}", lang, versions=spans, device=label))
        if data.get("stale"):
            clauses.append(t("checked.stale_some", lang, n=data["stale"]))
    if data.get("gpu_missing"):
        clauses.append(t("checked.no_gpu", lang))
    if data.get("outside") and data.get("installed"):
        clauses.append(t("checked.outside", lang, version=data["installed"]))
    text = t("checked.sep", lang).join(clauses)
    return text[:1].upper() + text[1:] + t("checked.end", lang)


def disagreements(
    recipe: Recipe, rows: list[dict[str, Any]] | None, current: str | None
) -> list[dict[str, Any]]:
    """Rows of the current revision that contradict the recipe's declared ranges: the claim
    failed (or the snippet failed to run) on a torch inside the recipe's `torch` range, with a
    NumPy and Python inside its `numpy` and `python` gates."""
    found = []
    for row in rows or []:
        if row.get("revision") != current or row.get("status") not in ("claim_failed", "error"):
            continue
        inside = [
            version_in_range(_public(str(row.get(name) or "")) or None, spec) is not False
            for name, spec in (
                ("torch", recipe.torch),
                ("numpy", recipe.numpy),
                ("python", recipe.python),
            )
        ]
        if all(inside):
            found.append(row)
    return found
