"""``chatpipe filter`` and ``chatpipe merge``: langchain's filter_messages and
merge_message_runs over a log, one message at a time."""

from __future__ import annotations

from ..errors import UsageError
from ..ops.facts import user_types
from ..ops.filter import iter_filter, iter_merge
from ..ops.operation import stateless
from ..pipeline.job import Job, on_messages
from .command import ReadingOptions, command, unescape
from .options import To, opt
from .runtime import execute


def _many(flag: str, what: str):
    return opt(flag, f"{what} (repeatable).", list[str] | None, "VALUE")


@command("output", "records", "engine")
def filter_(
    o: ReadingOptions,
    include_names: _many("--include-names", "Keep messages with this name") = None,
    exclude_names: _many("--exclude-names", "Drop messages with this name") = None,
    include_types: _many("--include-types", "Keep this type: human, ai, system, tool...") = None,
    exclude_types: _many("--exclude-types", "Drop this type") = None,
    include_ids: _many("--include-ids", "Keep the message with this id") = None,
    exclude_ids: _many("--exclude-ids", "Drop the message with this id") = None,
    exclude_tool_calls: _many("--exclude-tool-calls", "Drop this tool call and its results") = None,
    exclude_all_tool_calls: opt(
        "--exclude-all-tool-calls",
        "Drop every AI message with tool calls and every tool result.",
        bool,
    ) = False,
    to: To = None,
) -> None:
    """Keep or drop messages by type, name, id or tool call (langchain's filter_messages).

    Excludes win over includes; includes are OR-ed. Excluding a tool call drops its results,
    its tool_use / tool_call content blocks, and an AI message left with no calls.

    Examples:

    \b
      chatpipe filter --include-types human --include-types ai \\
          fixtures/agent_session.jsonl
      chatpipe filter --exclude-all-tool-calls fixtures/openai_tool_calls.jsonl
    """
    user_types(include_types, "--include-types")
    user_types(exclude_types, "--exclude-types")
    if exclude_all_tool_calls and exclude_tool_calls:
        raise UsageError("--exclude-all-tool-calls already drops every tool call")
    target = o.to_dialect(to)
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

    # (a function of the options given, which keeps nothing: on the command's word)
    execute(o, Job(o.inputs(), on_messages(stateless(kept), per_message=True), target))


@command("output", "records", "engine")
def merge(
    o: ReadingOptions,
    chunk_separator: opt(
        "--chunk-separator", "Between merged texts; \\n is a newline.", metavar="TEXT"
    ) = "\\n",
    to: To = None,
) -> None:
    """Merge runs of consecutive messages of one kind, as langchain's merge_message_runs.

    Text contents are joined with the chunk separator (\\n by default; \\n and \\t are
    understood); tool calls and usage add up. Messages from different names or roles stay apart.

    Examples:

    \b
      chatpipe merge fixtures/openai_tool_calls.jsonl
      chatpipe merge --chunk-separator ' ' fixtures/agent_session.jsonl \\
          | chatpipe buffer
    """
    target = o.to_dialect(to)
    separator = unescape(chunk_separator)

    def merged(conversation):
        return iter_merge(conversation.messages, chunk_separator=separator)

    execute(o, Job(o.inputs(), on_messages(merged), target))
