"""The caches never change what is printed: every recipe, both languages, cached or not.

`show` prints a page from the page cache, `list`, `show --json` and `search` read recipes from
the metadata cache and search indexes from theirs. Each is compared here with what the same
command prints with PITFALLS_CACHE=0, on a first (cache-filling) and a second (cache-reading)
run, for the whole built-in catalogue in English and Chinese.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from rich.console import Console
from rich.markdown import Markdown
from typer.testing import CliRunner

from pitfalls.catalogue.model import LANGS
from pitfalls.catalogue.registry import Registry, builtin_dir
from pitfalls.cli import app
from pitfalls.render import results as render
from pitfalls.render.page import (
    page_markdown,
    page_renderable,
    plain_fences,
    rendered_page,
    stable_link_ids,
)
from pitfalls.search.index import attach_indexes, build_index

runner = CliRunner()


def terminal(width: int = 100, color_system: str | None = "truecolor") -> Console:
    """A console as `show` makes one on a colour terminal, writing nowhere."""
    return Console(
        file=io.StringIO(),
        force_terminal=True,
        width=width,
        color_system=color_system,
        highlight=False,
        soft_wrap=False,
    )


def rendered_pages() -> dict[tuple[str, str], str]:
    """What `show ID --lang LANG` prints on a terminal, for every recipe and language."""
    pages = {}
    for recipe in Registry.load():
        for lang in LANGS:
            used, prose = recipe.prose_with_fallback(lang)
            markdown = page_markdown(recipe, lang, prose, recipe.snippet())
            pages[recipe.id, lang] = rendered_page(recipe, used, markdown)
    return pages


def catalogue_data() -> dict[str, dict]:
    """Every recipe as `show --json` describes it (prose included), with its search index."""
    registry = Registry.load()
    recipes = list(registry)
    attach_indexes(recipes)
    data = {}
    for recipe in recipes:
        entry = recipe.to_dict()
        entry["prose"] = {lang: recipe.prose(lang) for lang in LANGS}
        entry["expectations"] = [e.to_dict() for e in recipe.expectations]
        entry["plots"] = [p.to_dict() for p in recipe.plots]
        entry["search_index"] = recipe.search_index
        data[recipe.id] = entry
    return data


def commands_output(env: dict[str, str]) -> dict[str, str]:
    """`list` (plain and JSON), `show --json` and `search` for a few recipes, as printed."""
    outputs = {}
    for args in (
        ["list"],
        ["list", "--json"],
        ["--lang", "zh", "list"],
        ["show", "detach", "--json"],
        ["show", "focal-loss", "--lang", "zh", "--json"],
        ["search", "RuntimeError: DataLoader worker (pid 4821) is killed by signal: Killed."],
        ["search", "梯度", "--json"],
    ):
        result = runner.invoke(app, args, env=env)
        outputs[" ".join(args)] = f"{result.exit_code}\n{result.stdout}"
    return outputs


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder, and `show`'s console replaced by a colour terminal."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("PITFALLS_CACHE", raising=False)
    monkeypatch.setattr(render, "console", lambda stderr=False: terminal())
    return tmp_path / "cache" / "pitfalls"


def test_pages_are_the_same_cached_and_uncached(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PITFALLS_CACHE", "0")
    uncached = rendered_pages()
    assert not fresh_cache.exists()
    monkeypatch.delenv("PITFALLS_CACHE")
    filling = rendered_pages()
    assert len(list((fresh_cache / "pages").glob("*.txt"))) >= len(uncached)
    reading = rendered_pages()
    assert len(uncached) == 2 * len(Registry.load()) > 100
    for page, text in uncached.items():
        assert filling[page] == text, page
        assert reading[page] == text, page


def test_link_ids_are_numbered_per_page() -> None:
    """Rich numbers hyperlinks from a process-wide counter: two renders of one page differ
    until the ids are numbered per page; two links keep two ids, one wrapped link keeps one."""
    markdown = (
        "See [the first page](https://example.org/a) and "
        "[a second link whose text is too long for one line](https://example.org/b)."
    )

    def raw() -> str:
        out = terminal(width=40)
        with out.capture() as capture:
            out.print(Markdown(markdown))
        return capture.get()

    first, second = raw(), raw()
    assert first != second  # what the numbering is for
    assert stable_link_ids(first, "p") == stable_link_ids(second, "p")
    ids = re.findall(r"\x1b\]8;id=([^;]*);https://example.org/(\w)", stable_link_ids(first, "p"))
    assert {link: {i for i, other in ids if other == link} for _, link in ids} == {
        "a": {"p-1"},
        "b": {"p-2"},
    }
    assert len([i for i, link in ids if link == "b"]) > 1  # the wrapped link is in parts


def test_recipes_and_search_indexes_are_the_same_cached_and_uncached(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PITFALLS_CACHE", "0")
    uncached = catalogue_data()
    uncached_output = commands_output({"PITFALLS_CACHE": "0"})
    monkeypatch.delenv("PITFALLS_CACHE")
    filling, reading = catalogue_data(), catalogue_data()
    assert list(fresh_cache.glob("recipes-*.marshal")) and list(fresh_cache.glob("search-*"))
    assert uncached == filling == reading
    for recipe in Registry.load():
        assert uncached[recipe.id]["search_index"] == build_index(recipe)
    assert commands_output({}) == commands_output({}) == uncached_output


def test_a_recipe_edit_shows_at_once(
    fresh_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No stale page: an edit of the prose, the snippet or recipe.toml shows at once."""
    folder = tmp_path / "recipes"
    shutil.copytree(builtin_dir() / "detach", folder / "detach")
    toml = folder / "detach" / "recipe.toml"
    # A user's own copy of a recipe, under an id of its own.
    toml.write_text(toml.read_text(encoding="utf-8").replace('id = "detach"', 'id = "my-detach"'))
    env = {"PITFALLS_PATH": str(folder)}
    runner.invoke(app, ["list"], env=env)  # fills the metadata cache

    def page() -> str:
        recipe = next(r for r in Registry.load() if r.path.parent == folder)
        used, prose = recipe.prose_with_fallback("en")
        return rendered_page(recipe, used, page_markdown(recipe, "en", prose))

    monkeypatch.setenv("PITFALLS_PATH", str(folder))
    before = page()
    assert page() == before  # from the page cache
    for name, old, new, marker in (
        ("en.md", "## Symptom", "## Symptom\n\nEDITED PROSE", "EDITED PROSE"),
        ("snippet.py", "import torch", "import torch  # EDITED SNIPPET", "EDITED SNIPPET"),
        ("recipe.toml", 'tags = ["', 'tags = ["edited-tag", "', "edited-tag"),
    ):
        path = folder / "detach" / name
        text = path.read_text(encoding="utf-8")
        assert old in text, name
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        edited = page()
        assert marker in edited and marker not in before, name
        before = edited


