"""Reading the catalogue: `list`, `show` and `search`. None of these imports torch."""

from __future__ import annotations

import json
import sys
from typing import Optional

import typer

from pitfalls import _startup
from pitfalls.catalogue.model import THEMES, Recipe
from pitfalls.cli.common import (
    LANG_OPTION,
    echo,
    fail,
    installed_torch_version,
    language,
    plain_output,
    read_stdin,
    registry,
    resolve,
)
from pitfalls.i18n import t
from pitfalls.render.page import page_markdown, rendered_page

JSON_OPTION = typer.Option(False, "--json", help="Print JSON instead of text.")


def _torch_state(recipe: Recipe, version: str | None) -> str:
    # lazy: only this path needs it
    from pitfalls.catalogue.verdict import version_in_range

    if version is None:
        return "unknown"
    return "in" if version_in_range(version, recipe.torch) else "out"


def list_recipes(
    tag: Optional[str] = typer.Option(None, "--tag", "-t", help="Only recipes with this tag."),
    theme: Optional[str] = typer.Option(
        None,
        "--theme",
        help="Only recipes of this theme: " + ", ".join(THEMES) + ".",
        show_default=False,
    ),
    as_json: bool = JSON_OPTION,
    lang: Optional[str] = LANG_OPTION,
) -> None:
    """List every recipe: id, title, tags, whether it holds for your torch, and its source.

    On a terminal the recipes are grouped by theme, each heading with its count; piped, one
    tab-separated line per recipe. The torch column compares each recipe's declared torch
    range with the installed torch, read from package metadata (torch is not imported).
    """
    lang = language(lang)
    if theme is not None and theme not in THEMES:
        fail(t("err.bad_theme", lang, theme=theme, themes=", ".join(THEMES)), 2)
    recipes = registry().with_tag(tag)
    if tag and not recipes:
        fail(t("err.no_tag", lang, tag=tag), 1)
    if theme is not None:
        recipes = [r for r in recipes if r.theme == theme]
        if not recipes:
            fail(t("err.no_theme", lang, theme=theme), 1)
    version = installed_torch_version()
    if as_json:
        data = [
            {
                **r.to_dict(),
                "torch_installed": version,
                "torch_holds": _torch_state(r, version),
                "checked": _checked(r, lang),
            }
            for r in recipes
        ]
        echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    if plain_output():
        lines = [
            "\t".join(
                (
                    r.id,
                    r.text(r.title, lang),
                    ",".join(r.tags),
                    _torch_state(r, version),
                    r.source,
                )
            )
            for r in recipes
        ]
        sys.stdout.write("\n".join(lines) + ("\n" if lines else ""))
        return
    # lazy: Rich loads only when something is drawn
    from rich.cells import cell_len
    from rich.markup import escape
    from rich.table import Table

    # lazy: Rich and the registry only when the command prints or reads recipes
    from pitfalls.cli.common import console
    from pitfalls.render.results import inline_text

    labels = {"in": t("torch.in", lang), "out": t("torch.out", lang)}
    labels["unknown"] = t("torch.unknown", lang)
    styles = {"in": "green", "out": "yellow", "unknown": "dim"}
    show_source = any(r.source != "built-in" for r in recipes)
    rows = []
    for recipe in recipes:
        state = _torch_state(recipe, version)
        title = inline_text(recipe.text(recipe.title, lang))
        row = [recipe.id, title, ", ".join(recipe.tags), labels[state]]
        if show_source:
            row.append(recipe.source)
        rows.append((recipe, state, row))
    # One table per theme with the same column widths, so the columns line up from one theme
    # to the next: ids, torch and source as wide as their widest cell, tags at most 24
    # columns, and the title takes the rest of the terminal (3 columns between two columns).
    headers = [t(f"col.{name}", lang) for name in ("id", "title", "tags", "torch", "source")]
    widths = [
        max(cell_len(headers[i]), *(cell_len(str(row[i])) for _, _, row in rows))
        for i in range(len(rows[0][2]))
    ]
    out = console()
    widths[2] = min(widths[2], 24)
    others = sum(widths) - widths[1] + 3 * (len(widths) - 1)
    # On a narrow terminal the tags give way first, down to 16 columns (a tag and its comma,
    # such as "mixed-precision,", stays whole), then the title.
    shrink = min(widths[2] - 16, max(0, 36 - (out.width - others)))
    widths[2] -= max(0, shrink)
    widths[1] = max(20, min(widths[1], out.width - others + max(0, shrink)))
    groups: dict[str, list] = {key: [] for key in (*THEMES, "")}
    for entry in rows:
        groups.get(entry[0].theme, groups[""]).append(entry)
    first = True
    for key, members in groups.items():
        if not members:
            continue
        name = t(f"theme.{key}" if key else "list.no_theme", lang)
        out.print(t("list.theme_heading", lang, theme=name, n=len(members)), style="bold")
        table = Table(show_edge=False, pad_edge=False, expand=False, show_header=first)
        table.add_column(headers[0], style="bold cyan", no_wrap=True, width=widths[0])
        table.add_column(headers[1], overflow="fold", width=widths[1])
        table.add_column(headers[2], style="magenta", overflow="fold", width=widths[2])
        table.add_column(headers[3], no_wrap=True, width=widths[3])
        if show_source:
            table.add_column(headers[4], style="dim", overflow="fold", width=widths[4])
        for _, state, row in members:
            cells = [escape(row[0]), row[1], escape(row[2]), f"[{styles[state]}]{row[3]}[/]"]
            if show_source:
                cells.append(escape(row[4]))
            table.add_row(*cells)
        out.print(table)
        out.print()
        first = False
    note = t("list.count", lang, n=len(recipes))
    if version:
        note += " · " + t("list.torch_note", lang, version=version)
    out.print(note, style="dim")


