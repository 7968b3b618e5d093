"""Containers: bytes in (files, stdin) -> records (plain JSON values) with positions.

JSONL is streamed line by line; a JSON or YAML document is parsed whole and its
top-level list is the record stream. Every record knows its file, line and column; for
a JSON document the position of an element is found only when an error needs it
(json_positions).
"""

from __future__ import annotations

import gc
import io
import os
import sys
from collections.abc import Iterator
from typing import IO, Any

import orjson

from .errors import DataError, Location
from .json_numbers import again, loads
from .json_positions import ElementFinder
from .limits import LIMITS, bytes_may_be_too_deep, too_deep
from .yaml_io import yaml_records

BOM = b"\xef\xbb\xbf"
# bytes read at a time by batch readers: 64 KiB measured fastest (cache-sized batches)
BATCH_BYTES = 1 << 16
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".jsonlines")
YAML_SUFFIXES = (".yaml", ".yml")


class Record:
    """One parsed value and where it starts (a location that may resolve lazily)."""

    __slots__ = ("location", "value")

    def __init__(self, value: Any, location: Location) -> None:
        self.value = value
        self.location = location


class Source:
    """An input: a path, or ``-`` for stdin. ``name`` is what errors call it."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.is_stdin = spec == "-"
        # a name that is not UTF-8 is shown with its bytes escaped (\xff), never as a crash
        self.name = "<stdin>" if self.is_stdin else display_path(spec)
        self.container: str | None = None  # set once read: jsonl, json, yaml
        self.stream: IO[bytes] | None = None  # while being read (for progress)
        self.jsonl: JsonlReader | None = None  # a JSONL source's reader, once known
        self.document: DocumentReader | None = None  # a JSON array's, likewise

    def open(self) -> IO[bytes]:
        stream = self._open()
        encoding = _wide_encoding(stream)
        if encoding is not None:  # UTF-16 or UTF-32 text: read as the UTF-8 it spells
            stream = io.BufferedReader(_Transcoded(stream, encoding, self.name))
        self.stream = stream
        return self.stream

    def _open(self) -> IO[bytes]:
        if self.is_stdin:
            return sys.stdin.buffer
        try:
            if os.path.isdir(self.spec):
                raise DataError("is a directory, not a chat log", Location(self.name))
            # 64 KiB: the batch size; a long first line (a minified document) is read
            # in half the time of the default 8 KiB
            return open(self.spec, "rb", buffering=BATCH_BYTES)
        except FileNotFoundError:
            raise DataError("no such file", Location(self.name)) from None
        except PermissionError:
            raise DataError("permission denied", Location(self.name)) from None
        except OSError as exc:
            raise DataError(exc.strerror or str(exc), Location(self.name)) from None

    def suffix(self) -> str:
        return "" if self.is_stdin else os.path.splitext(self.spec)[1].lower()


# byte order marks of the wide encodings; UTF-32's first, as it begins with UTF-16's
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


def _wide_encoding(stream: IO[bytes]) -> str | None:
    """The encoding a byte order mark names, for text that is not UTF-8 (Windows tools
    write UTF-16); None for anything else, which is read as UTF-8."""
    peek = getattr(stream, "peek", None)
    if peek is None:
        return None
    head = peek(4)[:4]
    for bom, encoding in _WIDE_BOMS:
        if head.startswith(bom):
            return encoding
    return None


class _Transcoded(io.RawIOBase):
    """A UTF-16 or UTF-32 stream read as UTF-8 bytes, a block at a time: every container
    (JSONL, JSON, YAML, SSE) then reads it as it reads UTF-8."""

    def __init__(self, raw: IO[bytes], encoding: str, name: str) -> None:
        import codecs

        self.raw = raw
        self.name = name
        self.encoding = encoding
        self.decoder = codecs.getincrementaldecoder(encoding)()
        self.pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self.pending:
            block = self.raw.read(1 << 16)
            try:
                text = self.decoder.decode(block, final=not block)
            except UnicodeDecodeError:
                raise DataError(
                    f"invalid {self.encoding.upper()} text",
                    Location(self.name),
                    "convert it to UTF-8, e.g. with iconv -t UTF-8",
                ) from None
            self.pending = text.encode()
            if not block:
                break
        taken = self.pending[: len(buffer)]
        buffer[: len(taken)] = taken
        self.pending = self.pending[len(taken) :]
        return len(taken)

    def close(self) -> None:
        self.raw.close()
        super().close()


def display_path(path: str) -> str:
    """A path as people read it: bytes that are not UTF-8 shown as ``\xff``."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
    return path


