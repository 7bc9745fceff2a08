"""The filter box above the recipe list."""

from __future__ import annotations

from textual import events
from textual.widgets import Input

from pitfalls.i18n import t


class FilterInput(Input):
    """Type to filter recipes; Esc leaves it (handled by the screen, which owns focus).

    `Input` keeps only the first line of a paste, which for a traceback is the useless
    "Traceback (most recent call last):". A multi-line paste is kept whole in `pasted` (the
    list ranks with the same search as `pitfalls search`), and the box shows its final error
    line; typing over it goes back to plain filtering.
    """

    DEFAULT_CSS = """
    FilterInput {
        margin: 0 0 1 0;
    }
    """

    def __init__(self, **kwargs: object) -> None:
        """Create a compact, blink-free-capable filter box.

        Args:
            **kwargs: Passed on to `Input`.
        """
        super().__init__(compact=True, **kwargs)  # type: ignore[arg-type]
        self.pasted = ""  # the whole multi-line paste the box stands for, if any

    @property
    def query_text(self) -> str:
        """What to filter by: the whole paste while the box still shows it, else the value."""
        return self.pasted or self.value

    def _on_paste(self, event: events.Paste) -> None:
        text = event.text or ""
        if "\n" not in text.strip():
            return  # Input's own handler (called after this one) pastes it as usual
        # Textual calls the base class's handler too unless the default is prevented: Input's
        # would append the paste's first line, and that edit would drop the paste.
        event.prevent_default()
        event.stop()
        # lazy: search's index and tables only when searching
        from pitfalls.search.ranking import Query

        parsed = Query.parse(text)
        lines = [line.strip() for line in (parsed.focus or text).splitlines() if line.strip()]
        summary = lines[0] if lines else text.strip().splitlines()[-1]
        self.pasted = text
        self._shown_for_paste = summary
        self.value = summary  # posts Changed: the screen re-filters with `query_text`

    def watch_value(self, value: str) -> None:
        """Typing over a paste's summary drops the paste."""
        if self.pasted and value != getattr(self, "_shown_for_paste", None):
            self.pasted = ""

    def on_mount(self) -> None:
        """Follow the app's language."""
        self.watch(self.app, "lang", self._language_changed)

    def _language_changed(self, lang: str) -> None:
        self.placeholder = t("tui.filter", lang)
