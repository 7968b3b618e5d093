"""Reading: sources -> conversations (docs/architecture.md, "The data flow").

``read(sources)`` parses each source's container, tells from the first records which
dialect it is and whether its records are messages (one conversation), conversations or
stream events, and reads them lazily. Bad records fail the run or, with
``on_error="skip"``, are counted and skipped. The one shape dispatch of chatpipe: the
serial run, ``validate`` and the ``--jobs`` workers all read through it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location, UsageError
from ..formats.base import Dialect
from ..formats.batch import BatchDialect
from ..formats.detect import (
    CONVERSATIONS,
    STREAM,
)
from ..formats.exports import ReadOptions
from ..formats.record_errors import message_of, shape_errors, turn_of
from ..formats.registry import reading_dialect
from ..formats.shapes import checked
from ..io.records import BadRecord, Record
from ..io.sources import Source, input_sources
from ..model import AnyMessage, Conversation
from . import fast_hooks
from .batch_join import BatchJoin
from .members import Members, with_files
from .opening import ErrorLog, Records, open_records


class Reading:
    """What ``read`` found, filled in as sources are opened (for ``-v`` and writers)."""

    def __init__(self, row_reader: Any = None, known: Any = None) -> None:
        self.found: list[tuple[Source, Dialect, str]] = []
        # what a run says under -v besides: the members of a zip that are not chat logs
        self.notes: list[str] = []
        self.empty: list[Source] = []  # sources that held nothing (a zip's `[]` members)
        # what a run says without -v: the zips inside a zip, which are not read
        self.warnings: list[str] = []
        # what the one source read was detected as before (a part's file): not detected again
        self.known = known
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
    reading = reading if reading is not None else Reading()
    options = (options or ReadOptions()).hearing(reading.notes.append)  # (said under -v)
    specs = list(specs)
    # a batch's input and output files, given together (or in one zip), are joined
    # (batch_join.py): looked for only once a batch file is met
    joins = BatchJoin(lambda: member_specs(specs), lambda spec: batch_file(spec, forced))
    members = Members(reading)
    try:
        for source in input_sources(specs):  # a zip's members in its place, each on its own
            reading.current = source
            read = _read_source(source, forced, errors, group_by, reading, options, joins)
            if source.member is not None:
                read = with_files(read, source.files())
            yield from read if source.archive is None else members.read(source, read)
        said = getattr(reading.row_reader, "note", None)  # (-v: how the rows were read)
        note = said() if said is not None else None
        if note:
            reading.notes.append(note)
    finally:
        members.close()


def joins_batches(specs: Iterable[str], dialect: str | None = None) -> bool:
    """Whether these inputs hold a batch's input and output files, which one process
    reads together (a run cut into parts would read each file apart)."""
    forced = reading_dialect(dialect)
    specs = member_specs(specs)
    return len(specs) > 1 and BatchJoin(specs, lambda spec: batch_file(spec, forced)).any()


def member_specs(specs: Iterable[str]) -> list[str]:
    """The inputs that can be opened again by name, a zip's members in its place
    (``export.zip:MEMBER``); stdin and a zip that cannot be read left out."""
    found: list[str] = []
    for spec in specs:
        if spec == "-":
            continue
        try:
            sources = list(input_sources([spec]))
        except ChatpipeError:  # the run says what is wrong in its turn
            continue
        if sources[0].archive is not None:
            sources[0].archive.close()
        found.extend(source.spec for source in sources)
    return found


def batch_file(spec: str, forced: Dialect | None) -> tuple[BatchDialect, str] | None:
    """A file's batch dialect and role (requests or results), or None."""
    source = Source(spec)
    try:
        opened = open_records(source, forced, ErrorLog("skip"))
    except ChatpipeError:  # a file that cannot be read: the run says so in its turn
        return None
    finally:
        if source.stream is not None and not source.is_stdin:
            source.stream.close()
    if opened is None or not isinstance(opened[0], BatchDialect):
        return None
    role = opened[0].role(opened[2].value)
    return None if role is None else (opened[0], role)


