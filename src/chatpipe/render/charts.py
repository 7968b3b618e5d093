"""Histograms of per-conversation figures: the bins, as Unicode bars for a terminal, and as
an inline SVG chart for a page. No plotting library: both are a few lines of text."""

from __future__ import annotations

import math
from collections.abc import Sequence

from .markup import escape

_EIGHTHS = " ▏▎▍▌▋▊▉"


def _nice_step(span: float, count: int) -> int:
    """A round bin width (1, 2 or 5 times a power of ten) giving about ``count`` bins."""
    raw = max(span / count, 1)
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * power:
            return int(factor * power)
    return int(10 * power)


def bins(values: Sequence[int], count: int = 10) -> list[tuple[int, int, int]]:
    """(low, high, how many) for bins of a round width covering the values; a bin holds
    low <= value < high."""
    if not values:
        return []
    low, high = min(values), max(values)
    step = _nice_step(high - low + 1, count)
    start = (low // step) * step
    number = (high - start) // step + 1
    counts = [0] * number
    for value in values:
        counts[(value - start) // step] += 1
    return [(start + i * step, start + (i + 1) * step, n) for i, n in enumerate(counts)]


def bar(count: int, most: int, width: int) -> str:
    """A bar of eighth-block characters, ``count`` of ``most`` over ``width`` cells."""
    if most <= 0 or count <= 0:
        return ""
    eighths = max(1, round(count / most * width * 8))
    return "█" * (eighths // 8) + (_EIGHTHS[eighths % 8] if eighths % 8 else "")


def bin_label(low: int, high: int) -> str:
    return f"{low:,}" if high - low == 1 else f"{low:,}–{high - 1:,}"


def svg_histogram(
    binned: list[tuple[int, int, int]], title: str, axis: str, limit: int | None = None
) -> str:
    """An inline SVG bar chart of ``bins``; ``limit`` draws a line where a token limit is."""
    width, height, left, bottom, top = 560, 240, 48, 44, 28
    plot_w, plot_h = width - left - 12, height - top - bottom
    most = max((n for _, _, n in binned), default=0) or 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{escape(title)}" class="chart">',
        f'<text x="{left}" y="18" class="chart-title">{escape(title)}</text>',
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
        'class="axis"/>',
    ]
    for tick in range(5):
        value = most * tick / 4
        y = top + plot_h - plot_h * tick / 4
        parts.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" class="tick" text-anchor="end">'
            f"{value:,.0f}</text>"
        )
        if tick:
            parts.append(
                f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" class="grid"/>'
            )
    slot = plot_w / max(len(binned), 1)
    for index, (low, high, number) in enumerate(binned):
        h = plot_h * number / most
        x = left + index * slot
        label = bin_label(low, high)
        parts.append(
            f'<rect x="{x + 1:.1f}" y="{top + plot_h - h:.1f}" width="{max(slot - 2, 1):.1f}" '
            f'height="{h:.1f}" class="bar"><title>{escape(label)}: {number:,}</title></rect>'
        )
        if len(binned) <= 12 or index % math.ceil(len(binned) / 12) == 0:
            parts.append(
                f'<text x="{x:.1f}" y="{top + plot_h + 14}" class="tick" '
                f'text-anchor="middle">{escape(f"{low:,}")}</text>'
            )
    if limit is not None and binned and binned[0][0] <= limit <= binned[-1][1]:
        span = binned[-1][1] - binned[0][0]
        x = left + plot_w * (limit - binned[0][0]) / span
        parts.append(
            f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + plot_h}" class="limit"/>'
            f'<text x="{x + 4:.1f}" y="{top + 10}" class="limit-label">'
            f"max {limit:,}</text>"
        )
    parts.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" class="tick" '
        f'text-anchor="middle">{escape(axis)}</text></svg>'
    )
    return "".join(parts)
