"""``stats --to html``: the figures of a dataset as one page for people, with its
histograms as inline SVG (no script, no network)."""

from __future__ import annotations

from typing import Any

from .charts import bins, svg_histogram
from .markup import escape
from .viewer import page_head

ROWS = 1000  # conversations listed one by one

_CSS = """
:root { color-scheme: light dark; --fg: #1d1d1f; --muted: #6b6b73; --line: #dcdce0;
  --bar: #4c78d8; --limit: #c0392b; --bg: #fafafa; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e6ea; --muted: #9a9aa3;
  --line: #34343a; --bar: #8ab4f8; --limit: #f28b82; --bg: #17171a; } }
body { font: 15px/1.5 system-ui, sans-serif; margin: 24px auto; max-width: 1180px;
  padding: 0 20px; background: var(--bg); color: var(--fg); }
h1 { font-size: 24px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px; }
.muted { color: var(--muted); }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 12px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.charts { display: flex; flex-wrap: wrap; gap: 24px; }
.chart { width: 560px; max-width: 100%; height: auto; }
.chart .bar { fill: var(--bar); } .chart .axis { stroke: var(--muted); }
.chart .grid { stroke: var(--line); stroke-dasharray: 2 3; }
.chart .tick { fill: var(--muted); font-size: 11px; }
.chart .chart-title { fill: var(--fg); font-size: 14px; font-weight: 600; }
.chart .limit { stroke: var(--limit); stroke-width: 2; }
.chart .limit-label { fill: var(--limit); font-size: 11px; }
"""


def _id(ids: list[Any], index: int) -> Any:
    ident = ids[index] if index < len(ids) else None
    return "" if ident is None else ident


_SPREAD = ("min", "p10", "median", "p90", "max", "mean")


def _number(value: Any) -> str:
    return f"{value:,}" if isinstance(value, (int, float)) else escape(str(value))


# what ``stats --to`` writes: the page with charts below
PAGE = "html"


def stats_page(
    each: list[dict[str, Any]], overall: dict[str, Any], sources: list[str], ids: list[Any]
) -> str:
    """The page: totals, the spread per conversation, two histograms, the first rows."""
    title = f"{overall['conversations']:,} conversations"
    out = [page_head(f"chatpipe stats: {title}", _CSS, None), "<body>"]
    out.append(f"<h1>{escape(title)}</h1>")
    out.append(f'<p class="muted">{escape(", ".join(sources))}</p>')
    totals = [
        ("messages", overall["messages"]),
        *((f"· {kind}", n) for kind, n in sorted(overall["by_type"].items())),
        ("tool calls", overall["tool_calls"]),
        ("images", overall["images"]),
        ("audio, video, files", overall["audio"] + overall["video"] + overall["files"]),
        ("characters", overall["characters"]),
        ("tokens", overall["tokens"]),
    ]
    out.append("<h2>Totals</h2><table>")
    out += [f"<tr><td>{escape(k)}</td><td>{_number(v)}</td></tr>" for k, v in totals]
    out.append("</table><h2>Per conversation</h2><table><tr><th></th>")
    out += [f"<th>{name}</th>" for name in _SPREAD]
    out.append("</tr>")
    for field in ("tokens", "messages"):
        figures = overall["spread"][field]
        cells = "".join(f"<td>{_number(figures[name])}</td>" for name in _SPREAD)
        out.append(f"<tr><td>{field}</td>{cells}</tr>")
    out.append("</table>")
    over = overall.get("over_max_tokens")
    limit = over["max_tokens"] if over else None
    if over:
        out.append(
            f"<p>{over['conversations']:,} of {overall['conversations']:,} conversations "
            f"are over {over['max_tokens']:,} tokens.</p>"
        )
    out.append('<div class="charts">')
    out.append(
        svg_histogram(bins([s["tokens"] for s in each]), "Tokens per conversation", "tokens", limit)
    )
    out.append(
        svg_histogram(bins([s["messages"] for s in each]), "Messages per conversation", "messages")
    )
    out.append("</div>")
    out.append("<h2>Conversations</h2><table><tr><th>#</th><th>id</th><th>messages</th>")
    out.append("<th>tool calls</th><th>characters</th><th>tokens</th></tr>")
    for index, figures in enumerate(each[:ROWS]):
        out.append(
            f"<tr><td>{index + 1}</td><td>{escape(str(_id(ids, index)))}</td>"
            f"<td>{figures['messages']:,}</td><td>{figures['tool_calls']:,}</td>"
            f"<td>{figures['characters']:,}</td><td>{figures['tokens']:,}</td></tr>"
        )
    out.append("</table>")
    if len(each) > ROWS:
        out.append(f'<p class="muted">… and {len(each) - ROWS:,} more (stats --json lists all)</p>')
    out.append("</body>\n</html>\n")
    return "".join(out)
