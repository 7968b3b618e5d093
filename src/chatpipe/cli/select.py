"""``chatpipe select``: the conversations that match every option given."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..errors import UsageError
from ..ops import facts
from ..ops.count import resolve_counter
from ..ops.select import Criteria, Selector
from ..pipeline.job import Job
from ..pipeline.targets import Lines
from .options import ReadingOptions, To, reads, to_dialect
from .runtime import execute, run
from .template import CountThroughTemplate, TemplateName, Variables, templated_counter
from .trim import TokenCounterOption

HELP = """Keep the conversations that match every option given (--invert: those that do not).

Times are the conversation's creation time, or its first message's where the record has
none (ISO dates or seconds since 1970; UTC unless an offset is given): --after keeps times
at or after DATE, --before times before it; a conversation without a time matches
neither. --model, --title and --grep are regular expressions searched anywhere (-i:
ignoring case). --has looks for tool-calls, images, reasoning, system or attachments.

The output is in the input's dialect (--to another); --ids prints each id instead (the
conversation's place where it has none).

Examples:

  chatpipe select --has tool-calls --max-tokens 4000 train.jsonl -o small_agentic.jsonl

  chatpipe select --after 2024-05-01 --before 2024-05-08 --model 'gpt-4' conversations.json

  chatpipe select --grep 'refund' --grep-role user --ids fixtures/agent_session.jsonl
"""


def _many(flag: str, metavar: str, what: str):
    return Annotated[
        Optional[list[str]],  # noqa: UP045 - typer reads the annotation at run time
        typer.Option(flag, metavar=metavar, help=f"{what} (repeatable).", show_default=False),
    ]


def _one(flag: str, metavar: str, what: str, kind: type = str):
    return Annotated[
        Optional[kind],  # noqa: UP045
        typer.Option(flag, metavar=metavar, help=what, show_default=False),
    ]


@reads(records=True)
def select(
    reading: ReadingOptions,
    ids: _many("--id", "ID", "Keep the conversation with this id") = None,
    title: _one("--title", "REGEX", "Its title matches.") = None,
    after: _one("--after", "DATE", "Created at or after DATE.") = None,
    before: _one("--before", "DATE", "Created before DATE.") = None,
    model: _one("--model", "REGEX", "A model it names matches.") = None,
    min_messages: _one("--min-messages", "N", "At least N messages.", int) = None,
    max_messages: _one("--max-messages", "N", "At most N messages.", int) = None,
    min_tokens: _one("--min-tokens", "N", "At least N tokens (--token-counter).", int) = None,
    max_tokens: _one("--max-tokens", "N", "At most N tokens (--token-counter).", int) = None,
    token_counter: TokenCounterOption = "approximate",
    chat_template: CountThroughTemplate = None,
    template_name: TemplateName = None,
    var: Variables = None,
    has: _many(
        "--has", "WHAT", "Holds tool-calls, images, reasoning, system or attachments"
    ) = None,
    role: _many(
        "--role", "ROLE", "Has a turn of this role (user, assistant, system, tool...)"
    ) = None,
    grep: _one("--grep", "REGEX", "Some message's text matches.") = None,
    grep_role: _many("--grep-role", "ROLE", "--grep looks only at messages of this role") = None,
    ignore_case: Annotated[
        bool, typer.Option("-i", "--ignore-case", help="--title, --model, --grep: any case.")
    ] = False,
    invert: Annotated[
        bool, typer.Option("--invert", help="Keep the conversations that do not match.")
    ] = False,
    only_ids: Annotated[
        bool, typer.Option("--ids", help="Print the ids of the conversations kept, one a line.")
    ] = False,
    to: To = None,
) -> None:
    def body() -> None:
        counter = None
        if chat_template is not None and min_tokens is None and max_tokens is None:
            raise UsageError("--chat-template counts tokens for --min-tokens and --max-tokens")
        if min_tokens is not None or max_tokens is not None:
            counter = templated_counter(
                resolve_counter(token_counter), chat_template, template_name, var
            )
        keep = Selector(
            Criteria(
                ids=tuple(ids or ()),
                title=title,
                after=after,
                before=before,
                model=model,
                min_messages=min_messages,
                max_messages=max_messages,
                min_tokens=min_tokens,
                max_tokens=max_tokens,
                token_counter=counter or "approximate",
                has=tuple(has or ()),
                roles=tuple(role or ()),
                grep=grep,
                grep_roles=tuple(grep_role or ()),
                ignore_case=ignore_case,
                invert=invert,
            )
        )
        if only_ids:
            number = iter(range(1 << 62))

            def line(conversation) -> bytes:
                return facts.label(conversation, next(number)).encode("utf-8", "surrogateescape")

            target = Lines(line)
        else:
            target = to_dialect(reading, to)
        execute(reading, Job(reading.inputs(), keep, target))

    run(body, reading.quiet)


select.__doc__ = HELP
