"""The one worker body: a part of a job's inputs (plan.py) read, operated on and written
by the job's own code, wherever it runs (this process, a forked worker, a Dask worker).

``run_part`` gives a ``PartResult``: the output (or None, when the part wrote it into a
shard of its own), what was read, and the errors, warnings, problems and losses with
their places counted from the part's start. The assembler (assemble.py) turns the places
into the file's and writes the outputs in order, as one process would.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from ..errors import ChatpipeError, Location
from ..io.ranges import PIECE, lines_in, range_records, read_range
from ..io.records import BadRecord, Record
from ..io.sources import Source
from .plan import FILE, LOG, ROWS, Part

ERROR, NOTE, PROBLEM = "error", "note", "problem"


class Event:
    """Something a part said, in its place among its output (``offset``: the output's
    bytes before it): an ``ERROR``, a target's ``NOTE`` or a ``PROBLEM`` (validate), its
    line counted from the part's start (a whole file's: the file's own)."""

    __slots__ = ("col", "file", "hint", "index", "kind", "line", "message", "offset", "what")

    def __init__(
        self,
        what: str,
        offset: int,
        message: str,
        hint: str | None = None,
        line: int | None = None,
        col: int | None = None,
        index: int | None = None,
        kind: str | None = None,
        file: str | None = None,
    ) -> None:
        self.what, self.offset, self.message, self.hint = what, offset, message, hint
        self.line, self.col, self.index, self.kind, self.file = line, col, index, kind, file

    def __reduce__(self) -> Any:
        return Event, tuple(getattr(self, name) for name in _EVENT_FIELDS)


_EVENT_FIELDS = ("what", "offset", "message", "hint", "line", "col", "index", "kind", "file")


@dataclass
class PartResult:
    """What a part gave: its output (``data``; None when written to its shard), the lines
    (rows) it read, the conversations it wrote and, for a range of a message log, the
    messages it read; its events in order, its losses ``(kind, conversation, message
    index)``; the newest branches written (``Run.newest``). A range of a log whose output
    depends on the lines before it says so (``context``) and has no output; ``links``:
    a log range's tool links after it."""

    data: Any = None
    lines: int = 0
    conversations: int = 0
    messages: int = 0
    events: list[Event] = field(default_factory=list)
    losses: list[tuple[str, int, int | None]] = field(default_factory=list)
    newest: tuple[int, int] = (0, 0)
    unanswered: int = 0  # Run.unanswered's count (batch requests with no answer)
    context: bool = False
    links: Any = None


class Shards(NamedTuple):
    """Where parts write their own shards (one a part: Dask's workers): the staging
    folder, Parquet or JSON lines, the folder as the command line named it (for errors)."""

    staging: str
    parquet: bool
    shown: str | None = None


def run_part(part: Part, job: Any, alone: bool = False, shards: Shards | None = None) -> PartResult:
    """The job on one part (first: what a mapper maps). ``alone``: the part's output is a
    file of its own (a message log's stays message per line); ``shards``: the part writes
    it there, as it is made, instead of handing it back."""
    from ..io.shards import ShardStream
    from .plan import shard_name

    shard = None
    if shards is not None:
        extension = ".parquet" if shards.parquet else ".jsonl"
        name = shard_name(part, extension)
        shard = ShardStream(shards.staging, name, shards.parquet, shards.shown)
    out = Output(shard)
    try:
        if part.kind == FILE:
            result = _whole_file(job, part, alone or shard is not None, out)
        elif part.kind == LOG:
            result = log_range(job, part, out)
        else:
            result = _rows(job, part, out)
        result.data = out.close()
    except BaseException:
        out.abort()
        raise
    return result


class Output:
    """A part's output: kept to be handed back, or given to its shard about every
    megabyte of whole lines (a part of any size is written in the memory of a piece)."""

    def __init__(self, shard: Any = None) -> None:
        self.shard = shard
        self.pieces: list[Any] = []
        self.size = self.given = 0

    def line(self, data: bytes) -> None:
        self.pieces.append(data)
        self.pieces.append(b"\n")
        self.size += len(data) + 1

    def raw(self, data: Any) -> None:
        self.pieces.append(data)
        self.size += len(data)

    def borrowed(self, data: Any) -> None:
        """Bytes valid only until the caller's next step (a worker's shared memory)."""
        self.raw(bytes(data))

    def flush(self) -> None:
        pass

    def hand_on(self) -> None:
        """Whole lines so far to the shard, once they make a piece."""
        if self.shard is not None and self.size - self.given >= PIECE:
            self.shard.borrowed(b"".join(self.pieces))
            self.pieces.clear()
            self.given = self.size

    def close(self) -> bytes | None:
        data = b"".join(self.pieces)
        self.pieces.clear()
        if self.shard is None:
            return data
        self.shard.borrowed(data)
        self.shard.close()
        return None

    def abort(self) -> None:
        if self.shard is not None:
            self.shard.abort()


def part_run(job: Any, part: Part) -> Any:
    """The Run of a part of conversation records (LINES, ROWS): every error raised, kept
    by the part with its place."""
    from ..formats.registry import get_dialect
    from .job import Run
    from .reading import ErrorLog

    found = (Source(part.spec), get_dialect(part.dialect), part.shape)
    return Run(job, ErrorLog("fail"), found=found)


def part_records(part: Part) -> Iterator[tuple[int, Record | None]]:
    """(number counted from the part's start, record or None for a blank line)."""
    if part.kind != ROWS:
        yield from range_records(part.spec, part.start, part.end)
        return
    from ..io.parquet import pyarrow, rows_of
    from ..io.sources import open_input

    with open_input(part.spec) as stream:
        parquet = pyarrow().ParquetFile(stream)
        rows = rows_of(parquet, Source(part.spec).name, range(part.start, part.end), 0)
        yield from enumerate(rows, 1)


