"""Charts from series observations: their layout, and drawing them in a terminal.

The series themselves (their shape, whether two sides share axes, what `run --json` says of
them) are data: `pitfalls.catalogue.series`. This module lays a run's series out as charts
(problem and fix in one chart when they share axes) and draws them with plotext for `run` and,
through textual-plotext, the TUI. Over 400 lines as one cohesive thing: the layout and the
drawing of a chart, whose drawing reads every field the layout sets.

plotext is imported only by `draw_canvas` and `canvas_text`, so reading recipes never pays for
it. plotext 5 raises on NaN and infinities and its log-axis tick labels are unusable for tiny
values, so the layout drops what cannot be drawn (marking it at the edge of the chart instead),
takes logarithms itself and labels every tick. Titles, axis labels and the legend are written
outside the canvas, by Rich or Textual, because plotext counts a Chinese character as one
column and would misalign the frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pitfalls.catalogue.model import SIDES, Plot
from pitfalls.catalogue.series import is_number, observations_of, shared_axes, side_value
from pitfalls.i18n import t

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.text import Text


# 256-colour codes: the problem side in warm colours, the fix in cool ones, as in the table.
PALETTES = {"problem": (9, 13, 11, 208, 1, 5), "fix": (10, 14, 12, 120, 2, 6)}
# A line series' plotext marker and the glyph that stands for it in the legend. Textures
# differ as well as colours, so series stay apart for readers who do not see colour.
LINE_MARKERS = (("braille", "⠿"), ("hd", "▞"), ("dot", "•"))
SCATTER_MARKERS = ("•", "+", "x", "o", "*", "◆")
TOP_MARK, BOTTOM_MARK = "▲", "▼"  # where a point that cannot be drawn lies
MIN_WIDTH, MIN_HEIGHT = 30, 8
DECADE_STRIDES = (1, 2, 3, 5, 10, 15, 20, 25, 30, 50, 100)  # decades between log ticks


@dataclass
class Series:
    """One named series of one side, split into what can be drawn and what cannot."""

    side: str
    name: str
    label: str  # as the legend shows it, in the chart's language
    color: int
    marker: str
    glyph: str
    xs: list[float] = field(default_factory=list)  # drawable points, on log axes as log10
    ys: list[float] = field(default_factory=list)
    segments: list[tuple[int, int]] = field(default_factory=list)  # runs without a gap
    top: list[float] = field(default_factory=list)  # x of points off the top (NaN, +inf)
    bottom: list[float] = field(default_factory=list)  # -inf, or <= 0 on a log axis
    missing: int = 0  # points with no x position at all, or no value (None)
    total: int = 0

    @property
    def undrawn(self) -> int:
        """How many points are not drawn as values."""
        return len(self.top) + len(self.bottom) + self.missing


@dataclass
class Chart:
    """One chart as drawn: a plot's series from one side, or from both when they share axes."""

    plot: Plot
    sides: tuple[str, ...]
    lang: str
    series: list[Series]
    categories: list[str] | None = None  # bar charts: the x values as labels

    @property
    def title(self) -> str:
        """The plot's title, naming the side when the chart shows one side of two."""
        title = self.plot.text("title", self.lang) or self.plot.key
        if len(self.sides) == 1 and len(self.plot.sides) > 1:
            return f"{title} · {t(f'run.{self.sides[0]}', self.lang)}"
        return title

    @property
    def xlabel(self) -> str:
        """The x axis label, with `(log)` on a log axis."""
        return _axis_label(self.plot.text("xlabel", self.lang), self.plot.xlog, self.lang)

    @property
    def ylabel(self) -> str:
        """The y axis label, with `(log)` on a log axis."""
        return _axis_label(self.plot.text("ylabel", self.lang), self.plot.ylog, self.lang)

    def notes(self) -> list[str]:
        """What was not drawn, series by series, in the chart's language."""
        found = []
        for series in self.series:
            if series.top or series.bottom:
                found.append(
                    t(
                        "chart.not_finite",
                        self.lang,
                        label=series.label,
                        n=len(series.top) + len(series.bottom),
                        total=series.total,
                        marks=" ".join(
                            mark
                            for mark, points in (
                                (TOP_MARK, series.top),
                                (BOTTOM_MARK, series.bottom),
                            )
                            if points
                        ),
                    )
                )
            if series.missing:
                found.append(
                    t(
                        "chart.missing",
                        self.lang,
                        label=series.label,
                        n=series.missing,
                        total=series.total,
                    )
                )
        if not any(s.xs for s in self.series):
            found.append(t("chart.empty", self.lang))
        return found


