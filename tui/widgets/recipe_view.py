"""The right-hand side: one tab each for prose, snippet, metadata, the run and verify."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

from pitfalls.i18n import t
from pitfalls.tui.widgets.prose_view import ProseView

if TYPE_CHECKING:
    from pitfalls.catalogue.model import Recipe
    from pitfalls.tui.widgets.info_view import InfoView
    from pitfalls.tui.widgets.run_panel import RunPanel
    from pitfalls.tui.widgets.snippet_view import SnippetView
    from pitfalls.tui.widgets.verify_panel import VerifyPanel

# Tab id -> the i18n key of its label.
TABS = {
    "prose": "tui.prose",
    "snippet": "tui.snippet",
    "info": "tui.info",
    "run": "tui.output",
    "verify": "tui.verify",
}

# Tab id -> the id of the widget filling a pane that is hidden at start. Deferred: importing,
# composing, styling and mounting these (DataTable, Log, ProgressBar...) cost about 50 ms
# before the first frame; they are mounted just after it, or at once if needed sooner.
DEFERRED_PANES = {
    "snippet": "snippet-view",
    "info": "info-view",
    "run": "run-panel",
    "verify": "verify-panel",
}

PaneWidget = TypeVar("PaneWidget", bound=Widget)


class RecipeView(Vertical):
    """Tabs over the open recipe; the run and verify tabs outlive switching recipes.

    Reach the hidden panes' widgets through `snippet_view`, `info_view`, `run_panel` and
    `verify_panel`, never by a query: those mount the widget if it is not there yet.
    """

    def __init__(self, **kwargs: object) -> None:
        """Create the tabs with nothing open.

        Args:
            **kwargs: Passed on to `Vertical`.
        """
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.recipe: Recipe | None = None
        self._panes: dict[str, Widget] = {}  # tab id -> its deferred widget, once mounted

    def compose(self) -> ComposeResult:
        """The five panes; only the prose pane, shown at start, is filled now."""
        with TabbedContent(initial="prose", id="tabs"):
            with TabPane(t(TABS["prose"], "en"), id="prose"):
                yield ProseView(id="prose-view")
            for pane_id in DEFERRED_PANES:
                yield TabPane(t(TABS[pane_id], "en"), id=pane_id)

    def on_mount(self) -> None:
        """Follow the app's language (the main screen fills the hidden panes once the first
        frame is out)."""
        self.watch(self.app, "lang", self._language_changed)

    def fill_deferred_panes(self) -> None:
        """Mount what the hidden panes hold, unless something needed it already."""
        if not self.is_attached:  # the app quit right after its first frame
            return
        # Each accessor mounts its widget unless something has needed it already.
        _ = (self.snippet_view, self.info_view, self.run_panel, self.verify_panel)

    def _pane(self, pane_id: str, widget_type: type[PaneWidget]) -> PaneWidget:
        """The widget of a deferred pane, mounted into its pane on first use."""
        widget = self._panes.get(pane_id)
        if widget is None:
            widget = widget_type(id=DEFERRED_PANES[pane_id])
            self._panes[pane_id] = widget
            self.query_one(TabbedContent).get_pane(pane_id).mount(widget)
        assert isinstance(widget, widget_type)
        return widget

    @property
    def snippet_view(self) -> SnippetView:
        """The snippet tab's view."""
        # lazy: a tab's widget is built when the tab is first shown
        from pitfalls.tui.widgets.snippet_view import SnippetView

        return self._pane("snippet", SnippetView)

    @property
    def info_view(self) -> InfoView:
        """The metadata tab's view."""
        # lazy: a tab's widget is built when the tab is first shown
        from pitfalls.tui.widgets.info_view import InfoView

        return self._pane("info", InfoView)

    @property
    def run_panel(self) -> RunPanel:
        """The run tab's panel."""
        # lazy: a tab's widget is built when the tab is first shown
        from pitfalls.tui.widgets.run_panel import RunPanel

        return self._pane("run", RunPanel)

    @property
    def verify_panel(self) -> VerifyPanel:
        """The verify tab's panel."""
        # lazy: a tab's widget is built when the tab is first shown
        from pitfalls.tui.widgets.verify_panel import VerifyPanel

        return self._pane("verify", VerifyPanel)

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
        self.snippet_view.show(recipe)
        self.info_view.show(recipe)
        self.run_panel.show_recipe(recipe)
        if self.active_tab in ("run", "verify") and self.run_panel.state == "idle":
            self.active_tab = "prose"

    @property
    def active_tab(self) -> str:
        """The id of the tab shown: prose, snippet, info, run or verify."""
        return self.query_one(TabbedContent).active

    @active_tab.setter
    def active_tab(self, tab_id: str) -> None:
        self.query_one(TabbedContent).active = tab_id