def _rows(job: Any, part: Part, out: Output) -> PartResult:
    """Conversation records (LINES, ROWS): each read, operated on and written."""
    from .reading import conversations_of

    run = part_run(job, part)
    dialect, options, target = run.reading.found[0][1], job.inputs.options, run.target
    result, kept, lines = PartResult(), 0, 0
    events = result.events
    for number, record in part_records(part):
        lines = number
        if record is None:
            continue
        if target.checks_records:
            events.extend(_problem(p, 0) for p in target.record_problems(run, dialect, record))
            continue
        if isinstance(record, BadRecord):
            error = record.error
            events.append(
                Event(ERROR, out.size, error.message, error.hint, number, error.location.col)
            )
            continue
        at, size = len(events), out.size
        try:
            for conversation in conversations_of(dialect, record, options):
                passed = list(run.operated([conversation], kept))
                kept += len(passed)
                for piece in target.part_lines(run, passed):
                    out.line(piece)
        except ChatpipeError as exc:
            # its place as one process gives it: the line's, or the message's in it
            column = None if record.location.col is None else 1  # (Parquet rows: none)
            place = exc.location or Location(part.spec, number, column)
            line = number if place.line is None else place.line
            events.append(
                Event(
                    ERROR,
                    out.size,
                    str(exc.message),
                    exc.hint,
                    line,
                    place.col,
                    place.message_index,
                )
            )
        if run.notes:  # made while the record was written: before its error, if any
            events[at:at] = [Event(NOTE, size, note) for note in run.notes]
            run.notes.clear()
        out.hand_on()
    return _finished(run, result, lines, kept)


def _problem(problem: Any, offset: int) -> Event:
    place = problem.location
    if place is None:
        return Event(PROBLEM, offset, problem.text, problem.hint, kind=problem.kind)
    return Event(
        PROBLEM,
        offset,
        problem.text,
        problem.hint,
        place.line,
        place.col,
        place.message_index,
        problem.kind,
        place.file,
    )


def _finished(run: Any, result: PartResult, lines: int, conversations: int) -> PartResult:
    found = {} if run.losses is None else run.losses.cases
    result.losses = [(kind, c, m) for kind, cases in found.items() for c, m in cases]
    result.lines, result.conversations = lines, conversations
    result.newest = (run.newest[0], run.newest[1])
    result.unanswered = run.unanswered
    return result


class _Kept:
    """The ErrorLog of a whole-file part: every error kept with the output's size before
    it, the assembler failing the run or skipping it as the job says; ``stop``: the part
    stops at the first, where a run that fails on it stops (``--on-error fail``)."""

    def __init__(self, out: Output, stop: bool) -> None:
        self.out = out
        self.errors: list[tuple[ChatpipeError, int]] = []
        self.skip = not stop
        self.count = 0
        self.skipped: list[ChatpipeError] = []
        self.keep = None

    def handle(self, error: ChatpipeError) -> None:
        self.errors.append((error, self.out.size))
        if not self.skip:
            raise error


def _whole_file(job: Any, part: Part, alone: bool, out: Output) -> PartResult:
    """A whole file; ``alone``: its output is a file of its own (a shard), in the shape a
    run on it alone writes (a message log stays message per line)."""
    from ..formats.registry import get_dialect
    from .job import Job, Run

    one = Job(replace(job.inputs, files=(part.spec,)), job.operation, job.target)
    errors = _Kept(out, stop=job.inputs.on_error == "fail")
    among_others = len(job.inputs.files) > 1 and not alone
    run = Run(one, errors, among_others=among_others)
    if part.dialect:  # detected by the plan: not again
        run.reading.known = (get_dialect(part.dialect), part.shape, part.location)
    result = PartResult()
    read = [0]
    notes: list[tuple[int, Event]] = []  # (errors before it, note)

    def counted(conversations: Iterator[Any]) -> Iterator[Any]:
        for conversation in conversations:
            read[0] += 1
            yield conversation

    target = run.target
    try:
        if target.checks_records:
            for problem in target.file_problems(run, part.spec):
                result.events.append(_problem(problem, out.size))
        else:
            for line in target.part_lines(run, run.operated(counted(run.conversations()))):
                if run.notes:  # made with this line: said before it
                    notes.extend((len(errors.errors), Event(NOTE, out.size, n)) for n in run.notes)
                    run.notes.clear()
                out.line(line)
                out.hand_on()
    except ChatpipeError as exc:  # where the part stops: after what was written before it
        if errors.errors and errors.errors[-1][0] is exc:
            errors.errors.pop()  # (a text cut short by it was written since)
        errors.errors.append((exc, out.size))
    notes.reverse()  # taken from the end, in order
    for number, (error, offset) in enumerate(errors.errors):
        while notes and notes[-1][0] <= number:
            result.events.append(notes.pop()[1])
        place = error.location or Location(None)
        result.events.append(
            Event(
                ERROR,
                offset,
                str(error.message),
                error.hint,
                place.line,
                place.col,
                place.message_index,
            )
        )
    result.events.extend(note for _, note in reversed(notes))
    return _finished(run, result, 0, read[0])


# -- ranges of one message log --------------------------------------------------------------


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
    result = _finished(run, PartResult(), lines_in(data), 0)
    result.messages = end - start
    result.links = (after.pending, after.answered, after.linked)
    return result
