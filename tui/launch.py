"""Opening the TUI straight from the command line, without the CLI's Typer app.

`pitfalls` on a terminal and `pitfalls tui` (each with an optional `--lang`/`-l`) only open the
TUI; building the Typer app first (Typer, Click and pydantic, a few hundred thousand objects)
would delay its first frame by a third of what Textual itself costs to import. Everything
else, and any command line this does not recognise exactly (help, an unknown language, a
terminal that cannot host the TUI, which gets its error message there), goes to the CLI.
"""

from __future__ import annotations

import os
import sys

LANG_FLAGS = ("--lang", "-l")


def cannot_host_reason() -> str | None:
    """Why this terminal cannot host the TUI, or None when it can."""
    if os.environ.get("TERM") == "dumb":
        return "TERM=dumb"
    if not sys.stdin.isatty():
        return "stdin is not a terminal"
    if not sys.stdout.isatty():
        return "stdout is not a terminal"
    return None


def tui_request(argv: list[str]) -> tuple[bool, str | None]:
    """Whether `argv` (without the program name) asks for the TUI alone, and the `--lang`
    given with it (None when none was). `pitfalls --lang zh`, `pitfalls tui -l zh` and
    `pitfalls --lang=zh tui` do; anything with another word or option does not."""
    lang: str | None = None
    words: list[str] = []
    rest = iter(argv)
    for word in rest:
        if word in LANG_FLAGS:
            value = next(rest, None)
            if value is None:
                return False, None  # the CLI says what is missing
            lang = value
        elif word.startswith("--lang="):
            lang = word.split("=", 1)[1]
        else:
            words.append(word)
    return words in ([], ["tui"]), lang


def open_directly(argv: list[str]) -> bool:
    """Open the TUI and return True when `argv` asks for it alone, the language is known and
    the terminal can host it; otherwise return False at once, having imported nothing."""
    wanted, lang = tui_request(argv)
    if not wanted or cannot_host_reason() is not None:
        return False
    # lazy: the string tables only when a message is printed
    from pitfalls.i18n import SUPPORTED

    if lang is not None and lang not in SUPPORTED:
        return False
    # lazy: the TUI and Textual only when the TUI opens
    from pitfalls.tui.app import run_app

    run_app(lang=lang)
    return True
