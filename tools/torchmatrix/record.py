"""recipes/checked.json: reading, merging and writing the record (one row a line, under a lock),
and a row from a `pitfalls verify --json` result."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

from pitfalls.catalogue.checked import SCHEMA, revision
from pitfalls.catalogue.registry import Registry, Source
from torchmatrix.common import REPO, ROW_FIELDS, STATUS_OF, public, version_key


def empty_record() -> dict[str, Any]:
    return {"schema": SCHEMA, "recipes": {}}


def read_record(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return empty_record()
    if not isinstance(data, dict) or not isinstance(data.get("recipes"), dict):
        raise SystemExit(f"torch-matrix: {path} is not a record this tool wrote")
    return data


def row_key(row: dict[str, Any]) -> tuple[str, str, str]:
    return (row.get("device") or "cpu", row.get("device_name") or "", public(row["torch"]))


def _sort_key(row: dict[str, Any]) -> Any:
    device, name, version = row_key(row)
    return (device != "cpu", device, name, version_key(version))


def render_record(record: dict[str, Any]) -> str:
    """The record as JSON, one row a line, so that a new run reads as a small diff."""
    lines = [
        "{",
        f'  "schema": {SCHEMA},',
        '  "written_by": "tools/torch-matrix; do not edit by hand",',
        '  "recipes": {',
    ]
    ids = sorted(record["recipes"])
    for i, recipe_id in enumerate(ids):
        rows = sorted(record["recipes"][recipe_id], key=_sort_key)
        lines.append(f"    {json.dumps(recipe_id)}: [")
        for j, row in enumerate(rows):
            ordered = {k: row[k] for k in ROW_FIELDS if row.get(k) not in (None, "", [])}
            comma = "," if j < len(rows) - 1 else ""
            lines.append("      " + json.dumps(ordered, ensure_ascii=False) + comma)
        lines.append("    ]" + ("," if i < len(ids) - 1 else ""))
    lines += ["  }", "}", ""]
    return "\n".join(lines)


@contextlib.contextmanager
def locked(path: Path):
    """An exclusive lock beside the record, so that two writers never interleave."""
    import fcntl

    lock = path.with_name(f".{path.name}.lock")
    with open(lock, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
    with contextlib.suppress(OSError):
        lock.unlink()


def merge_rows(path: Path, rows: dict[str, list[dict[str, Any]]]) -> int:
    """Put `rows` (by recipe id) into the record, replacing rows of the same version, device
    and device name. Returns how many were written."""
    with locked(path):
        record = read_record(path)
        count = 0
        for recipe_id, new_rows in rows.items():
            kept = {row_key(r): r for r in record["recipes"].get(recipe_id, [])}
            for row in new_rows:
                kept[row_key(row)] = row
                count += 1
            record["recipes"][recipe_id] = list(kept.values())
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(render_record(record), encoding="utf-8")
        os.replace(temporary, path)
    return count


# The recipes of the record's folder (the built-in catalogue unless --record says otherwise).
RECIPES = REPO / "recipes"


def catalogue() -> Registry:
    return Registry.load([Source(RECIPES, "built-in")], packs=False)


def current_revisions(ids: list[str] | None = None) -> dict[str, str]:
    found = {}
    for recipe in catalogue():
        if ids is None or recipe.id in ids:
            try:
                found[recipe.id] = revision(recipe)
            except (OSError, ValueError):
                pass
    return found


def row_from_result(
    result: dict[str, Any], version: str | None, source: str, device_name: str | None
) -> dict[str, Any]:
    """A record row from one `verify --json` result."""
    env = result.get("environment") or {}
    status = STATUS_OF.get(result.get("status"), "error")
    row: dict[str, Any] = {
        "torch": public(version or env.get("torch") or "?"),
        "device": str(result.get("device") or "cpu").split(":", 1)[0],
        "device_name": device_name or env.get("device_name") or "",
        "status": status,
        "revision": result.get("revision"),
        "date": dt.datetime.now(dt.timezone.utc).date().isoformat(),
        "python": env.get("python"),
        "numpy": env.get("numpy"),
        "platform": env.get("platform"),
        "torch_build": env.get("torch"),
        "source": source,
    }
    if status == "claim_failed":
        row["failed"] = [
            {
                "side": e.get("side"),
                "expectation": e.get("description"),
                "actual": e.get("actual"),
            }
            for e in result.get("expectations", [])
            if e.get("applies") and not e.get("holds")
        ]
        if not row["failed"]:  # a side where no expectation applies never holds
            row["failed"] = [
                {"side": side, "expectation": "no expectation applies"}
                for side, flag in (("problem", "reproduced"), ("fix", "fixed"))
                if not result.get(flag)
            ]
    elif status == "error":
        error = result.get("error") or {}
        row["error"] = f"{error.get('kind', '?')}: {error.get('message', '')}"[:400]
    elif status == "skipped":
        row["reason"] = str(result.get("skipped") or "")[:200]
    return row
