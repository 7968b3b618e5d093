"""``chatpipe filter`` and ``chatpipe merge``: langchain's filter_messages and
merge_message_runs over a log, one message at a time."""

from __future__ import annotations

from typing import Annotated

import typer

from ..errors import UsageError
from ..ops.filter import iter_filter, iter_merge
from ..pipeline.job import Job, on_messages
from .options import (
    Jobs,
    ReadingOptions,
    To,
    message_types,
    reads,
    to_dialect,
    unescape,
)
from .runtime import execute, run

FILTER_HELP = """Keep or drop messages by type, name, id or tool call (langchain's filter_messages).

Excludes win over includes; includes are OR-ed. Excluding a tool call drops its results,
its tool_use / tool_call content blocks, and an AI message left with no calls.

Examples:

  chatpipe filter --include-types human --include-types ai session.jsonl

  chatpipe filter --exclude-all-tool-calls fixtures/openai_tool_calls.jsonl
"""

MERGE_HELP = """Merge runs of consecutive messages of one kind, as langchain's merge_message_runs.

Text contents are joined with the chunk separator (\\n by default; \\n and \\t are
understood); tool calls and usage add up. Messages from different names or roles stay apart.

Examples:

  chatpipe merge fixtures/openai_tool_calls.jsonl

  chatpipe merge --chunk-separator ' ' session.jsonl | chatpipe buffer
"""


def _many(flag: str, what: str):
    return Annotated[
        list[str] | None,
        typer.Option(flag, metavar="VALUE", help=f"{what} (repeatable).", show_default=False),
    ]


@reads(records=True, engine=True)
def filter_(
    reading: ReadingOptions,
    include_names: _many("--include-names", "Keep messages with this name") = None,
    exclude_names: _many("--exclude-names", "Drop messages with this name") = None,
    include_types: _many("--include-types", "Keep this type: human, ai, system, tool...") = None,
    exclude_types: _many("--exclude-types", "Drop this type") = None,
    include_ids: _many("--include-ids", "Keep the message with this id") = None,
    exclude_ids: _many("--exclude-ids", "Drop the message with this id") = None,
    exclude_tool_calls: _many("--exclude-tool-calls", "Drop this tool call and its results") = None,
    exclude_all_tool_calls: Annotated[
        bool,
        typer.Option(
            "--exclude-all-tool-calls",
            help="Drop every AI message with tool calls and every tool result.",
        ),
    ] = False,
    to: To = None,
    jobs: Jobs = 1,
) -> None:
    def body() -> None:
        message_types(include_types, "--include-types")
        message_types(exclude_types, "--exclude-types")
        if exclude_all_tool_calls and exclude_tool_calls:
            raise UsageError("--exclude-all-tool-calls already drops every tool call")
        target = to_dialect(reading, to)
        calls = True if exclude_all_tool_calls else (list(exclude_tool_calls or ()) or None)

        def kept(conversation):
            return iter_filter(
                conversation.messages,
                include_names=include_names,
                exclude_names=exclude_names,
                include_types=include_types,
                exclude_types=exclude_types,
                include_ids=include_ids,
                exclude_ids=exclude_ids,
                exclude_tool_calls=calls,
            )

        execute(reading, Job(reading.inputs(), on_messages(kept, per_message=True), target), jobs)

    run(body, reading.quiet)


@reads(records=True, engine=True)
def merge(
    reading: ReadingOptions,
    chunk_separator: Annotated[
        str,
        typer.Option(
            "--chunk-separator", metavar="TEXT", help="Between merged texts; \\n is a newline."
        ),
    ] = "\\n",
    to: To = None,
    jobs: Jobs = 1,
) -> None:
    def body() -> None:
        target = to_dialect(reading, to)
        separator = unescape(chunk_separator)

        def merged(conversation):
            return iter_merge(conversation.messages, chunk_separator=separator)

        execute(reading, Job(reading.inputs(), on_messages(merged), target), jobs)

    run(body, reading.quiet)


filter_.__doc__ = FILTER_HELP
merge.__doc__ = MERGE_HELP
