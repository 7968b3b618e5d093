"""``chatpipe buffer``: a conversation as one prompt string (prefix or XML)."""

from __future__ import annotations

from ..pipeline.buffer_pieces import AmbiguityCheck, buffer_pieces
from ..pipeline.job import Job
from ..pipeline.text_target import Texts
from ..render.buffer import FORMATS, TOOL_CALL_FORMATS, BufferRenderer
from .command import ReadingOptions, command, one_of, unescape
from .diagnostics import warn
from .options import Null, Separator, choices, opt
from .runtime import execute


def _label(flag: str, what: str):
    return opt(flag, f"Label of {what} messages.", metavar="TEXT")


@command("output", "engine")
def buffer(
    o: ReadingOptions,
    format: opt(
        "--format",
        "prefix: 'Human: text' lines; xml: <message type=...> elements.",
        metavar="prefix|xml",
        autocompletion=choices(*FORMATS),
    ) = "prefix",
    human_prefix: _label("--human-prefix", "human") = "Human",
    ai_prefix: _label("--ai-prefix", "AI") = "AI",
    system_prefix: _label("--system-prefix", "system") = "System",
    function_prefix: _label("--function-prefix", "function") = "Function",
    tool_prefix: _label("--tool-prefix", "tool") = "Tool",
    message_separator: opt(
        "--message-separator", "Between messages; \\n is a newline.", metavar="TEXT"
    ) = "\\n",
    tool_calls: opt(
        "--tool-calls",
        "Prefix format: tool calls as langchain's Python repr, or as JSON.",
        metavar="repr|json",
        autocompletion=choices(*TOOL_CALL_FORMATS),
    ) = "repr",
    separator: Separator = None,
    null: Null = False,
) -> None:
    """Render a chat log as one prompt string, exactly as langchain's get_buffer_string.

    One conversation in gives its text and a final newline, whatever holds it (a log, a
    JSON document, a file of one row). Several conversations in give one JSON string per
    line, so they stay separable; --separator or -0 print them raw instead. Separators
    understand \\n, \\t and \\0.

    Examples:

    \b
      chatpipe buffer fixtures/openai_tool_calls.jsonl
      chatpipe buffer --format xml --human-prefix User \\
          fixtures/openai_tool_calls.jsonl
      chatpipe trim --max-tokens 4000 fixtures/agent_session.jsonl | chatpipe \\
          buffer --format xml
    """
    one_of("--format", format, FORMATS)
    one_of("--tool-calls", tool_calls, TOOL_CALL_FORMATS)
    renderer = BufferRenderer(
        human_prefix,
        ai_prefix,
        system_prefix=system_prefix,
        function_prefix=function_prefix,
        tool_prefix=tool_prefix,
        format=format,
        tool_calls=tool_calls,
    )
    joiner = unescape(message_separator)
    check = AmbiguityCheck(renderer, warn) if format == "prefix" else None
    between = unescape(separator) if separator is not None else None
    pieces = lambda c: buffer_pieces(renderer, c, joiner, check)  # noqa: E731
    target = Texts(pieces, between, null, notice=check, joiner=joiner)
    execute(o, Job(o.inputs(), None, target))