def _axis_label(text: str, log: bool, lang: str) -> str:
    return t("chart.log_axis", lang, label=text) if log and text else text


def build_charts(plots: tuple[Plot, ...], observations: dict[str, Any], lang: str) -> list[Chart]:
    """The charts a run's observations call for: one per plot, or one per side of a plot
    whose sides do not share axes. Sides whose series are broken are left out (their shape
    check has already failed the claim)."""
    charts = []
    for plot in plots:
        values = {}
        for side in plot.sides:
            value, problem = side_value(plot, observations, side)
            if problem is None:
                values[side] = value
        if not values:
            continue
        groups = [tuple(values)] if shared_axes(plot, values) else [(side,) for side in values]
        for group in groups:
            charts.append(_layout(plot, {side: values[side] for side in group}, lang))
    return charts


def charts_for(result: Any, lang: str) -> list[Chart]:
    """The charts of a RunResult (none for a run that failed before observing anything)."""
    if result.error and result.problem is None:
        return []
    try:
        plots = result.recipe.plots
    except ValueError:  # a recipe.toml edited into something broken since it was loaded
        return []
    return build_charts(plots, observations_of(result.problem, result.fix), lang)


def _layout(plot: Plot, values: dict[str, Any], lang: str) -> Chart:
    sides = tuple(side for side in SIDES if side in values)
    chart = Chart(plot, sides, lang, [])
    first = values[sides[0]]["x"]
    if plot.kind == "bar":
        chart.categories = [x if isinstance(x, str) else format_number(x) for x in first]
    count = 0  # markers run on across sides, so the first fix series differs from the problem's
    for side in sides:
        palette = PALETTES[side]
        for index, (name, ys) in enumerate(values[side]["y"].items()):
            count += 1
            label = plot.series_label(name, lang)
            if len(sides) > 1:
                label = f"{t(f'run.{side}', lang)} · {label}"
            if plot.kind == "scatter":
                marker = glyph = SCATTER_MARKERS[(count - 1) % len(SCATTER_MARKERS)]
            elif plot.kind == "bar":
                marker, glyph = "sd", "█"
            else:
                marker, glyph = LINE_MARKERS[(count - 1) % len(LINE_MARKERS)]
            series = Series(side, name, label, palette[index % len(palette)], marker, glyph)
            _place(series, values[side]["x"], ys, plot, categorical=plot.kind == "bar")
            chart.series.append(series)
    return chart


def _place(series: Series, xs: list[Any], ys: list[Any], plot: Plot, categorical: bool) -> None:
    """Sort each point into drawn, marked at an edge, or missing; on log axes take log10."""
    series.total = len(ys)
    start = None
    for index, (x, y) in enumerate(zip(xs, ys)):
        position: float | None = float(index + 1) if categorical else _coordinate(x, plot.xlog)
        if position is None or y is None:
            series.missing += 1
            value = None
        elif isinstance(y, float) and math.isnan(y):
            series.top.append(position)
            value = None
        elif y == math.inf:
            series.top.append(position)
            value = None
        elif y == -math.inf or (plot.ylog and y <= 0):
            series.bottom.append(position)
            value = None
        else:
            value = math.log10(y) if plot.ylog else float(y)
        if value is None or (not categorical and not math.isfinite(value)):
            if start is not None:
                series.segments.append((start, len(series.xs)))
                start = None
            continue
        if start is None:
            start = len(series.xs)
        series.xs.append(position)
        series.ys.append(value)
    if start is not None:
        series.segments.append((start, len(series.xs)))


def _coordinate(x: Any, log: bool) -> float | None:
    if not is_number(x):
        return None
    x = float(x)
    if not math.isfinite(x) or (log and x <= 0):
        return None
    return math.log10(x) if log else x


def format_number(value: float) -> str:
    """A short label for a tick or a category: `0.05`, `120`, `1e-45`, `2.5e6`."""
    if value == 0:
        return "0"
    magnitude = abs(value)
    if 1 <= magnitude < 1e5:
        return f"{value:.6g}"
    if 1e-3 <= magnitude < 1:
        return f"{value:.4g}"
    mantissa, exponent = f"{value:.2e}".split("e")
    return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"


