"""The checks behind `pitfalls lint`, one recipe folder at a time (codes: see
pitfalls.authoring.lint).

Nothing here imports a snippet: it is parsed with `ast` and formatted by a ruff subprocess.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from pitfalls import _toml as tomllib
from pitfalls.authoring.findability import check_findability
from pitfalls.authoring.lint import (
    KNOWN_BLOCK_LANGUAGES,
    PYTHON_LANGUAGES,
    TODO_MARKER,
    Finding,
    Identity,
    display_path,
    languages_present,
    line_of,
    read_text,
)
from pitfalls.authoring.prose import CodeBlock, is_excerpt, parse
from pitfalls.catalogue.loader import (
    ID_PATTERN,
    RecipeError,
    check_specifier,
    parse_expectation,
    parse_plot,
    parse_theme,
)
from pitfalls.catalogue.model import DEVICE_TYPES, LANGS, PLOT_TEXTS, SECTIONS, SIDES
from pitfalls.catalogue.rule_table import CODE_SHAPE
from pitfalls.catalogue.snippet_check import missing_functions

REQUIRED_KEYS = ("id", "title", "summary", "tags", "devices", "torch", "references", "expect")
LANG_NAMES = {"en": "English", "zh": "Chinese"}


class _Recipe:
    """One folder being linted: reads each file once and collects findings."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.findings: list[Finding] = []
        self.identity = Identity(folder)
        self.references: list[tuple[str, int | None]] = []
        self.toml_text = ""

    def add(self, code: str, file: str, message: str, line: int | None = None) -> None:
        self.findings.append(Finding(code, display_path(self.folder / file), message, line))

    def toml_line(self, key: str) -> int | None:
        return line_of(self.toml_text, rf"^\s*\[?{re.escape(key)}\]?\s*(=|$)")


def check_recipe(folder: Path) -> tuple[list[Finding], Identity, list[tuple[str, int | None]]]:
    """All single-recipe findings for `folder`, the names it claims and its reference URLs."""
    recipe = _Recipe(folder)
    for name in ("recipe.toml", "snippet.py"):
        if not (folder / name).is_file():
            recipe.add("PIT001", name, f"{name} is missing")
    langs = languages_present(folder)
    if not langs:
        recipe.add("PIT001", "en.md", "no prose: add en.md and zh.md")
    elif len(langs) == 1:
        other = next(lang for lang in LANGS if lang not in langs)
        recipe.add(
            "PIT007", f"{other}.md", f"{other}.md is missing: the recipe has {langs[0]} only"
        )
    if (folder / "recipe.toml").is_file():
        _check_toml(recipe)
    if (folder / "snippet.py").is_file():
        _check_snippet(recipe)
    _check_prose(recipe, langs)
    _check_todo(recipe)
    return recipe.findings, recipe.identity, recipe.references


def _check_toml(recipe: _Recipe) -> None:
    text = read_text(recipe.folder / "recipe.toml")
    if text is None:
        recipe.add("PIT002", "recipe.toml", "recipe.toml cannot be read as UTF-8 text")
        return
    recipe.toml_text = text
    try:
        data = tomllib.loads(recipe.toml_text)
    except tomllib.TOMLDecodeError as err:
        match = re.search(r"line (\d+)", str(err))
        line = int(match.group(1)) if match else None
        recipe.add("PIT002", "recipe.toml", f"not valid TOML: {err}", line)
        return
    for key in REQUIRED_KEYS:
        if key not in data:
            recipe.add("PIT003", "recipe.toml", f"the required key `{key}` is missing")
    _check_names(recipe, data)
    _check_lists(recipe, data)
    _check_texts(recipe, data)
    torch_range = data.get("torch")
    if torch_range is not None:
        _check_range(recipe, torch_range, recipe.toml_line("torch"), "`torch`")
    _check_theme(recipe, data)
    _check_expectations(recipe, data.get("expect"))
    _check_plots(recipe, data.get("plot"))
    check_findability(recipe, data)


