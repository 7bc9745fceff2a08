"""The recipe model: plain data, no I/O and no terminal."""

from __future__ import annotations

import errno
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ClaimReader = Callable[[Path], "tuple[tuple[Expectation, ...], tuple[Plot, ...]]"]
# How a recipe's claim is read on first use. The loader, which parses recipe.toml, installs
# itself here when it is imported, and every Recipe read from a folder was made by the loader
# (or by the metadata cache it drives): so this plain-data module reads no files itself and
# imports nothing above it.
_claim_reader: ClaimReader | None = None


def install_claim_reader(reader: ClaimReader) -> None:
    """Called by pitfalls.catalogue.loader on import."""
    global _claim_reader
    _claim_reader = reader


def read_claim(folder: Path) -> tuple[tuple[Expectation, ...], tuple[Plot, ...]]:
    """The `[[expect]]` and `[[plot]]` tables of a recipe folder, through the loader."""
    if _claim_reader is None:
        raise RuntimeError("recipes are read by pitfalls.catalogue.loader, which is not imported")
    return _claim_reader(folder)


LANGS = ("en", "zh")
SIDES = ("problem", "fix")
# An expectation's `side`: a claim is on one side; an invariant (`side = "both"`) is checked on
# each side's observations, shown with its result, and never counted toward reproduced/fixed.
INVARIANT_SIDE = "both"
EXPECT_SIDES = (*SIDES, INVARIANT_SIDE)
# A recipe's `theme`: one per recipe, for grouping the catalogue (display names in i18n,
# `theme.<id>`).
THEMES = (
    "autograd",
    "numerics",
    "tensors",
    "training",
    "data",
    "serialization",
    "devices",
    "precision",
    "memory",
    "compile",
    "distributed",
    "mps",
    "environment",
)
DEVICE_TYPES = ("cpu", "cuda", "mps")

# The prose sections, in the order a recipe must carry them.
SECTIONS: dict[str, tuple[str, ...]] = {
    "en": ("Symptom", "Why", "Fix", "Try it", "References"),
    "zh": ("现象", "原因", "修复", "动手试试", "参考资料"),
}

COMPARISONS = (
    "equals",
    "one_of",
    "lt",
    "le",
    "gt",
    "ge",
    "isclose",
    "contains",
    "raises",
    "warns",
)
# Comparisons whose text is a message fragment that can prove an `errors` entry.
MESSAGE_COMPARISONS = ("raises", "warns", "contains")
# The observation a `warns` expectation reads: the warnings the runner recorded for a side.
WARNINGS_KEY = "warnings"
# Version gates an expectation, an `errors` entry or a whole recipe may carry.
GATES = ("torch", "numpy", "python")
# Charts a recipe may ask for (`[[plot]]`), and the keys such a table may carry.
PLOT_KINDS = ("line", "scatter", "bar")
PLOT_KEYS = ("key", "sides", "kind", "xlog", "ylog", "title", "xlabel", "ylabel", "legend")
PLOT_TEXTS = ("title", "xlabel", "ylabel")
# The comparison a plot's shape check reports as, beside the expectations it is shown with.
SERIES_OP = "series"


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
    numpy: str | None = None
    python: str | None = None

    def gates(self) -> dict[str, str]:
        """The version gates this expectation carries, by package."""
        return {name: getattr(self, name) for name in GATES if getattr(self, name)}

    @property
    def is_invariant(self) -> bool:
        """Whether this is an invariant (`side = "both"`) rather than a claim on one side."""
        return self.side == INVARIANT_SIDE

    def sides(self) -> tuple[str, ...]:
        """The sides whose observations this expectation is evaluated on."""
        return SIDES if self.is_invariant else (self.side,)

    def matches(self) -> list[str]:
        """The message fragments this expectation checks for (raises/warns match, contains)."""
        if self.op == "contains" and isinstance(self.value, str):
            return [self.value]
        if self.op in ("raises", "warns") and isinstance(self.value, dict):
            match = self.value.get("match")
            if isinstance(match, str):
                return [match]
            if isinstance(match, list):
                return [m for m in match if isinstance(m, str)]
        return []

    def describe(self) -> str:
        """A short human form, such as `loss_is_finite == false` (values as in TOML/JSON)."""
        # lazy: standard library only this path needs, kept off start-up
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
        if self.op == "warns" and self.value is False:
            return "no warning"
        if self.op == SERIES_OP:
            return f"{self.key} holds series for a {self.value} chart"
        types = self.value.get("type")
        match = self.value.get("match")
        verb = "raises" if self.op == "raises" else "warns"
        subject = self.key if self.op == "raises" else "it"
        return f"{subject} {verb} {show(types)} matching {show(match)}"

    def to_dict(self) -> dict[str, Any]:
        """The expectation as JSON-able data."""
        data: dict[str, Any] = {"side": self.side, "key": self.key, self.op: self.value}
        if self.rel_tol is not None:
            data["rel_tol"] = self.rel_tol
        if self.abs_tol is not None:
            data["abs_tol"] = self.abs_tol
        data.update(self.gates())
        if self.devices:
            data["devices"] = list(self.devices)
        return data


