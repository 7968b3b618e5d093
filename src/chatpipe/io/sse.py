"""Server-sent events (``data:`` lines, as a streamed answer is captured): each event's
data lines joined are one JSON record, at the line the event starts on."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

import orjson

from ..errors import DataError, Location
from .json_numbers import loads
from .limits import LIMITS
from .records import BadRecord, Record, json_error, too_long
from .sources import Source


def sse_records(source: Source, stream: IO[bytes], first: bytes, lineno: int) -> Iterator[Record]:
    """Server-sent events: each event's ``data:`` lines joined are one JSON record."""
    data: list[bytes] = []
    start = lineno
    line = first
    limit = LIMITS.record_bytes
    size = 0  # of the event's data so far; past the limit the event is skipped, not held
    while True:
        if len(line) > limit and not line.endswith(b"\n"):
            line = _skip_rest(stream, line)
            if not data:
                start = lineno
            data, size = [b""], limit + 1
        stripped = line.rstrip(b"\r\n")
        if not stripped:  # a blank line (or the end) closes the event
            if size > limit:
                yield too_long(source, start)
            elif data:
                payload = b"\n".join(data)
                if payload.strip() != b"[DONE]":
                    location = Location(source.name, start, 1)
                    try:
                        yield Record(loads(payload), location)
                    except orjson.JSONDecodeError as exc:
                        yield BadRecord(json_error(exc, source, payload, start - 1))
                    except DataError as exc:
                        yield BadRecord(exc.located(location))
            data, size = [], 0
            if not line:
                return
        elif stripped.startswith(b"data:") and size <= limit:
            if not data:
                start = lineno
            value = stripped[5:]
            value = value[1:] if value.startswith(b" ") else value
            size += len(value) + 1
            data.append(value)
            if size > limit:
                data = [b""]
        line = stream.readline(limit + 1)
        lineno += 1


def _skip_rest(stream: IO[bytes], line: bytes) -> bytes:
    """Read past the end of a line cut at the record limit; its line break (or b"")."""
    while line and not line.endswith(b"\n"):
        line = stream.readline(1 << 20)
    return b"\n" if line else b""