def linear_ticks(low: float, high: float, count: int, whole: bool = False) -> list[float]:
    """About `count` round numbers (1, 2 or 5 times a power of ten apart) in [low, high];
    with `whole`, the data are counts and ticks are whole numbers."""
    if high <= low:
        return [low]
    raw = (high - low) / max(1, count)
    if whole:
        raw = max(raw, 1.0)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9)
    ticks = []
    k = first
    while k * step <= high + step * 1e-9:
        ticks.append(round(k * step, 12))
        k += 1
    return ticks or [low]


def log_ticks(low: float, high: float, count: int) -> list[tuple[float, float]]:
    """(log10 position, value) ticks for a log axis spanning 10**low to 10**high."""
    decades = list(range(math.ceil(low - 1e-9), math.floor(high + 1e-9) + 1))
    if len(decades) >= 2:
        wanted = len(decades) / max(1, count)
        stride = next((s for s in DECADE_STRIDES if s >= wanted), math.ceil(wanted))
        chosen = [k for k in decades if k % stride == 0] or decades[:1]
        return [(float(k), 10.0**k) for k in chosen]
    ticks = []
    for k in range(math.floor(low) - 1, math.ceil(high) + 1):
        for mantissa in (1, 2, 5):
            position = math.log10(mantissa) + k
            if low - 1e-9 <= position <= high + 1e-9:
                ticks.append((position, mantissa * 10.0**k))
    if len(ticks) >= 2:
        stride = max(1, math.ceil(len(ticks) / max(1, count)))
        return ticks[::stride]
    return [(p, 10.0**p) for p in linear_ticks(low, high, count)]


def _limits(values: list[float]) -> tuple[float, float]:
    low, high = min(values), max(values)
    if high == low:
        pad = abs(low) * 0.1 or 1.0
        return low - pad, high + pad
    return low, high