@dataclass(frozen=True)
class ErrorFragment:
    """A message fragment the pitfall produces, with the gates under which it is proven."""

    text: str
    devices: tuple[str, ...] = ()
    torch: str | None = None
    numpy: str | None = None
    python: str | None = None

    def gates(self) -> dict[str, str]:
        """The version gates of this fragment, by package."""
        return {name: getattr(self, name) for name in GATES if getattr(self, name)}

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        data: dict[str, Any] = {"text": self.text, **self.gates()}
        if self.devices:
            data["devices"] = list(self.devices)
        return data


@dataclass(frozen=True)
class LegacyError:
    """An older wording users still paste, with the source that shows it."""

    text: str
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {"text": self.text, "source": self.source}


@dataclass(frozen=True)
class Plot:
    """A chart the recipe asks for: the observation that holds its series, and how to draw it.

    The observation is `{"x": [...], "y": {"series name": [...], ...}}` on each side in
    `sides`; texts are `{"en": ..., "zh": ...}` tables, and `legend` localises series names.
    """

    key: str
    sides: tuple[str, ...] = SIDES
    kind: str = "line"
    xlog: bool = False
    ylog: bool = False
    title: dict[str, str] = field(default_factory=dict)
    xlabel: dict[str, str] = field(default_factory=dict)
    ylabel: dict[str, str] = field(default_factory=dict)
    legend: dict[str, dict[str, str]] = field(default_factory=dict)

    def text(self, part: str, lang: str) -> str:
        """The title, xlabel or ylabel in `lang`, falling back to any language, else ""."""
        table = getattr(self, part)
        return table.get(lang) or next((v for v in table.values() if v), "")

    def series_label(self, name: str, lang: str) -> str:
        """A series' name as the legend shows it in `lang` (the name itself by default)."""
        table = self.legend.get(name) or {}
        return table.get(lang) or next((v for v in table.values() if v), name)

    def expectation(self, side: str) -> Expectation:
        """The shape check of one side, reported as an expectation that can fail."""
        return Expectation(side=side, key=self.key, op=SERIES_OP, value=self.kind)

    def to_dict(self) -> dict[str, Any]:
        """The plot as JSON-able data, as written in recipe.toml."""
        data: dict[str, Any] = {
            "key": self.key,
            "sides": list(self.sides),
            "kind": self.kind,
            "xlog": self.xlog,
            "ylog": self.ylog,
        }
        data.update({part: dict(getattr(self, part)) for part in PLOT_TEXTS})
        if self.legend:
            data["legend"] = {name: dict(texts) for name, texts in self.legend.items()}
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
    errors: tuple[ErrorFragment, ...] = ()
    legacy_errors: tuple[LegacyError, ...] = ()
    questions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    related: tuple[str, ...] = ()
    numpy: str = ""  # version gates on the whole claim, besides `torch`
    python: str = ""
    slow: str = ""  # why the snippet cannot finish in a fraction of a second, if it cannot
    theme: str = ""  # one of THEMES; optional while the catalogue is being given one each
    source: str = "built-in"
    # Expectations are read on first use: listing and searching never need them, and that
    # keeps the metadata cache small.
    _expectations: tuple[Expectation, ...] | None = field(default=None, repr=False)
    _plots: tuple[Plot, ...] | None = field(default=None, repr=False)  # read lazily, too
    _prose: dict[str, str | None] = field(default_factory=dict, repr=False)
    # The search index, when the metadata cache holds one (see pitfalls.search.index).
    search_index: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def expectations(self) -> tuple[Expectation, ...]:
        """The checked claim, parsed from recipe.toml when first needed."""
        if self._expectations is None:
            self._expectations, plots = read_claim(self.path)
            if self._plots is None:
                self._plots = plots
        return self._expectations

    @property
    def plots(self) -> tuple[Plot, ...]:
        """The charts of `[[plot]]`, parsed from recipe.toml (with the expectations) when
        first needed."""
        if self._plots is None:
            if not (self.path / "recipe.toml").is_file():
                self._plots = ()  # a recipe built in code, with no folder behind it
            else:
                expectations, self._plots = read_claim(self.path)
                if self._expectations is None:
                    self._expectations = expectations
        return self._plots

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
            "numpy": self.numpy,
            "python": self.python,
            "slow": self.slow,
            "theme": self.theme,
            "errors": [e.to_dict() for e in self.errors],
            "legacy_errors": [e.to_dict() for e in self.legacy_errors],
            "questions": {lang: list(qs) for lang, qs in self.questions.items()},
            "related": list(self.related),
            "expectations": [
                {**e.to_dict(), "kind": "invariant" if e.is_invariant else "claim"}
                for e in self.expectations
            ],
            "plots": [p.to_dict() for p in self.plots],
            "source": self.source,
            "path": str(self.path),
        }
