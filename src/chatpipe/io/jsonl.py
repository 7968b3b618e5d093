"""JSONL read line by line: the first non-blank line of a stream, within the record limit,
and the rest record by record or in large batches of lines (``JsonlReader``)."""

from __future__ import annotations

import io
import mmap
from collections.abc import Iterator
from typing import IO, Any

from ..errors import DataError, Location
from .limits import LIMITS
from .records import BadRecord, Record, line_record, too_long
from .sources import UTF8_BOM as BOM
from .sources import Source

# bytes read at a time by batch readers: 64 KiB measured fastest (cache-sized batches)
BATCH_BYTES = 1 << 16


def first_line(source: Source, stream: IO[bytes], lineno: int = 1) -> tuple[bytes, int]:
    """The first non-blank line from here (BOM removed) and its line number; at most
    ``--max-record-bytes`` of it (``unended`` tells a line cut there)."""
    limit = LIMITS.record_bytes + 1
    blank = 0
    while True:
        line = _long_line(stream, limit) or stream.readline(limit)
        if lineno == 1 and line.startswith(BOM):
            line = line[3:]
        if not line or line.strip() or len(line) >= limit - 3:
            return line, lineno
        blank += len(line)
        if blank >= limit:
            raise DataError(
                f"more than {limit - 1:,} bytes of blank lines, more than a record may take",
                Location(source.name, lineno),
                "raise the limit with chatpipe --max-record-bytes N",
            )
        lineno += 1


def _long_line(stream: IO[bytes], limit: int) -> bytes | None:
    """The next line of a regular file, at most ``limit`` bytes, read in one piece when it
    is longer than what is buffered (a minified document is one line: readline would copy
    it 64 KiB at a time, three times as slow); None where that cannot be done."""
    peek = getattr(stream, "peek", None)
    if peek is None or b"\n" in peek(1):
        return None
    try:
        start = stream.tell()
        with mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            end = mapped.find(b"\n", start, start + limit)
            size = end + 1 - start if end >= 0 else min(len(mapped) - start, limit)
    except (OSError, ValueError, AttributeError):  # a pipe, an empty file, a wrapper
        return None
    return stream.read(size) if size > 0 else None


def unended(line: bytes) -> bool:
    """A line that ``first_line`` cut at the record limit (no line break in it)."""
    return len(line) > LIMITS.record_bytes - 3 and not line.endswith(b"\n")


def oversized(source: Source, stream: IO[bytes], line: bytes, lineno: int) -> BadRecord | None:
    """A line longer than the record limit: skipped to its end, reported, never kept whole."""
    limit = LIMITS.record_bytes
    if len(line) <= limit or line.endswith(b"\n"):
        return None
    rest = line
    while rest and not rest.endswith(b"\n"):
        rest = stream.readline(1 << 20)
    return too_long(source, lineno)


class JsonlReader:
    """A JSONL stream read record by record (dialect detection looks at the first few),
    then, if its reader takes over, line by line in large batches (``line_batches``)."""

    def __init__(self, source: Source, stream: IO[bytes], first: bytes, lineno: int) -> None:
        self.source = source
        self.stream = stream
        self.pending = first  # a line read but not yet handed out
        self.lineno = lineno  # the number of the next line
        self.done = False

    def records(self) -> Iterator[Record]:
        source, stream = self.source, self.stream
        line, lineno = self.pending, self.lineno
        limit = LIMITS.record_bytes + 1
        while line:
            self.pending, self.lineno = b"", lineno + 1
            big = oversized(source, stream, line, lineno) if len(line) >= limit else None
            if big is not None:
                yield big
            else:
                record = line_record(source, line, lineno)
                if record is not None:
                    yield record
            line = stream.readline(limit)
            lineno += 1
        self.done = True

    def line_batches(self) -> Iterator[tuple[int, list[bytes | BadRecord]]]:
        """The lines not yet read, in batches of about ``BATCH_BYTES``: (number of the first
        line, the lines without their breaks). A line past the record limit comes as a
        BadRecord, skipped to its end without being held."""
        if self.done:
            return
        stream, limit, size = self.stream, LIMITS.record_bytes, BATCH_BYTES
        read = getattr(stream, "read1", stream.read)
        carry, lineno = self.pending, self.lineno
        self.pending = b""
        while True:
            chunk = read(size)
            if not chunk:
                break
            if carry and b"\n" not in carry:
                # the line begun in the last chunk, joined without copying the chunk
                lines = chunk.split(b"\n")
                lines[0] = carry + lines[0]
            else:  # (lines after a skipped oversized one are in the carry whole)
                lines = (carry + chunk if carry else chunk).split(b"\n")
            carry = lines.pop()
            if lines:
                if (len(chunk) > limit or len(lines[0]) > limit) and max(map(len, lines)) > limit:
                    lines = [
                        line if len(line) <= limit else too_long(self.source, lineno + i)
                        for i, line in enumerate(lines)
                    ]
                yield lineno, lines
                lineno += len(lines)
            if len(carry) > limit:
                yield lineno, [too_long(self.source, lineno)]
                lineno += 1
                carry = self._skip_line(read, size)
        if carry:
            yield lineno, [carry]
        self.done = True

    @staticmethod
    def _skip_line(read: Any, size: int) -> bytes:
        """Read past the end of the current line; what follows it."""
        while True:
            chunk = read(size)
            at = chunk.find(b"\n")
            if not chunk or at >= 0:
                return chunk[at + 1 :] if chunk else b""


def chained(first: bytes, stream: IO[bytes]) -> IO[bytes]:
    """``first``, then the rest of ``stream``, as one buffered stream."""
    return io.BufferedReader(_Chain(first, stream), BATCH_BYTES)


class _Chain(io.RawIOBase):
    def __init__(self, first: bytes, stream: IO[bytes]) -> None:
        self.first, self.stream = first, stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.first[: len(buffer)]
        if data:
            self.first = self.first[len(data) :]
        else:
            data = self.stream.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)
