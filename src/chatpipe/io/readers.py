"""Containers: a source's bytes -> its records (plain JSON values) with positions.

The container (JSONL, JSON, YAML, SSE, Parquet, Markdown) is told from the name and the
first line; a file that is not text is refused as what it is (an image, a tar archive). JSONL
and SSE are streamed, no line read past the record limit; a JSON or YAML document is
parsed whole and its top-level list is the record stream, handed out record by record or
in batches for fast/ (JsonlReader, DocumentReader).
"""

from __future__ import annotations

import gc
import mmap
from collections.abc import Iterator
from typing import IO, Any

import orjson

from ..errors import DataError, Location, NotAChatLog
from .json_numbers import loads
from .json_positions import ElementFinder
from .limits import LIMITS, bytes_may_be_too_deep, too_deep
from .magic import HEAD, binary_kind
from .markdown import MARKDOWN_SUFFIXES, is_markdown_heading, markdown_records
from .parquet import is_parquet, parquet_records
from .records import (
    BadRecord,
    Record,
    deep_record,
    json_error,
    line_record,
    nested_too_deep,
    start_column,
    too_long,
)
from .sources import UTF8_BOM as BOM
from .sources import Source
from .sse import sse_records
from .yaml_reader import yaml_records

# bytes read at a time by batch readers: 64 KiB measured fastest (cache-sized batches)
BATCH_BYTES = 1 << 16
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".jsonlines")
YAML_SUFFIXES = (".yaml", ".yml")


def read_records(source: Source) -> Iterator[Record]:
    """The records of one source; sets ``source.container`` before the first one."""
    stream = source.open()
    try:
        suffix = source.suffix()
        head = stream.peek(HEAD)[:HEAD]
        if is_parquet(head[:4], suffix):
            source.container = "parquet"
            yield from parquet_records(source.name, stream)
            return
        _refuse_binary(source, head)
        if suffix in YAML_SUFFIXES:
            source.container = "yaml"
            yield from yaml_records(source, _read_all(stream, b""))
            return
        if suffix in MARKDOWN_SUFFIXES and source.member is None:
            source.container = "markdown"
            yield from markdown_records(source, _read_all(stream, b""))
            return
        first, lineno = _first_line(stream)
        if suffix in JSONL_SUFFIXES:
            source.container = "jsonl"
            source.jsonl = JsonlReader(source, stream, first, lineno)
            yield from source.jsonl.records()
            return
        head = first.lstrip()
        if not head:
            source.container = "jsonl"
            return
        if head.startswith((b"data:", b"event:", b"id:", b"retry:")) or suffix == ".sse":
            source.container = "sse"
            yield from sse_records(source, stream, first, lineno)
            return
        if _unended(first) and head[:1] not in (b"{", b"["):
            # no line break in the first --max-record-bytes bytes: not JSON, JSONL or YAML
            # (only a minified JSON document is one long line), and never read further
            raise NotAChatLog(
                f"no line break in the first {LIMITS.record_bytes:,} bytes: not a chat log",
                Location(source.name, lineno, 1),
                "a JSON document starts with { or [; raise chatpipe --max-record-bytes N "
                "for longer lines",
                kind="text with no line break",
            )
        if head[:1] in (b"{", b"[", b'"'):
            try:
                value = _document_loads(first)
            except orjson.JSONDecodeError:
                value = _MISSING
            except DataError as exc:
                raise exc.located(Location(source.name, lineno, start_column(first))) from None
            if value is not _MISSING:
                nxt, nxt_lineno = _first_line(stream, lineno + 1)
                if nxt.strip():
                    source.container = "jsonl"
                    yield Record(value, Location(source.name, lineno, start_column(first)))
                    source.jsonl = JsonlReader(source, stream, nxt, nxt_lineno)
                    yield from source.jsonl.records()
                    return
                source.container = "json"
                yield from _document_records(source, value, first, lineno)
                return
            data = first + _read_all(stream, b"")
            if head[:1] == b'"':  # a YAML document may start with a quoted key
                _yaml_member(source)
                source.container = "yaml"
                yield from yaml_records(source, data, lineno - 1)
                return
            source.container = "json"
            try:
                value = _document_loads(data)
            except orjson.JSONDecodeError as exc:
                raise json_error(exc, source, data, lineno - 1) from None
            except DataError as exc:
                raise exc.located(Location(source.name)) from None
            yield from _document_records(source, value, data, lineno)
            return
        if head[:1] == b"<":  # a page (ChatGPT's chat.html), not a chat log
            raise NotAChatLog(
                "an HTML or XML page, not a chat log",
                Location(source.name, lineno, start_column(first)),
                "chatpipe reads JSON, JSONL, YAML and SSE; ChatGPT's export holds its "
                "conversations in conversations.json beside chat.html",
                kind="HTML or XML",
            )
        _yaml_member(source)
        data = first + _read_all(stream, b"")
        if is_markdown_heading(head) and source.member is None:
            yield from _yaml_or_markdown(source, data, lineno - 1)
            return
        source.container = "yaml"
        yield from yaml_records(source, data, lineno - 1)
    finally:
        if not source.is_stdin:
            stream.close()


def _yaml_or_markdown(source: Source, data: bytes, line_offset: int) -> Iterator[Record]:
    """Text opening with a Markdown heading and no name that says what it is (stdin): YAML
    when it parses as YAML (a heading is a YAML comment), Markdown when it does not."""
    try:
        records = list(yaml_records(source, data, line_offset))
    except DataError:
        source.container = "markdown"
        yield from markdown_records(source, data, line_offset)
        return
    source.container = "yaml"
    yield from records


