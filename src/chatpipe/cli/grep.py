"""``chatpipe grep PATTERN``: the messages that match, a line each, for people (or JSON
lines for machines)."""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Iterator
from typing import Annotated, Optional

import orjson
import typer

from ..errors import UsageError
from ..ops import facts
from ..ops.grep import Found, Grep, Hit, fields
from ..pipeline.job import Job
from ..pipeline.targets import Lines
from .options import AsJson, ReadingOptions, reads
from .runtime import execute, run

HELP = """Search messages for a regular expression (Python's syntax), in every dialect chatpipe
reads (exports' trees, streams, Parquet...): one line per matching message,

  FILE:LINE: title › #N role: …text around the match…

the match highlighted on a terminal. LINE is where the conversation's record starts; #N
the message's number in it. --in tools searches tool-call arguments (as JSON) and tool
results, --in all those and the texts and reasoning. -C N shows N messages either side
(marked with - instead of :), -c the number of matches per conversation, --json one JSON
object per match. Exit status 1 when nothing matches, as grep's.

Examples:

  chatpipe grep -i 'refund' conversations.json

  chatpipe grep --in tools -C 1 'rm -rf' fixtures/agent_session.jsonl

  chatpipe grep -c --json 'T3BlbkFJ' logs/*.jsonl
"""

_WIDTH = 100  # characters of text shown around the matches
_MARK, _END = "\x1b[01;31m", "\x1b[m"


@reads()
def grep(
    reading: ReadingOptions,
    pattern: Annotated[str, typer.Argument(help="A regular expression.", show_default=False)],
    ignore_case: Annotated[bool, typer.Option("-i", "--ignore-case", help="Any case.")] = False,
    where: Annotated[
        str,
        typer.Option(
            "--in", metavar="text|tools|all", help="Message texts, tool calls and results, or all."
        ),
    ] = "text",
    role: Annotated[
        Optional[list[str]],  # noqa: UP045 - typer reads the annotation at run time
        typer.Option(
            "--role",
            metavar="ROLE",
            help="Only messages of this role (repeatable).",
            show_default=False,
        ),
    ] = None,
    context: Annotated[
        int, typer.Option("-C", "--context", metavar="N", help="Messages shown either side.")
    ] = 0,
    count: Annotated[
        bool, typer.Option("-c", "--count", help="The number of matches per conversation.")
    ] = False,
    as_json: AsJson = False,
    color: Annotated[
        str,
        typer.Option("--color", metavar="auto|always|never", help="Highlight the matches."),
    ] = "auto",
) -> None:
    def body() -> None:
        if color not in ("auto", "always", "never"):
            raise UsageError(f"--color must be auto, always or never, got {color!r}")
        search = Grep(
            pattern, ignore_case=ignore_case, where=where, roles=role or (), context=context
        )
        paint = color == "always" or (
            color == "auto" and reading.output is None and sys.stdout.isatty()
        )
        state = {"hits": 0, "first": True}

        def lines(conversation) -> Iterator[bytes]:
            found = search.search(conversation)
            if found is None:
                return
            state["hits"] += 1
            if count:
                yield _count_line(found, as_json)
                return
            if not as_json and context and not state["first"]:
                yield b"--"
            state["first"] = False
            yield from (
                (_json_line(found, hit) for hit in found.hits)
                if as_json
                else _text_lines(found, search, paint)
            )

        execute(reading, Job(reading.inputs(), None, Lines(lines, many=True)))
        if not state["hits"]:
            raise typer.Exit(1)

    run(body, reading.quiet)


def _where(found: Found) -> str:
    location = found.conversation.location
    if location is None:
        return "-"
    return location.file if location.line is None else f"{location.file}:{location.line}"


def _count_line(found: Found, as_json: bool) -> bytes:
    if as_json:
        record = {"file": _where(found), "conversation": facts.conversation_id(found.conversation)}
        record["title"] = facts.title(found.conversation)
        record["count"] = found.count
        return orjson.dumps(record)
    head = _where(found)
    title = facts.title(found.conversation)
    return f"{head}: {title + ': ' if title else ''}{found.count}".encode(
        "utf-8", "surrogateescape"
    )


def _json_line(found: Found, hit: Hit) -> bytes:
    location = found.conversation.location
    record = {
        "file": None if location is None else location.file,
        "line": None if location is None else location.line,
        "conversation": facts.conversation_id(found.conversation),
        "title": facts.title(found.conversation),
        "message": hit.index,
        "role": hit.role,
        "field": hit.field,
        "tool": hit.tool,
        "matches": [hit.text[s:e] for s, e in hit.spans],
        "spans": hit.spans,
        "text": hit.text,
    }
    return orjson.dumps(record)


def _text_lines(found: Found, search: Grep, paint: bool) -> Iterator[bytes]:
    head = _where(found)
    title = facts.title(found.conversation)
    prefix = f"{title} › " if title else ""
    by_index: dict[int, list[Hit]] = {}
    for hit in found.hits:
        by_index.setdefault(hit.index, []).append(hit)
    for index in found.shown:
        hits = by_index.get(index)
        if hits is None:  # context: the message's text, as the search sees it
            message = found.messages[index]
            text = next((t for _, t, _ in fields(message, ("text", "result"))), "")
            shown = _snippet(text, [], paint)
            line = f"{head}- {prefix}#{index + 1} {facts.role(message)}: {shown}"
            yield line.encode("utf-8", "surrogateescape")
            continue
        for hit in hits:
            who = hit.role
            if hit.field == "arguments":
                who += f" {hit.tool}()"
            elif hit.tool:
                who += f" {hit.tool}"
            elif hit.field == "reasoning":
                who += " (reasoning)"
            shown = _snippet(hit.text, hit.spans, paint)
            yield f"{head}: {prefix}#{index + 1} {who}: {shown}".encode("utf-8", "surrogateescape")


_SPACE = re.compile(r"\s+")


def _flat(text: str) -> str:
    return _SPACE.sub(" ", text)


def _snippet(text: str, spans: list[tuple[int, int]], paint: bool) -> str:
    """The text around the matches on one line: whitespace runs as one space, at most
    ``_WIDTH`` characters either side of them, the matches marked when ``paint``."""
    if not spans:
        flat = _flat(text).strip()
        return flat if len(flat) <= 2 * _WIDTH else flat[: 2 * _WIDTH] + "…"
    low, high = max(0, spans[0][0] - _WIDTH), min(len(text), spans[-1][1] + _WIDTH)
    pieces = ["…" if low else ""]
    at = low
    for start, end in spans:
        pieces.append(_flat(text[at:start]))
        match = _flat(text[start:end])
        pieces.append(f"{_MARK}{match}{_END}" if paint else match)
        at = end
    pieces.append(_flat(text[at:high]))
    pieces.append("…" if high < len(text) else "")
    return "".join(pieces).strip()


# PATTERN comes before the files on the command line
_parameters = list(inspect.signature(grep).parameters.values())
_pattern = next(p for p in _parameters if p.name == "pattern")
grep.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [_pattern, *(p for p in _parameters if p.name != "pattern")], return_annotation=None
)
grep.__doc__ = HELP
