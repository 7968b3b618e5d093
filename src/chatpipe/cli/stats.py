"""``chatpipe stats``: figures per conversation and overall; a table for people, JSON for
machines."""

from __future__ import annotations

import os
import sys
from typing import Any

from ..errors import UsageError
from ..pipeline.job import Job
from ..pipeline.targets import Stats
from ..render.markup import terminal_safe
from ..render.report import PAGE, stats_page
from .command import ReadingOptions, command
from .options import AsJson, choices, opt
from .runtime import execute, rich_console

_ROWS = 30  # conversations shown in the table


@command("output", "engine", "counting")
def stats(
    o: ReadingOptions,
    as_json: AsJson = False,
    as_table: opt("--table", "Print the table even when stdout is not a terminal.", bool) = False,
    to: opt(
        "--to",
        "Write an HTML report with charts.",
        str | None,
        PAGE,
        autocompletion=choices(PAGE),
    ) = None,
    max_tokens: opt(
        "--max-tokens",
        "Count the conversations over N tokens (a model's context, say).",
        int | None,
        "N",
        min=1,
    ) = None,
) -> None:
    """Figures of chat logs: messages by type, tool calls, media, characters and tokens.

    Per conversation and overall, with the spread of tokens and messages per conversation
    (min, p10, median, p90, max) and, with --max-tokens, how many conversations are over it.
    A table and histograms on a terminal; JSON lines otherwise (or with --json): one per
    conversation (its file and title among them), then {"overall": ...}; --to html writes a
    page with SVG charts.

    Examples:

    \b
      chatpipe stats fixtures/openai_chat__cookbook_toy_chat_fine_tuning.jsonl
      chatpipe stats --json --token-counter tiktoken:cl100k_base \\
          fixtures/openai_chat__cookbook_toy_chat_fine_tuning.jsonl | jq \\
          .overall
      chatpipe stats --max-tokens 16385 --to html -o report.html \\
          fixtures/openai_chat__cookbook_toy_chat_fine_tuning.jsonl
    """
    if to not in (None, PAGE):
        raise UsageError(f"stats --to takes {PAGE}, got {to!r}", hint="or --json, or --table")
    if sum((as_json, as_table, to is not None)) > 1:
        raise UsageError("--json, --table and --to html ask for different outputs; pick one")
    counter = o.counter()
    table = as_table or (not as_json and to is None and o.output is None and sys.stdout.isatty())
    # a table goes to the terminal, or as text into the -o file; a page anywhere
    figures = Stats(counter, rows=not table and to is None, after=None, max_tokens=max_tokens)
    if table and o.output is not None:  # a table as text into the -o file
        figures.after = lambda each, overall: _table_text(each, overall, _names(figures))
    if to == PAGE:
        sources = list(o.files or ["-"])
        figures.after = lambda each, overall: stats_page(each, overall, sources, figures.ids)
    execute(o, Job(o.inputs(), None, figures))
    if table and o.output is None:
        _print_table(rich_console(), figures.each, figures.overall(), _names(figures))


def _names(figures: Stats) -> list[list[str]]:
    """The columns that say which conversation a row is: its file when the inputs are
    several, its title (else its id) when any has one; each a list of cells, row by row."""
    files = [str(n.get("file") or "-") for n in figures.names]
    titles = [
        str(n.get("title") or (ident if ident is not None else ""))
        for n, ident in zip(figures.names, figures.ids, strict=True)
    ]
    columns = []
    if len(set(files)) > 1:
        shown = [os.path.basename(f) or f for f in files]  # (a file's name says it, if unique)
        unique = len(set(shown)) == len(set(files))
        columns.append(["file", *(shown if unique else files)])
    if any(titles):
        columns.append(["conversation", *titles])
    return columns


def _table_text(each: list[dict], overall: dict, names: list[list[str]]) -> str:
    import io

    text = io.StringIO()
    _print_table(rich_console(file=text, width=120), each, overall, names)
    return text.getvalue()


def _many(number: int, what: str) -> str:
    return f"{number:,} {what}{'s' * (number != 1)}"


def _print_table(console: Any, each: list[dict], overall: dict, names: list[list[str]]) -> None:
    from rich.table import Table
    from rich.text import Text

    kinds = sorted(overall["by_type"])
    columns = ("messages", *kinds, "tool calls", "images", "files", "characters", "tokens")

    def cells(figures: dict) -> list[str]:
        media = figures["files"] + figures["audio"] + figures["video"]
        by_type = (figures["by_type"].get(k, 0) for k in kinds)
        numbers = (figures["messages"], *by_type, figures["tool_calls"], figures["images"], media)
        return [f"{n:,}" for n in (*numbers, figures["characters"], figures["tokens"])]

    rows = [[f"{i + 1:,}", *cells(figures)] for i, figures in enumerate(each[:_ROWS])]
    if len(each) > _ROWS:
        rows.append(["…", *[""] * len(columns)])
    rows.append(["all", *cells(overall)])
    table = Table(title=_many(overall["conversations"], "conversation"), title_justify="left")
    # the figures keep their width; the names give way, cut short with an ellipsis
    widths = [max(len(h), *(len(r[k]) for r in rows)) for k, h in enumerate(("#", *columns))]
    table.add_column("#", justify="right", min_width=widths[0], no_wrap=True)
    room = console.width - 1 - sum(w + 3 for w in widths) - 3 * len(names)
    for name, *_ in names:
        width = min(40, max(8, room // len(names)))
        table.add_column(name, overflow="ellipsis", no_wrap=True, max_width=width)
    for column, width in zip(columns, widths[1:], strict=True):
        table.add_column(column, justify="right", min_width=width, no_wrap=True)
    for index, row in enumerate(rows):
        # text from the data: never markup, its control characters written out
        named = [Text(terminal_safe(c[index + 1])) if index < len(c) - 1 else "" for c in names]
        style = "bold" if index == len(rows) - 1 else None
        table.add_row(row[0], *named, *row[1:], style=style)
    console.print(table)
    length = overall["length"]
    console.print(
        f"conversation length: min {length['min']:,}, median {length['median']:,}, "
        f"max {length['max']:,} messages"
    )
    _print_histograms(console, each, overall)


def _print_histograms(console: Any, each: list[dict], overall: dict) -> None:
    """Tokens and messages per conversation as bars, side by side, each with its spread
    (min, p10, median, p90, max) and, for tokens, the count over --max-tokens."""
    from rich.columns import Columns
    from rich.table import Table

    from ..render.charts import bar, bin_label, bins

    over = overall.get("over_max_tokens")
    panels = []
    for field in ("tokens", "messages"):
        binned = bins([s[field] for s in each])
        most = max((n for _, _, n in binned), default=0)
        spread = overall["spread"][field]
        caption = " · ".join(f"{k} {spread[k]:,}" for k in ("min", "p10", "median", "p90", "max"))
        if field == "tokens" and over:
            caption += f"\n{over['conversations']:,} over {over['max_tokens']:,} tokens"
        histogram = Table(
            title=f"{field} per conversation",
            caption=caption,
            title_justify="left",
            caption_justify="left",
            box=None,
        )
        histogram.add_column(field, justify="right", style="dim")
        histogram.add_column("", min_width=24, style="cyan")
        histogram.add_column("conversations", justify="right")
        limit = over["max_tokens"] if field == "tokens" and over else None
        for low, high, number in binned:
            style = "red" if limit is not None and low > limit else None
            histogram.add_row(
                bin_label(low, high), bar(number, most, 24), f"{number:,}", style=style
            )
        panels.append(histogram)
    console.print()
    console.print(Columns(panels, padding=(0, 4)))