def read_records(source: Source) -> Iterator[Record]:
    """The records of one source; sets ``source.container`` before the first one."""
    stream = source.open()
    try:
        suffix = source.suffix()
        if suffix in YAML_SUFFIXES:
            source.container = "yaml"
            yield from yaml_records(source, _read_all(stream, b""))
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
            yield from _sse_records(source, stream, first, lineno)
            return
        if _unended(first) and head[:1] not in (b"{", b"["):
            # no line break in the first --max-record-bytes bytes: not JSON, JSONL or YAML
            # (only a minified JSON document is one long line), and never read further
            raise DataError(
                f"no line break in the first {LIMITS.record_bytes:,} bytes: not a chat log",
                Location(source.name, lineno, 1),
                "a JSON document starts with { or [; raise chatpipe --max-record-bytes N "
                "for longer lines",
            )
        if head[:1] in (b"{", b"[", b'"'):
            try:
                value = _document_loads(first)
            except orjson.JSONDecodeError:
                value = _MISSING
            except DataError as exc:
                raise exc.located(Location(source.name, lineno, _col(first))) from None
            if value is not _MISSING:
                nxt, nxt_lineno = _first_line(stream, lineno + 1)
                if nxt.strip():
                    source.container = "jsonl"
                    yield Record(value, Location(source.name, lineno, _col(first)))
                    source.jsonl = JsonlReader(source, stream, nxt, nxt_lineno)
                    yield from source.jsonl.records()
                    return
                source.container = "json"
                yield from _document_records(source, value, first, lineno)
                return
            data = first + _read_all(stream, b"")
            if head[:1] == b'"':  # a YAML document may start with a quoted key
                source.container = "yaml"
                yield from yaml_records(source, data, lineno - 1)
                return
            source.container = "json"
            try:
                value = _document_loads(data)
            except orjson.JSONDecodeError as exc:
                raise _json_error(exc, source, data, lineno - 1) from None
            except DataError as exc:
                raise exc.located(Location(source.name)) from None
            yield from _document_records(source, value, data, lineno)
            return
        source.container = "yaml"
        yield from yaml_records(source, first + _read_all(stream, b""), lineno - 1)
    finally:
        if not source.is_stdin:
            stream.close()


_MISSING: Any = object()


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
        line = stream.readline(limit)
        if lineno == 1 and line.startswith(BOM):
            line = line[3:]
        if not line or line.strip() or len(line) >= limit - 3:
            return line, lineno
        lineno += 1


def _unended(line: bytes) -> bool:
    """A line that ``_first_line`` cut at the record limit (no line break in it)."""
    return len(line) > LIMITS.record_bytes - 3 and not line.endswith(b"\n")


def _col(line: bytes) -> int:
    if line[:1] not in b" \t":
        return 1
    return len(line) - len(line.lstrip()) + 1


def _oversized(source: Source, stream: IO[bytes], line: bytes, lineno: int) -> BadRecord | None:
    """A line longer than the record limit: skipped to its end, reported, never kept whole."""
    limit = LIMITS.record_bytes
    if len(line) <= limit or line.endswith(b"\n"):
        return None
    rest = line
    while rest and not rest.endswith(b"\n"):
        rest = stream.readline(1 << 20)
    return too_long(source, lineno)


def too_long(source: Source, lineno: int) -> BadRecord:
    return BadRecord(
        DataError(
            f"a record larger than {LIMITS.record_bytes:,} bytes",
            Location(source.name, lineno, 1),
            "raise the limit with chatpipe --max-record-bytes N",
        )
    )


def _too_deep_record(
    source: Source, value: Any, data: bytes, location: Location
) -> BadRecord | None:
    if bytes_may_be_too_deep(data) and too_deep(value):
        return _too_deep(location)
    return None


def _too_deep(location: Location) -> BadRecord:
    return BadRecord(
        DataError(
            f"a record nested deeper than {LIMITS.depth} levels",
            location,
            "raise the limit with chatpipe --max-depth N",
        )
    )


def line_record(source: Source, line: bytes, lineno: int) -> Record | None:
    """One JSONL line parsed and checked: its Record, a BadRecord, or None (blank)."""
    location = Location(source.name, lineno, _col(line))
    try:
        value = loads(line)
    except orjson.JSONDecodeError:
        bare = line.rstrip(b"\r\n")  # parsed again without it: an early end is on this line
        if not bare.strip():
            return None
        try:
            value = loads(bare)
        except orjson.JSONDecodeError as exc:
            return BadRecord(_json_error(exc, source, bare, lineno - 1))
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
        return _too_deep(location)
    return Record(value, location)


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


def _sse_records(source: Source, stream: IO[bytes], first: bytes, lineno: int) -> Iterator[Record]:
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
                        yield BadRecord(_json_error(exc, source, payload, start - 1))
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


class BadRecord(Record):
    """A record that could not be parsed: readers report or skip it, and go on."""

    __slots__ = ("error",)

    def __init__(self, error: DataError) -> None:
        super().__init__(None, error.location)
        self.error = error


def _json_error(
    exc: orjson.JSONDecodeError, source: Source, data: bytes, line_offset: int
) -> DataError:
    line = exc.lineno + line_offset
    message = exc.msg
    if "UTF-8" in message:
        return utf8_error(source, data, line_offset) or DataError(
            "invalid UTF-8", Location(source.name, line, exc.colno)
        )
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


def _document_records(
    source: Source, value: Any, data: bytes, first_lineno: int
) -> Iterator[Record]:
    """A JSON document's records: its list's elements, or the document itself."""
    if not isinstance(value, list):
        location = Location(source.name, first_lineno, _col(data))
        yield _too_deep_record(source, value, data, location) or Record(value, location)
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
            yield _too_deep(location) if deep else Record(item, location)

    def value_batches(self) -> Iterator[tuple[int, list[Any]]]:
        """The elements not yet handed out, in batches: (index of the first, values),
        not measured for depth (the taker measures those it does not know the shape of:
        ``may_be_deep``)."""
        values = self.values
        while self.next < len(values):
            start = self.next
            self.next = min(start + DOCUMENT_BATCH, len(values))
            yield start, values[start : self.next]
