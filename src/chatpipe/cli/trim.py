"""``chatpipe trim``: the messages that fit a token budget, as langchain's trim_messages."""

from __future__ import annotations

from typing import Annotated

import typer

from ..errors import UsageError
from ..pipeline.job import Job, on_messages
from ..pipeline.trim import Trim
from .options import Jobs, ReadingOptions, To, message_types, reads, to_dialect
from .runtime import execute, run, warn
from .template import (
    DEFAULT_MAX_OUTPUT,
    CountThroughTemplate,
    TemplateMaxLoops,
    TemplateMaxOutput,
    TemplateName,
    TemplateTimeout,
    Variables,
    templated_counter,
    through_template,
)

TokenCounterOption = Annotated[
    str,
    typer.Option(
        "--token-counter",
        metavar="COUNTER",
        help="approximate (langchain's), messages (one per message), tiktoken:ENCODING "
        "(e.g. tiktoken:cl100k_base), hf:PATH/tokenizer.json, or template:MODEL (a model "
        "directory or cached id: its chat template and tokenizer, as chatpipe tokenize).",
    ),
]

TRIM_HELP = """Keep the messages that fit a token budget, as langchain's trim_messages.

The output is in the input's dialect (canonical when that cannot be written; --to
chooses), so it pipes into every other command. --strategy last keeps the newest
messages and holds only what the budget can reach, however long the log.

Examples:

  chatpipe trim --max-tokens 4000 --start-on human session.jsonl | chatpipe buffer --format xml

  chatpipe trim --max-tokens 4000 --keep-tool-pairs -v fixtures/agent_session.jsonl

  chatpipe trim --max-tokens 8000 --token-counter tiktoken:cl100k_base train.jsonl
"""


@reads(records=True, engine=True)
def trim(
    reading: ReadingOptions,
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", metavar="N", help="The token budget.", show_default=False)
    ] = ...,  # type: ignore[assignment]
    strategy: Annotated[
        str, typer.Option("--strategy", metavar="last|first", help="Keep the newest or the oldest.")
    ] = "last",
    allow_partial: Annotated[
        bool, typer.Option("--allow-partial", help="Keep part of the message at the edge.")
    ] = False,
    include_system: Annotated[
        bool, typer.Option("--include-system", help="Always keep a leading system message.")
    ] = False,
    start_on: Annotated[
        list[str] | None,
        typer.Option(
            "--start-on",
            metavar="TYPE",
            help="The result starts with this type "
            "(repeatable: human, ai, system, tool, function, chat).",
            show_default=False,
        ),
    ] = None,
    end_on: Annotated[
        list[str] | None,
        typer.Option(
            "--end-on",
            metavar="TYPE",
            help="The result ends with this type (repeatable).",
            show_default=False,
        ),
    ] = None,
    token_counter: TokenCounterOption = "approximate",
    keep_tool_pairs_: Annotated[
        bool,
        typer.Option(
            "--keep-tool-pairs",
            help="Never split a tool call from its results "
            "(no orphan tool results, no unanswered calls).",
        ),
    ] = False,
    chat_template: CountThroughTemplate = None,
    template_name: TemplateName = None,
    var: Variables = None,
    template_max_output: TemplateMaxOutput = DEFAULT_MAX_OUTPUT,
    template_max_loops: TemplateMaxLoops = 1_000_000,
    template_timeout: TemplateTimeout = 10.0,
    to: To = None,
    jobs: Jobs = 1,
) -> None:
    def body() -> None:
        if strategy not in ("last", "first"):
            raise UsageError(f"--strategy must be last or first, got {strategy!r}")
        if strategy == "first" and (start_on or include_system):
            raise UsageError("--start-on and --include-system go with --strategy last")
        starts, ends = message_types(start_on, "--start-on"), message_types(end_on, "--end-on")
        target = to_dialect(reading, to)
        counter = templated_counter(
            token_counter,
            chat_template,
            template_name,
            var,
            (template_max_output, template_max_loops, template_timeout),
        )
        templated = through_template(counter)
        if templated and (strategy != "last" or allow_partial or end_on):
            raise UsageError(
                "--chat-template trims with --strategy last, whole messages, no --end-on",
                hint="it keeps the newest messages whose rendered prompt fits --max-tokens",
            )

        def dropped(message, why: str) -> None:
            if reading.verbose:
                which = getattr(message, "tool_call_id", None) or message.id or ""
                warn(f"trim: dropped a {message.type} message {which}: {why}".rstrip())

        trimmed = Trim(
            max_tokens,
            counter,
            strategy=strategy,
            allow_partial=allow_partial,
            include_system=include_system,
            start_on=starts,
            end_on=ends,
            tool_pairs=keep_tool_pairs_,
            templated=templated,
            dropped=dropped,
        )
        execute(reading, Job(reading.inputs(), on_messages(trimmed), target), jobs)

    run(body, reading.quiet)


trim.__doc__ = TRIM_HELP
