"""``--jobs`` on one message log: its lines cut into ranges that forked workers read,
operate on and write with the job's own code, put back in order here.

A message log is one conversation, so a range's output could depend on what came
before it: the number of its first message (said in warnings and errors, and in the
ids given to calls that have none), the calls that results without an id answer,
whether the run has warned already. A worker reads its range knowing none of these;
when its output would depend on them (an id given, a warning, an error), it hands
back only that, and this process reads the range again knowing them all, as one
process reads it. Every other range gives the same bytes whatever came before it,
and is written as the worker made it.

Only outputs made message by message qualify: records of the OpenAI and canonical
dialects (``convert``, ``openai``, ``filter``) and buffer strings.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ..errors import ChatpipeError, Location
from ..io.sources import Source, is_url, text_start
from .job import Job, Run
from .parts import JOB_BLOCKSIZE, Done, line_ranges, lines_in, read_range

# dialects whose message lines are read one by one, and written one by one (a log's
# other dialects chain their lines: trees of turns, streamed events)
_DIALECTS = ("openai", "canonical")


@dataclass(frozen=True)
class Log:
    """A message log that can be read in ranges: its file, its dialect, and where its
    first record is (the conversation's place, which errors name)."""

    spec: str
    dialect: Any
    location: Location


def one_log(job: Job) -> Log | None:
    """The job's only input, when it is a message log whose output is made message by
    message; None otherwise."""
    from ..formats.detect import MESSAGES
    from ..formats.registry import reading_dialect
    from .reading import ErrorLog, open_records

    inputs, run = job.inputs, Run(job)
    if len(inputs.files) != 1 or inputs.group_by or not _per_message(run):
        return None
    spec = inputs.files[0]
    if spec == "-" or is_url(spec) or not os.path.isfile(spec):
        return None
    with open(spec, "rb") as stream:
        if text_start(stream.read(4)) is None:  # UTF-16 text: its lines are not in its bytes
            return None
    source = Source(spec)
    try:
        opened = open_records(source, reading_dialect(inputs.dialect), ErrorLog("skip"))
    except ChatpipeError:  # a file that cannot be read: one process says so
        return None
    finally:
        if source.stream is not None:
            source.stream.close()
    if opened is None or opened[1] != MESSAGES or source.container != "jsonl":
        return None
    dialect, first = opened[0], opened[2]
    if dialect.name not in _DIALECTS or not _writes_messages(run.target, dialect):
        return None
    return Log(spec, dialect, first.location)


def _per_message(run: Run) -> bool:
    """Whether the job's operation changes messages one by one (none, or filter), and
    numbers no message in its output (which a report of losses after one would)."""
    operation = run.job.operation
    if operation is None:
        return True
    checked = run.losses is not None and run.losses.check is not None
    return bool(getattr(operation, "per_message", False)) and not checked


def _writes_messages(target: Any, dialect: Any) -> bool:
    """Whether the target writes each message of a log on its own."""
    from .targets import Texts, ToDialect

    if isinstance(target, Texts):
        return target.joiner is not None
    if not isinstance(target, ToDialect) or target.lines is None:
        return False
    written = target.dialect or dialect
    return target.writer is not None or written.name in _DIALECTS


def run_log(job: Job, log: Log, sink: Any, workers: int) -> Run | None:
    """The job on ``log`` by ``workers`` forked workers, its output in order into
    ``sink``; None when the log is too small to cut (nothing done then)."""
    from ..fast.pool import map_parts_in_processes
    from ..formats.detect import MESSAGES
    from ..formats.tool_links import ToolLinks
    from .targets import Texts

    spans = line_ranges(log.spec, JOB_BLOCKSIZE)
    if spans is None or len(spans) < 2:
        return None
    run = Run(job)
    run.reading.found.append((Source(log.spec), log.dialect, MESSAGES))
    target = run.target
    texts = isinstance(target, Texts)
    joiner = target.joiner.encode("utf-8", "surrogateescape") if texts else b""
    line, start, links, written = 1, 0, ToolLinks(), False
    results = map_parts_in_processes(_work, spans, (job, log), workers)
    try:
        for span, done in zip(spans, results, strict=True):
            again = done.context
            if again:
                done = _again(run, log, span, line, start, links, sink, joiner if written else b"")
                links = done.links
            else:
                links = _after(links, done.links)
            if done.data:
                if written and joiner:
                    sink.raw(joiner)
                sink.borrowed(done.data)
                written = True
            if run.losses is not None:
                base = 0 if again else start  # (a worker's are counted from its range's start)
                for kind, _, index in done.losses:
                    run.losses.cases.setdefault(kind, []).append((0, base + index))
            line += done.lines
            start += done.messages
    finally:
        results.close()
    if texts:  # one conversation's text ends as one process ends it
        sink.raw(b"\0" if target.null else b"\n")
    return run


class _Context(Exception):
    """A range whose output depends on what came before it."""


class _Flagged:
    """A worker's ErrorLog: an error's place depends on the lines before it."""

    skip = False

    def handle(self, error: ChatpipeError) -> None:
        raise _Context


def _flag(_: str) -> None:
    raise _Context


def _work(span: tuple[int, int], job: Job, log: Log) -> Done:
    """On a worker: one range, knowing nothing of what came before it."""
    from ..formats.detect import MESSAGES
    from ..formats.tool_links import ToolLinks

    data = read_range(log.spec, *span)
    run = Run(job, _Flagged())  # type: ignore[arg-type]
    run.reading.found.append((Source(log.spec), log.dialect, MESSAGES))
    notice = getattr(run.target, "notice", None)
    if notice is not None:  # a warning names its message by number
        notice.warn = _flag
    links = ToolLinks()
    links.pending = None  # the calls before the range are not known
    out: list[bytes] = []
    try:
        done = _piece(run, log, data, out, 1, 0, links)
    except (_Context, ChatpipeError):
        return Done(None, lines=lines_in(data), context=True)
    if done.links is not None and done.links[2]:  # an id given: it may need the calls before
        return Done(None, lines=done.lines, context=True)
    return done


def _again(
    main: Run,
    log: Log,
    span: tuple[int, int],
    line: int,
    start: int,
    links: Any,
    sink: Any,
    joiner: bytes,
) -> Done:
    """In this process: a range whose output depends on what came before it, read with
    its first line's and first message's numbers and the links before it, its errors
    and warnings the run's own. What it made before an error that stops the run is
    written, as one process writes it."""
    from ..formats.detect import MESSAGES
    from ..formats.tool_links import ToolLinks

    data = read_range(log.spec, *span)
    run = Run(main.job, main.errors)
    run.reading.found.append((Source(log.spec), log.dialect, MESSAGES))
    out: list[bytes] = []
    before = ToolLinks(list(links.pending or ()), set(links.answered))
    try:
        done = _piece(run, log, data, out, line, start, before)
    except ChatpipeError:
        if out:
            sink.raw(joiner + b"".join(out))
        raise
    pending, answered, _ = done.links
    done.links = ToolLinks(list(pending or ()), answered)
    return done


def _piece(
    run: Run, log: Log, data: bytes, out: list[bytes], line: int, start: int, links: Any
) -> Done:
    """A range read, operated on and written into ``out`` by the job's own code."""
    from .reading import log_piece
    from .targets import Texts

    conversation, read = log_piece(
        log.dialect, log.spec, data, run.errors, log.location, line=line, start=start, links=links
    )
    target = run.target
    operated = run.operated([conversation])
    if isinstance(target, Texts):
        for one in operated:
            for piece in target.text(one):
                out.append(
                    piece if type(piece) is bytes else piece.encode("utf-8", "surrogateescape")
                )
    else:
        for record in target.lines(run, operated):
            out.append(record + b"\n")
    end, after = read()
    found = {} if run.losses is None else run.losses.cases
    done = Done(b"".join(out), lines=lines_in(data))
    done.losses = [(kind, c, m) for kind, cases in found.items() for c, m in cases]
    done.messages = end - start
    done.links = (after.pending, after.answered, after.linked)
    return done


def _after(links: Any, state: tuple[Any, set[str], bool]) -> Any:
    """The links after a range read knowing nothing before it: its own, from its last
    AI turn on, or those before it with the results it answered."""
    from ..formats.tool_links import ToolLinks

    pending, answered, _ = state
    if pending is not None:
        return ToolLinks(list(pending), set(answered))
    return ToolLinks(list(links.pending or ()), links.answered | answered)
