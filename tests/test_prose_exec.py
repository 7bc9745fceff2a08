"""Every `python exec` block in the built-in recipes' prose runs on its own and succeeds.

Such blocks are not excerpts of a snippet, so `pitfalls lint` cannot keep them honest; this
test does (like rustc's explanations, whose examples CI compiles).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pitfalls.authoring.lint import recipe_folders
from pitfalls.authoring.prose import code_blocks
from pitfalls.catalogue.registry import builtin_dir

try:
    from importlib.util import find_spec

    HAS_TORCH = find_spec("torch") is not None
except Exception:  # pragma: no cover
    HAS_TORCH = False


FIXTURES = Path(__file__).resolve().parent / "fixtures" / "lint" / "clean"


def exec_blocks() -> list:
    """Each `python exec` block of the built-ins (and of the lint fixture, so that this test
    is known to work); en.md, else zh.md, since lint keeps the two languages' blocks equal."""
    found = []
    for folder in [*recipe_folders(builtin_dir()), *recipe_folders(FIXTURES)]:
        prose = next((folder / f for f in ("en.md", "zh.md") if (folder / f).is_file()), None)
        if prose is None:
            continue
        blocks = [b for b in code_blocks(prose.read_text(encoding="utf-8")) if b.is_exec]
        found += [
            pytest.param(block.body, id=f"{folder.name}:{prose.name}:{block.line}")
            for block in blocks
        ]
    return found


@pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed")
@pytest.mark.parametrize("source", exec_blocks())
def test_exec_block_runs(source: str, tmp_path: Path) -> None:
    # A fresh interpreter in an empty folder: the block must import what it uses.
    done = subprocess.run(
        [sys.executable, "-c", source],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
