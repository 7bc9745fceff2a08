"""`pitfalls tui`, and whether a bare `pitfalls` should open the TUI."""

from __future__ import annotations

from typing import Optional

from pitfalls.cli.common import LANG_OPTION, fail, language
from pitfalls.i18n import t
from pitfalls.tui.launch import cannot_host_reason


def should_open_tui() -> bool:
    """A bare `pitfalls` opens the TUI only in an interactive terminal."""
    return cannot_host_reason() is None


def open_tui(lang: Optional[str]) -> None:
    """Start the Textual app (imported here: textual costs a few hundred milliseconds)."""
    # lazy: the TUI and Textual only when the TUI opens
    from pitfalls.tui.app import run_app  # which collects garbage as usual once it has painted

    run_app(lang=lang)


def tui(
    lang: Optional[str] = LANG_OPTION,
) -> None:
    """Browse, search, read and run recipes in a terminal UI (keyboard first; ? for help)."""
    chosen = language(lang)
    why = cannot_host_reason()
    if why is not None:
        fail(t("tui.cannot_host", chosen, why=why), 2)
    open_tui(lang)
