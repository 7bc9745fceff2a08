"""What the checker reports: findings with their fixes, the per-project options the rules read,
and lines as the parser counts them. Plain data, shared by the checker, the driver and output."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pitfalls.catalogue.rule_table import RULES


@dataclass(frozen=True)
class Edit:
    """Replace source[start:end] (character offsets) with `text`."""

    start: int
    end: int
    text: str


@dataclass
class Finding:
    """One finding in one file; line and column are 1-based, columns count characters."""

    code: str
    message: str
    line: int
    col: int
    end_line: int
    end_col: int
    path: str = ""
    cell: int | None = None
    edits: tuple[Edit, ...] = ()
    fix_title: str | None = None

    @property
    def recipe(self) -> str | None:
        rule = RULES.get(self.code)
        return rule.recipe if rule else None

    @property
    def name(self) -> str:
        rule = RULES.get(self.code)
        return rule.name if rule else "syntax-error"


@dataclass
class Options:
    """Per-project facts the rules need (not rule selection)."""

    numpy_below_2: bool = False
    notebook: bool = False  # a notebook's cells run in a kernel, not as an importable script


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def split_lines(text: str) -> list[str]:
    """Lines as the parser counts them (only \\n, \\r\\n and \\r end a line), with their ends."""
    return _LINE.findall(text) or [""]
