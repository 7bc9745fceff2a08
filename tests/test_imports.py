"""Speed guards that cannot be checked in-process: what a fresh interpreter imports.

pytest has already imported everything, so each check runs the command in a new interpreter
and reports `sys.modules` at exit.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import FIXTURES, TESTS, needs_torch

PROBE = """
import atexit, sys
heavy = ("torch", "textual", "numpy", "snippet", "plotext", "textual_plotext")
atexit.register(lambda: sys.__stderr__.write(
    "\\nLOADED:" + ",".join(m for m in heavy if m in sys.modules) + "\\n"))
sys.argv = ["pitfalls", *{args!r}]
from pitfalls.cli import main
main()
"""


def loaded_after(*args: str, env: dict[str, str] | None = None) -> set[str]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=list(args))],
        capture_output=True,
        text=True,
        cwd=str(TESTS),
        timeout=60,
        env={**os.environ, **(env or {})},
    )
    marker = [line for line in result.stderr.splitlines() if line.startswith("LOADED:")]
    assert marker, result.stderr
    return {m for m in marker[-1][len("LOADED:") :].split(",") if m}


@pytest.mark.parametrize(
    "args",
    [
        ["list"],
        ["list", "--json"],
        ["show", "detach"],
        ["show", "detach", "--lang", "zh", "--json"],
        ["search", "梯度"],
        ["--help"],
        ["run", "--help"],
        ["lint", "recipes-that-do-not-exist"],
    ],
)
def test_reading_commands_import_neither_torch_nor_textual(args: list[str]) -> None:
    assert loaded_after(*args) == set()


@needs_torch
@pytest.mark.slow
def test_a_piped_run_of_a_recipe_with_a_chart_imports_no_plotting_library() -> None:
    # Charts are drawn only on a colour terminal, so plotext must not even be imported here;
    # torch runs in the child process, never in the CLI.
    env = {"PITFALLS_PATH": str(FIXTURES / "tui_charts")}
    assert loaded_after("run", "tui-chart", "--device", "cpu", env=env) == set()


def test_the_registry_never_imports_snippets() -> None:
    code = (
        "import sys\n"
        "from pitfalls.catalogue.registry import Registry\n"
        "registry = Registry.load()\n"
        "[r.expectations for r in registry]\n"
        "assert len(registry) >= 9\n"
        "print(','.join(m for m in ('torch', 'numpy', 'snippet') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=str(TESTS)
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
