"""``chatpipe select``: the conversations that match every option given."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

from ..errors import UsageError
from ..model import Conversation
from ..ops import facts
from ..ops.select import Criteria, Selector
from ..pipeline.job import Job
from ..pipeline.targets import Lines
from ..render.markup import terminal_safe
from .command import ReadingOptions, command
from .options import To, opt
from .runtime import execute


def _id_line(number: Iterator[int]) -> Callable[[Conversation], bytes]:
    """--ids' line for a conversation: its id on one line, its control characters (a
    line feed, an escape that would set the terminal's title) written out as ``show``
    writes them."""

    def line(conversation: Conversation) -> bytes:
        text = terminal_safe(facts.label(conversation, next(number)), one_line=True)
        return text.encode("utf-8", "surrogateescape")

    return line


def _many(flag: str, metavar: str, what: str):
    return opt(flag, f"{what} (repeatable).", list[str] | None, metavar)


def _one(flag: str, metavar: str, what: str, kind: type = str):
    return opt(flag, what, kind | None, metavar)


@command("output", "records", "engine", "counting")
def select(
    o: ReadingOptions,
    ids: _many("--id", "ID", "Keep the conversation with this id") = None,
    title: _one("--title", "REGEX", "Its title matches.") = None,
    after: _one("--after", "DATE", "Created at or after DATE.") = None,
    before: _one("--before", "DATE", "Created before DATE.") = None,
    model: _one("--model", "REGEX", "A model it names matches.") = None,
    min_messages: _one("--min-messages", "N", "At least N messages.", int) = None,
    max_messages: _one("--max-messages", "N", "At most N messages.", int) = None,
    min_tokens: _one("--min-tokens", "N", "At least N tokens (--token-counter).", int) = None,
    max_tokens: _one("--max-tokens", "N", "At most N tokens (--token-counter).", int) = None,
    has: _many(
        "--has", "WHAT", "Holds tool-calls, images, reasoning, system or attachments"
    ) = None,
    roles: _many(
        "--role", "ROLE", "Has a turn of this role (user, assistant, system, tool...)"
    ) = None,
    grep: _one("--grep", "REGEX", "Some message's text matches.") = None,
    grep_roles: _many("--grep-role", "ROLE", "--grep looks only at messages of this role") = None,
    ignore_case: opt("-i --ignore-case", "--title, --model, --grep: any case.", bool) = False,
    invert: opt("--invert", "Keep the conversations that do not match.", bool) = False,
    only_ids: opt("--ids", "Print the ids of the conversations kept, one a line.", bool) = False,
    to: To = None,
) -> None:
    """Keep the conversations that match every option given (--invert: those that do not).

    Times are the conversation's creation time, or its first message's where the record has
    none (ISO dates or seconds since 1970; UTC unless an offset is given): --after keeps times
    at or after DATE, --before times before it; a conversation without a time matches
    neither. --model, --title and --grep are regular expressions searched anywhere (-i:
    ignoring case). --has looks for tool-calls, images, reasoning, system or attachments.

    The output is in the input's dialect (--to another); --ids prints each id instead (the
    conversation's place where it has none).

    Examples:

    \b
      chatpipe select --has tool-calls --max-tokens 4000 \\
          fixtures/chatgpt_export__pkuppens_2023_conversations_subset.json \\
          -o small_agentic.jsonl
      chatpipe select --after 2023-05-20 --before 2023-06-01 --model 'gpt-4' \\
          fixtures/chatgpt_export__pkuppens_2023_conversations_subset.json
      chatpipe select --grep 'fail on CI' --grep-role user --ids \\
          fixtures/agent_session.jsonl
    """
    tokens = min_tokens is not None or max_tokens is not None
    if o.chat_template is not None and not tokens:
        raise UsageError("--chat-template counts tokens for --min-tokens and --max-tokens")
    asked = dict(locals())
    criteria = {name: asked[name] for name in Criteria.__dataclass_fields__ if name in asked}
    criteria["token_counter"] = o.counter() if tokens else "approximate"
    keep = Selector(Criteria(**criteria))
    if only_ids:
        number = itertools.count()
        target = Lines(_id_line(number), one_process=True)  # (numbered in the run's order)
    else:
        target = o.to_dialect(to)
    execute(o, Job(o.inputs(), keep, target))
