"""The registry's metadata cache: hits give the same recipes, any edit invalidates."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from conftest import ROBUST
from pitfalls.catalogue.registry import Registry, Source


@pytest.fixture
def catalogue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "recipes"
    folder.mkdir()
    shutil.copytree(ROBUST / "t-ok", folder / "t-ok")
    return folder


def load(folder: Path) -> Registry:
    return Registry.load([Source(folder, "PITFALLS_PATH")])


def test_a_cache_hit_gives_the_same_recipe(catalogue: Path) -> None:
    first = load(catalogue).resolve("t-ok")
    assert list((catalogue.parent / "cache" / "pitfalls").glob("recipes-*.marshal"))
    second = load(catalogue).resolve("t-ok")
    assert first.to_dict() == second.to_dict()


def test_editing_recipe_toml_invalidates_the_entry(catalogue: Path) -> None:
    load(catalogue)
    toml = catalogue / "t-ok" / "recipe.toml"
    toml.write_text(toml.read_text().replace('"test"', '"edited"'))
    stat = toml.stat()
    os.utime(toml, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert load(catalogue).resolve("t-ok").tags == ("edited",)


def test_removing_a_file_invalidates_the_entry(catalogue: Path) -> None:
    load(catalogue)
    (catalogue / "t-ok" / "snippet.py").unlink()
    registry = load(catalogue)
    assert "t-ok" not in registry.recipes
    assert "no snippet.py" in registry.problems[0].reason


def test_a_broken_toml_is_reported_every_time(catalogue: Path) -> None:
    toml = catalogue / "t-ok" / "recipe.toml"
    toml.write_text("id = [")
    time.sleep(0.01)
    for _ in range(2):
        registry = load(catalogue)
        assert registry.problems and "not valid TOML" in registry.problems[0].reason


def test_cache_can_be_turned_off(catalogue: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITFALLS_CACHE", "0")
    load(catalogue)
    assert not (catalogue.parent / "cache" / "pitfalls").exists()
