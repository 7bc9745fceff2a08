"""The right-hand side: one tab each for prose, snippet, metadata, the run and verify."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import TabbedContent, TabPane

from pitfalls.i18n import t
from pitfalls.tui.widgets.info_view import InfoView
from pitfalls.tui.widgets.prose_view import ProseView
from pitfalls.tui.widgets.run_panel import RunPanel
from pitfalls.tui.widgets.snippet_view import SnippetView
from pitfalls.tui.widgets.verify_panel import VerifyPanel

if TYPE_CHECKING:
    from pitfalls.model import Recipe

# Tab id -> the i18n key of its label.
TABS = {
    "prose": "tui.prose",
    "snippet": "tui.snippet",
    "info": "tui.info",
    "run": "tui.output",
    "verify": "tui.verify",
}


class RecipeView(Vertical):
    """Tabs over the open recipe; the run and verify tabs outlive switching recipes."""

    def __init__(self, **kwargs: object) -> None:
        """Create the tabs with nothing open.

        Args:
            **kwargs: Passed on to `Vertical`.
        """
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.recipe: Recipe | None = None

    def compose(self) -> ComposeResult:
        """The five panes."""
        with TabbedContent(initial="prose", id="tabs"):
            with TabPane(t(TABS["prose"], "en"), id="prose"):
                yield ProseView(id="prose-view")
            with TabPane(t(TABS["snippet"], "en"), id="snippet"):
                yield SnippetView(id="snippet-view")
            with TabPane(t(TABS["info"], "en"), id="info"):
                yield InfoView(id="info-view")
            with TabPane(t(TABS["run"], "en"), id="run"):
                yield RunPanel(id="run-panel")
            with TabPane(t(TABS["verify"], "en"), id="verify"):
                yield VerifyPanel(id="verify-panel")

    def on_mount(self) -> None:
        """Follow the app's language."""
        self.watch(self.app, "lang", self._language_changed)

    def _language_changed(self, lang: str) -> None:
        for pane_id, key in TABS.items():
            self.query_one(TabbedContent).get_tab(pane_id).label = t(key, lang)

    def open(self, recipe: Recipe) -> None:
        """Show `recipe` in every per-recipe tab.

        Args:
            recipe: The recipe to open.
        """
        self.recipe = recipe
        self.query_one(ProseView).show(recipe)
        self.query_one(SnippetView).show(recipe)
        self.query_one(InfoView).show(recipe)
        self.query_one(RunPanel).show_recipe(recipe)
        if self.active_tab in ("run", "verify") and self.query_one(RunPanel).state == "idle":
            self.active_tab = "prose"

    @property
    def active_tab(self) -> str:
        """The id of the tab shown: prose, snippet, info, run or verify."""
        return self.query_one(TabbedContent).active

    @active_tab.setter
    def active_tab(self, tab_id: str) -> None:
        self.query_one(TabbedContent).active = tab_id
