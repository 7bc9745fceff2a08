"""A recipe as one Markdown page: what `show`, the notebook extension and the TUI render;
and that page rendered by Rich for a terminal, as `show` prints it (through the page cache).

Nothing here imports Typer: the child that renders a page while the CLI starts (see
`pitfalls._startup`) uses it too.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable

from pitfalls._version import __version__
from pitfalls.catalogue.model import Recipe
from pitfalls.catalogue.statements import claims_markdown
from pitfalls.i18n import t

if TYPE_CHECKING:
    from pitfalls.catalogue.registry import Registry


def page_markdown(recipe: Recipe, lang: str, prose: str, snippet: str | None = None) -> str:
    """The whole page as Markdown: title, summary, metadata, prose and the snippet."""
    lines = [f"# {recipe.text(recipe.title, lang)}", ""]
    # lazy: the torch-version record only for the line that shows it
    from pitfalls.catalogue.checked import summary, summary_line

    checked = summary_line(summary(recipe), lang)
    if checked:
        lines += [checked, ""]
    summary = recipe.text(recipe.summary, lang)
    if summary:
        lines += [f"*{summary}*", ""]
    meta = [f"**{t('col.id', lang)}**: `{recipe.id}`"]
    if recipe.aliases:
        meta.append(f"**{t('show.aliases', lang)}**: {', '.join(recipe.aliases)}")
    if recipe.theme:
        meta.append(f"**{t('show.theme', lang)}**: {t(f'theme.{recipe.theme}', lang)}")
    meta.append(f"**{t('show.tags', lang)}**: {', '.join(recipe.tags) or '—'}")
    meta.append(f"**{t('show.devices', lang)}**: {', '.join(recipe.devices)}")
    meta.append(f"**{t('show.torch', lang)}**: {recipe.torch or '—'}")
    # lazy: the rule table only for pages and rule codes
    from pitfalls.catalogue.rule_table import RULES_LABEL, rules_line

    if rules_line(recipe.id):
        meta.append(f"**{RULES_LABEL.get(lang, RULES_LABEL['en'])}**: {rules_line(recipe.id)}")
    lines += [" · ".join(meta), "", prose.rstrip(), ""]
    code = recipe.snippet() if snippet is None else snippet

    lines += claims_markdown(recipe, lang)
    lines += [f"## {t('show.snippet', lang)}", "", "```python", code.rstrip(), "```"]
    if recipe.related:
        lines += ["", f"## {t('show.related', lang)}", ""]
        lines += [f"- `{name}` (`pitfalls show {name}`)" for name in recipe.related]
    lines += ["", t("show.run_hint", lang, id=recipe.id), ""]
    return "\n".join(lines)


def rendered_page(
    recipe: Recipe, lang: str, markdown: str, wait: Callable[[], bool] | None = None
) -> str:
    """The page rendered for this terminal, from the page cache when nothing changed.

    `wait`: called before rendering it here, it waits for a child started with the command
    that may be rendering this very page (`pitfalls._startup.wait_for_page`), and says whether
    there was one; the page is then read from the cache.
    """
    # lazy: rendering (and Rich) only when printing for a terminal
    from pitfalls.catalogue.cache import cached_render, files_signature
    from pitfalls.catalogue.checked import RECORD_NAME, installed_torch
    from pitfalls.render.results import console

    out = console()
    key = [
        __version__,
        str(recipe.path),
        files_signature(recipe.path, ("recipe.toml", "en.md", "zh.md", "snippet.py")),
        # The line under the title reads the record and compares the installed torch.
        files_signature(recipe.path.parent, (RECORD_NAME,)),
        installed_torch(),
        lang,
        markdown,  # what the page says, so that a change of its layout is never served stale
        out.width,
        out.color_system,
        out.encoding,
        out.no_color,
    ]

    def render() -> str:
        with out.capture() as capture:
            out.print(page_renderable(markdown))
        return stable_link_ids(capture.get(), recipe.id)

    return cached_render(key, render, wait=wait)


_LINK_ID = re.compile(r"\x1b\]8;id=([^;\x1b]*);")


def stable_link_ids(text: str, page: str) -> str:
    """The page with its terminal hyperlinks (OSC 8) numbered in order of appearance.

    Rich gives each link style an id from a process-wide counter, so two renders of one page
    differ in those ids alone, and a page from the cache would differ from one rendered now.
    Numbered here, every render of a page is the same text. Parts of one link (a link wrapped
    over two lines) keep one id, so a terminal still treats them as one link; `page` (the
    recipe id) keeps the ids of two pages printed in one terminal apart.
    """
    ids: dict[str, str] = {}

    def renumber(match: re.Match[str]) -> str:
        new = ids.setdefault(match.group(1), f"{page}-{len(ids) + 1}")
        return f"\x1b]8;id={new};"

    return _LINK_ID.sub(renumber, text)


def page_renderable(markdown: str) -> Any:
    """A recipe page as Rich renders it: Markdown, with Python highlighted (monokai)."""
    # lazy: Rich loads only when something is drawn
    from rich.cells import cell_len
    from rich.markdown import CodeBlock, Markdown
    from rich.syntax import Syntax

    class FittingCodeBlock(CodeBlock):
        """Rich's code block, but a block whose every line fits the width is not word-wrapped
        line by line: Syntax then renders it in one pass, in two thirds of the time, to the
        same text (tests compare the two on every recipe page)."""

        def __rich_console__(self, console: Any, options: Any) -> Any:
            code = str(self.text).rstrip()
            width = options.max_width - 2  # Markdown's code blocks have padding=1
            fits = all(cell_len(line.expandtabs(4)) <= width for line in code.split("\n"))
            yield Syntax(code, self.lexer_name, theme=self.theme, word_wrap=not fits, padding=1)

    class PageMarkdown(Markdown):
        elements = {**Markdown.elements, "fence": FittingCodeBlock, "code_block": FittingCodeBlock}

    return PageMarkdown(plain_fences(markdown), code_theme="monokai")


def plain_fences(markdown: str) -> str:
    """Highlight Python only: shell and output blocks read fine plain, and each extra
    Pygments lexer (bash, console) costs tens of milliseconds to build on every `show`."""
    return re.sub(r"^```(?!python\b)[\w-]+[^\n]*$", "```text", markdown, flags=re.MULTILINE)


def prepare_page(registry: Registry, word: str, explicit_lang: str | None) -> None:
    """Put the page `pitfalls show WORD [--lang LANG]` would print into the page cache,
    printing nothing: the work of the child that renders it while the CLI starts. It takes
    the steps `show` takes; where it guesses otherwise, `show` finds no page under its own key
    and renders the page itself."""
    # lazy: the rule table only for pages and rule codes
    from pitfalls.catalogue.rule_table import CODE_SHAPE, lookup
    from pitfalls.i18n import SUPPORTED, choose_language

    if explicit_lang is not None and explicit_lang not in SUPPORTED:
        return
    lang = choose_language(explicit_lang)
    rule = lookup(word) if CODE_SHAPE.match(word) else None
    recipe = registry.resolve(rule.recipe if rule is not None else word)
    used, prose = recipe.prose_with_fallback(lang)
    rendered_page(recipe, used, page_markdown(recipe, lang, prose, recipe.snippet()))