def _check_names(recipe: _Recipe, data: dict[str, Any]) -> None:
    recipe_id = data.get("id")
    line = recipe.toml_line("id")
    if "id" in data and not isinstance(recipe_id, str):
        recipe.add("PIT003", "recipe.toml", "`id` must be a string", line)
    elif isinstance(recipe_id, str):
        if not ID_PATTERN.match(recipe_id):
            message = f"id {recipe_id!r} must be lowercase letters, digits and single hyphens"
            recipe.add("PIT004", "recipe.toml", message, line)
        elif recipe_id != recipe.folder.name:
            message = f"id {recipe_id!r} differs from the folder name {recipe.folder.name!r}"
            recipe.add("PIT005", "recipe.toml", message, line)
        recipe.identity.names.append(("id", recipe_id, line))
    aliases = data.get("aliases", [])
    if not _is_str_list(aliases):
        recipe.add("PIT003", "recipe.toml", "`aliases` must be a list of strings")
        return
    for alias in aliases:
        alias_line = line_of(recipe.toml_text, rf"[\"']{re.escape(alias)}[\"']")
        if not ID_PATTERN.match(alias):
            message = f"alias {alias!r} must be lowercase letters, digits and single hyphens"
            recipe.add("PIT004", "recipe.toml", message, alias_line)
        elif _shaped_like_rule_code(alias):
            message = (
                f"alias {alias!r} has the shape of a rule code (letters then digits), which "
                "`pitfalls show` looks up as a `pitfalls check` code first: choose a word"
            )
            recipe.add("PIT004", "recipe.toml", message, alias_line)
        else:
            recipe.identity.names.append(("alias", alias, alias_line))


def _shaped_like_rule_code(name: str) -> bool:
    """`pfl101`, `b950`: `show` would read such a word as a `pitfalls check` code."""
    return bool(CODE_SHAPE.match(name))


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _check_lists(recipe: _Recipe, data: dict[str, Any]) -> None:
    for key in ("tags", "devices", "references"):
        if key in data and not _is_str_list(data[key]):
            line = recipe.toml_line(key)
            recipe.add("PIT003", "recipe.toml", f"`{key}` must be a list of strings", line)
    devices = data.get("devices")
    if _is_str_list(devices):
        for device in devices:
            if device not in DEVICE_TYPES:
                message = f"unknown device type {device!r} in `devices`: use {DEVICE_TYPES}"
                recipe.add("PIT003", "recipe.toml", message, recipe.toml_line("devices"))
    references = data.get("references")
    if not _is_str_list(references):
        return
    for url in references:
        line = line_of(recipe.toml_text, re.escape(url))
        if not re.match(r"^https?://[^\s/]+\.[^\s]*$", url):
            recipe.add("PIT014", "recipe.toml", f"reference {url!r} is not an http(s) URL", line)
        else:
            recipe.references.append((url, line))


def _check_texts(recipe: _Recipe, data: dict[str, Any]) -> None:
    for key in ("title", "summary"):
        if key not in data:
            continue
        table = data[key]
        line = recipe.toml_line(key)
        if not isinstance(table, dict):
            message = f"`{key}` must be a table with `en` and `zh` strings ([{key}])"
            recipe.add("PIT003", "recipe.toml", message, line)
            continue
        for lang in LANGS:
            value = table.get(lang)
            if not isinstance(value, str) or not value.strip():
                message = f"the {LANG_NAMES[lang]} {key} (`{key}.{lang}`) is missing"
                recipe.add("PIT016", "recipe.toml", message, line)


def _check_range(recipe: _Recipe, value: Any, line: int | None, where: str) -> None:
    try:
        check_specifier(value, where)
    except RecipeError as err:
        recipe.add("PIT017", "recipe.toml", str(err), line)


def _check_theme(recipe: _Recipe, data: dict[str, Any]) -> None:
    """PIT028 when `theme` is missing; PIT003 when it is not one of the fixed list."""
    if "theme" not in data:
        message = "`theme` is missing: add one of the themes listed in recipes/README.md"
        path = display_path(recipe.folder / "recipe.toml")
        # An error in the built-in catalogue, a warning in a third-party pack (see lint_paths).
        recipe.findings.append(Finding("PIT028", path, message, pack_severity="warning"))
        return
    try:
        parse_theme(data)
    except RecipeError as err:
        recipe.add("PIT003", "recipe.toml", str(err), recipe.toml_line("theme"))


