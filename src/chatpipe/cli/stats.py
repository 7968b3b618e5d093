"""``chatpipe stats``: figures per conversation and overall; a table for people, JSON for
machines."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from ..errors import UsageError
from ..ops.count import resolve_counter
from ..pipeline.job import Job
from ..pipeline.targets import Stats
from .options import AsJson, ReadingOptions, reads
from .runtime import execute, rich_console, run
from .template import CountThroughTemplate, TemplateName, Variables, templated_counter
from .trim import TokenCounterOption

HELP = """Count messages by type, tool calls, images and files, characters and tokens, per
conversation and overall, with min / median / max conversation length.

A table on a terminal; JSON lines otherwise (or with --json): one per conversation, then
{"overall": ...}.

Examples:

  chatpipe stats fixtures/openai_chat__cookbook_toy_chat_fine_tuning.jsonl

  chatpipe stats --json --token-counter tiktoken:cl100k_base train.jsonl | jq .overall
"""

_ROWS = 30  # conversations shown in the table


@reads()
def stats(
    reading: ReadingOptions,
    token_counter: TokenCounterOption = "approximate",
    chat_template: CountThroughTemplate = None,
    template_name: TemplateName = None,
    var: Variables = None,
    as_json: AsJson = False,
    as_table: Annotated[
        bool, typer.Option("--table", help="Print the table even when stdout is not a terminal.")
    ] = False,
) -> None:
    def body() -> None:
        if as_json and as_table:
            raise UsageError("--json and --table ask for two different outputs; pick one")
        counter = templated_counter(
            resolve_counter(token_counter), chat_template, template_name, var
        )
        output = reading.output
        table = as_table or (not as_json and output is None and sys.stdout.isatty())
        # a table goes to the terminal, or as text into the -o file
        after = _table_text if table and output is not None else None
        figures = Stats(counter, rows=not table, after=after)
        execute(reading, Job(reading.inputs(), None, figures))
        if table and output is None:
            _print_table(rich_console(), figures.each, figures.overall())

    run(body, reading.quiet)


def _table_text(each: list[dict], overall: dict) -> str:
    import io

    text = io.StringIO()
    _print_table(rich_console(file=text, width=120), each, overall)
    return text.getvalue()


def _print_table(console: Any, each: list[dict], overall: dict) -> None:
    from rich.table import Table

    kinds = sorted(overall["by_type"])
    table = Table(title=f"{overall['conversations']} conversations", title_justify="left")
    for column in (
        "#",
        "messages",
        *kinds,
        "tool calls",
        "images",
        "files",
        "characters",
        "tokens",
    ):
        table.add_column(column, justify="right")

    def cells(figures: dict) -> list[str]:
        media = figures["files"] + figures["audio"] + figures["video"]
        return [
            str(figures["messages"]),
            *(str(figures["by_type"].get(k, 0)) for k in kinds),
            str(figures["tool_calls"]),
            str(figures["images"]),
            str(media),
            f"{figures['characters']:,}",
            f"{figures['tokens']:,}",
        ]

    for index, figures in enumerate(each[:_ROWS]):
        table.add_row(str(index + 1), *cells(figures))
    if len(each) > _ROWS:
        table.add_row("…", *[""] * (len(kinds) + 6))
    table.add_row("all", *cells(overall), style="bold")
    console.print(table)
    length = overall["length"]
    console.print(
        f"conversation length: min {length['min']}, median {length['median']}, "
        f"max {length['max']} messages"
    )


stats.__doc__ = HELP
