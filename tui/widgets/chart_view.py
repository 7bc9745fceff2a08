"""One chart of a run: title and y label, the plotext canvas, then x label, legend and notes.

This module imports textual-plotext (and with it plotext, about 60 ms): the run panel imports
it only when a result has a chart to show.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult, RenderResult
from textual.containers import Vertical
from textual.widgets import Static
from textual_plotext import PlotextPlot

from pitfalls.render.charts import draw_canvas, header_text, legend_and_notes, xlabel_text

if TYPE_CHECKING:
    from pitfalls.render.charts import Chart


class ChartCanvas(PlotextPlot):
    """The plotext canvas, drawn again at every render so that it always fits its size."""

    DEFAULT_CSS = """
    ChartCanvas {
        height: 14;
        width: 1fr;
    }
    """

    def __init__(self, chart: Chart, **kwargs: object) -> None:
        """Create the canvas.

        Args:
            chart: The laid-out chart to draw.
            **kwargs: Passed on to `PlotextPlot`.
        """
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.chart = chart

    def render(self) -> RenderResult:
        """Draw the series for the current size (ticks depend on it), then let textual-plotext
        theme and build the canvas."""
        draw_canvas(self.plt, self.chart, self.size.width, self.size.height)
        return super().render()


class ChartView(Vertical):
    """A chart with its texts; texts are Rich text, so Chinese labels keep their width."""

    DEFAULT_CSS = """
    ChartView {
        height: auto;
        padding: 0 1;
        margin-top: 1;
    }
    ChartView > Static {
        height: auto;
        width: 1fr;
    }
    ChartView > .chart-xlabel {
        text-align: right;
    }
    """

    def __init__(self, chart: Chart, **kwargs: object) -> None:
        """Create the view.

        Args:
            chart: The laid-out chart, in the language to show.
            **kwargs: Passed on to `Vertical`.
        """
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.chart = chart

    def compose(self) -> ComposeResult:
        """Header, canvas and footer."""
        yield Static(header_text(self.chart), classes="chart-header")
        yield ChartCanvas(self.chart)
        yield Static(xlabel_text(self.chart), classes="chart-xlabel")
        yield Static(legend_and_notes(self.chart), classes="chart-footer")