def _read_source(
    source: Source,
    forced: Dialect | None,
    errors: ErrorLog,
    group_by: str | None,
    reading: Reading | None,
    options: ReadOptions,
    joins: BatchJoin | None = None,
) -> Iterator[Conversation]:
    opened = open_records(source, forced, errors, reading.known if reading is not None else None)
    if opened is None:
        if reading is not None:
            reading.empty.append(source)
        return  # an empty input is an empty conversation stream
    dialect, shape, first, rest = opened
    batch = joins is not None and isinstance(dialect, BatchDialect)
    if batch and joins.joined(source.spec, dialect, dialect.role(first.value)):
        if not source.is_stdin and source.stream is not None:
            source.stream.close()
        return  # an output file, read with the input files it answers
    if reading is not None:
        reading.found.append((source, dialect, shape))
    if shape == CONVERSATIONS:
        if group_by:
            raise UsageError(
                "--group-by splits a message-per-record log; these records are conversations"
            )
        read = _conversation_records(rest, dialect, errors, reading, options)
        yield from joins.join(source.spec, dialect, read, errors) if batch else read
        return
    if shape == STREAM:
        spelled = False
        with shape_errors(dialect, first.location):
            for conversation in dialect.read_records(rest, first.location, options, errors.handle):
                spelled = True
                try:
                    conversation = checked(conversation, errors.handle)
                except ChatpipeError as exc:
                    errors.handle(exc)  # (skipped: the conversation is left out, said)
                    continue
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
    if dialect.turn_records:
        yield from _turns(rest, dialect, errors, location)
        return
    if options.places:
        yield _placed(rest, dialect, errors, location)
        return
    fast = fast_hooks.read_messages(dialect, source, rest, errors)
    if fast is not None:
        yield Conversation(fast, {}, location)
        return
    yield Conversation(dialect.finish(_messages(rest, dialect, errors)), {}, location)


def _placed(
    records: Iterable[Record], dialect: Dialect, errors: ErrorLog, location: Location
) -> Conversation:
    """A message log whose messages keep their records' places as they are read (where
    the dialect's ``finish`` makes as many messages as it was given; else none)."""
    places: list[Location] = []

    def placing() -> Iterator[AnyMessage]:
        for record in records:
            for message in _messages((record,), dialect, errors):
                places.append(record.location)
                yield message

    conversation = Conversation(_counted(dialect.finish(placing()), places), {}, location)
    conversation.places = places
    return conversation


def _counted(messages: Iterator[AnyMessage], places: list[Location]) -> Iterator[AnyMessage]:
    """The messages ``finish`` gives; if they are not one a place, no places at all."""
    count = 0
    for message in messages:
        count += 1
        yield message
    if count != len(places):
        places.clear()


def _turns(
    records: Iterable[Record], dialect: Dialect, errors: ErrorLog, location: Location
) -> Iterator[Conversation]:
    """A log whose records are turns of one or more messages (Anthropic's), read whole: a
    bad record makes the conversation bad, which ``--on-error skip`` skips."""
    messages: list[AnyMessage] = []
    for index, record in enumerate(records):
        try:
            if isinstance(record, BadRecord):
                raise record.error
            messages += turn_of(dialect, record.value, record.location.at_message(index))
        except ChatpipeError as exc:
            if errors.skip:  # say what skipping it leaves out
                exc = type(exc)(
                    f"{exc.message}; its conversation is left out", exc.location, exc.hint
                )
            errors.handle(exc)
            return
    yield Conversation(list(dialect.finish(messages)), {}, location)


def _conversation_records(
    records: Iterable[Record],
    dialect: Dialect,
    errors: ErrorLog,
    reading: Reading | None,
    options: ReadOptions,
) -> Iterator[Conversation]:
    row_reader = reading.row_reader if reading is not None else None
    for record in records:
        if isinstance(record, BadRecord):
            errors.handle(record.error)
            continue
        if row_reader is not None:
            conversation = row_reader(dialect, record.value, record.location)
            if conversation is not None:
                try:
                    conversation = checked(conversation)
                except ChatpipeError as exc:
                    errors.handle(exc)
                else:
                    yield conversation
                continue
        try:
            yield from conversations_of(dialect, record, options)
        except ChatpipeError as exc:
            errors.handle(exc.located(record.location))


def conversations_of(dialect: Dialect, record: Record, options: ReadOptions) -> list[Conversation]:
    """The conversations one record holds (several for ``--branch all``)."""
    with shape_errors(dialect, record.location):
        read = list(dialect.read_conversations(record.value, record.location, options))
    return [checked(conversation) for conversation in read]


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
    from ..io.ranges import line_records
    from ..io.readers import JsonlReader

    links = links if links is not None else ToolLinks()
    source = Source(spec)
    source.container = "jsonl"
    source.jsonl = JsonlReader(source, io.BytesIO(data), b"", line)
    fast = fast_hooks.read_messages(dialect, source, Records([], iter(())), errors, start, links)
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
