"""The recipe model: plain data, no I/O and no terminal."""

from __future__ import annotations

import errno
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LANGS = ("en", "zh")
SIDES = ("problem", "fix")
DEVICE_TYPES = ("cpu", "cuda", "mps")

# The prose sections, in the order a recipe must carry them.
SECTIONS: dict[str, tuple[str, ...]] = {
    "en": ("Symptom", "Why", "Fix", "Try it", "References"),
    "zh": ("现象", "原因", "修复", "动手试试", "参考资料"),
}

COMPARISONS = ("equals", "one_of", "lt", "le", "gt", "ge", "isclose", "contains", "raises")


@dataclass(frozen=True)
class Expectation:
    """One checked statement about an observation of the problem or the fix side."""

    side: str
    key: str
    op: str
    value: Any
    rel_tol: float | None = None
    abs_tol: float | None = None
    torch: str | None = None
    devices: tuple[str, ...] = ()
    why: str = ""

    def describe(self) -> str:
        """A short human form, such as `loss_is_finite == false` (values as in TOML/JSON)."""
        import json

        def show(value: Any) -> str:
            return json.dumps(value, ensure_ascii=False)

        symbols = {"equals": "==", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
        if self.op in symbols:
            return f"{self.key} {symbols[self.op]} {show(self.value)}"
        if self.op == "one_of":
            return f"{self.key} in {show(list(self.value))}"
        if self.op == "isclose":
            return f"{self.key} ≈ {show(self.value)}"
        if self.op == "contains":
            return f"{self.key} contains {show(self.value)}"
        types = self.value.get("type")
        match = self.value.get("match")
        return f"{self.key} raises {show(types)} matching {show(match)}"

    def to_dict(self) -> dict[str, Any]:
        """The expectation as JSON-able data."""
        data: dict[str, Any] = {"side": self.side, "key": self.key, self.op: self.value}
        if self.rel_tol is not None:
            data["rel_tol"] = self.rel_tol
        if self.abs_tol is not None:
            data["abs_tol"] = self.abs_tol
        if self.torch:
            data["torch"] = self.torch
        if self.devices:
            data["devices"] = list(self.devices)
        return data


@dataclass
class Recipe:
    """A recipe as loaded from its folder. Prose is read lazily; the snippet is never imported."""

    id: str
    path: Path
    title: dict[str, str]
    summary: dict[str, str]
    aliases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    devices: tuple[str, ...] = DEVICE_TYPES
    torch: str = ""
    references: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()  # modules besides torch the snippet imports (numpy, ...)
    source: str = "built-in"
    # Expectations are read on first use: listing and searching never need them, and that
    # keeps the metadata cache small.
    _expectations: tuple[Expectation, ...] | None = field(default=None, repr=False)
    _prose: dict[str, str | None] = field(default_factory=dict, repr=False)

    @property
    def expectations(self) -> tuple[Expectation, ...]:
        """The checked claim, parsed from recipe.toml when first needed."""
        if self._expectations is None:
            from pitfalls.loader import read_expectations

            self._expectations = read_expectations(self.path)
        return self._expectations

    @property
    def snippet_path(self) -> Path:
        """Where the runnable demonstration lives."""
        return self.path / "snippet.py"

    def languages(self) -> tuple[str, ...]:
        """The languages this recipe has prose for."""
        return tuple(lang for lang in LANGS if (self.path / f"{lang}.md").is_file())

    def prose(self, lang: str) -> str | None:
        """The Markdown prose in `lang`, or None when that file is missing."""
        if lang not in self._prose:
            file = self.path / f"{lang}.md"
            text = None
            if file.is_file():  # not a folder, nor a FIFO that would block
                try:
                    # Bytes that are not UTF-8 show as U+FFFD (lint reports them); an
                    # unreadable file reads as missing, so that `show` and `search` work.
                    text = file.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    pass
            self._prose[lang] = text
        return self._prose[lang]

    def prose_with_fallback(self, lang: str) -> tuple[str, str]:
        """Prose in `lang`, else in the other language: returns (language used, text)."""
        text = self.prose(lang)
        if text is not None:
            return lang, text
        for other in LANGS:
            other_text = self.prose(other)
            if other_text is not None:
                return other, other_text
        return lang, ""

    def snippet(self) -> str:
        """The snippet's source text (bytes that are not UTF-8 show as U+FFFD); OSError if
        it cannot be read."""
        path = self.snippet_path
        if path.exists() and not path.is_file():  # a folder, or a FIFO that would block
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        return path.read_text(encoding="utf-8", errors="replace")

    def text(self, table: dict[str, str], lang: str) -> str:
        """A localised metadata string (title or summary), falling back to any language."""
        return table.get(lang) or next((v for v in table.values() if v), "")

    def supports_device(self, device: str) -> bool:
        """Whether `device` (such as `cuda:1`) is one this recipe demonstrates on."""
        return device.split(":", 1)[0] in self.devices

    def to_dict(self, lang: str | None = None) -> dict[str, Any]:
        """Metadata as JSON-able data (without prose or snippet)."""
        return {
            "id": self.id,
            "aliases": list(self.aliases),
            "tags": list(self.tags),
            "title": dict(self.title),
            "summary": dict(self.summary),
            "devices": list(self.devices),
            "torch": self.torch,
            "references": list(self.references),
            "requires": list(self.requires),
            "expectations": [e.to_dict() for e in self.expectations],
            "source": self.source,
            "path": str(self.path),
        }
