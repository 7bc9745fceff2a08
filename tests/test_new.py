"""`pitfalls new`: the scaffold, refusing to overwrite, and a fresh scaffold failing `run`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pitfalls.authoring.linter import lint_paths
from pitfalls.authoring.prose import parse
from pitfalls.catalogue.loader import load_recipe
from pitfalls.catalogue.model import SECTIONS
from pitfalls.cli import app

try:
    from importlib.util import find_spec

    HAS_TORCH = find_spec("torch") is not None
except Exception:  # pragma: no cover
    HAS_TORCH = False


def new(*args: str):
    return CliRunner().invoke(app, ["new", *args])


def test_new_scaffolds_the_four_files(tmp_path: Path) -> None:
    result = new("my-pitfall", "--dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    folder = tmp_path / "my-pitfall"
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["en.md", "recipe.toml", "snippet.py", "zh.md"]
    recipe = load_recipe(folder, "PITFALLS_PATH")
    assert recipe.id == "my-pitfall"
    assert {e.side for e in recipe.expectations} == {"problem", "fix"}
    for lang, sections in SECTIONS.items():
        headings, _ = parse((folder / f"{lang}.md").read_text(encoding="utf-8"))
        assert tuple(h.text for h in headings if h.level == 2) == sections


def test_a_fresh_scaffold_lints_clean_except_its_todo_markers(tmp_path: Path) -> None:
    assert new("my-pitfall", "--dir", str(tmp_path)).exit_code == 0
    findings, _ = lint_paths([tmp_path / "my-pitfall"])
    assert findings, "the TODO markers must be reported"
    assert {f.code for f in findings} == {"PIT019"}


def test_new_defaults_to_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert new("here").exit_code == 0
    assert (tmp_path / "here" / "recipe.toml").is_file()


def test_new_refuses_to_overwrite(tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine")
    result = new("taken", "--dir", str(tmp_path))
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "already exists" in result.stderr
    assert sorted(p.name for p in (tmp_path / "taken").iterdir()) == ["notes.txt"]


@pytest.mark.parametrize("bad", ["Focal-Loss", "focal_loss", "a--b", "x/y", "trailing-", ""])
def test_new_rejects_an_invalid_id(tmp_path: Path, bad: str) -> None:
    result = new(bad, "--dir", str(tmp_path))
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
@pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed")
def test_running_a_fresh_scaffold_fails_until_it_is_written(tmp_path: Path) -> None:
    assert new("fresh-pitfall", "--dir", str(tmp_path)).exit_code == 0
    env = {**os.environ, "PITFALLS_PATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "pitfalls", "run", "fresh-pitfall", "--device", "cpu"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stdout + done.stderr
