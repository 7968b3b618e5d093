"""A JSON document's top-level array as records, read element by element (io/json_array.py
finds the elements, in runs): record by record (detection looks at the first few), then,
if a reader takes over, in batches of values (``DocumentReader.value_batches``). A run's
elements are parsed by one orjson call.

A file whose first line is a whole array may be JSONL whose lines are arrays (a dataset
stored as lists of messages): the elements of the first line are held back (at most
HOLD bytes) until the array ends or the line does; then ``first_line_array`` tells."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import orjson

from ..errors import DataError, Location
from .json_array import ArrayScanner
from .json_numbers import loads
from .json_scan import DEEP, TOO_LONG, Run
from .limits import LIMITS, too_deep
from .records import BadRecord, Record, json_error, nested_too_deep
from .sources import Source

# bytes of a first line's elements held back while the file may be JSONL of arrays
HOLD = 16 << 20
# elements handed out at a time by ``value_batches``, at most
DOCUMENT_BATCH = 1024
_UNREAD: Any = object()


class DocumentReader:
    """The records of an array's elements: the runs ``held`` (read already), then the
    rest of ``runs``; ``follows``: what ``ArrayScanner.after`` said, if it was asked.
    Each element is measured (size, depth) as it is read: a taker need not."""

    def __init__(
        self,
        source: Source,
        scanner: ArrayScanner,
        runs: Iterator[Run],
        held: list[Run],
        follows: Any = _UNREAD,
    ) -> None:
        self.source = source
        self.scanner = scanner
        self.next = 0  # the index of the next element to hand out
        self._runs = self._parsed(itertools.chain(held, runs), follows)
        # the run being handed out: the elements' places and values (or BadRecords)
        self._places: list[tuple[int, int]] = []
        self._values: list[Any] = []
        self._at = 0
        self._batch: tuple[int, list[tuple[int, int]]] = (0, [])

    def _parsed(self, runs: Iterator[Run], follows: Any) -> Iterator[tuple[list, list]]:
        for run in runs:
            yield run.places, run_values(self.source, run)
        if follows is _UNREAD:
            follows = self.scanner.after()
        if follows is not None:
            raise trailing(self.scanner, follows)

    def _next_run(self) -> bool:
        for places, values in self._runs:
            if values:
                self._places, self._values, self._at = places, values, 0
                return True
        return False

    def records(self) -> Iterator[Record]:
        name = self.source.name
        while True:
            while self._at < len(self._values):
                at = self._at
                self._at = at + 1
                self.next += 1
                value = self._values[at]
                if type(value) is BadRecord:
                    yield value
                else:
                    line, col = self._places[at]
                    yield Record(value, Location(name, line, col))
            if not self._next_run():
                return

    def location(self, index: int) -> Location:
        """The place of an element of the batch ``value_batches`` handed out last."""
        start, places = self._batch
        line, col = places[index - start]
        return Location(self.source.name, line, col)

    def value_batches(self) -> Iterator[tuple[int, list[Any]]]:
        """The elements not yet handed out, in batches: (index of the first, values); an
        element that could not be read comes as its BadRecord."""
        while True:
            while self._at < len(self._values):
                at, stop = self._at, min(self._at + DOCUMENT_BATCH, len(self._values))
                start = self.next
                self._at, self.next = stop, start + stop - at
                self._batch = (start, self._places[at:stop])
                yield start, self._values[at:stop]
            if not self._next_run():
                return


def run_values(source: Source, run: Run) -> list[Any]:
    """The values of a run's elements (BadRecords for those too large, too deep, or
    holding an integer too long), parsed by one orjson call when it can; raises
    DataError, at its place, for an element that is not JSON (nor is the document)."""
    if len(run.spans) > 1:
        try:
            values = loads(b"[" + run.text + b"]")
        except (orjson.JSONDecodeError, DataError):
            pass  # (each on its own: the one at fault said at its place)
        else:
            if isinstance(values, list) and len(values) == len(run.spans):
                return values
    return [
        element_value(source, item, line, col)
        for (line, col), item in zip(run.places, run.items(), strict=True)
    ]


def element_value(source: Source, item: Any, line: int, col: int) -> Any:
    """An element's value, or its BadRecord (too large, too deep, an integer too long);
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
        return loads(item)
    except orjson.JSONDecodeError as exc:
        raise _not_json(source, item, line, col, exc) from None
    except DataError as exc:
        return BadRecord(exc.located(location))


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
    source: Source, scanner: ArrayScanner, runs: Iterator[Run]
) -> tuple[list[Run], bool]:
    """The runs read while the array may still be one JSONL line (on its first line,
    at most HOLD bytes); and whether the array ended so."""
    cap = min(HOLD, LIMITS.record_bytes)
    held: list[Run] = []
    size = 0
    try:
        for run in runs:
            held.append(run)
            text = run.text  # (an element too large cannot be a line's)
            size += len(text) if type(text) is bytes else 0 if text is DEEP else cap + 1
            if size > cap or scanner.line != scanner.opened.line:
                return held, False
    except DataError:
        for run in held:  # an element before the fault that is not JSON: said first
            run_values(source, run)
        raise
    return held, True


def first_line_array(
    source: Source, scanner: ArrayScanner, held: list[Run]
) -> tuple[Record | None, Any]:
    """An array that ended on its first line: (its line's Record, None) when another line
    follows (the file is JSONL whose lines are arrays), else (None, what ``after``
    said)."""
    follows = scanner.after()
    if follows is None or scanner.opened.line != scanner.closed or follows[0] == scanner.closed:
        return None, follows
    location = scanner.opened
    values = []
    for run in held:
        for value in run_values(source, run):
            if type(value) is BadRecord:
                value.error.location = value.location = location
                return value, follows
            values.append(value)
    if too_deep(values):
        return nested_too_deep(location), follows
    return Record(values, location), follows