def _check_expectations(recipe: _Recipe, raw: Any) -> None:
    if raw is None:
        return
    if not isinstance(raw, list):
        message = "`expect` must be an array of tables ([[expect]])"
        recipe.add("PIT003", "recipe.toml", message, recipe.toml_line("expect"))
        return
    starts = [m.start() for m in re.finditer(r"^\s*\[\[expect\]\]", recipe.toml_text, re.M)]
    sides: set[str] = set()
    for index, item in enumerate(raw):
        offset = starts[index] if index < len(starts) else None
        line = recipe.toml_text.count("\n", 0, offset) + 1 if offset is not None else None
        if isinstance(item, dict) and "torch" in item:
            _check_range(recipe, item["torch"], line, f"expectation #{index + 1}")
            item = {k: v for k, v in item.items() if k != "torch"}  # reported once, as PIT017
        try:
            sides.add(parse_expectation(item, index).side)
        except RecipeError as err:
            recipe.add("PIT018", "recipe.toml", str(err), line)
    for side in SIDES:
        if side not in sides and not _side_reported(raw, side):
            message = f"no expectation for the {side} side: add an [[expect]] with side = {side!r}"
            recipe.add("PIT018", "recipe.toml", message, recipe.toml_line("expect"))


def _check_plots(recipe: _Recipe, raw: Any) -> None:
    """PIT027: each `[[plot]]` parses, has its texts in both languages, and plots an
    observation whose name appears in snippet.py (else the run's shape check must fail)."""
    if raw is None:
        return
    if not isinstance(raw, list):
        message = "`plot` must be an array of tables ([[plot]])"
        recipe.add("PIT027", "recipe.toml", message, recipe.toml_line("plot"))
        return

    starts = [m.start() for m in re.finditer(r"^\s*\[\[plot\]\]", recipe.toml_text, re.M)]
    names = _snippet_strings(recipe.folder / "snippet.py")
    for index, item in enumerate(raw):
        offset = starts[index] if index < len(starts) else None
        line = recipe.toml_text.count("\n", 0, offset) + 1 if offset is not None else None
        try:
            plot = parse_plot(item, index)
        except RecipeError as err:
            recipe.add("PIT027", "recipe.toml", str(err), line)
            continue
        for part in PLOT_TEXTS:
            for lang in LANGS:
                if not getattr(plot, part).get(lang, "").strip():
                    message = (
                        f"plot #{index + 1} ({plot.key}): the {LANG_NAMES[lang]} {part} "
                        f"(`{part}.{lang}`) is missing"
                    )
                    recipe.add("PIT027", "recipe.toml", message, line)
        if names is not None and plot.key not in names:
            message = (
                f"plot #{index + 1} plots the observation {plot.key!r}, but snippet.py never "
                f'names it: return {{{plot.key!r}: {{"x": [...], "y": {{...}}}}}}'
            )
            recipe.add("PIT027", "recipe.toml", message, line)


