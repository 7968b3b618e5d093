"""``chatpipe buffer``: a conversation as one prompt string (prefix or XML)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..errors import UsageError
from ..pipeline.buffer import AmbiguityCheck, buffer_pieces
from ..pipeline.job import Job
from ..pipeline.texts import Texts
from ..render.buffer import FORMATS, TOOL_CALL_FORMATS, BufferRenderer
from .options import Jobs, Null, ReadingOptions, Separator, reads, unescape
from .runtime import execute, run, warn

HELP = """Render a chat log as one prompt string, exactly as langchain's get_buffer_string.

One conversation in gives its text and a final newline, whatever holds it (a log, a
JSON document, a file of one row). Several conversations in give one JSON string per
line, so they stay separable; --separator or -0 print them raw instead. Separators
understand \\n, \\t and \\0.

Examples:

  chatpipe buffer fixtures/openai_tool_calls.jsonl

  chatpipe buffer --format xml --human-prefix User fixtures/openai_tool_calls.jsonl

  chatpipe trim --max-tokens 4000 session.jsonl | chatpipe buffer --format xml
"""


def _text_option(flag: str, what: str):
    return Annotated[str, typer.Option(flag, metavar="TEXT", help=what)]


@reads()
def buffer(
    reading: ReadingOptions,
    format: Annotated[
        str,
        typer.Option(
            "--format",
            metavar="prefix|xml",
            help="prefix: 'Human: text' lines; xml: <message type=...> elements.",
        ),
    ] = "prefix",
    human_prefix: _text_option("--human-prefix", "Label of human messages.") = "Human",
    ai_prefix: _text_option("--ai-prefix", "Label of AI messages.") = "AI",
    system_prefix: _text_option("--system-prefix", "Label of system messages.") = "System",
    function_prefix: _text_option("--function-prefix", "Label of function messages.") = "Function",
    tool_prefix: _text_option("--tool-prefix", "Label of tool messages.") = "Tool",
    message_separator: _text_option(
        "--message-separator", "Between messages; \\n is a newline."
    ) = "\\n",
    tool_calls: Annotated[
        str,
        typer.Option(
            "--tool-calls",
            metavar="repr|json",
            help="Prefix format: tool calls as langchain's Python repr, or as JSON.",
        ),
    ] = "repr",
    separator: Separator = None,
    null: Null = False,
    jobs: Jobs = 1,
) -> None:
    def body() -> None:
        if format not in FORMATS:
            raise UsageError(f"--format must be prefix or xml, got {format!r}")
        if tool_calls not in TOOL_CALL_FORMATS:
            raise UsageError(f"--tool-calls must be repr or json, got {tool_calls!r}")
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
        target = Texts(
            lambda c: buffer_pieces(renderer, c, joiner, check),
            between,
            null,
            notice=check,
            joiner=joiner,
        )
        execute(reading, Job(reading.inputs(), None, target), jobs)

    run(body, reading.quiet)


buffer.__doc__ = HELP