_MISSING: Any = object()
# what chatpipe reads, said when it meets something else
_READS = "chatpipe reads JSON, JSONL, YAML and SSE text and Parquet, compressed or in a zip"


def _refuse_binary(source: Source, head: bytes) -> None:
    """A file that is not text (an image, a tar archive, a zip inside a compressed file
    or a zip): said as what it is, before any of it is parsed."""
    kind = binary_kind(head)
    if kind is None:
        return
    hint = _READS
    if kind == "a zip archive" and (source.member or source.compression):
        kind += " inside " + ("a zip" if source.member else f"{source.compression} data")
        hint = "unpack the outer archive and name the zip inside it"
    elif kind == "a tar archive":
        hint = "unpack it (tar xf FILE) and name the files inside it"
    elif source.member is None and kind == "binary data":
        hint = f"{_READS}; UTF-16 text needs its byte order mark"
    raise NotAChatLog(f"{kind}, not a text chat log", Location(source.name), hint, kind)


def _yaml_member(source: Source) -> None:
    """A zip's member read as YAML only when its name says YAML: other text in a zip (a
    README, notes) is not a chat log, and is skipped."""
    if source.member is not None and source.suffix() not in YAML_SUFFIXES:
        raise NotAChatLog(
            "text that is not JSON, not a chat log",
            Location(source.name),
            "a member is read as YAML when its name ends in .yaml or .yml",
            kind="text that is not JSON",
        )


def _document_loads(data: bytes) -> Any:
    """A whole document parsed, the cyclic garbage collector paused meanwhile and then
    told to pass over what was parsed: values read from JSON hold no cycles, and a
    collector walking a large document's objects again and again costs a fifth of the
    parse (and more with every batch read after it)."""
    if len(data) < BATCH_BYTES:
        return loads(data)
    was_on = gc.isenabled()
    gc.disable()
    try:
        value = loads(data)
    finally:
        if was_on:
            gc.enable()
    gc.freeze()
    return value


def _read_all(stream: IO[bytes], prefix: bytes) -> bytes:
    return prefix + stream.read()


def _first_line(stream: IO[bytes], lineno: int = 1) -> tuple[bytes, int]:
    """The first non-blank line from here (BOM removed) and its line number; at most
    ``--max-record-bytes`` of it (``_unended`` tells a line cut there)."""
    limit = LIMITS.record_bytes + 1
    while True:
        line = _long_line(stream, limit) or stream.readline(limit)
        if lineno == 1 and line.startswith(BOM):
            line = line[3:]
        if not line or line.strip() or len(line) >= limit - 3:
            return line, lineno
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


def _unended(line: bytes) -> bool:
    """A line that ``_first_line`` cut at the record limit (no line break in it)."""
    return len(line) > LIMITS.record_bytes - 3 and not line.endswith(b"\n")


def _oversized(source: Source, stream: IO[bytes], line: bytes, lineno: int) -> BadRecord | None:
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
            big = _oversized(source, stream, line, lineno) if len(line) >= limit else None
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


def _document_records(
    source: Source, value: Any, data: bytes, first_lineno: int
) -> Iterator[Record]:
    """A JSON document's records: its list's elements, or the document itself."""
    if not isinstance(value, list):
        location = Location(source.name, first_lineno, start_column(data))
        yield deep_record(source, value, data, location) or Record(value, location)
        return
    source.document = DocumentReader(source, value, data, first_lineno)
    yield from source.document.records()


# elements handed out at a time by ``DocumentReader.value_batches``
DOCUMENT_BATCH = 1024
# elements measured for depth without a look at the document's brackets first
DIRECT_DEPTH_CHECKS = 32


class DocumentReader:
    """The elements of a JSON document's top-level array, parsed already: record by
    record (detection looks at the first few), then, if a reader takes over, in batches
    of values (``value_batches``). Positions are found only when an error names one."""

    def __init__(self, source: Source, values: list[Any], data: bytes, first_lineno: int) -> None:
        self.source = source
        self.values = values
        self.finder = ElementFinder(data, first_lineno)
        self.data = data
        self._may_be_deep: bool | None = None
        self.next = 0  # the index of the next element to hand out

    @property
    def may_be_deep(self) -> bool:
        """Only a document with more brackets than the limit can nest past it; then each
        element is measured on its own (linear in all). Counted when first asked."""
        if self._may_be_deep is None:
            self._may_be_deep = bytes_may_be_too_deep(self.data)
        return self._may_be_deep

    def location(self, index: int) -> Location:
        finder = self.finder
        return Location(self.source.name, resolve=lambda: finder.position(index))

    def records(self) -> Iterator[Record]:
        values = self.values
        while self.next < len(values):
            index = self.next
            self.next = index + 1
            location = self.location(index)
            item = values[index]
            # the first few (detection's) measured at once, the rest if they may be deep
            deep = (index < DIRECT_DEPTH_CHECKS or self.may_be_deep) and too_deep(item)
            yield nested_too_deep(location) if deep else Record(item, location)

    def value_batches(self) -> Iterator[tuple[int, list[Any]]]:
        """The elements not yet handed out, in batches: (index of the first, values),
        not measured for depth (the taker measures those it does not know the shape of:
        ``may_be_deep``)."""
        values = self.values
        while self.next < len(values):
            start = self.next
            stop = self.next = min(start + DOCUMENT_BATCH, len(values))
            yield start, values[start:stop]
            # taken: let go, so that what is written next reuses their memory
            values[start:stop] = [None] * (stop - start)
