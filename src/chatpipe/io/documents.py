"""A JSON document's top-level array as records, read element by element (io/json_array.py
finds the elements): record by record (detection looks at the first few), then, if a
reader takes over, in batches of values (``DocumentReader.value_batches``).

A file whose first line is a whole array may be JSONL whose lines are arrays (a dataset
stored as lists of messages): the elements of the first line are held back (at most
HOLD bytes) until the array ends or the line does; then ``first_line_array`` tells."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import orjson

from ..errors import DataError, Location
from .json_array import DEEP, TOO_LONG, ArrayScanner
from .json_numbers import loads
from .limits import LIMITS, too_deep
from .records import BadRecord, Record, json_error, nested_too_deep
from .sources import Source

# bytes of a first line's elements held back while the file may be JSONL of arrays
HOLD = 16 << 20
# elements (and bytes of them) handed out at a time by ``value_batches``
DOCUMENT_BATCH = 1024
DOCUMENT_BATCH_BYTES = 1 << 20
_UNREAD: Any = object()


class DocumentReader:
    """The records of an array's elements: ``held`` (read already), then the rest of
    ``elements``; ``follows``: what ``ArrayScanner.after`` said, if it was asked. Each
    element is measured (size, depth) as it is read: a taker need not measure them."""

    may_be_deep = False

    def __init__(
        self,
        source: Source,
        scanner: ArrayScanner,
        elements: Iterator[tuple[int, int, Any]],
        held: list[tuple[int, int, Any]],
        follows: Any = _UNREAD,
    ) -> None:
        self.source = source
        self.scanner = scanner
        self.next = 0  # the index of the next element to hand out
        self._batch: tuple[int, list[Location]] = (0, [])
        self._items = self._read(itertools.chain(held, elements), follows)

    def _read(self, elements: Iterator[tuple[int, int, Any]], follows: Any) -> Iterator[Record]:
        for line, col, item in elements:
            self.next += 1
            yield element_record(self.source, item, line, col)
        if follows is _UNREAD:
            follows = self.scanner.after()
        if follows is not None:
            raise trailing(self.scanner, follows)

    def records(self) -> Iterator[Record]:
        yield from self._items

    def location(self, index: int) -> Location:
        """The place of an element of the batch ``value_batches`` handed out last."""
        start, places = self._batch
        return places[index - start]

    def value_batches(self) -> Iterator[tuple[int, list[Any]]]:
        """The elements not yet handed out, in batches: (index of the first, values); an
        element that could not be read comes as its BadRecord."""
        start, values, places, size = self.next, [], [], 0
        for record in self._items:
            values.append(record if isinstance(record, BadRecord) else record.value)
            places.append(record.location)
            size += self.scanner.size
            if len(values) >= DOCUMENT_BATCH or size >= DOCUMENT_BATCH_BYTES:
                self._batch = (start, places)
                yield start, values
                start, values, places, size = start + len(values), [], [], 0
        if values:
            self._batch = (start, places)
            yield start, values


def element_record(source: Source, item: Any, line: int, col: int) -> Record:
    """An element's Record, or its BadRecord (too large, too deep, an integer too long);
    raises DataError where it is not JSON (the document is not: reading stops)."""
    location = Location(source.name, line, col)
    if item is TOO_LONG:
        return BadRecord(
            DataError(
                f"a record larger than {LIMITS.record_bytes:,} bytes",
                location,
                "raise the limit with chatpipe --max-record-bytes N",
            )
        )
    if item is DEEP:
        return nested_too_deep(location)
    try:
        value = loads(item)
    except orjson.JSONDecodeError as exc:
        raise _not_json(source, item, line, col, exc) from None
    except DataError as exc:
        return BadRecord(exc.located(location))
    return Record(value, location)


def _not_json(
    source: Source, item: bytes, line: int, col: int, exc: orjson.JSONDecodeError
) -> DataError:
    """What orjson said of an element, at its place in the document."""
    if item[:1] not in b'{["':  # a literal or number: said as in its array
        try:
            orjson.loads(item + b" ")
        except orjson.JSONDecodeError as within:
            exc = within
    error = json_error(exc, source, item, line - 1)
    where = error.location
    if where is not None and where.line == line and where.col is not None:
        error.location = Location(source.name, line, where.col + col - 1)
    return error


def trailing(scanner: ArrayScanner, follows: tuple[int, int]) -> DataError:
    """What follows a document's array, which nothing may."""
    line, col = follows
    hint = None
    if scanner.opened.line == scanner.closed and line > scanner.closed:
        hint = (
            "a file whose lines are arrays is read as JSONL when its name ends in .jsonl, "
            f"or when its first line is shorter than {min(HOLD, LIMITS.record_bytes):,} bytes"
        )
    return DataError(
        "invalid JSON: unexpected content after document", Location(scanner.name, line, col), hint
    )


def held_first_line(
    source: Source, scanner: ArrayScanner, elements: Iterator[tuple[int, int, Any]]
) -> tuple[list[tuple[int, int, Any]], bool]:
    """The elements read while the array may still be one JSONL line (on its first line,
    at most HOLD bytes); and whether the array ended so."""
    cap = min(HOLD, LIMITS.record_bytes)
    held: list[tuple[int, int, Any]] = []
    size = 0
    try:
        for element in elements:
            held.append(element)
            size += scanner.size
            item = element[2]
            if item is TOO_LONG or size > cap or scanner.line != scanner.opened.line:
                return held, False
    except DataError:
        for line, col, item in held:  # an element before the fault that is not JSON:
            element_record(source, item, line, col)  # said first, as it came
        raise
    return held, True


def first_line_array(
    source: Source, scanner: ArrayScanner, held: list[tuple[int, int, Any]]
) -> tuple[Record | None, Any]:
    """An array that ended on its first line: (its line's Record, None) when another line
    follows (the file is JSONL whose lines are arrays), else (None, what ``after``
    said)."""
    follows = scanner.after()
    if follows is None or scanner.opened.line != scanner.closed or follows[0] == scanner.closed:
        return None, follows
    location = scanner.opened
    values = []
    for line, col, item in held:
        record = element_record(source, item, line, col)
        if isinstance(record, BadRecord):
            record.error.location = record.location = location
            return record, follows
        values.append(record.value)
    if too_deep(values):
        return nested_too_deep(location), follows
    return Record(values, location), follows
