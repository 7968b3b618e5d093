"""Ranges of one message log (LOG parts): read by a worker knowing nothing of what came
before them; a range whose output would depend on it (an id given to a call or result, a
warning, an error: they number messages) hands back only that, and the process that puts
the parts together reads it again knowing it all (``log_again``), as one process reads it."""

from __future__ import annotations

from typing import Any

from ..errors import ChatpipeError
from ..io.ranges import lines_in, read_range
from ..io.sources import Source
from .part_result import Output, PartResult, finished
from .plan import Part


class _Context(Exception):
    """A range whose output depends on what came before it."""


class _Flagged:
    """A worker's ErrorLog: an error's place depends on the lines before it."""

    skip = False

    def handle(self, error: ChatpipeError) -> None:
        raise _Context


def log_range(job: Any, part: Part, out: Output) -> PartResult:
    """A range of a message log read knowing nothing of what came before it: its output
    and what it changed (messages read, tool links); or, when its output would depend on
    what came before (an id given to a call or result, a warning, an error: they number
    messages), only that (``context``), to be read again where that is known
    (``log_again``)."""
    from ..formats.tool_links import ToolLinks
    from .job import Run

    data = read_range(part.spec, part.start, part.end)
    run = Run(job, _Flagged(), found=_log_found(part), say=_flag)
    links = ToolLinks()
    links.pending = None  # the calls before the range are not known
    made = Output()
    try:
        result = _log_piece(run, part, data, made, 1, 0, links)
    except (_Context, ChatpipeError):
        return PartResult(lines=lines_in(data), context=True)
    if result.links[2]:  # an id given: it may need the calls before
        return PartResult(lines=result.lines, context=True)
    out.raw(made.close())
    return result


def _flag(_: str) -> None:
    raise _Context


def _log_found(part: Part) -> tuple[Any, Any, str]:
    from ..formats.detect import MESSAGES
    from ..formats.registry import get_dialect

    return Source(part.spec), get_dialect(part.dialect), MESSAGES


def log_again(run: Any, part: Part, line: int, start: int, links: Any, out: Any) -> PartResult:
    """In the process that puts the parts together: a range of a log read with its first
    line's and first message's numbers and the links before it, its errors and warnings
    the run's own. What it made before an error that stops the run is written, as one
    process writes it."""
    from ..formats.tool_links import ToolLinks
    from .job import Run

    data = read_range(part.spec, part.start, part.end)
    again = Run(run.job, run.errors, found=_log_found(part), say=run.note)
    before = ToolLinks(list(links.pending or ()), set(links.answered))
    result = _log_piece(again, part, data, out, line, start, before)
    pending, answered, _ = result.links
    result.links = ToolLinks(list(pending or ()), answered)
    return result


def _log_piece(
    run: Any, part: Part, data: bytes, out: Any, line: int, start: int, links: Any
) -> PartResult:
    """A range read, operated on and written into ``out`` by the job's own code."""
    from .reading import log_piece

    dialect = run.reading.found[0][1]
    conversation, read = log_piece(
        dialect, part.spec, data, run.errors, part.location, line=line, start=start, links=links
    )
    run.target.log_lines(run, run.operated([conversation]), out)
    end, after = read()
    result = finished(run, PartResult(), lines_in(data), 0)
    result.messages = end - start
    result.links = (after.pending, after.answered, after.linked)
    return result
