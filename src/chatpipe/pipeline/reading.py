"""Reading: sources -> conversations (docs/ARCHITECTURE.md, "What it is").

``read(sources)`` parses each source's container, tells from the first records which
dialect it is and whether its records are messages (one conversation), conversations or
stream events, and reads them lazily. Bad records fail the run or, with
``on_error="skip"``, are counted and skipped. The one shape dispatch of chatpipe: the
serial run, ``validate`` and the ``--jobs`` workers all read through it.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location, UsageError
from ..formats.base import Dialect, _keys_hint
from ..formats.detect import CONVERSATIONS, MESSAGES, STREAM, detect
from ..formats.exports import ReadOptions
from ..formats.registry import NAMES, reading_dialect
from ..io.readers import read_records
from ..io.records import BadRecord, Record
from ..io.sources import Source
from ..model import AnyMessage, Conversation
from . import hooks

_DETECT_WINDOW = 20  # records looked at before choosing a dialect


class ErrorLog:
    """Bad records: raised at once (``fail``), or counted for the closing report (``skip``),
    which shows the first ``keep`` of them: a million bad lines cost a counter, not a
    million kept errors (``keep=None`` keeps every one)."""

    def __init__(self, on_error: str = "fail", keep: int | None = 20) -> None:
        if on_error not in ("fail", "skip"):
            raise UsageError(f"--on-error must be fail or skip, got {on_error!r}")
        self.skip = on_error == "skip"
        self.keep = keep
        self.count = 0  # every skipped error
        self.skipped: list[ChatpipeError] = []  # the first ``keep`` of them

    def handle(self, error: ChatpipeError) -> None:
        if not self.skip:
            raise error
        self.count += 1
        if self.keep is None or len(self.skipped) < self.keep:
            self.skipped.append(error)


class Reading:
    """What ``read`` found, filled in as sources are opened (for ``-v`` and writers)."""

    def __init__(self, row_reader: Any = None) -> None:
        self.found: list[tuple[Source, Dialect, str]] = []
        self.current: Source | None = None  # the source being read
        # a faster way of reading a conversation-per-record row for the run's target:
        # ``row_reader(dialect, value, location)`` gives its conversation, or None for the
        # ordinary way (which it must give the same output as)
        self.row_reader = row_reader


def read(
    specs: Iterable[str],
    *,
    dialect: str | None = None,
    errors: ErrorLog | None = None,
    group_by: str | None = None,
    reading: Reading | None = None,
    options: ReadOptions | None = None,
) -> Iterator[Conversation]:
    """Conversations from every source in turn."""
    forced = reading_dialect(dialect)
    errors = errors or ErrorLog()
    options = options or ReadOptions()
    for spec in specs:
        source = Source(spec)
        if reading is not None:
            reading.current = source
        yield from _read_source(source, forced, errors, group_by, reading, options)


def _read_source(
    source: Source,
    forced: Dialect | None,
    errors: ErrorLog,
    group_by: str | None,
    reading: Reading | None,
    options: ReadOptions,
) -> Iterator[Conversation]:
    opened = open_records(source, forced, errors)
    if opened is None:
        return  # an empty input is an empty conversation stream
    dialect, shape, first, rest = opened
    if reading is not None:
        reading.found.append((source, dialect, shape))
    if shape == CONVERSATIONS:
        if group_by:
            raise UsageError(
                "--group-by splits a message-per-record log; these records are conversations"
            )
        row_reader = reading.row_reader if reading is not None else None
        for record in rest:
            if isinstance(record, BadRecord):
                errors.handle(record.error)
                continue
            if row_reader is not None:
                conversation = row_reader(dialect, record.value, record.location)
                if conversation is not None:
                    yield conversation
                    continue
            try:
                yield from conversations_of(dialect, record, options)
            except ChatpipeError as exc:
                errors.handle(exc.located(record.location))
        return
    if shape == STREAM:
        values = (r.value for r in rest if not isinstance(r, BadRecord) or errors.handle(r.error))
        spelled = False
        with shape_errors(dialect, first.location):
            for conversation in dialect.read_stream(values, first.location):
                spelled = True
                yield conversation
        if not spelled:  # events of another kind (a --from that does not fit): not silence
            raise DataError(
                f"no {dialect.name} events here: nothing to read",
                first.location,
                "leave --from out to detect the dialect",
            )
        return
    location = first.location
    if group_by:
        yield from _grouped(rest, dialect, errors, group_by, location)
        return
    fast = hooks.read_messages(dialect, source, rest, errors)
    if fast is not None:
        yield Conversation(fast, {}, location)
        return
    yield Conversation(dialect.finish(_messages(rest, dialect, errors)), {}, location)


# what malformed records make readers raise, below the checks they make themselves
_SHAPE_ERRORS = (TypeError, AttributeError, KeyError, IndexError, ValueError)


@contextlib.contextmanager
def shape_errors(dialect: Dialect, location: Location) -> Iterator[None]:
    """A record of an unexpected shape is bad input: a located DataError, not a crash."""
    try:
        yield
    except ChatpipeError:
        raise
    except _SHAPE_ERRORS as exc:
        raise _shape_error(dialect, exc, location) from None


def _shape_error(dialect: Dialect, exc: Exception, location: Location) -> DataError:
    """Words for a record a reader met with a shape it did not check for."""
    if isinstance(exc, KeyError):
        what = f"it has no {exc.args[0]!r} field" if exc.args else "a field is missing"
    elif isinstance(exc, IndexError):
        what = "a list in it is shorter than this dialect needs"
    else:  # Python's own words ("'int' object has no attribute 'get'") mean nothing to a user
        what = "a field holds a value of another kind than this dialect needs"
    return DataError(
        f"cannot read this record as {dialect.name}: {what}",
        location,
        hint="check the record against the dialect, or name another with --from",
    )


def message_of(dialect: Dialect, value: Any, location: Location) -> AnyMessage:
    """One message record read by a dialect; every failure a DataError at its place."""
    try:
        return dialect.read_message(value)
    except ChatpipeError as exc:
        raise exc.located(location) from None
    except _SHAPE_ERRORS as exc:
        raise _shape_error(dialect, exc, location) from None


def conversations_of(dialect: Dialect, record: Record, options: ReadOptions) -> list[Conversation]:
    """The conversations one record holds (several for ``--branch all``)."""
    with shape_errors(dialect, record.location):
        return list(dialect.read_conversations(record.value, record.location, options))


def log_piece(
    dialect: Dialect,
    spec: str,
    data: bytes,
    errors: Any,
    location: Location | None,
    *,
    line: int = 1,
    start: int = 0,
    links: Any = None,
) -> tuple[Conversation, Callable[[], tuple[int, Any]]]:
    """Whole lines of a message log read from its middle: ``data``, the first of them
    line ``line`` of the file ``spec``, their messages numbered from ``start`` and their
    tool results linked from ``links`` (a ToolLinks). Gives their conversation (at
    ``location``, the log's) and a function that tells, once it has been read, the
    number of the message after the last and the links after them."""
    import io

    from ..formats.tool_links import ToolLinks
    from ..io.readers import JsonlReader
    from .parts import line_records

    links = links if links is not None else ToolLinks()
    source = Source(spec)
    source.container = "jsonl"
    source.jsonl = JsonlReader(source, io.BytesIO(data), b"", line)
    fast = hooks.read_messages(dialect, source, Records([], iter(())), errors, start, links)
    if fast is not None:
        return Conversation(fast, {}, location, None, start), fast.read
    records = (r for _, r in line_records(source, data, line) if r is not None)
    count = [start]

    def counted() -> Iterator[AnyMessage]:
        for message in _messages(records, dialect, errors):
            count[0] += 1
            yield message

    messages = dialect.finish(counted(), links, start)
    return Conversation(messages, {}, location, None, start), lambda: (count[0], links)


def detect_file(spec: str, forced: Dialect | None) -> tuple[Source, Dialect, str] | None:
    """What a file holds, from its first records: its source (``container`` known), its
    dialect and record shape; None when it holds no good record. The file is closed
    again, and what is wrong in it is left for the run that reads it to say."""
    source = Source(spec)
    try:
        opened = open_records(source, forced, ErrorLog("skip"))
    finally:
        if source.stream is not None and not source.is_stdin:
            source.stream.close()
    return None if opened is None else (source, opened[0], opened[1])


def open_records(
    source: Source, forced: Dialect | None, errors: ErrorLog
) -> tuple[Dialect, str, Record, Iterator[Record]] | None:
    """A source's dialect and record shape, its first good record, and all its records
    (bad ones included, as ``BadRecord``); None when it holds no good record."""
    records = read_records(source)
    window = list(itertools.islice(records, _DETECT_WINDOW))
    good = [r for r in window if not isinstance(r, BadRecord)]
    if not good:
        for record in window:
            errors.handle(record.error)
        return None
    # the first record that shows a known shape decides; the others are read by it
    first = next((r for r in good if forced or detect(r.value) is not None), good[0])
    more = [r.value for r in good if r is not first]
    framed = source.container == "sse" or source.document is not None
    dialect, shape = _choose(first, more, forced, framed)
    return dialect, shape, first, Records(window, records)


class Records:
    """A source's records: the window read for detection, then the rest of the stream."""

    __slots__ = ("rest", "window")

    def __init__(self, window: list[Record], rest: Iterator[Record]) -> None:
        self.window = window
        self.rest = rest

    def __iter__(self) -> Iterator[Record]:
        return itertools.chain(self.window, self.rest)


def _choose(
    first: Record, more: list[Any], forced: Dialect | None, framed: bool = False
) -> tuple[Dialect, str]:
    value = first.value
    if forced is not None:
        if forced.stream:
            return forced, STREAM
        if forced.is_conversation(value) and not forced.is_message(value):
            return forced, CONVERSATIONS
        if isinstance(value, dict) and isinstance(value.get("messages"), list):
            return forced, CONVERSATIONS
        return forced, MESSAGES
    found = detect(value, more, framed)
    if found is None:
        raise DataError(
            "cannot tell what chat format this is",
            first.location,
            hint=f"{_keys_hint(value)}; name it with --from ({', '.join(NAMES)})",
        )
    return found


def _messages(
    records: Iterable[Record], dialect: Dialect, errors: ErrorLog
) -> Iterator[AnyMessage]:
    for record in records:
        if isinstance(record, BadRecord):
            errors.handle(record.error)
            continue
        try:
            message = message_of(dialect, record.value, record.location)
        except ChatpipeError as exc:
            errors.handle(exc)
        else:
            yield message


def _grouped(
    records: Iterable[Record], dialect: Dialect, errors: ErrorLog, key: str, location: Location
) -> Iterator[Conversation]:
    """Split a message stream by a field of each record, in order of first appearance."""
    groups: dict[Any, list[AnyMessage]] = {}
    for record in records:
        if isinstance(record, BadRecord):
            errors.handle(record.error)
            continue
        value = record.value
        group = value.get(key) if isinstance(value, dict) else None
        if isinstance(group, (dict, list)):
            group = repr(group)
        if isinstance(value, dict) and key in value:
            value = {k: v for k, v in value.items() if k != key}
        try:
            message = message_of(dialect, value, record.location)
        except ChatpipeError as exc:
            errors.handle(exc)
            continue
        groups.setdefault(group, []).append(message)
    for group, messages in groups.items():
        yield Conversation(list(dialect.finish(messages)), {key: group}, location)
