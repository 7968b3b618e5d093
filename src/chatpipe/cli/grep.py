"""``chatpipe grep PATTERN``: the messages that match, a line each, for people (or JSON
lines for machines)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ..ops.grep import Grep, GrepLines
from ..pipeline.job import Job
from ..pipeline.targets import Lines
from .command import ReadingOptions, command, one_of
from .options import AsJson, choices, opt
from .runtime import execute

_MARK = ("\x1b[01;31m", "\x1b[m")  # a match, as grep colours it


@command("output", "engine")
def grep(
    o: ReadingOptions,
    pattern: Annotated[str, typer.Argument(help="A regular expression.", show_default=False)],
    ignore_case: opt("-i --ignore-case", "Any case.", bool) = False,
    where: opt(
        "--in",
        "Message texts, tool calls and results, or all.",
        metavar="text|tools|all",
        autocompletion=choices("text", "tools", "all"),
    ) = "text",
    role: opt(
        "--role", "Only messages of this role (repeatable).", list[str] | None, "ROLE"
    ) = None,
    context: opt("-C --context", "Messages shown either side.", int, "N") = 0,
    count: opt("-c --count", "The number of matches per conversation.", bool) = False,
    as_json: AsJson = False,
    color: opt(
        "--color",
        "Highlight the matches.",
        metavar="auto|always|never",
        autocompletion=choices("auto", "always", "never"),
    ) = "auto",
) -> None:
    """Search messages for a regular expression (Python's syntax), in every dialect chatpipe reads.

    One line per matching message, in exports' trees, streams, Parquet... as in any log:

    \b
      FILE:LINE: title › #N role: …text around the match…

    the match highlighted on a terminal. LINE is where the conversation's record starts; #N
    the message's number in it. --in tools searches tool-call arguments (as JSON) and tool
    results, --in all those and the texts and reasoning. -C N shows N messages either side
    (marked with - instead of :), -c the number of matches per conversation, --json one JSON
    object per match. Exit status 1 when nothing matches, as grep's.

    Examples:

    \b
      chatpipe grep -i 'wiki' \\
          fixtures/chatgpt_export__pkuppens_2023_conversations_subset.json
      chatpipe grep --in tools -C 1 'pytest' fixtures/agent_session.jsonl
      chatpipe grep -c --json 'weather' fixtures/openai_tool_calls.jsonl \\
          fixtures/openai_chat__*.jsonl
    """
    one_of("--color", color, ("auto", "always", "never"))
    search = Grep(pattern, ignore_case=ignore_case, where=where, roles=role or (), context=context)
    paint = color == "always" or (color == "auto" and o.output is None and sys.stdout.isatty())
    lines = GrepLines(search, as_json=as_json, count=count, mark=_MARK if paint else None)
    execute(o, Job(o.inputs(), None, Lines(lines, many=True, one_process=True)))
    if not lines.hits:
        raise typer.Exit(1)
