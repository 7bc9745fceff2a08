"""The built-in catalogue, recipe by recipe: each claim holds on CPU, each snippet runs on its
own, and English and Chinese carry the same sections and the same code."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import needs_torch
from pitfalls.model import SECTIONS
from pitfalls.prose import code_blocks, is_excerpt, parse
from pitfalls.registry import Registry, Source, builtin_dir

CATALOGUE = Registry.load([Source(builtin_dir(), "built-in")])
IDS = sorted(CATALOGUE.recipes)


@needs_torch
@pytest.mark.parametrize("recipe_id", IDS)
def test_recipe_reproduces_and_fixes_on_cpu(recipe_id: str) -> None:
    from pitfalls.runner import run_recipe

    result = run_recipe(CATALOGUE.resolve(recipe_id), "cpu", timeout=120)
    assert result.error is None, result.error
    failed = [c.expectation.describe() for c in result.checks if c.applies and not c.holds]
    assert failed == []
    assert result.reproduced and result.fixed
    assert result.torch_in_range is not False


@needs_torch
@pytest.mark.parametrize("recipe_id", IDS)
def test_snippet_runs_standalone(recipe_id: str) -> None:
    snippet = CATALOGUE.resolve(recipe_id).snippet_path
    result = subprocess.run(
        [sys.executable, str(snippet)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "problem:" in result.stdout and "fix:" in result.stdout


@pytest.mark.parametrize("recipe_id", IDS)
def test_languages_have_the_same_sections_and_code(recipe_id: str) -> None:
    recipe = CATALOGUE.resolve(recipe_id)
    english, chinese = recipe.prose("en"), recipe.prose("zh")
    assert english and chinese, "both languages are required for built-in recipes"
    en_headings = [h.text for h in parse(english)[0] if h.level == 2]
    zh_headings = [h.text for h in parse(chinese)[0] if h.level == 2]
    assert en_headings == list(SECTIONS["en"])
    assert zh_headings == list(SECTIONS["zh"])
    en_code = [(b.info, b.body) for b in code_blocks(english)]
    zh_code = [(b.info, b.body) for b in code_blocks(chinese)]
    assert en_code == zh_code
    source = recipe.snippet()
    for info, body in en_code:
        if info == "python":
            assert is_excerpt(body, source), body


@pytest.mark.parametrize("recipe_id", IDS)
def test_recipe_metadata_is_complete(recipe_id: str) -> None:
    recipe = CATALOGUE.resolve(recipe_id)
    assert recipe.title.get("en") and recipe.title.get("zh")
    assert recipe.summary.get("en") and recipe.summary.get("zh")
    assert recipe.torch and recipe.references and recipe.tags
    assert all(ref.startswith("https://") for ref in recipe.references)
    sides = {e.side for e in recipe.expectations}
    assert sides == {"problem", "fix"}
