"""``chatpipe trim`` and ``chatpipe count``: token budgets, as langchain's trim_messages and
count_tokens_approximately, plus exact counters."""

from __future__ import annotations

from typing import Annotated

import orjson
import typer

from ..errors import UsageError
from ..ops.count import COUNTER_NAMES, resolve_counter
from ..pipeline.trim import Trim
from .options import (
    AsJson,
    Branch,
    FromDialect,
    IncludeHidden,
    InputFiles,
    OnError,
    Output,
    Quiet,
    To,
    Verbose,
    between,
    message_types,
)
from .runtime import Inputs, check_target, run, warn, write_lines, write_operation
from .template import (
    CountThroughTemplate,
    TemplateName,
    Variables,
    for_conversation,
    templated_counter,
)

TokenCounterOption = Annotated[
    str,
    typer.Option(
        "--token-counter",
        metavar="COUNTER",
        help="approximate (langchain's), messages (one per message), tiktoken:ENCODING "
        "(e.g. tiktoken:cl100k_base), or hf:PATH/tokenizer.json.",
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

COUNT_HELP = """Count tokens per conversation, as langchain's count_tokens_approximately.

One integer per conversation, one per line; --json adds the messages and a count per
message type. A row's tools (fine-tuning files) are counted too.

Examples:

  chatpipe count fixtures/openai_tool_calls.jsonl

  chatpipe count --json --token-counter tiktoken:cl100k_base train.jsonl
"""


def trim(
    files: InputFiles = None,
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
    to: To = None,
    from_: FromDialect = "auto",
    on_error: OnError = "fail",
    output: Output = None,
    branch: Branch = "active",
    include_hidden: IncludeHidden = False,
    verbose: Verbose = 0,
    quiet: Quiet = False,
) -> None:
    def body() -> None:
        if strategy not in ("last", "first"):
            raise UsageError(f"--strategy must be last or first, got {strategy!r}")
        if strategy == "first" and (start_on or include_system):
            raise UsageError("--start-on and --include-system go with --strategy last")
        starts, ends = message_types(start_on, "--start-on"), message_types(end_on, "--end-on")
        target = check_target(to)
        counter = templated_counter(
            resolve_counter(token_counter), chat_template, template_name, var
        )
        if chat_template is not None and (strategy != "last" or allow_partial or end_on):
            raise UsageError(
                "--chat-template trims with --strategy last, whole messages, no --end-on",
                hint="it keeps the newest messages whose rendered prompt fits --max-tokens",
            )
        inputs = Inputs(
            files, from_, on_error, verbose=verbose, branch=branch, include_hidden=include_hidden
        )

        def dropped(message, why: str) -> None:
            if verbose:
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
            templated=chat_template is not None,
            dropped=dropped,
        )
        write_operation(inputs, output, target, trimmed)

    run(body, quiet)


def count(
    files: InputFiles = None,
    token_counter: TokenCounterOption = "approximate",
    chat_template: CountThroughTemplate = None,
    template_name: TemplateName = None,
    var: Variables = None,
    chars_per_token: Annotated[
        float,
        typer.Option(
            "--chars-per-token",
            metavar="F",
            callback=between(0.001, 1_000_000),
            help="approximate: characters per token (0.001 to 1000000).",
        ),
    ] = 4.0,
    extra_tokens_per_message: Annotated[
        float,
        typer.Option(
            "--extra-tokens-per-message",
            metavar="F",
            callback=between(0, 1_000_000),
            help="approximate: tokens added per message.",
        ),
    ] = 3.0,
    count_name: Annotated[
        bool, typer.Option("--count-name/--no-count-name", help="approximate: count names.")
    ] = True,
    tokens_per_image: Annotated[
        int,
        typer.Option(
            "--tokens-per-image",
            metavar="N",
            min=0,
            max=1_000_000_000,
            help="approximate: tokens per image.",
        ),
    ] = 85,
    use_usage_metadata_scaling: Annotated[
        bool,
        typer.Option(
            "--use-usage-metadata-scaling",
            help="approximate: scale by the provider's reported usage.",
        ),
    ] = False,
    as_json: AsJson = False,
    from_: FromDialect = "auto",
    on_error: OnError = "fail",
    output: Output = None,
    branch: Branch = "active",
    include_hidden: IncludeHidden = False,
    verbose: Verbose = 0,
    quiet: Quiet = False,
) -> None:
    def body() -> None:
        options = {}
        if token_counter == "approximate":
            options = {
                "chars_per_token": chars_per_token,
                "extra_tokens_per_message": extra_tokens_per_message,
                "count_name": count_name,
                "tokens_per_image": tokens_per_image,
                "use_usage_metadata_scaling": use_usage_metadata_scaling,
            }
        plain = templated_counter(
            resolve_counter(token_counter, **options), chat_template, template_name, var
        )
        inputs = Inputs(
            files, from_, on_error, verbose=verbose, branch=branch, include_hidden=include_hidden
        )

        def lines():
            for conversation in inputs.conversations():
                tools = conversation.meta.get("tools")
                counter = for_conversation(plain, conversation)
                if token_counter == "approximate" and isinstance(tools, list) and tools:
                    counter = resolve_counter("approximate", tools=tools, **options)
                if not as_json:
                    yield str(counter.count(conversation.messages)).encode()
                    continue
                messages = list(conversation.messages)
                report = {"tokens": counter.count(messages), "messages": len(messages)}
                if chat_template is None:  # a template's count is of the whole prompt only
                    by_type: dict[str, int] = {}
                    for message in messages:
                        cost = plain.count([message])
                        by_type[message.type] = by_type.get(message.type, 0) + cost
                    report["by_type"] = by_type
                if "id" in conversation.meta:
                    report = {"id": conversation.meta["id"], **report}
                yield orjson.dumps(report)

        write_lines(inputs, output, lines())

    run(body, quiet)


trim.__doc__ = TRIM_HELP
count.__doc__ = COUNT_HELP
__all__ = ["COUNTER_NAMES", "count", "trim"]
