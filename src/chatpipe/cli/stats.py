"""``chatpipe stats``: figures per conversation and overall; a table for people, JSON for
machines."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import orjson
import typer

from ..errors import UsageError
from ..ops.count import resolve_counter
from ..ops.stats import conversation_stats, overall_stats
from .options import (
    AsJson,
    Branch,
    FromDialect,
    IncludeHidden,
    InputFiles,
    OnError,
    Output,
    Quiet,
    Verbose,
)
from .runtime import Inputs, rich_console, run, write_lines, write_text
from .template import (
    CountThroughTemplate,
    TemplateName,
    Variables,
    for_conversation,
    templated_counter,
)
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


def stats(
    files: InputFiles = None,
    token_counter: TokenCounterOption = "approximate",
    chat_template: CountThroughTemplate = None,
    template_name: TemplateName = None,
    var: Variables = None,
    as_json: AsJson = False,
    as_table: Annotated[
        bool, typer.Option("--table", help="Print the table even when stdout is not a terminal.")
    ] = False,
    from_: FromDialect = "auto",
    on_error: OnError = "fail",
    output: Output = None,
    branch: Branch = "active",
    include_hidden: IncludeHidden = False,
    verbose: Verbose = 0,
    quiet: Quiet = False,
) -> None:
    def body() -> None:
        if as_json and as_table:
            raise UsageError("--json and --table ask for two different outputs; pick one")
        counter = templated_counter(
            resolve_counter(token_counter), chat_template, template_name, var
        )
        inputs = Inputs(
            files, from_, on_error, verbose=verbose, branch=branch, include_hidden=include_hidden
        )
        table = as_table or (not as_json and output is None and sys.stdout.isatty())
        each: list[dict] = []

        def rows():
            for index, conversation in enumerate(inputs.conversations()):
                figures = conversation_stats(
                    conversation.messages, for_conversation(counter, conversation)
                )
                ident = conversation.meta.get("id")
                row = {
                    "conversation": index + 1,
                    **({"id": ident} if ident is not None else {}),
                    **figures,
                }
                each.append(figures)
                if not table:
                    yield orjson.dumps(row)
            if not table:
                yield orjson.dumps({"overall": overall_stats(each)})

        if table:
            for _ in rows():
                pass
            if output is None:
                _print_table(rich_console(), each, overall_stats(each))
            else:  # the table as text, in the file
                import io

                text = io.StringIO()
                _print_table(rich_console(file=text, width=120), each, overall_stats(each))
                write_text(inputs, output, [text.getvalue()])
                return
            inputs.report()
        else:
            write_lines(inputs, output, rows())

    run(body, quiet)


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
