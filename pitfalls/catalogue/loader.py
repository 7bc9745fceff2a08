"""Reading one recipe folder into a `Recipe`: TOML and file presence only, never the snippet.

Over 400 lines as one cohesive thing: the parser and validator of recipe.toml's schema, one
function per table, each raising the one-line RecipeError the CLI prints.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from pitfalls.catalogue.cache import FolderCache, folder_key, recipe_from_entry
from pitfalls.catalogue.model import (
    COMPARISONS,
    DEVICE_TYPES,
    EXPECT_SIDES,
    GATES,
    LANGS,
    PLOT_KEYS,
    PLOT_KINDS,
    PLOT_TEXTS,
    SIDES,
    THEMES,
    WARNINGS_KEY,
    ErrorFragment,
    Expectation,
    LegacyError,
    Plot,
    Recipe,
    install_claim_reader,
)

ID_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


class RecipeError(ValueError):
    """A recipe folder that cannot be loaded; the message says why."""


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file, turning syntax errors into a RecipeError with the line."""
    # Imported here: with the metadata cache warm, `list` and `show` parse no TOML at all.
    # lazy: TOML is parsed only on a cold cache or a config file
    from pitfalls import _toml as tomllib

    if path.exists() and not path.is_file():  # a folder, or a FIFO that would block
        raise RecipeError("recipe.toml is not a regular file")
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as err:
        raise RecipeError(f"recipe.toml is not valid TOML: {err}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise RecipeError(f"recipe.toml cannot be read: {err}") from None


def _str_tuple(data: dict[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RecipeError(f"`{key}` must be a list of strings")
    return tuple(value)


def _lang_table(data: dict[str, Any], key: str) -> dict[str, str]:
    value = data.get(key, {})
    if isinstance(value, str):
        return {"en": value}
    if not isinstance(value, dict):
        raise RecipeError(f"`{key}` must be a table with `en` and `zh` strings")
    for lang in LANGS:
        if lang in value and not isinstance(value[lang], str):
            raise RecipeError(f"`{key}.{lang}` must be a string")
    return {lang: value[lang] for lang in LANGS if value.get(lang)}


def _plain_value(value: Any) -> bool:
    """Whether `value` is JSON-like data (TOML dates and times are not)."""
    if isinstance(value, list):
        return all(_plain_value(v) for v in value)
    if isinstance(value, dict):
        return all(_plain_value(v) for v in value.values())
    return isinstance(value, (str, int, float, bool))


def _is_str_or_strs(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value) and all(isinstance(v, str) for v in value)
    return isinstance(value, str)


def parse_expectation(raw: Any, index: int) -> Expectation:
    """Validate one `[[expect]]` table and build an Expectation."""
    where = f"expectation #{index + 1}"
    if not isinstance(raw, dict):
        raise RecipeError(f"{where} must be a table")
    side = raw.get("side")
    if side not in EXPECT_SIDES:
        raise RecipeError(
            f"{where}: `side` must be problem or fix (a claim), or both (an invariant)"
        )
    key = raw.get("key", WARNINGS_KEY if "warns" in raw else None)
    if not isinstance(key, str) or not key:
        raise RecipeError(f"{where}: `key` (the observation's name) is missing")
    ops = [op for op in COMPARISONS if op in raw]
    if len(ops) != 1:
        raise RecipeError(
            f"{where} ({key}): needs exactly one comparison of {', '.join(COMPARISONS)}"
        )
    op = ops[0]
    value = raw[op]
    if op in ("lt", "le", "gt", "ge", "isclose") and (
        isinstance(value, bool) or not isinstance(value, (int, float))
    ):
        raise RecipeError(f"{where} ({key}): `{op}` needs a number")
    if op == "one_of" and not isinstance(value, list):
        raise RecipeError(f"{where} ({key}): `one_of` needs a list")
    if not _plain_value(value):
        raise RecipeError(f"{where} ({key}): `{op}` needs a number, bool, string or list")
    if op == "warns" and value is not False:
        if not isinstance(value, dict) or "type" not in value:
            raise RecipeError(f"{where}: `warns` needs a table with `type` (and `match`), or false")
        for part in ("type", "match"):
            if part in value and not _is_str_or_strs(value[part]):
                raise RecipeError(f"{where}: `warns.{part}` must be a string or a list of strings")
    if op == "raises":
        if not isinstance(value, dict) or "type" not in value:
            raise RecipeError(f"{where} ({key}): `raises` needs a table with `type` and `match`")
        for part in ("type", "match"):
            if part in value and not _is_str_or_strs(value[part]):
                raise RecipeError(
                    f"{where} ({key}): `raises.{part}` must be a string or a list of strings"
                )
    for tolerance in ("rel_tol", "abs_tol"):
        bound = raw.get(tolerance)
        if bound is not None and (
            isinstance(bound, bool) or not isinstance(bound, (int, float)) or not bound >= 0
        ):
            raise RecipeError(f"{where} ({key}): `{tolerance}` must be a number >= 0")
    why = raw.get("why", "")
    if not isinstance(why, str):
        raise RecipeError(f"{where} ({key}): `why` must be a string")
    devices = _str_tuple(raw, "devices")
    unknown = [d for d in devices if d not in DEVICE_TYPES]
    if unknown:
        raise RecipeError(f"{where} ({key}): unknown device type {unknown[0]!r}")
    gates = _gates(raw, where)
    return Expectation(
        side=side,
        key=key,
        op=op,
        value=value,
        rel_tol=raw.get("rel_tol"),
        abs_tol=raw.get("abs_tol"),
        devices=devices,
        why=why,
        **gates,
    )


def _text_table(raw: Any, where: str) -> dict[str, str]:
    """A `{en = "...", zh = "..."}` table (a bare string is English), validated."""
    if isinstance(raw, str):
        return {"en": raw} if raw else {}
    if not isinstance(raw, dict):
        raise RecipeError(f"{where} must be a table with `en` and `zh` strings")
    unknown = sorted(set(raw) - set(LANGS))
    if unknown:
        raise RecipeError(f"{where} has an unknown language `{unknown[0]}` (use en and zh)")
    for lang, value in raw.items():
        if not isinstance(value, str):
            raise RecipeError(f"{where}.{lang} must be a string")
    return {lang: raw[lang] for lang in LANGS if raw.get(lang)}


def parse_plot(raw: Any, index: int) -> Plot:
    """Validate one `[[plot]]` table and build a Plot."""
    where = f"plot #{index + 1}"
    if not isinstance(raw, dict):
        raise RecipeError(f"{where} must be a table")
    key = raw.get("key")
    if not isinstance(key, str) or not key:
        raise RecipeError(f"{where}: `key` (the observation holding the series) is missing")
    where = f"{where} ({key})"
    unknown = sorted(set(raw) - set(PLOT_KEYS))
    if unknown:
        raise RecipeError(f"{where}: unknown key `{unknown[0]}` (known: {', '.join(PLOT_KEYS)})")
    sides = raw.get("sides", list(SIDES))
    if isinstance(sides, str):
        sides = [sides]
    if (
        not isinstance(sides, list)
        or not sides
        or any(side not in SIDES for side in sides)
        or len(set(sides)) != len(sides)
    ):
        raise RecipeError(f"{where}: `sides` must list problem, fix or both, once each")
    kind = raw.get("kind", "line")
    if kind not in PLOT_KINDS:
        raise RecipeError(f"{where}: `kind` must be one of {', '.join(PLOT_KINDS)}, not {kind!r}")
    scales = {}
    for axis in ("xlog", "ylog"):
        value = raw.get(axis, False)
        if not isinstance(value, bool):
            raise RecipeError(f"{where}: `{axis}` must be true or false")
        scales[axis] = value
    if kind == "bar" and (scales["xlog"] or scales["ylog"]):
        raise RecipeError(f"{where}: a bar chart has linear axes (drop xlog and ylog)")
    texts = {part: _text_table(raw.get(part, {}), f"{where}: `{part}`") for part in PLOT_TEXTS}
    legend_raw = raw.get("legend", {})
    if not isinstance(legend_raw, dict):
        raise RecipeError(f"{where}: `legend` must map series names to `en`/`zh` tables")
    legend = {
        str(name): _text_table(value, f"{where}: `legend.{name}`")
        for name, value in legend_raw.items()
    }
    return Plot(
        key=key,
        sides=tuple(side for side in SIDES if side in sides),
        kind=kind,
        legend=legend,
        **scales,
        **texts,
    )


def parse_plots(data: dict[str, Any]) -> tuple[Plot, ...]:
    """Validate the `[[plot]]` tables of a parsed recipe.toml."""
    raw = data.get("plot", [])
    if not isinstance(raw, list):
        raise RecipeError("`plot` must be an array of tables ([[plot]])")
    return tuple(parse_plot(item, index) for index, item in enumerate(raw))


def _gates(raw: dict[str, Any], where: str) -> dict[str, str]:
    """The `torch`, `numpy` and `python` version ranges of a table, validated."""
    gates = {}
    for name in GATES:
        value = raw.get(name)
        if value is not None:
            check_specifier(value, where, name)
            gates[name] = value
    return gates


def parse_errors(data: dict[str, Any]) -> tuple[ErrorFragment, ...]:
    """Validate `errors`: strings, or tables with `text` and optional gates."""
    raw = data.get("errors", [])
    if not isinstance(raw, list):
        raise RecipeError("`errors` must be a list of strings or tables")
    fragments = []
    for index, item in enumerate(raw):
        where = f"errors entry #{index + 1}"
        if isinstance(item, str):
            item = {"text": item}
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise RecipeError(f"{where}: needs a string, or a table with `text`")
        if not item["text"].strip():
            raise RecipeError(f"{where}: the text is empty")
        unknown = set(item) - {"text", "devices", *GATES}
        if unknown:
            raise RecipeError(f"{where}: unknown key `{sorted(unknown)[0]}`")
        devices = _str_tuple(item, "devices")
        bad = [d for d in devices if d not in DEVICE_TYPES]
        if bad:
            raise RecipeError(f"{where}: unknown device type {bad[0]!r}")
        fragments.append(ErrorFragment(item["text"], devices, **_gates(item, where)))
    return tuple(fragments)


def parse_legacy_errors(data: dict[str, Any]) -> tuple[LegacyError, ...]:
    """Validate `legacy_errors`: tables with `text` and `source`."""
    raw = data.get("legacy_errors", [])
    if not isinstance(raw, list):
        raise RecipeError("`legacy_errors` must be a list of tables with `text` and `source`")
    result = []
    for index, item in enumerate(raw):
        where = f"legacy_errors entry #{index + 1}"
        if isinstance(item, str):
            item = {"text": item}
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise RecipeError(f"{where}: needs a table with `text` and `source`")
        if not item["text"].strip():
            # An empty fragment would match every error a user pastes.
            raise RecipeError(f"{where}: `text` is empty")
        source = item.get("source", "")
        if not isinstance(source, str):
            raise RecipeError(f"{where}: `source` must be a URL string")
        result.append(LegacyError(item["text"], source))
    return tuple(result)


def parse_questions(data: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """Validate `[questions]`: a list of strings per language."""
    raw = data.get("questions", {})
    if not isinstance(raw, dict):
        raise RecipeError("`questions` must be a table with `en` and `zh` lists")
    unknown = sorted(set(raw) - set(LANGS))
    if unknown:
        raise RecipeError(f"`questions.{unknown[0]}`: unknown language (use {' and '.join(LANGS)})")
    questions = {}
    for lang in LANGS:
        if lang in raw:
            value = raw[lang]
            if not isinstance(value, list) or not all(isinstance(q, str) for q in value):
                raise RecipeError(f"`questions.{lang}` must be a list of strings")
            questions[lang] = tuple(value)
    return questions


# Ranges of the plain shapes recipes use (">=2.1", "!=2.4.*", ">=1.13,<2.0", "~=2.6"): every
# string this matches is valid PEP 440, so a cold load need not import `packaging`, whose
# specifier grammar alone costs more to compile than parsing ten recipes. Anything else is
# judged by `packaging` itself, so nothing valid is refused and nothing invalid slips through.
_PLAIN_CLAUSE = (
    r"\s*(?:(?:>=|<=|<|>)\s*\d+(?:\.\d+)*|(?:==|!=)\s*\d+(?:\.\d+)*(?:\.\*)?|~=\s*\d+(?:\.\d+)+)\s*"
)
_PLAIN_RANGE = re.compile(rf"{_PLAIN_CLAUSE}(?:,{_PLAIN_CLAUSE})*\Z", re.ASCII)


def check_specifier(text: Any, where: str, name: str = "torch") -> None:
    """Raise RecipeError unless `text` is a PEP 440 version range."""
    if not isinstance(text, str):
        raise RecipeError(f'{where}: `{name}` must be a version range such as ">=2.0"')
    if _PLAIN_RANGE.match(text):
        return
    # lazy: packaging only off the fast path (plain version ranges need none)
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        SpecifierSet(text)
    except InvalidSpecifier:
        raise RecipeError(f"{where}: `{name} = {text!r}` is not a version range") from None


def load_recipe(folder: Path, source: str = "built-in", cache: FolderCache | None = None) -> Recipe:
    """Load the recipe in `folder`, raising RecipeError with the reason if it is malformed.

    With a cache, an unchanged folder is rebuilt from its cached metadata without parsing.
    """
    try:
        present = os.listdir(folder)
    except OSError as err:
        raise RecipeError(f"cannot list the folder: {err.strerror}") from None
    key = None
    if cache is not None and "recipe.toml" in present:
        try:
            key = folder_key(os.stat(folder / "recipe.toml"), present)
        except OSError:
            key = None
        entry = cache.get(folder.name, key) if key else None
        if entry is not None:
            return recipe_from_entry(entry, folder, source)
    try:
        recipe = _parse_recipe(folder, set(present), source)
    except RecipeError:
        if cache is not None:
            cache.forget(folder.name)
        raise
    if cache is not None and key is not None:
        cache.put(folder.name, key, recipe)
    return recipe


def _parse_recipe(folder: Path, present: set[str], source: str) -> Recipe:
    if "recipe.toml" not in present:
        raise RecipeError("no recipe.toml")
    data = read_toml(folder / "recipe.toml")
    if "snippet.py" not in present:
        raise RecipeError("no snippet.py")
    if not any(f"{lang}.md" in present for lang in LANGS):
        raise RecipeError("no prose: neither en.md nor zh.md")
    recipe_id = data.get("id", folder.name)
    if not isinstance(recipe_id, str) or not ID_PATTERN.match(recipe_id):
        raise RecipeError(f"id {recipe_id!r} must be lowercase letters, digits and hyphens")
    devices = _str_tuple(data, "devices") or DEVICE_TYPES
    unknown = [d for d in devices if d not in DEVICE_TYPES]
    if unknown:
        raise RecipeError(f"unknown device type {unknown[0]!r} in `devices`")
    torch_range = data.get("torch", "")
    if torch_range:
        check_specifier(torch_range, "recipe")
    gates = _gates({k: v for k, v in data.items() if k != "torch"}, "recipe")
    slow = data.get("slow", "")
    if not isinstance(slow, str):
        raise RecipeError("`slow` must be a string saying why the snippet is slow")
    theme = parse_theme(data)
    expectations = parse_expectations(data)
    plots = parse_plots(data)
    return Recipe(
        id=recipe_id,
        path=folder,
        title=_lang_table(data, "title"),
        summary=_lang_table(data, "summary"),
        aliases=tuple(a.lower() for a in _str_tuple(data, "aliases")),
        tags=_str_tuple(data, "tags"),
        devices=devices,
        torch=torch_range,
        references=_str_tuple(data, "references"),
        requires=_str_tuple(data, "requires"),
        errors=parse_errors(data),
        legacy_errors=parse_legacy_errors(data),
        questions=parse_questions(data),
        related=_str_tuple(data, "related"),
        numpy=gates.get("numpy", ""),
        python=gates.get("python", ""),
        slow=slow,
        theme=theme,
        source=source,
        _expectations=expectations,
        _plots=plots,
    )


def parse_theme(data: dict[str, Any]) -> str:
    """Validate the top-level `theme`: one of THEMES, or absent ("")."""
    if "theme" not in data:
        return ""
    theme = data["theme"]
    if not isinstance(theme, str) or theme not in THEMES:
        raise RecipeError(f"`theme` must be one of {', '.join(THEMES)}, not {theme!r}")
    return theme


def parse_expectations(data: dict[str, Any]) -> tuple[Expectation, ...]:
    """Validate the `[[expect]]` tables of a parsed recipe.toml."""
    raw_expectations = data.get("expect", [])
    if not isinstance(raw_expectations, list):
        raise RecipeError("`expect` must be an array of tables ([[expect]])")
    return tuple(parse_expectation(raw, i) for i, raw in enumerate(raw_expectations))


def read_claim(folder: Path) -> tuple[tuple[Expectation, ...], tuple[Plot, ...]]:
    """Parse just what a run checks: the `[[expect]]` and `[[plot]]` tables of a folder."""
    data = read_toml(folder / "recipe.toml")
    return parse_expectations(data), parse_plots(data)


def read_expectations(folder: Path) -> tuple[Expectation, ...]:
    """Parse just the `[[expect]]` tables of a recipe folder."""
    return parse_expectations(read_toml(folder / "recipe.toml"))


# Recipes read their claim on first use through this module (see catalogue.model).
install_claim_reader(read_claim)