def _snippet_strings(snippet: Path) -> set[str] | None:
    """Every string literal in snippet.py (observation names among them); None when it
    cannot be parsed, which PIT011 reports."""
    try:
        tree = ast.parse(snippet.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return None
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def _side_reported(raw: list[Any], side: str) -> bool:
    # An invalid expectation for this side was already reported; one finding is enough.
    return any(isinstance(item, dict) and item.get("side") == side for item in raw)


def _check_snippet(recipe: _Recipe) -> None:
    missing = missing_functions(recipe.folder / "snippet.py")
    if isinstance(missing, str):
        match = re.search(r"line (\d+)", missing)
        recipe.add("PIT011", "snippet.py", missing, int(match.group(1)) if match else None)
    elif missing:
        names = " and ".join(f"{name}(device)" for name in missing)
        recipe.add("PIT012", "snippet.py", f"snippet.py defines no top-level {names}")


def _check_prose(recipe: _Recipe, langs: tuple[str, ...]) -> None:
    snippet = read_text(recipe.folder / "snippet.py")
    blocks: dict[str, list[CodeBlock]] = {}
    for lang in langs:
        file = f"{lang}.md"
        text = read_text(recipe.folder / file)
        if text is None:
            recipe.add("PIT001", file, f"{file} cannot be read as UTF-8")
            continue
        headings, blocks[lang] = parse(text)
        _check_sections(recipe, lang, headings)
        for block in blocks[lang]:
            _check_block(recipe, file, block, snippet)
    if "en" in blocks and "zh" in blocks:
        _compare_blocks(recipe, blocks["en"], blocks["zh"])


def _check_sections(recipe: _Recipe, lang: str, headings: list[Any]) -> None:
    file = f"{lang}.md"
    for heading in headings:
        if heading.level == 1:
            message = "no `#` title heading: the title comes from recipe.toml"
            recipe.add("PIT008", file, message, heading.line)
    wanted = list(SECTIONS[lang])
    found = [h for h in headings if h.level == 2]
    for index, expected in enumerate(wanted):
        if index >= len(found):
            message = f"section `## {expected}` is missing (sections: {', '.join(wanted)})"
            recipe.add("PIT008", file, message)
            return
        if found[index].text != expected:
            message = (
                f"expected `## {expected}` here, found `## {found[index].text}` "
                f"(sections, in order: {', '.join(wanted)})"
            )
            recipe.add("PIT008", file, message, found[index].line)
            return
    for extra in found[len(wanted) :]:
        message = f"unexpected section `## {extra.text}`: use `###` inside a required section"
        recipe.add("PIT008", file, message, extra.line)


def _check_block(recipe: _Recipe, file: str, block: CodeBlock, snippet: str | None) -> None:
    language = block.language
    if language not in KNOWN_BLOCK_LANGUAGES and language not in PYTHON_LANGUAGES:
        shown = f"`{block.info}`" if block.info else "no info string"
        known = ", ".join(KNOWN_BLOCK_LANGUAGES)
        message = f"code block with {shown}: label it one of {known} (or `python exec`)"
        recipe.add("PIT020", file, message, block.line)
        return
    if language in PYTHON_LANGUAGES and not block.is_exec and snippet is not None:
        if not is_excerpt(block.body, snippet):
            message = (
                "this python block is not an excerpt of snippet.py: copy the lines from the "
                "snippet, or mark a self-contained block `python exec` so the tests run it"
            )
            recipe.add("PIT010", file, message, block.line)


def _compare_blocks(recipe: _Recipe, en: list[CodeBlock], zh: list[CodeBlock]) -> None:
    for index, (a, b) in enumerate(zip(en, zh)):
        if a.info != b.info or _normalised(a.body) != _normalised(b.body):
            what = "info string" if a.info != b.info else "content"
            message = (
                f"code block #{index + 1} differs from en.md line {a.line} in its {what}: "
                "both languages carry the same code blocks, in the same order"
            )
            recipe.add("PIT009", "zh.md", message, b.line)
            return
    if len(zh) > len(en):
        message = f"zh.md has a code block that en.md lacks ({len(zh)} blocks against {len(en)})"
        recipe.add("PIT009", "zh.md", message, zh[len(en)].line)
    elif len(en) > len(zh):
        missing = en[len(zh)].line
        message = f"zh.md lacks en.md's code block at line {missing} ({len(zh)} against {len(en)})"
        recipe.add("PIT009", "zh.md", message)


def _normalised(body: str) -> list[str]:
    # Trailing spaces are invisible in review and editors strip them; they are not a difference.
    return [line.rstrip() for line in body.strip("\n").splitlines()]


def _check_todo(recipe: _Recipe) -> None:
    for name in ("recipe.toml", "en.md", "zh.md", "snippet.py"):
        text = read_text(recipe.folder / name)
        if not text:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if TODO_MARKER.search(line):
                text = line.strip()
                message = f"fill this in: {text if len(text) <= 60 else text[:59] + '…'}"
                recipe.add("PIT019", name, message, number)
