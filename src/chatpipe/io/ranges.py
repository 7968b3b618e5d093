"""Byte ranges of line-oriented files, for work cut into parts: ranges that start at line
starts, read whole or in pieces of whole lines, their lines counted and parsed into
records with the checks one process makes; and input names with their globs expanded.

Paths may be fsspec URLs (``s3://``, ``memory://``, ...) where fsspec is installed."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator

from ..errors import UsageError
from .limits import LIMITS
from .records import Record, line_record, too_long
from .sources import Source, filesystem, is_url, local_path, open_input, text_start

PIECE = 1 << 20  # bytes a range is read in, at most (whole lines: a longer line is one piece)


def expand(specs: tuple[str, ...] | list[str]) -> list[str]:
    """Input paths with their globs expanded (fsspec URLs' too), in order; ``file://`` URLs
    are the paths they name."""
    out: list[str] = []
    for spec in map(local_path, specs):
        if spec != "-" and any(c in spec for c in "*?[") and not os.path.exists(spec):
            found = _glob(spec)
            if not found:
                raise UsageError(f"{spec}: no file matches this pattern")
            out.extend(found)
        else:
            out.append(spec)
    return out


def _glob(pattern: str) -> list[str]:
    if is_url(pattern):
        fs, path = filesystem(pattern)
        return sorted(fs.unstrip_protocol(p) for p in fs.glob(path))
    import glob

    return sorted(glob.glob(pattern))


def line_ranges(spec: str, blocksize: int | None) -> list[tuple[int, int]] | None:
    """Byte ranges of about ``blocksize`` bytes (None: one), each starting at a line start
    (the first after a UTF-8 byte order mark); None for UTF-16 or UTF-32 text, whose lines
    are not found in its bytes."""
    with open_input(spec) as stream:
        first = text_start(stream.read(4))
        if first is None:
            return None
        size = stream.seek(0, io.SEEK_END)
        if blocksize is None or size <= blocksize:
            return [(first, size)]
        starts = [first]
        while True:
            stream.seek(starts[-1] + blocksize)
            stream.readline()
            position = stream.tell()
            if position >= size:
                break
            starts.append(position)
    return list(zip(starts, [*starts[1:], size], strict=True))


def read_range(spec: str, start: int, end: int) -> bytes:
    """Bytes ``start`` to ``end`` of a file (an fsspec URL too)."""
    with open_input(spec) as stream:
        stream.seek(start)
        return stream.read(end - start)


def read_lines(spec: str, start: int, end: int, block: int = PIECE) -> Iterator[bytes]:
    """Bytes ``start`` to ``end`` of a file (cut at a line start), in pieces of whole lines
    of about ``block`` bytes: a range of any size is read in the memory of one piece (a
    line longer than ``block`` is a piece of its own)."""
    with open_input(spec) as stream:
        stream.seek(start)
        left, pending = end - start, []
        while left > 0:
            data = stream.read(min(block, left))
            if not data:
                break
            left -= len(data)
            cut = data.rfind(b"\n") + 1 if left > 0 else len(data)
            if cut == 0:  # no line ends here yet
                pending.append(data)
                continue
            yield b"".join([*pending, data[:cut]]) if pending else data[:cut]
            pending = [data[cut:]] if cut < len(data) else []
        if pending:
            yield b"".join(pending)


def lines_in(data: bytes) -> int:
    """The lines of whole JSONL lines (the last may lack its line end)."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def line_records(
    source: Source, data: bytes, first: int = 1
) -> Iterator[tuple[int, Record | None]]:
    """The records of whole JSONL lines, numbered from ``first`` (None for a blank
    line), with the checks one process makes: size, JSON, exact integers, depth."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    limit = LIMITS.record_bytes
    for number, line in enumerate(lines, first):
        if not line.strip():
            yield number, None
            continue
        record = too_long(source, number) if len(line) > limit else None
        yield number, record or line_record(source, line, number)


def range_records(spec: str, start: int, end: int) -> Iterator[tuple[int, Record | None]]:
    """The records of a range of a JSONL file, numbered from 1 at its start, read a
    piece at a time."""
    source, first = Source(spec), 1
    for data in read_lines(spec, start, end):
        yield from line_records(source, data, first)
        first += lines_in(data)
