"""``chatpipe buffer``: a conversation as one prompt string (prefix or XML)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..errors import DataError, UsageError
from ..formats.lane import ROLE_TYPES
from ..formats.write import LaneWriter
from ..render.buffer import FORMATS, TOOL_CALL_FORMATS, BufferRenderer, TurnLabels
from .framing import TextFraming
from .options import (
    Branch,
    FromDialect,
    IncludeHidden,
    InputFiles,
    Null,
    OnError,
    Output,
    Quiet,
    Separator,
    Verbose,
    unescape,
)
from .runtime import Inputs, output_sink, run, warn

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


def buffer(
    files: InputFiles = None,
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
    from_: FromDialect = "auto",
    on_error: OnError = "fail",
    output: Output = None,
    branch: Branch = "active",
    include_hidden: IncludeHidden = False,
    verbose: Verbose = 0,
    quiet: Quiet = False,
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
        inputs = Inputs(
            files, from_, on_error, verbose=verbose, branch=branch, include_hidden=include_hidden
        )
        joiner = unescape(message_separator)
        check = _AmbiguityCheck(renderer) if format == "prefix" else None
        with output_sink(output, inputs.files) as sink:
            framing = TextFraming(inputs, sink, separator, null)
            for conversation in inputs.conversations():
                framing.write(_render(renderer, conversation, joiner, check))
            framing.close()
        inputs.report()

    run(body, quiet)


def _render(renderer, conversation, joiner, check):
    """The conversation's pieces (renderings and separators), one message at a time."""
    if conversation.lane is not None:
        yield from _render_lane(renderer, conversation, joiner, check)
        return
    for index, message in enumerate(conversation.messages):
        text = _rendered(renderer, message, index, conversation)
        if check is not None and not check.warned:
            check(message, index, conversation)
        yield joiner + text if index else text


def _rendered(renderer, message, index, conversation) -> str:
    try:
        return renderer.render(message)
    except ValueError:
        raise DataError(
            f"cannot render a {message.type} message in a buffer string",
            conversation.location.at_message(index) if conversation.location else None,
        ) from None


def _render_lane(renderer, conversation, joiner, check):
    """The same pieces from the fast lane, a batch of messages at a time."""
    chats = {}  # chat messages by index: the ambiguity check takes their roles as labels

    def one(index, message):
        if check is not None and message.type == "chat":
            chats[index] = message
        return [_rendered(renderer, message, index, conversation)]

    writer = LaneWriter(renderer.plain, one, renderer.lane_fast(ROLE_TYPES))
    breaks = joiner.count("\n")
    index = 0
    for texts in conversation.lane.write(writer):
        text = joiner.join(texts)
        # only a message with a line break can hold a line that reads as a turn
        if check is not None and not check.warned and text.count("\n") > breaks * (len(texts) - 1):
            check.texts(texts, index, chats, conversation)
        chats.clear()
        yield joiner + text if index else text
        index += len(texts)


class _AmbiguityCheck:
    """Warns once when message text starts a line with a role label ('Human: ')."""

    def __init__(self, renderer: BufferRenderer) -> None:
        self.labels = TurnLabels(label for _, label in renderer.labels)
        self.warned = False

    def texts(self, texts, index, chats, conversation) -> None:
        """The check on rendered texts, the messages at ``index`` on; ``chats``: the chat
        messages among them by index, checked as messages (their roles become labels).

        A rendering is its label, ': ', the text, and tool calls as one line: a line it
        starts with a label is a line the text starts with it.
        """
        for k, text in enumerate(texts, index):
            if self.warned:
                return
            message = chats.get(k)
            if message is not None:
                self(message, k, conversation)
            elif "\n" in text:
                self._found(self.labels.find(text), k, conversation)

    def __call__(self, message, index, conversation) -> None:
        if self.warned:
            return
        content = message.content
        if "\n" not in (content if isinstance(content, str) else message.text):
            return  # one line: nothing in it can start a line
        if message.type == "chat" and isinstance(message.role, str):
            self.labels.add(message.role)
        self._found(self.labels.find(message.text), index, conversation)

    def _found(self, found, index, conversation) -> None:
        if found is not None:
            self.warned = True
            where = f"{conversation.location.file}: " if conversation.location else ""
            warn(
                f"warning: {where}message {index + 1} has a line starting {found!r}, which reads "
                "as a new turn in the prefix format (use --format xml to keep turns apart)"
            )


buffer.__doc__ = HELP
