"""`[tool.pitfalls.check]` in the nearest pyproject.toml, with the meaning of ruff's keys.

As in ruff, the closest `pyproject.toml` that has the table wins and nothing is merged from
files further up. Paths in `exclude` and `per-file-ignores` are globs relative to the folder
of that file.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KEYS = ("select", "extend-select", "ignore", "exclude", "extend-exclude", "per-file-ignores")
NUMPY_PIN_FILES = ("pyproject.toml", "setup.cfg", "setup.py", "environment.yml")
# `numpy<2`, `numpy<=1.26`, `numpy==1.24.*`, `numpy~=1.23`: a pin below NumPy 2.
NUMPY_BELOW_2 = re.compile(
    r"""\bnumpy\s*(?:\[[^\]]*\])?\s*(?:<\s*2(?:\.0)*\b|<=\s*1\.|==\s*1\.|~=\s*1\.)""",
    re.IGNORECASE,
)


class ConfigError(ValueError):
    """A pyproject.toml that cannot be used; the message names the file and the key."""


@dataclass
class CheckConfig:
    """The settings read from one pyproject.toml (or the defaults, rooted at `root`)."""

    root: Path
    source: Path | None = None
    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    exclude: list[str] | None = None
    extend_exclude: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    numpy_below_2: bool = False


def _toml_loads(text: str) -> dict[str, Any]:
    # lazy: TOML is parsed only on a cold cache or a config file
    from pitfalls import _toml

    return _toml.loads(text)


def find_config(start: Path, explicit: Path | None = None) -> CheckConfig:
    """The configuration for files under `start`: `explicit` if given, else the closest
    pyproject.toml with a `[tool.pitfalls.check]` table, else defaults rooted at `start`."""
    candidates = (
        [explicit]
        if explicit is not None
        else [folder / "pyproject.toml" for folder in [start, *start.parents]]
    )
    for candidate in candidates:
        if not os.path.isfile(candidate):  # False, not PermissionError, in a locked folder
            if explicit is not None:
                raise ConfigError(f"{candidate}: no such file")
            continue
        try:
            data = _toml_loads(candidate.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as err:
            raise ConfigError(f"{candidate}: cannot read it: {err}") from err
        table: Any = data
        for key in ("tool", "pitfalls", "check"):
            if table is None:
                break
            if not isinstance(table, dict):  # `tool = 1`: not ours to use, and no traceback
                where = "[tool]" if key == "pitfalls" else "[tool.pitfalls]"
                raise ConfigError(f"{candidate}: {where} must be a table")
            table = table.get(key)
        if table is None and explicit is None:
            continue
        config = _parse(table or {}, candidate)
        config.numpy_below_2 = pins_numpy_below_2(config.root)
        return config
    return CheckConfig(root=start, numpy_below_2=pins_numpy_below_2(start))


def _parse(table: Any, source: Path) -> CheckConfig:
    where = f"{source}: [tool.pitfalls.check]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(KEYS)})")
    config = CheckConfig(root=source.parent, source=source)
    for key in ("select", "extend-select", "ignore", "exclude", "extend-exclude"):
        if key in table:
            value = table[key]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where}: `{key}` must be a list of strings")
            setattr(config, key.replace("-", "_"), list(value))
    ignores = table.get("per-file-ignores", {})
    if not isinstance(ignores, dict) or not all(
        isinstance(v, list) and all(isinstance(c, str) for c in v) for v in ignores.values()
    ):
        raise ConfigError(f"{where}: `per-file-ignores` must map globs to lists of codes")
    config.per_file_ignores = {str(k): list(v) for k, v in ignores.items()}
    return config


def pins_numpy_below_2(root: Path) -> bool:
    """Whether the project at `root` pins NumPy below 2 (pyproject, setup, requirements)."""
    files = [root / name for name in NUMPY_PIN_FILES]
    try:
        files += sorted(root.glob("requirements*.txt"))
    except OSError:
        pass
    for path in files:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if NUMPY_BELOW_2.search(text):
            return True
    return False
