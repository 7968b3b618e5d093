"""``chatpipe trim``: the messages that fit a token budget, as langchain's trim_messages."""

from __future__ import annotations

from ..pipeline.job import Job, on_messages
from ..pipeline.trim_policy import Trim
from .command import ReadingOptions, command
from .diagnostics import warn
from .options import To, choices, opt
from .runtime import execute


@command("output", "records", "engine", "counting")
def trim(
    o: ReadingOptions,
    max_tokens: opt("--max-tokens", "The token budget.", int, "N", show_default=False, min=1) = ...,
    strategy: opt(
        "--strategy",
        "Keep the newest or the oldest.",
        metavar="last|first",
        autocompletion=choices("last", "first"),
    ) = "last",
    allow_partial: opt("--allow-partial", "Keep part of the message at the edge.", bool) = False,
    include_system: opt("--include-system", "Always keep a leading system message.", bool) = False,
    start_on: opt(
        "--start-on",
        "The result starts with this type (repeatable: human, ai, system, tool, function, chat).",
        list[str] | None,
        "TYPE",
    ) = None,
    end_on: opt(
        "--end-on", "The result ends with this type (repeatable).", list[str] | None, "TYPE"
    ) = None,
    keep_tool_pairs: opt(
        "--keep-tool-pairs",
        "Never split a tool call from its results (no orphan tool results, no unanswered calls).",
        bool,
    ) = False,
    to: To = None,
) -> None:
    """Keep the messages that fit a token budget, as langchain's trim_messages.

    The output is in the input's dialect (canonical when that cannot be written; --to
    chooses), so it pipes into every other command. --strategy last keeps the newest
    messages and holds only what the budget can reach, however long the log.

    Examples:

    \b
      chatpipe trim --max-tokens 4000 --start-on human \\
          fixtures/agent_session.jsonl | chatpipe buffer --format xml
      chatpipe trim --max-tokens 4000 --keep-tool-pairs -v \\
          fixtures/agent_session.jsonl
      chatpipe trim --max-tokens 8000 --token-counter tiktoken:cl100k_base \\
          fixtures/openai_chat__cookbook_toy_chat_fine_tuning.jsonl
    """
    target = o.to_dialect(to)

    def dropped(message, why: str) -> None:
        if o.verbose:
            which = getattr(message, "tool_call_id", None) or message.id or ""
            warn(f"trim: dropped a {message.type} message {which}: {why}".rstrip())

    trimmed = Trim(
        max_tokens,
        o.counter(),
        strategy=strategy,
        allow_partial=allow_partial,
        include_system=include_system,
        start_on=start_on,
        end_on=end_on,
        tool_pairs=keep_tool_pairs,
        dropped=dropped,
    )
    execute(o, Job(o.inputs(), on_messages(trimmed), target))