@pytest.mark.parametrize("width", [44, 72, 100])
def test_code_blocks_render_as_rich_renders_them(width: int) -> None:
    """`show` skips Rich's line-by-line wrapping of a code block whose lines all fit; the
    page must come out exactly as Rich's own Markdown renders it, at any width."""
    registry = Registry.load()
    ids = ["detach", "focal-loss", "dataloader-worker-killed", "device-side-assert"]
    samples = []
    for recipe_id in ids:
        recipe = registry.resolve(recipe_id)
        for lang in LANGS:
            used, prose = recipe.prose_with_fallback(lang)
            samples.append(page_markdown(recipe, lang, prose, recipe.snippet()))
    # Edge cases: a line exactly as wide as the block, one a cell wider, wide characters,
    # tabs, trailing spaces, blank lines inside and at the end.
    inner = width - 2
    samples.append(
        "```python\n"
        + "x" * inner
        + "\n"
        + "y" * (inner + 1)
        + "\n\tz = 1  \n\n# 中文注释"
        + "中" * (inner // 2 - 5)
        + "\n\n```\n"
    )
    samples.append("```python\n" + "a = 1\n" * 3 + "b" * inner + "\n```\n")
    samples.append("```text\n" + "中" * (inner // 2) + "\n  indented  \n```\n")
    for markdown in samples:
        for color_system in ("truecolor", None):
            ours, theirs = terminal(width, color_system), terminal(width, color_system)
            with ours.capture() as a:
                ours.print(page_renderable(markdown))
            with theirs.capture() as b:
                theirs.print(Markdown(plain_fences(markdown), code_theme="monokai"))
            assert a.get() == b.get(), (width, color_system, markdown[:60])


def test_show_json_is_unchanged_by_the_cache(fresh_cache: Path) -> None:
    first = json.loads(runner.invoke(app, ["show", "narrow", "--json"]).stdout)
    second = json.loads(runner.invoke(app, ["show", "narrow", "--json"]).stdout)
    uncached = runner.invoke(app, ["show", "narrow", "--json"], env={"PITFALLS_CACHE": "0"})
    assert first == second == json.loads(uncached.stdout)
