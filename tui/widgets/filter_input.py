"""The filter box above the recipe list."""

from __future__ import annotations

from textual.widgets import Input

from pitfalls.i18n import t


class FilterInput(Input):
    """Type to filter recipes; Esc leaves it (handled by the screen, which owns focus)."""

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

    def on_mount(self) -> None:
        """Follow the app's language."""
        self.watch(self.app, "lang", self._language_changed)

    def _language_changed(self, lang: str) -> None:
        self.placeholder = t("tui.filter", lang)
