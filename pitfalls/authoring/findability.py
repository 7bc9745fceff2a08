"""Lint checks for what makes a recipe findable and its claim checkable.

Single-recipe checks (`check_findability`) run inside `lint_checks._check_toml`; checks that
need the whole catalogue (`catalogue_findings`) run once per lint, from `pitfalls.authoring.lint`.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pitfalls.authoring.lint import Finding, display_path, line_of, recipe_folders
from pitfalls.authoring.literals import COMPUTED, fixed_observations
from pitfalls.catalogue.loader import (
    RecipeError,
    parse_errors,
    parse_legacy_errors,
    parse_questions,
    read_toml,
)
from pitfalls.catalogue.model import INVARIANT_SIDE, LANGS, MESSAGE_COMPARISONS, SIDES

if TYPE_CHECKING:
    from pitfalls.authoring.lint_checks import _Recipe

QUESTIONS_MIN, QUESTIONS_MAX = 3, 6
# A fragment that is nothing but an exception or warning class name says nothing specific.
_BARE_TYPE = re.compile(r"^\s*[A-Z][A-Za-z]*(Error|Exception|Warning)\s*:?\s*$")
LANG_NAMES = {"en": "English", "zh": "Chinese"}


def check_findability(recipe: _Recipe, data: dict[str, Any]) -> None:
    """`errors` proven by expectations, `[questions]` in both languages, `related`, legacy
    sources, and expectations that cannot fail because their observation is a constant."""
    try:
        fragments = parse_errors(data)
        legacy = parse_legacy_errors(data)
        questions = parse_questions(data)
    except RecipeError as err:
        recipe.add("PIT003", "recipe.toml", str(err), recipe.toml_line("errors"))
        return
    expectations = data.get("expect") if isinstance(data.get("expect"), list) else []
    covered = set()
    raising = False
    for item in expectations:
        if not isinstance(item, dict):
            continue
        covered.update(_match_texts(item))
        if item.get("side") == "problem" and (
            "raises" in item or isinstance(item.get("warns"), dict)
        ):
            raising = True
    line = recipe.toml_line("errors")
    for fragment in fragments:
        where = line_of(recipe.toml_text, re.escape(fragment.text)) or line
        if _BARE_TYPE.match(fragment.text):
            message = f"errors entry {fragment.text!r} is only an exception type: quote the message"
            recipe.add("PIT022", "recipe.toml", message, where)
        elif fragment.text not in covered:
            message = (
                f"errors entry {fragment.text!r} is not proven: no raises/warns `match` "
                "(or `contains`) expectation has exactly this text"
            )
            recipe.add("PIT021", "recipe.toml", message, where)
    if raising and "errors" not in data:
        # `errors = []` says on purpose that the messages belong to other recipes.
        message = "the problem side raises or warns, but `errors` lists no message fragment"
        recipe.add("PIT021", "recipe.toml", message, recipe.toml_line("expect"))
    for entry in legacy:
        if not re.match(r"^https?://\S+$", entry.source):
            where = line_of(recipe.toml_text, re.escape(entry.text)) or recipe.toml_line(
                "legacy_errors"
            )
            message = f"legacy error {entry.text!r} needs a `source` URL that shows it"
            recipe.add("PIT025", "recipe.toml", message, where)
    qline = recipe.toml_line("questions")
    for lang in LANGS:
        count = len([q for q in questions.get(lang, ()) if q.strip()])
        if not QUESTIONS_MIN <= count <= QUESTIONS_MAX:
            message = (
                f"[questions] {lang} has {count} question(s): write {QUESTIONS_MIN} to "
                f"{QUESTIONS_MAX} ways a user describes the problem in {LANG_NAMES[lang]}"
            )
            recipe.add("PIT023", "recipe.toml", message, qline)
    related = data.get("related")
    if not related:
        message = "`related` is missing: name the recipes a reader should see next"
        recipe.add("PIT024", "recipe.toml", message)
    elif not isinstance(related, str) and not (
        isinstance(related, list) and all(isinstance(name, str) for name in related)
    ):
        message = "`related` must be a list of recipe ids (strings)"
        recipe.add("PIT003", "recipe.toml", message, recipe.toml_line("related"))
    _check_constant_observations(recipe, expectations)


def _match_texts(item: dict[str, Any]) -> list[str]:
    texts: list[str] = []
    for op in MESSAGE_COMPARISONS:
        value = item.get(op)
        if op == "contains" and isinstance(value, str):
            texts.append(value)
        elif isinstance(value, dict):
            match = value.get("match")
            if isinstance(match, str):
                texts.append(match)
            elif isinstance(match, list):  # another type is PIT018's to report
                texts.extend(match)
    return [t for t in texts if isinstance(t, str)]


def _check_constant_observations(recipe: _Recipe, expectations: list[Any]) -> None:
    """PIT026: an expectation on an observation that the snippet returns as a literal, or
    computes from literals alone (pitfalls.authoring.literals). The computed case is newer: an error
    in the built-in catalogue, a warning in third-party packs for now (recipes/README.md)."""
    fixed = fixed_observations(recipe.folder / "snippet.py")
    for item in expectations:
        if not isinstance(item, dict):
            continue
        side, key = item.get("side"), item.get("key")
        if not (isinstance(side, str) and isinstance(key, str)):
            continue
        sides = SIDES if side == INVARIANT_SIDE else (side,)
        for one in sides:
            kind = fixed.get((one, key))
            if kind is None:
                continue
            how = (
                "computes it from literals alone"
                if kind == COMPUTED
                else "returns it as a constant"
            )
            message = (
                f"expectation on {one} observation {key!r} cannot fail: snippet.py {how}; "
                "observe something torch computed"
            )
            line = line_of(recipe.toml_text, rf"key\s*=\s*[\"']{re.escape(str(key))}[\"']")
            finding = Finding("PIT026", display_path(recipe.folder / "recipe.toml"), message, line)
            if kind == COMPUTED:
                finding = replace(finding, pack_severity="warning")
            recipe.findings.append(finding)


def catalogue_findings(folders: list[Path], builtins: Path) -> list[Finding]:
    """Checks across recipes: an `errors` fragment shared with another recipe (PIT022) and a
    `related` id that names no recipe (PIT024, a warning while the catalogue grows)."""
    linted = {f.resolve() for f in folders}
    everything = list(folders)
    if builtins.is_dir():
        everything += [f for f in recipe_folders(builtins) if f.resolve() not in linted]
    tables: dict[Path, dict[str, Any]] = {}
    for folder in everything:
        try:
            tables[folder] = read_toml(folder / "recipe.toml")
        except RecipeError:
            continue
    ids = {str(t.get("id", f.name)) for f, t in tables.items()}
    owners: dict[str, set[str]] = {}
    for folder, table in tables.items():
        try:
            for fragment in parse_errors(table):
                owners.setdefault(fragment.text.strip().lower(), set()).add(folder.name)
        except RecipeError:
            continue
    findings = []
    for folder in folders:
        table = tables.get(folder)
        if table is None:
            continue
        toml = display_path(folder / "recipe.toml")
        text = (folder / "recipe.toml").read_text(encoding="utf-8", errors="replace")
        try:
            fragments = parse_errors(table)
        except RecipeError:
            fragments = ()
        for fragment in fragments:
            others = owners.get(fragment.text.strip().lower(), set()) - {folder.name}
            if others:
                message = (
                    f"errors entry {fragment.text!r} is also claimed by "
                    f"{', '.join(sorted(others))}: quote a part specific to this pitfall"
                )
                findings.append(
                    Finding("PIT022", toml, message, line_of(text, re.escape(fragment.text)))
                )
        related = table.get("related", [])
        related = [related] if isinstance(related, str) else related
        for name in related if isinstance(related, list) else []:
            if isinstance(name, str) and name not in ids:  # other types: PIT003
                message = f"related recipe {name!r} does not exist"
                findings.append(
                    Finding("PIT024", toml, message, line_of(text, rf"[\"']{re.escape(name)}"))
                )
    return findings
