"""The one worker body: a part of a job's inputs (plan.py) read, operated on and written
by the job's own code, wherever it runs (this process, a forked worker, a Dask worker).

``run_part`` gives a ``PartResult``: the output (or None, when the part wrote it into a
shard of its own), what was read, and the errors, warnings, problems and losses with
their places counted from the part's start. The assembler (assemble.py) turns the places
into the file's and writes the outputs in order, as one process would.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from ..errors import ChatpipeError, Location, UsageError
from ..io.ranges import range_records
from ..io.records import BadRecord, Record
from ..io.sources import Source
from ..ops.operation import PerPart
from .part_result import (
    ERROR,
    NOTE,
    PROBLEM,
    USAGE,
    Event,
    Output,
    PartResult,
    Shards,
    finished,
)
from .plan import FILE, LOG, ROWS, Part


def run_part(part: Part, job: Any, alone: bool = False, shards: Shards | None = None) -> PartResult:
    """The job on one part (first: what a mapper maps). ``alone``: the part's output is a
    file of its own (a message log's stays message per line); ``shards``: the part writes
    it there, as it is made, instead of handing it back."""
    from ..io.shards import ShardStream
    from .plan import shard_name

    own = isinstance(job.operation, PerPart)
    if own:  # an operation with a state of its own: a copy for this part
        job = replace(job, operation=job.operation.for_part(part.seq))
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
            from .log_parts import log_range

            result = log_range(job, part, out)
        else:
            result = _rows(job, part, out)
        result.data = out.close()
        if own:
            result.state = job.operation.part_state()
    except BaseException:
        out.abort()
        raise
    return result


def part_run(job: Any, part: Part) -> Any:
    """The Run of a part of conversation records (LINES, ROWS): every error raised, kept
    by the part with its place."""
    from ..formats.registry import get_dialect
    from .job import Run
    from .opening import ErrorLog

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
            usage = isinstance(exc, UsageError)  # (a pattern too slow): the run ends there
            events.append(
                Event(
                    ERROR,
                    out.size,
                    str(exc.message),
                    exc.hint,
                    line,
                    place.col,
                    place.message_index,
                    USAGE if usage else None,
                )
            )
            if usage:
                break
        if run.notes:  # made while the record was written: before its error, if any
            events[at:at] = [Event(NOTE, size, note) for note in run.notes]
            run.notes.clear()
        out.hand_on()
    return finished(run, result, lines, kept)


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
                USAGE if isinstance(error, UsageError) else None,
            )
        )
    result.events.extend(note for _, note in reversed(notes))
    return finished(run, result, 0, read[0])
