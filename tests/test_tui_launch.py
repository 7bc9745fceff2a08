"""`pitfalls` and `pitfalls tui` open the TUI without building the CLI's Typer app."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_on_pty
from pitfalls.tui.launch import tui_request


@pytest.mark.parametrize(
    ("argv", "wanted", "lang"),
    [
        ([], True, None),
        (["tui"], True, None),
        (["tui", "--lang", "zh"], True, "zh"),
        (["-l", "zh", "tui"], True, "zh"),
        (["--lang=en"], True, "en"),
        (["--lang", "fr", "tui"], True, "fr"),  # judged later: the CLI reports it
        (["tui", "--help"], False, None),
        (["--version"], False, None),
        (["list"], False, None),
        (["tui", "extra"], False, None),
        (["tui", "--lang"], False, None),
        (["--", "tui"], False, None),
    ],
)
def test_only_a_command_line_asking_for_the_tui_alone_is_recognised(argv, wanted, lang) -> None:
    assert tui_request(argv) == ((wanted, lang) if wanted else (False, None))


# Stands in for the app: records what was imported and which language was asked for.
PROBE = """
import json, sys
import pitfalls.tui.app as app
record = sys.argv[1]
def run_app(lang=None):
    with open(record, "w") as out:
        json.dump({"lang": lang, "typer": "typer" in sys.modules}, out)
app.run_app = run_app
sys.argv = ["pitfalls", *sys.argv[2:]]
from pitfalls.__main__ import main
main()
"""


def on_a_terminal(tmp_path: Path, *argv: str) -> tuple[int, dict | None, str]:
    """Run the entry point on a pseudo-terminal: exit code, what the probe saw, output."""
    record = tmp_path / "probe.json"
    env = {k: v for k, v in os.environ.items() if k not in ("TERM", "NO_COLOR")}
    env["TERM"] = "xterm-256color"
    code, output = run_on_pty([sys.executable, "-c", PROBE, str(record), *argv], env)
    seen = json.loads(record.read_text()) if record.exists() else None
    return code, seen, output.decode("utf-8", "replace")


def test_bare_pitfalls_on_a_terminal_opens_the_tui_without_typer(tmp_path: Path) -> None:
    code, seen, _ = on_a_terminal(tmp_path)
    assert code == 0 and seen == {"lang": None, "typer": False}


def test_pitfalls_tui_passes_the_language(tmp_path: Path) -> None:
    code, seen, _ = on_a_terminal(tmp_path, "tui", "--lang", "zh")
    assert code == 0 and seen == {"lang": "zh", "typer": False}


def test_an_unknown_language_gets_the_cli_error_not_the_tui(tmp_path: Path) -> None:
    code, seen, output = on_a_terminal(tmp_path, "tui", "--lang", "fr")
    assert code == 2 and seen is None
    assert "fr" in output


def test_help_still_goes_through_the_cli(tmp_path: Path) -> None:
    code, seen, output = on_a_terminal(tmp_path, "tui", "--help")
    assert code == 0 and seen is None and "terminal UI" in output


def test_piped_tui_is_refused_by_the_cli() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pitfalls", "tui"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2 and "not a terminal" in result.stderr