def _checked(recipe: Recipe, lang: str, rows: bool = False) -> dict:
    """The record of torch versions this recipe was checked on, for --json."""
    # lazy: the torch-version record only for the line that shows it
    from pitfalls.catalogue.checked import rows_for, summary, summary_line

    data = summary(recipe)
    data["text"] = summary_line(data, lang)
    if rows:
        data["rows"] = rows_for(recipe) or []
    return data


def show(
    recipe_id: str = typer.Argument(
        ..., metavar="ID", help="Recipe id, alias, unique prefix, or a `pitfalls check` code."
    ),
    lang: Optional[str] = LANG_OPTION,
    raw: bool = typer.Option(False, "--raw", help="Print plain Markdown, not rendered."),
    code: bool = typer.Option(False, "--code", help="Print only the snippet (pipe it to a file)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Explain one pitfall: symptom, cause, fix, and the snippet that demonstrates it.

    Try `pitfalls show detach --lang zh`, or `pitfalls show focal-loss --code > f.py`.
    """
    lang = language(lang)
    # lazy: the rule table only for pages and rule codes
    from pitfalls.catalogue.rule_table import CODE_SHAPE, lookup, rules_for_recipe

    rule = lookup(recipe_id) if CODE_SHAPE.match(recipe_id) else None
    if rule is not None:  # a rule code of `pitfalls check` names its recipe
        sys.stderr.write(f"pitfalls: {rule.code} ({rule.name}) → {rule.recipe}\n")
        recipe_id = rule.recipe
    recipe = resolve(recipe_id, lang)
    try:
        snippet = recipe.snippet()
    except OSError as err:
        fail(f"cannot read {recipe.snippet_path}: {err.strerror or err}", 1)
    if code:
        sys.stdout.write(snippet)
        return
    used, prose = recipe.prose_with_fallback(lang)
    if as_json:
        data = recipe.to_dict()
        data["prose"] = {lg: recipe.prose(lg) for lg in ("en", "zh")}
        data["snippet"] = snippet
        # lazy: the checker and its rules only for `check` and rule pages
        from pitfalls.check.output import rule_description

        data["rules"] = [rule_description(r.code) for r in rules_for_recipe(recipe.id)]
        data["checked"] = _checked(recipe, lang, rows=True)
        echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    notice = ""
    if used != lang:
        notice = t(
            "show.fallback", lang, wanted=t(f"lang.{lang}", lang), used=t(f"lang.{used}", lang)
        )
        sys.stderr.write(f"pitfalls: {notice}\n")
    markdown = page_markdown(recipe, lang, prose, snippet)
    if raw or plain_output():
        sys.stdout.write(markdown)
        return
    # A child started with the command may be rendering this very page: wait for it, read it.
    sys.stdout.write(rendered_page(recipe, used, markdown, wait=_startup.wait_for_page))


def search(
    query: list[str] = typer.Argument(
        ..., help="Words, or a pasted error message; `-` reads it from stdin."
    ),
    lang: Optional[str] = LANG_OPTION,
    limit: int = typer.Option(10, "--limit", "-n", min=1, help="At most this many results."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Find recipes by words or by an error message, in English or Chinese.

    Paste a whole traceback: numbers, pids, shapes, paths and addresses are ignored, and the
    final error line counts most. Only confident answers are listed; when no recipe explains
    the query, one line on stderr names the closest ones and the exit code is 1.
    Example: `pitfalls search 梯度`, or `python train.py 2>&1 | pitfalls search -`.
    """
    # lazy: search's index and tables only when searching
    from pitfalls.search.ranking import search as rank

    lang = language(lang)
    text = read_stdin() if query == ["-"] else " ".join(query)
    if not text.strip():
        fail(t("search.empty", lang), 2)
    hits = rank(registry(), text, limit=limit)
    confident = [h for h in hits if h.confident]
    if as_json:
        data = [
            {
                "id": h.recipe.id,
                "title": h.recipe.title,
                "score": h.score,
                "confident": h.confident,
                "matched_error": h.matched_error or None,
                "fields": h.fields,
            }
            for h in hits
        ]
        echo(json.dumps(data, ensure_ascii=False, indent=2))
        if not confident:
            raise typer.Exit(1)
        return
    if not confident:
        # One line on stderr, so that piped, tab-separated output stays parseable.
        closest = ", ".join(h.recipe.id for h in hits[:3])
        key = "search.not_confident" if closest else "search.none"
        fail(t(key, lang, query=text.strip()[:80], closest=closest), 1)
    hits = confident
    if plain_output():
        for hit in hits:
            r = hit.recipe
            echo(f"{r.id}\t{r.text(r.title, lang)}\t{hit.score:g}")
        return
    # lazy: Rich loads only when something is drawn
    from rich.markup import escape
    from rich.table import Table

    # lazy: Rich and the registry only when the command prints or reads recipes
    from pitfalls.cli.common import console
    from pitfalls.render.results import inline_text

    table = Table(show_edge=False, pad_edge=False)
    table.add_column(t("col.id", lang), style="bold cyan", no_wrap=True)
    table.add_column(t("col.title", lang), overflow="fold")
    table.add_column(t("col.score", lang), justify="right", style="dim")
    for hit in hits:
        r = hit.recipe
        table.add_row(escape(r.id), inline_text(r.text(r.title, lang)), f"{hit.score:.1f}")
    console().print(table)
