"""What the CLI does before Typer starts (pitfalls._startup): a child that parses a cold
catalogue and renders `show`'s page meanwhile. It must change nothing but the time taken."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import TESTS, marked_processes, run_on_pty
from pitfalls._startup import _show_arguments

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")
MARKER = f"pitfalls-startup-{os.getpid()}"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["show", "detach"], ("detach", None)),
        (["show", "detach", "--lang", "zh"], ("detach", "zh")),
        (["--lang", "zh", "show", "detach"], ("detach", "zh")),
        (["-l", "en", "show", "-l", "zh", "detach"], ("detach", "zh")),
        (["show", "--lang=zh", "detach"], ("detach", "zh")),
        (["show", "detach", "--raw"], None),
        (["show", "detach", "--code"], None),
        (["show", "detach", "--json"], None),
        (["show", "detach", "--help"], None),
        (["show"], None),
        (["show", "a", "b"], None),
        (["list"], None),
        (["--version", "show", "detach"], None),
    ],
)
def test_show_arguments(argv: list[str], expected: tuple[str, str | None] | None) -> None:
    assert _show_arguments(argv) == expected


def on_terminal(args: list[str], env: dict[str, str]) -> tuple[int, bytes]:
    """Run the CLI with a pseudo-terminal as stdin, stdout and stderr; (exit code, output)."""
    full_env = {**os.environ, "COLUMNS": "100", "PITFALLS_TEST_MARKER": MARKER, **env}
    return run_on_pty([sys.executable, "-m", "pitfalls", *args], full_env, cwd=TESTS)


def piped(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    full_env = {**os.environ, "PITFALLS_TEST_MARKER": MARKER, **env}
    return subprocess.run(
        [sys.executable, "-m", "pitfalls", *args],
        capture_output=True,
        env=full_env,
        cwd=str(TESTS),
        timeout=60,
    )


@pytest.mark.parametrize("args", [["show", "detach"], ["--lang", "zh", "show", "focal-loss"]])
def test_a_page_rendered_by_the_child_is_the_page(tmp_path: Path, args: list[str]) -> None:
    reference = on_terminal(args, {"PITFALLS_CACHE": "0"})
    cold = {"XDG_CACHE_HOME": str(tmp_path / "cold"), "PITFALLS_PREFETCH": "1"}
    after_install = on_terminal(args, cold)  # the child parses, then renders
    assert list((tmp_path / "cold" / "pitfalls" / "pages").glob("*.txt"))
    for page in (tmp_path / "cold" / "pitfalls" / "pages").glob("*.txt"):
        page.unlink()
    first_view = on_terminal(args, cold)  # the catalogue is cached: the child renders
    again = on_terminal(args, cold)  # the page is cached
    assert reference[0] == 0
    assert reference == after_install == first_view == again
    assert not marked_processes(MARKER)


@pytest.mark.parametrize("args", [["list"], ["search", "backward twice"], ["show", "detach"]])
def test_a_catalogue_parsed_by_the_child_is_the_catalogue(tmp_path: Path, args: list[str]) -> None:
    reference = piped(args, {"PITFALLS_CACHE": "0"})
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PITFALLS_PREFETCH": "1"}
    cold = piped(args, env)
    assert list((tmp_path / "cache" / "pitfalls").glob("recipes-*.marshal"))
    warm = piped(args, env)
    assert reference.returncode == cold.returncode == warm.returncode == 0
    assert reference.stdout == cold.stdout == warm.stdout
    assert reference.stderr == cold.stderr == warm.stderr
    assert not marked_processes(MARKER)


def test_with_the_cache_off_nothing_is_written(tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PITFALLS_PREFETCH": "1"}
    result = piped(["list"], {**env, "PITFALLS_CACHE": "0"})
    assert result.returncode == 0 and b"detach" in result.stdout
    assert not (tmp_path / "cache").exists()


def test_a_usage_error_ends_the_child(tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PITFALLS_PREFETCH": "1"}
    code, output = on_terminal(["show", "no-such-recipe-anywhere"], env)
    assert code == 2 and b"no-such-recipe-anywhere" in output
    assert not marked_processes(MARKER)