def draw_canvas(figure: Any, chart: Chart, width: int, height: int) -> None:
    """Draw the chart's series on a plotext figure (the plotext module itself, or the `plt`
    of a textual-plotext widget), `width` columns by `height` rows, axes and ticks included."""
    figure.clear_data()
    # plotext caps a figure at the size it believes the terminal has (80 x 24 when piped);
    # the caller has measured the space, so the cap goes.
    limit = getattr(figure, "limit_size", None) or figure._limit_size
    limit(False, False)
    figure.plotsize(max(MIN_WIDTH, width), max(MIN_HEIGHT, height))
    plot = chart.plot
    drawn_y = [y for s in chart.series for y in s.ys]
    columns, rows = max(MIN_WIDTH, width), max(MIN_HEIGHT, height)
    if plot.kind == "bar":
        _draw_bars(figure, chart, drawn_y, rows)
        return
    drawn_x = [x for s in chart.series for x in (*s.xs, *s.top, *s.bottom)]
    if not drawn_x:
        return
    x_low, x_high = _limits(drawn_x)
    y_low, y_high = _limits(drawn_y) if drawn_y else (0.0, 1.0)
    if y_low > 0 and not plot.ylog and y_low < (y_high - y_low):
        y_low = 0.0  # a count or a loss reads best from zero, unless that squashes the curve
    # The fix first, the problem over it: where they coincide, the pitfall stays in view.
    for series in sorted(chart.series, key=lambda s: s.side == "problem"):
        for start, end in series.segments:
            xs, ys = series.xs[start:end], series.ys[start:end]
            if plot.kind == "scatter" or len(xs) == 1:
                marker = series.marker if plot.kind == "scatter" else "dot"
                figure.scatter(xs, ys, marker=marker, color=series.color)
            else:
                figure.plot(xs, ys, marker=series.marker, color=series.color)
        if series.top:
            figure.scatter(
                series.top, [y_high] * len(series.top), marker=TOP_MARK, color=series.color
            )
        if series.bottom:
            marks = [y_low] * len(series.bottom)
            figure.scatter(series.bottom, marks, marker=BOTTOM_MARK, color=series.color)
    figure.xlim(x_low, x_high)
    figure.ylim(y_low, y_high)
    _ticks(figure.xticks, x_low, x_high, plot.xlog, max(2, columns // 14), _whole(drawn_x))
    _ticks(figure.yticks, y_low, y_high, plot.ylog, max(2, rows // 3), _whole(drawn_y))


def _whole(values: list[float]) -> bool:
    return bool(values) and all(float(v).is_integer() for v in values)


def _ticks(
    setter: Any, low: float, high: float, log: bool, count: int, whole: bool = False
) -> None:
    if log:
        pairs = log_ticks(low, high, count)
    else:
        pairs = [(v, v) for v in linear_ticks(low, high, count, whole)]
    setter([p for p, _ in pairs], [format_number(v) for _, v in pairs])


def _draw_bars(figure: Any, chart: Chart, drawn_y: list[float], rows: int) -> None:
    categories = chart.categories or []
    if not categories:
        return
    columns = []
    for series in chart.series:
        by_position = dict(zip(series.xs, series.ys))
        columns.append([by_position.get(float(i + 1), 0.0) for i in range(len(categories))])
    colors = [s.color for s in chart.series]
    if len(columns) == 1:
        figure.bar(categories, columns[0], color=colors[0], width=0.6)
    else:
        figure.multiple_bar(categories, columns, color=colors, width=0.8)
    if drawn_y:
        low, high = min(0.0, min(drawn_y)), max(0.0, max(drawn_y))
        if high > low:
            _ticks(figure.yticks, low, high, False, max(2, rows // 3), _whole(drawn_y))


def canvas_text(chart: Chart, width: int, height: int) -> str:
    """The chart's canvas as ANSI text, for a terminal."""
    # Deferred: plotext costs about 50 ms to import, paid only when a chart is drawn.
    # lazy: plotext only to draw a chart
    import plotext

    plotext.clear_figure()
    plotext.theme("clear")  # the terminal's own background and foreground
    draw_canvas(plotext, chart, width, height)
    return plotext.build()


def legend_items(chart: Chart) -> list[Text]:
    """One Text per legend entry: each series' glyph in its colour, then its label; then
    what the edge marks mean, when the chart has any."""
    # lazy: Rich loads only when something is drawn
    from rich.text import Text

    items = []
    for series in chart.series:
        item = Text(series.glyph * 2, style=f"color({series.color})")
        item.append(f" {series.label}", style="")
        items.append(item)
    for mark, key, present in (
        (TOP_MARK, "chart.top", any(s.top for s in chart.series)),
        (BOTTOM_MARK, "chart.bottom", any(s.bottom for s in chart.series)),
    ):
        if present:
            item = Text(mark, style="bold")
            item.append(f" {t(key, chart.lang)}")
            items.append(item)
    return items


def legend_renderable(chart: Chart) -> RenderableType:
    """The legend in as many columns as fit the width it is drawn at; an entry never breaks."""
    # lazy: Rich loads only when something is drawn
    from rich.columns import Columns

    return Columns(legend_items(chart), padding=(0, 3))


def header_text(chart: Chart) -> Text:
    """The title, and the y axis label under it."""
    # lazy: Rich loads only when something is drawn
    from rich.text import Text

    text = Text(chart.title, style="bold")
    if chart.ylabel:
        text.append(f"\n↑ {chart.ylabel}", style="dim")
    return text


def xlabel_text(chart: Chart) -> Text:
    """The x axis label with its arrow, set flush right under the axis' end."""
    # lazy: Rich loads only when something is drawn
    from rich.text import Text

    return Text(f"{chart.xlabel} →" if chart.xlabel else "", style="dim", justify="right")


def legend_and_notes(chart: Chart) -> RenderableType:
    """The legend, then what was not drawn."""
    # lazy: Rich loads only when something is drawn
    from rich.console import Group
    from rich.text import Text

    notes = [Text(note, style="yellow") for note in chart.notes()]
    return Group(legend_renderable(chart), *notes)


def footer_renderable(chart: Chart) -> RenderableType:
    """The x axis label, the legend and the notes. Nothing here depends on the width, so a
    resized terminal lays it out again."""
    # lazy: Rich loads only when something is drawn
    from rich.console import Group

    return Group(xlabel_text(chart), legend_and_notes(chart))


def chart_height(rows: int) -> int:
    """Canvas rows for a terminal of `rows` lines: a third of it, between 8 and 18."""
    return max(MIN_HEIGHT, min(18, rows // 3))


def chart_renderable(chart: Chart, width: int, height: int) -> RenderableType:
    """The whole chart for a Rich console: header, canvas, x label, legend and notes."""
    # lazy: Rich loads only when something is drawn
    from rich.console import Group
    from rich.text import Text

    canvas = Text.from_ansi(canvas_text(chart, width, height), no_wrap=True, end="")
    return Group(Text(""), header_text(chart), canvas, footer_renderable(chart))
