"""The lane: message-per-line OpenAI JSONL read at close to the speed of parsing it.

Most lines of real logs are a handful of shapes ({role, content}, a tool result, an
assistant turn of function calls). The lane reads such a log in large batches of lines,
parses them with orjson, and turns each plain line (plain.py) straight into its canonical dict
(docs/architecture.md, "Canonical JSONL") with no message object; every other line takes
the ordinary reader. Writers that know plain dicts (fast/writers.py) write them directly;
the rest get messages. The two ways give the same output: tests/test_lane.py checks them against
each other on generated logs.

A batch is a list of items, each a plain canonical dict or a message, in log order,
tool results linked to their calls as ``link_tool_results`` links them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from ..errors import ChatpipeError, Location
from ..formats.base import Dialect
from ..formats.openai import OpenAIDialect
from ..formats.record_errors import message_of
from ..formats.tool_links import ToolLinks, needs_link
from ..io.limits import LIMITS
from ..io.readers import DocumentReader, JsonlReader
from ..io.records import (
    BadRecord,
    Record,
    checked_record,
    line_record,
    start_column,
)
from ..model import AIMessage, AnyMessage
from .plain import AI_ROLES, PLAIN_DEPTH, PlainLinks, message_from_plain, plain_canonical


def read_lines(
    dialect: Dialect, source: Any, records: Any, errors: Any, start: int = 0, links: Any = None
) -> LaneMessages | None:
    """The messages of a message-per-line OpenAI source, read in batches; None for any
    other source, and when ``--max-depth`` is below the depth of plain lines. ``start``
    and ``links`` (a ToolLinks): the number of the first message and the linking state,
    for a log read from its middle."""
    reader = source.jsonl or source.document
    if type(dialect) is not OpenAIDialect or reader is None or LIMITS.depth < PLAIN_DEPTH:
        return None
    lane = Lane(dialect, records, reader, errors)
    lane.index = start
    if links is not None:
        lane.links.pending, lane.links.answered = links.pending, links.answered
    return LaneMessages(lane)


class LaneMessages:
    """A lane's message stream: iterated, it gives messages; ``batches`` and ``write``
    give it in batches instead (one of the three, once)."""

    __slots__ = ("_messages", "lane")

    def __init__(self, lane: Lane) -> None:
        self.lane = lane
        self._messages: Iterator[AnyMessage] | None = None

    def __iter__(self) -> Iterator[AnyMessage]:
        if self._messages is None:
            self._messages = _messages_of(self.lane.batches())
        return self._messages

    def __next__(self) -> AnyMessage:
        return next(iter(self))

    def batches(self) -> Iterator[Batch]:
        return self.lane.batches()

    def write(self, writer: Any) -> Iterator[list[Any]]:
        return self.lane.write(writer)

    def read(self) -> tuple[int, ToolLinks]:
        """Once read: the number of the message after the last, and the linking state."""
        return self.lane.index, self.lane.links


def _messages_of(batches: Iterator[list[Any]]) -> Iterator[AnyMessage]:
    """The messages of lane batches: plain dicts made messages."""
    for batch in batches:
        for item in batch:
            yield message_from_plain(item) if type(item) is dict else item


def _at(lines: list[Any] | None, i: int) -> Any:
    return None if lines is None else lines[i]


class Batch(list):
    """A list of items; ``plain`` when all of them are plain canonical dicts."""

    __slots__ = ("plain",)

    def __init__(self, items: list[Any], plain: bool) -> None:
        super().__init__(items)
        self.plain = plain


class _Many(list):
    """The records one message is written as, when it is not exactly one."""

    __slots__ = ()


class _Bad:
    """A line that could not be read: reported in its place in the batch."""

    __slots__ = ("error",)

    def __init__(self, error: ChatpipeError) -> None:
        self.error = error


class Lane:
    """The batches of one message-per-line OpenAI JSONL source (see the module doc)."""

    def __init__(self, dialect: Dialect, records: Any, reader: JsonlReader, errors: Any) -> None:
        self.dialect = dialect
        # the source's record stream (formats.Records): the detection window to start
        # with, and the reader's generator, kept alive because closing it closes the file
        self.records = records
        self.reader = reader
        self.errors = errors
        self.links = PlainLinks()
        self.index = 0  # messages handed out so far
        self.started = False

    def batches(self) -> Iterator[Batch]:
        """The items of each batch: plain canonical dicts and messages, in log order."""
        yield from self._finish(self._start(), False)
        for lineno, lines, values in self._parsed():
            yield from self._finish(*self._items(lines, lineno, values))

    def write(self, writer: Any) -> Iterator[list[Any]]:
        """What ``writer`` (a ``write.LaneWriter``) writes for each batch, in log order.

        Its ``fast`` takes the common lines straight from their parsed values; the lines
        it passes over become items, written by its ``plain`` or ``one``.
        """
        fast, plain, one = writer.fast, writer.plain, writer.one
        for batch in self._finish(self._start(), False):
            yield self._written(batch, plain, one)

        def other(value: Any) -> Any:
            item = plain_canonical(value)
            return None if item is None else plain(item)

        for lineno, lines, values in self._parsed():
            outs = others = None
            if values is not None:
                try:
                    outs = fast(values, other)
                except TypeError:  # a value the quick checks cannot take (an unhashable
                    outs = None  # role): the batch goes the way of items, which decides
            if outs is not None and None in outs:
                # the lines passed over are messages (or bad), written in their places
                others = {
                    i: self._value_item(values[i], _at(lines, i), lineno + i)
                    for i, out in enumerate(outs)
                    if out is None
                }
                if any(type(item) is _Bad or needs_link(item) for item in others.values()):
                    outs = None  # reported or linked in order, as items
            if outs is None:
                for batch in self._finish(*self._items(lines, lineno, values, others)):
                    yield self._written(batch, plain, one)
                continue
            base = self.index
            if others:
                outs = self._splice(outs, others, one, base)
            self._pass(values, others or {})
            self.index = base + len(values)
            yield outs

    def _splice(self, outs: list[Any], others: dict[int, Any], one: Any, base: int) -> list[Any]:
        """``outs`` with the records of the messages at their positions."""
        spliced = False
        for i, message in others.items():
            records = one(base + i, message)
            if len(records) == 1:
                outs[i] = records[0]
            else:
                outs[i] = _Many(records)
                spliced = True
        if spliced:
            return [r for out in outs for r in (out if type(out) is _Many else (out,))]
        return outs

    def _items(
        self, lines: list[Any], lineno: int, values: list[Any] | None, made: Any = None
    ) -> tuple[list[Any], bool]:
        """The items of a batch, and whether all are plain; ``made``: those already made."""
        if values is None:
            return [self._line_item(line, lineno + i) for i, line in enumerate(lines)], False
        items = list(map(plain_canonical, values))
        if None in items:
            for i, item in enumerate(items):
                if item is None:
                    made_i = made.get(i) if made else None
                    items[i] = made_i or self._value_item(values[i], _at(lines, i), lineno + i)
            return items, False
        return items, True

    def _start(self) -> list[Any]:
        """The items of the detection window's records, read before the lane took over."""
        # a conversation offers its stream as messages or as batches: one read, not two
        if self.started:
            raise RuntimeError("a lane's stream is read once: as messages or as batches")
        self.started = True
        return [self._record_item(record) for record in self.records.window]

    def _parsed(self) -> Iterator[tuple[int, list[Any] | None, list[Any] | None]]:
        """(number of the first line, the lines, their parsed values) of each batch of
        the rest; values are None when a line is not JSON. A JSON document's elements
        come parsed, with no lines, numbered by their index."""
        if isinstance(self.reader, DocumentReader):
            for index, values in self.reader.value_batches():
                yield index, None, values
            return
        for lineno, lines in self.reader.line_batches():
            try:
                values = list(map(orjson.loads, lines))
            except (orjson.JSONDecodeError, TypeError):  # TypeError: an oversized line
                values = None
            yield lineno, lines, values

    def _written(self, batch: Batch, plain: Any, one: Any) -> list[Any]:
        base = self.index - len(batch)
        if batch.plain:
            return list(map(plain, batch))
        records: list[Any] = []
        for k, item in enumerate(batch, base):
            if type(item) is dict:
                records.append(plain(item))
            else:
                records.extend(one(k, item))
        return records

    def _pass(self, values: list[Any], others: dict[int, Any]) -> None:
        """The tool-call links after a batch in which no line needs linking: the lines a
        writer took are plain, the others (by position) messages."""

        def item(j: int) -> Any:
            return others[j] if j in others else plain_canonical(values[j])

        # only the last AI message and the results after it matter (ToolLinks.skip)
        for k in range(len(values) - 1, -1, -1):
            if isinstance(others[k], AIMessage) if k in others else values[k]["role"] in AI_ROLES:
                self.links.skip([item(j) for j in range(k, len(values))])
                return
        self.links.skip([item(j) for j in range(len(values))])

    def _finish(self, items: list[Any], plain: bool) -> Iterator[Batch]:
        """Drop blanks, report bad lines (the good ones before a fatal one come first),
        link tool results, count."""
        if not plain:
            kept = []
            for item in items:
                if item is None:
                    continue  # a blank line
                if type(item) is _Bad:
                    if not self.errors.skip and kept:
                        yield self._linked(kept)
                        kept = []
                    self.errors.handle(item.error)
                    continue
                kept.append(item)
            items = kept
        if items:
            yield self._linked(items, plain)

    def _linked(self, items: list[Any], plain: bool = False) -> Batch:
        links, base = self.links, self.index
        if not plain and any(type(item) is not dict and needs_link(item) for item in items):
            for k, item in enumerate(items):
                links.step(item, base + k)
        else:
            links.skip(items)
        self.index = base + len(items)
        return Batch(items, plain or all(type(item) is dict for item in items))

    def _record_item(self, record: Record) -> Any:
        if isinstance(record, BadRecord):
            return _Bad(record.error)
        plain = plain_canonical(record.value)
        return plain if plain is not None else self._message(record.value, record.location)

    def _line_item(self, line: Any, lineno: int) -> Any:
        """A line the batch could not take as plain: a message, None (blank) or _Bad."""
        if isinstance(line, BadRecord):
            return _Bad(line.error)
        record = line_record(self.reader.source, line, lineno)
        if record is None:
            return None
        return self._record_item(record)

    def _value_item(self, value: Any, line: bytes | None, lineno: int) -> AnyMessage | _Bad:
        """A parsed line that is not plain: its message, or _Bad. A document's element
        (no line: ``lineno`` is its index) was checked as it was read."""
        if line is None:
            if isinstance(value, BadRecord):  # (too large, too deep: measured as read)
                return _Bad(value.error)
            return self._message(value, self.reader.location(lineno))
        location = Location(self.reader.source.name, lineno, start_column(line))
        record = checked_record(value, line, location)
        if isinstance(record, BadRecord):
            return _Bad(record.error)
        return self._message(record.value, location)

    def _message(self, value: Any, location: Location) -> AnyMessage | _Bad:
        try:
            return message_of(self.dialect, value, location)
        except ChatpipeError as exc:
            return _Bad(exc)
