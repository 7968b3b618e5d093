"""Containers: a source's bytes -> its records (plain JSON values) with positions.

The container (JSONL, JSON, YAML, SSE, Parquet, Markdown) is told from the name and the
first line; a file that is not text is refused as what it is (an image, a tar archive). JSONL
and SSE are streamed, no line read past the record limit; a JSON document's top-level
array is read element by element (io/json_array.py, io/documents.py), each element within
the limit; any other JSON or YAML document, within the limit, is parsed whole. Records are
handed out one by one or in batches for fast/ (JsonlReader, DocumentReader).
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator
from typing import IO, Any

import orjson

from ..errors import DataError, Location, NotAChatLog
from .documents import DocumentReader, first_line_array, held_first_line
from .json_array import ArrayScanner
from .json_numbers import loads
from .jsonl import BATCH_BYTES, JsonlReader, chained, first_line, unended
from .limits import LIMITS
from .magic import HEAD, binary_kind
from .markdown import MARKDOWN_SUFFIXES, is_markdown_heading, markdown_records
from .parquet import is_parquet, parquet_records
from .records import (
    Record,
    deep_record,
    json_error,
    start_column,
)
from .sources import UTF8_BOM as BOM
from .sources import Source
from .sse import sse_records
from .yaml_reader import yaml_records

JSONL_SUFFIXES = (".jsonl", ".ndjson", ".jsonlines")
_BLANK = re.compile(rb"[ \t\r\n]*")
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
            yield from yaml_records(source, _read_bounded(source, stream, b"", "a YAML"))
            return
        if suffix in MARKDOWN_SUFFIXES and source.member is None:
            source.container = "markdown"
            yield from markdown_records(source, _read_bounded(source, stream, b"", "a Markdown"))
            return
        lineno = _skip_blank_lines(source, stream)
        if suffix not in JSONL_SUFFIXES and suffix != ".sse" and _opens_array(stream):
            yield from _array_records(source, stream, lineno)
            return
        first, lineno = first_line(source, stream, lineno)
        if suffix in JSONL_SUFFIXES:
            source.container = "jsonl"
            source.jsonl = JsonlReader(source, stream, first, lineno)
            yield from source.jsonl.records()
            return
        yield from _sniffed(source, stream, first, lineno, suffix)
    finally:
        if not source.is_stdin:
            stream.close()


def _sniffed(
    source: Source, stream: IO[bytes], first: bytes, lineno: int, suffix: str
) -> Iterator[Record]:
    """The records of a source told by its first non-blank line (``first``, line
    ``lineno``): JSONL, SSE, a JSON document or YAML."""
    head = first.lstrip()
    if not head:
        source.container = "jsonl"
        return
    if head.startswith((b"data:", b"event:", b"id:", b"retry:")) or suffix == ".sse":
        source.container = "sse"
        yield from sse_records(source, stream, first, lineno)
        return
    if unended(first) and head[:1] not in (b"{", b"["):
        # no line break in the first --max-record-bytes bytes: not JSON, JSONL or YAML
        # (only a minified JSON document is one long line), and never read further
        raise NotAChatLog(
            f"no line break in the first {LIMITS.record_bytes:,} bytes: not a chat log",
            Location(source.name, lineno, 1),
            "a JSON document starts with { or [; raise chatpipe --max-record-bytes N "
            "for longer lines",
            kind="text with no line break",
        )
    if head[:1] == b"[":  # (after a first line's blank space longer than a look ahead)
        yield from _array_records(source, stream, lineno, first)
        return
    if head[:1] in (b"{", b'"'):
        yield from _document(source, stream, first, lineno)
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
    data = _read_bounded(source, stream, first, "a YAML")
    if is_markdown_heading(head) and source.member is None:
        yield from _yaml_or_markdown(source, data, lineno - 1)
        return
    source.container = "yaml"
    yield from yaml_records(source, data, lineno - 1)


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


def _document(source: Source, stream: IO[bytes], first: bytes, lineno: int) -> Iterator[Record]:
    """A document that is not an array (an object: one record), or JSONL when its first
    line is a whole object and another line follows; YAML when it is not JSON."""
    try:
        value = _document_loads(first)
    except orjson.JSONDecodeError:
        value = _MISSING
    except DataError as exc:
        raise exc.located(Location(source.name, lineno, start_column(first))) from None
    if value is not _MISSING:
        nxt, nxt_lineno = first_line(source, stream, lineno + 1)
        if nxt.strip():
            source.container = "jsonl"
            yield Record(value, Location(source.name, lineno, start_column(first)))
            source.jsonl = JsonlReader(source, stream, nxt, nxt_lineno)
            yield from source.jsonl.records()
            return
        source.container = "json"
        yield _document_record(source, value, first, lineno)
        return
    data = _read_bounded(source, stream, first, "a JSON")
    if first.lstrip()[:1] == b'"':  # a YAML document may start with a quoted key
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
    yield _document_record(source, value, data, lineno)


def _array_records(
    source: Source, stream: IO[bytes], lineno: int, first: bytes = b""
) -> Iterator[Record]:
    """A document whose top-level value is an array, its elements read one by one (or
    JSONL whose lines are arrays, told by its first line)."""
    scanner = ArrayScanner(stream, source.name, lineno, first)
    runs = scanner.runs()
    held, ended = held_first_line(source, scanner, runs)
    follows: Any = None
    if ended:
        line, follows = first_line_array(source, scanner, held)
        if line is not None:
            source.container = "jsonl"
            yield line
            rest = chained(scanner.rest(), stream)
            nxt, nxt_lineno = first_line(source, rest, follows[0])
            source.jsonl = JsonlReader(source, rest, nxt, nxt_lineno)
            yield from source.jsonl.records()
            return
    source.container = "json"
    source.document = (
        DocumentReader(source, scanner, runs, held, follows)
        if ended
        else DocumentReader(source, scanner, runs, held)
    )
    yield from source.document.records()


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


def _read_bounded(source: Source, stream: IO[bytes], prefix: bytes, kind: str) -> bytes:
    """``prefix`` and the rest of the stream, which may be at most the record limit: a
    document that is not an array is one record (an array is read element by element)."""
    limit = LIMITS.record_bytes
    data = prefix + stream.read(limit + 1 - len(prefix)) if len(prefix) <= limit else prefix
    if len(data) > limit:
        raise DataError(
            f"{kind} document larger than {limit:,} bytes, more than a record may take",
            Location(source.name),
            "a JSON array is read element by element, whatever its size; raise the limit "
            "with chatpipe --max-record-bytes N",
        )
    return data


def _skip_blank_lines(source: Source, stream: IO[bytes]) -> int:
    """Past a UTF-8 byte order mark and the blank lines that start a stream (at most the
    record limit of them): the number of the first line that is not blank."""
    if stream.peek(3)[:3] == BOM:
        stream.read(3)
    lineno, skipped, limit = 1, 0, LIMITS.record_bytes
    while True:
        head = stream.peek(BATCH_BYTES)
        text = _BLANK.match(head).end()
        if text == len(head):  # all blank: its whole lines passed (a line of spaces
            whole = head.rfind(b"\n") + 1  # longer than this is left to first_line)
        else:
            whole = head.rfind(b"\n", 0, text) + 1
        if whole:
            stream.read(whole)
            lineno += head.count(b"\n", 0, whole)
            skipped += whole
            if skipped > limit:
                raise DataError(
                    f"more than {limit:,} bytes of blank lines, more than a record may take",
                    Location(source.name, lineno),
                    "raise the limit with chatpipe --max-record-bytes N",
                )
        if text < len(head) or not whole:
            return lineno


def _opens_array(stream: IO[bytes]) -> bool:
    """Whether the line the stream is at starts (after blank space) with ``[``."""
    head = stream.peek(BATCH_BYTES)
    at = _BLANK.match(head).end()
    return head[at : at + 1] == b"["


def _document_record(source: Source, value: Any, data: bytes, first_lineno: int) -> Record:
    """A JSON document that is not an array: one record (the document itself)."""
    location = Location(source.name, first_lineno, start_column(data))
    return deep_record(source, value, data, location) or Record(value, location)
