"""Records: parsed values with the place they start, and the bad ones (a DataError in
their place), as every reader gives them; the checks each record passes (exact integers,
depth) and the errors for what fails them."""

from __future__ import annotations

from typing import Any

import orjson

from ..errors import DataError, Location
from .json_numbers import again, loads
from .limits import LIMITS, bytes_may_be_too_deep, too_deep
from .sources import Source


class Record:
    """One parsed value and where it starts (a location that may resolve lazily)."""

    __slots__ = ("location", "value")

    def __init__(self, value: Any, location: Location) -> None:
        self.value = value
        self.location = location


class BadRecord(Record):
    """A record that could not be parsed: readers report or skip it, and go on."""

    __slots__ = ("error",)

    def __init__(self, error: DataError) -> None:
        super().__init__(None, error.location)
        self.error = error


def json_error(
    exc: orjson.JSONDecodeError, source: Source, data: bytes, line_offset: int
) -> DataError:
    line = exc.lineno + line_offset
    message = exc.msg
    if "UTF-8" in message:
        return utf8_error(source, data, line_offset) or DataError(
            "invalid UTF-8", Location(source.name, line, exc.colno)
        )
    if message.startswith("failed to allocate memory"):
        # orjson's words for a text cut short inside brackets nested 191 deep or more
        message = "it ends inside deeply nested brackets (cut short, or not JSON)"
    hint = None
    try:
        at = exc.doc[exc.pos : exc.pos + 1]
    except (AttributeError, IndexError, TypeError):
        at = ""
    if at in ("'", b"'"):
        hint = "this looks like a Python repr, not JSON: write it with json.dumps"
    return DataError(
        f"invalid JSON: {message[0].lower() + message[1:]}",
        Location(source.name, line, exc.colno),
        hint,
    )


def utf8_error(source: Source, data: bytes, line_offset: int) -> DataError | None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = exc.start
        line = data.count(b"\n", 0, start) + 1 + line_offset
        col = start - (data.rfind(b"\n", 0, start) + 1) + 1
        return DataError(
            f"invalid UTF-8: byte 0x{data[start]:02x} (column counts bytes)",
            Location(source.name, line, col),
            "the input must be UTF-8 text",
        )
    return None


def start_column(line: bytes) -> int:
    if line[:1] not in b" \t":
        return 1
    return len(line) - len(line.lstrip()) + 1


def too_long(source: Source, lineno: int) -> BadRecord:
    return BadRecord(
        DataError(
            f"a record larger than {LIMITS.record_bytes:,} bytes",
            Location(source.name, lineno, 1),
            "raise the limit with chatpipe --max-record-bytes N",
        )
    )


def deep_record(source: Source, value: Any, data: bytes, location: Location) -> BadRecord | None:
    if bytes_may_be_too_deep(data) and too_deep(value):
        return nested_too_deep(location)
    return None


def nested_too_deep(location: Location) -> BadRecord:
    return BadRecord(
        DataError(
            f"a record nested deeper than {LIMITS.depth} levels",
            location,
            "raise the limit with chatpipe --max-depth N",
        )
    )


def line_record(source: Source, line: bytes, lineno: int) -> Record | None:
    """One JSONL line parsed and checked: its Record, a BadRecord, or None (blank)."""
    location = Location(source.name, lineno, start_column(line))
    try:
        value = loads(line)
    except orjson.JSONDecodeError:
        bare = line.rstrip(b"\r\n")  # parsed again without it: an early end is on this line
        if not bare.strip():
            return None
        try:
            value = loads(bare)
        except orjson.JSONDecodeError as exc:
            return BadRecord(json_error(exc, source, bare, lineno - 1))
        except DataError as exc:
            return BadRecord(exc.located(location))
    except DataError as exc:
        return BadRecord(exc.located(location))
    return checked_record(value, line, location, exact=True)


def checked_record(value: Any, line: bytes, location: Location, exact: bool = False) -> Record:
    """A value orjson parsed from one line, as a Record: its integers exact (``exact``:
    they are already), its depth within the limit (a BadRecord otherwise)."""
    try:
        value = value if exact else again(value, line)
    except DataError as exc:
        return BadRecord(exc.located(location))
    if line.count(b"{") + line.count(b"[") > LIMITS.depth and too_deep(value):
        return nested_too_deep(location)
    return Record(value, location)
