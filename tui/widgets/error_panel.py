"""The panel shown when a run crashes, is killed, times out or cannot start."""

from __future__ import annotations

from textual.widgets import Static

from pitfalls.i18n import t

TRACE_LINES = 15


def snippet_trace(traceback: str) -> str:
    """The part of a traceback from the snippet's first frame on: pitfalls' frames are noise."""
    lines = traceback.rstrip().splitlines()
    keep = [i for i, line in enumerate(lines) if "snippet.py" in line]
    start = keep[0] if keep else max(0, len(lines) - TRACE_LINES)
    return "\n".join(lines[start:])


class ErrorPanel(Static):
    """A bordered panel in the theme's error colour; hidden while empty."""

    DEFAULT_CSS = """
    ErrorPanel {
        display: none;
        border: round $error;
        border-title-color: $error;
        border-title-style: bold;
        padding: 0 1;
        height: auto;
    }
    ErrorPanel.-shown {
        display: block;
    }
    """

    def show_error(self, kind: str, message: str, detail: str, lang: str) -> None:
        """Show an error.

        Args:
            kind: The error's kind, such as `exception`, `timeout` or `torch_missing`.
            message: One line saying what happened.
            detail: A traceback or the tail of the output, possibly empty.
            lang: The language of the title.
        """
        # lazy: Rich loads only when something is drawn
        from rich.text import Text

        self.border_title = t("tui.run_failed", lang)
        body = Text(t("tui.error_kind", lang, kind=kind, message=message), "bold")
        if detail.strip():
            body.append("\n\n")
            body.append(detail.rstrip(), "dim")
        self.update(body)
        self.add_class("-shown")

    def clear(self) -> None:
        """Hide the panel."""
        self.update("")
        self.remove_class("-shown")
