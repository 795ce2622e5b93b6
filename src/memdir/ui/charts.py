"""Small charts drawn on the server as inline SVG: no script, no library, no request.

:func:`line_chart` draws a few series over days (memories over time by type,
the index's fill), :func:`bar_chart` one count per day (rule firings). Each
chart has a title and a text summary for screen readers, and its numbers stay
on the page as a table beside it for those who would rather read.

A line chart's legend is HTML below the drawing, not text inside it: it wraps
like any text (however many series, however long their names, however narrow
the window), so no two entries ever overlap. Axes and labels are drawn in the
page's text colour (``currentColor``), so the chart reads in dark mode too.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

from markupsafe import Markup, escape

__all__ = ["PALETTE", "bar_chart", "line_chart"]

PALETTE = ("#2f6fb0", "#c0562b", "#3f8f4f", "#8a4fa8", "#9a7b16", "#555555")
_W, _H, _PAD_L, _PAD_B, _PAD_T, _PAD_R = 640, 200, 44, 28, 12, 12


def _frame(title: str, peak: float, days: Sequence[dt.date]) -> list[str]:
    parts = [
        f'<svg class="chart" viewBox="0 0 {_W} {_H}" width="{_W}" height="{_H}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
        f'<line x1="{_PAD_L}" y1="{_H - _PAD_B}" x2="{_W - _PAD_R}" y2="{_H - _PAD_B}" '
        'stroke="currentColor" stroke-opacity="0.5" stroke-width="1"/>',
        f'<line x1="{_PAD_L}" y1="{_PAD_T}" x2="{_PAD_L}" y2="{_H - _PAD_B}" '
        'stroke="currentColor" stroke-opacity="0.5" stroke-width="1"/>',
        f'<text x="{_PAD_L - 6}" y="{_PAD_T + 10}" text-anchor="end" font-size="11" '
        f'fill="currentColor">{_number(peak)}</text>',
        f'<text x="{_PAD_L - 6}" y="{_H - _PAD_B}" text-anchor="end" font-size="11" '
        'fill="currentColor">0</text>',
    ]
    if days:
        parts.append(
            f'<text x="{_PAD_L}" y="{_H - 8}" font-size="11" fill="currentColor">'
            f"{days[0].isoformat()}</text>"
        )
        parts.append(
            f'<text x="{_W - _PAD_R}" y="{_H - 8}" text-anchor="end" font-size="11" '
            f'fill="currentColor">{days[-1].isoformat()}</text>'
        )
    return parts


def _number(value: float) -> str:
    return f"{value:,.0f}" if value >= 10 or value == int(value) else f"{value:.1f}"


def _x(i: int, n: int) -> float:
    span = _W - _PAD_L - _PAD_R
    return _PAD_L + (span * i / (n - 1) if n > 1 else span / 2)


def _y(value: float, peak: float) -> float:
    span = _H - _PAD_B - _PAD_T
    return _H - _PAD_B - (span * value / peak if peak else 0)


def line_chart(
    title: str, days: Sequence[dt.date], series: Mapping[str, Sequence[float]]
) -> Markup:
    """One line per series over ``days`` (each series has a value per day), with a legend
    below the drawing (HTML: its entries wrap, never overlap)."""
    peak = max((max(values, default=0) for values in series.values()), default=0) or 1
    parts = _frame(title, peak, days)
    legend = ['<ul class="legend">']
    for n, (label, values) in enumerate(series.items()):
        colour = PALETTE[n % len(PALETTE)]
        points = " ".join(
            f"{_x(i, len(values)):.1f},{_y(v, peak):.1f}" for i, v in enumerate(values)
        )
        parts.append(
            f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>'
        )
        # A class, not a style attribute: the page's policy allows no inline style.
        swatch = f'<span class="swatch c{n % len(PALETTE)}" aria-hidden="true"></span>'
        legend.append(f"<li>{swatch}{escape(label)}</li>")
    parts.append("</svg>")
    legend.append("</ul>")
    return Markup('<div class="chart">' + "".join(parts) + "".join(legend) + "</div>")


def bar_chart(title: str, days: Sequence[dt.date], counts: Sequence[int]) -> Markup:
    """One bar per day."""
    peak = max(counts, default=0) or 1
    parts = _frame(title, peak, days)
    n = max(len(counts), 1)
    width = (_W - _PAD_L - _PAD_R) / n
    for i, count in enumerate(counts):
        if not count:
            continue
        top = _y(count, peak)
        parts.append(
            f'<rect x="{_PAD_L + i * width + 1:.1f}" y="{top:.1f}" '
            f'width="{max(width - 2, 1):.1f}" height="{_H - _PAD_B - top:.1f}" fill="{PALETTE[1]}">'
            f"<title>{days[i].isoformat()}: {count}</title></rect>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))
