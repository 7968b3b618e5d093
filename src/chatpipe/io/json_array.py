"""A JSON document's top-level array read from its stream element by element.

Memory is bounded by the largest element, not the document (a heavy user's ChatGPT export
runs to a gigabyte on one line): a scan of the bytes (strings, escapes, nesting) finds
where each element ends, the element alone is handed to orjson, and its bytes are let go.
An element is bounded by the record limit (``--max-record-bytes``), and so is each run of
blank space, so that a small compressed file of gigabytes of blank space is refused
within the limit. Each element's place (line, column) is counted as the scan passes it:
linear in the document, whatever its lines.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from typing import IO, Any

from ..errors import DataError, Location
from .limits import LIMITS

CHUNK = 1 << 20  # bytes read at a time (a longer element doubles it until it fits)


class _Marker:
    __slots__ = ("said",)

    def __init__(self, said: str) -> None:
        self.said = said

    def __repr__(self) -> str:
        return self.said


TOO_LONG: Any = _Marker("TOO_LONG")  # an element larger than the record limit (never held)
DEEP: Any = _Marker("DEEP")  # an element nested deeper than the depth limit

_OPEN = frozenset(b"[{")
_QUOTE = ord('"')
_CONTINUATION = bytes(range(0x80, 0xC0))  # the bytes of a UTF-8 character after its first
_LATER_BYTE = bytes(1 if 0x80 <= b < 0xC0 else 0 for b in range(256))  # (a translate table)
_BLANK = re.compile(rb"[ \t\r\n]*")
# up to the next bracket, complete strings skipped whole (the exact scan's step)
_STEP = re.compile(rb'[^"\[\]{}]*(?:"[^"\\]*(?:\\.[^"\\]*)*"[^"\[\]{}]*)*', re.S)
_STRING_BODY = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*', re.S)  # a string's inside, to its end
_SCALAR = re.compile(rb'[^ \t\r\n,\[\]{}"]*')  # a number, true, false, null
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
RUN = 1024  # elements in a run at most
# elements nested no deeper than this are matched whole by one regular expression
NESTED_DEPTH = 16
_PATTERNS: dict[str, Any] = {}


def _element_pattern() -> Any:
    """A pattern matching a whole array or object nested at most NESTED_DEPTH deep (a
    bracket's kind is not checked: orjson does), or None where Python has no possessive
    quantifiers (before 3.11), which keep a failed match from backtracking."""
    if "element" not in _PATTERNS:
        pattern = None
        if sys.version_info >= (3, 11):
            string = rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"'
            element = rb'[\[{](?:[^"\[\]{}]++|' + string + rb")*+[\]}]"
            for _ in range(NESTED_DEPTH - 1):
                element = rb'[\[{](?:[^"\[\]{}]++|' + string + rb"|" + element + rb")*+[\]}]"
            pattern = re.compile(element, re.S)
        _PATTERNS["element"] = pattern
    return _PATTERNS["element"]


def _next_pattern() -> Any:
    """A comma and the element after it (group 1: an array, object or string); None
    where ``_element_pattern`` is."""
    element = _element_pattern()
    if element is None:
        return None
    if "next" not in _PATTERNS:
        _PATTERNS["next"] = re.compile(
            rb"[ \t\r\n]*+,[ \t\r\n]*+(" + element.pattern + rb"|" + _STRING.pattern + rb")",
            re.S,
        )
    return _PATTERNS["next"]


class Run:
    """Elements read one after another: their places (line, column), and ``text`` that
    holds them, with what stood between them (one orjson call parses ``[text]``), each at
    its span of it; or ``text`` TOO_LONG or DEEP for an element that is not held."""

    __slots__ = ("places", "spans", "text")

    def __init__(
        self, places: list[tuple[int, int]], text: Any, spans: list[tuple[int, int]] = ()
    ) -> None:
        self.places, self.text, self.spans = places, text, spans

    def items(self) -> list[Any]:
        """Each element's bytes (or the marker)."""
        if type(self.text) is not bytes:
            return [self.text]
        return [self.text[a:b] for a, b in self.spans]


def text_columns(data: bytes) -> int:
    """The characters UTF-8 bytes hold (a column's width)."""
    return len(data) if data.isascii() else len(data.translate(None, _CONTINUATION))


class _TooLong(Exception):
    """An element passed the record limit while held: where the scan stood."""

    def __init__(self, at: int, depth: int = 0, in_string: bool = False, scalar: bool = False):
        super().__init__()
        self.at, self.depth, self.in_string, self.scalar = at, depth, in_string, scalar


class ArrayScanner:
    """The elements of the array that starts at the first non-blank byte of ``stream``
    (``buf``: bytes read from it already), whose first line is line ``line``."""

    def __init__(self, stream: IO[bytes], name: str, line: int, buf: bytes = b"") -> None:
        self.stream = stream
        self.read = getattr(stream, "read1", stream.read)
        self.name = name
        self.limit = LIMITS.record_bytes
        self.buf = buf
        self.base = 0  # the offset in the document of buf[0]
        self.pos = 0  # where the scan is, in buf
        self.eof = False
        self.mark = 0  # a place in buf whose line and column are known:
        self.line = line
        self.col = 1
        self.opened = Location(name, line)  # the array's [, once found
        self.closed = 0  # the line of its ], once found
        self.run_place: Location | None = None  # where the last long blank run began

    # -- reading on, and places ---------------------------------------------------------

    def _more(self, keep: int) -> int | None:
        """Read on, keeping buf[keep:]; how far the buffer moved (what was before ``keep``
        is let go), or None at the end of the stream."""
        if self.eof:
            return None
        held = len(self.buf) - keep
        data = self.read(max(CHUNK, min(held, self.limit + 1 - held)))
        if not data:
            self.eof = True
            return None
        self._advance(keep)
        buf = self.buf[keep:] if keep else self.buf
        self.base += keep
        self.pos -= keep
        self.mark -= keep
        self.buf = buf + data if buf else data
        return keep

    def _advance(self, to: int) -> None:
        """Count lines and columns up to buf[to]."""
        mark = self.mark
        if to <= mark:
            return
        buf = self.buf
        breaks = buf.count(b"\n", mark, to)
        if breaks:
            self.line += breaks
            mark = buf.rfind(b"\n", mark, to) + 1
            self.col = 1
        self.col += text_columns(buf[mark:to])
        self.mark = to

    def _passed(self, item: bytes, end: int) -> None:
        """Lines and columns counted over an element just cut out (``item``, ending at
        buf[end], starting at the mark): no second copy of its bytes."""
        self.line, self.col = _past(item, self.line, self.col)
        self.mark = end

    def place(self, at: int) -> Location:
        """The place of buf[at] (not before the mark)."""
        self._advance(at)
        return Location(self.name, self.line, self.col)

    def error(self, message: str, at: int, hint: str | None = None) -> DataError:
        return DataError(f"invalid JSON: {message}", self.place(at), hint)

    # -- the array ----------------------------------------------------------------------

    def runs(self) -> Iterator[Run]:
        """The elements in runs (as many as the buffer holds whole, at most RUN). Raises
        DataError where the array is not JSON or ends early. The array's own place is
        ``opened``."""
        if self._skip_blank() != ord("["):  # (the reader saw one there)
            raise self.error("unexpected character, expected '['", self.pos)
        self.opened = self.place(self.pos)
        self.pos += 1
        comma = -1  # (where the last comma was, in the document)
        while True:
            byte = self._skip_blank()
            if byte == ord("]"):
                if comma < 0:
                    self._close()
                    return
                if self.run_place is None:  # (the comma is in the buffer still)
                    raise self.error("trailing comma is not allowed", comma - self.base)
                line, col = self.run_place.line, self.run_place.col or 2
                where = Location(self.name, line, col - 1)  # (the comma is just before)
                raise DataError("invalid JSON: trailing comma is not allowed", where)
            if byte is None:
                raise self.error("unexpected end of data", len(self.buf))
            if byte in b",:}":
                raise self.error("unexpected character, expected a JSON value", self.pos)
            self._advance(self.pos)
            line, col = self.line, self.col
            try:
                item = self._element()
            except _TooLong as where:
                yield Run([(line, col)], TOO_LONG)
                self._pass_over(where)
            else:
                yield Run([(line, col)], DEEP) if item is DEEP else self._run(item, line, col)
            byte = self._skip_blank()
            if byte == ord(","):
                comma = self.base + self.pos
                self.pos += 1
            elif byte == ord("]"):
                self._close()
                return
            elif byte is None:
                raise self.error("unexpected end of data", len(self.buf))
            else:
                raise self.error("unexpected character, expected ',' or ']'", self.pos)

    def _run(self, item: bytes, line: int, col: int) -> Run:
        """A run of ``item`` (the element just read, at line, col) and the elements after
        it that the buffer holds whole, each after a comma: the common case, in one quick
        loop. It stops at anything else (the array's end, a number, an element the buffer
        ends in), which ``runs`` then reads its own way."""
        pattern = _next_pattern() if LIMITS.depth >= NESTED_DEPTH else None
        if pattern is None:
            return Run([(line, col)], item, [(0, len(item))])
        buf, pos, limit = self.buf, self.pos, self.limit
        start = pos - len(item)
        found = []
        size = len(buf)
        match = pattern.match
        while len(found) < RUN:
            element = match(buf, pos)
            if element is None:
                break
            begin, end = element.span(1)
            if end >= size or begin - pos > limit or end - begin > limit:
                break  # (an element at the buffer's end may be a number cut short)
            found.append((begin, end))
            pos = end
        places, spans = [(line, col)], [(0, len(item))]
        if found:
            places += self._places([begin for begin, _ in found], pos)
            spans += [(begin - start, end - start) for begin, end in found]
            self.pos = self.mark = pos
            item = buf[start:pos]
        return Run(places, item, spans)

    def _places(self, starts: list[int], end: int) -> list[tuple[int, int]]:
        """The (line, column) of each of ``starts`` (places in the buffer after the mark,
        in order), the mark then moved to ``end``: a count over the bytes between each
        and the next, no copy of them (a column counts characters: UTF-8 bytes but for
        those that continue one)."""
        buf, at, line, col = self.buf, self.mark, self.line, self.col
        passed = buf[at:end]
        if passed.isascii() and b"\n" not in passed:  # (the common case: columns are bytes)
            self.col = col + end - at
            return [(line, col + begin - at) for begin in starts]
        base, later = at, passed.translate(_LATER_BYTE)  # 1 where a byte continues a character
        lines = b"\n" in passed
        places = []
        for begin in [*starts, end]:
            breaks = buf.count(b"\n", at, begin) if lines else 0
            if breaks:
                line += breaks
                at = buf.rfind(b"\n", at, begin) + 1
                col = 1
            col += begin - at - later.count(1, at - base, begin - base)
            places.append((line, col))
            at = begin
        self.line, self.col = places.pop()
        return places

    def _close(self) -> None:
        """Past the array's ]; ``closed`` is the number of its line."""
        self.closed = self.place(self.pos).line or 0
        self.pos += 1

    def _skip_blank(self) -> int | None:
        """The byte after the blank space from here (None at the end of the stream); a
        run of blank space longer than the record limit is refused."""
        start = self.base + self.pos
        self.run_place = None  # the run's place, once it runs past the buffer
        while True:
            buf = self.buf
            end = _BLANK.match(buf, self.pos).end()
            if self.base + end - start > self.limit:
                raise _blank(self.run_place or self.place(start - self.base), self.limit)
            self.pos = end
            if end < len(buf):
                return buf[end]
            if self.run_place is None:
                self.run_place = self.place(start - self.base)
            if self._more(end) is None:
                return None

    def _element(self) -> Any:
        """The bytes of the element at buf[pos] (pos moved past it), or DEEP; raises
        _TooLong past the record limit."""
        start = self.pos
        first = self.buf[start]
        if first in _OPEN:
            pattern = _element_pattern() if LIMITS.depth >= NESTED_DEPTH else None
            found = pattern.match(self.buf, start) if pattern is not None else None
            if found is not None:
                end = found.end()
            else:
                start, end, deepest = self._walk(start, start, 0, False, True)
                if deepest > LIMITS.depth:
                    self.pos = end
                    self._advance(end)
                    return DEEP
        elif first == _QUOTE:
            start, end, _ = self._walk(start, start + 1, 0, True, True)
        else:
            start, end = self._scalar()
        if end - start > self.limit:
            raise _TooLong(end)
        item = self.buf[start:end]
        self.pos = end
        self._passed(item, end)
        return item

    def _walk(
        self, start: int, at: int, depth: int, in_string: bool, hold: bool
    ) -> tuple[int, int, int]:
        """Scan from buf[at] (``depth`` brackets open, inside a string or not) to the end
        of the element that starts at buf[start], reading on as it must: its bytes held
        (``hold``), or let go as they are passed. (start, end, deepest nesting)."""
        deepest = depth
        while True:
            buf = self.buf
            if in_string:
                end = _STRING_BODY.match(buf, at).end()
                if end < len(buf) and buf[end] == _QUOTE:
                    at, in_string = end + 1, False
                    if depth == 0:
                        return start, at, deepest
                    continue
                at = end  # (at the end, or at a backslash the buffer ends with)
            else:
                at = _STEP.match(buf, at).end()
                if at < len(buf) and buf[at] != _QUOTE:
                    if buf[at] in _OPEN:
                        depth += 1
                        deepest = max(deepest, depth)
                    else:
                        depth -= 1
                    at += 1
                    if depth == 0:
                        return start, at, deepest
                    continue
                if at < len(buf):  # a string the buffer does not hold to its end
                    at, in_string = at + 1, True
            if hold and len(buf) - start > self.limit:
                self.pos = start
                raise _TooLong(at, depth, in_string)
            moved = self._more(start if hold else at)
            if moved is None:
                raise self.error("unexpected end of data", len(self.buf))
            start, at = start - moved, at - moved

    def _scalar(self) -> tuple[int, int]:
        """Where the number or literal at buf[pos] starts and ends."""
        start = self.pos
        while True:
            end = _SCALAR.match(self.buf, start).end()
            if end == start:
                raise self.error("unexpected character, expected a JSON value", start)
            if end < len(self.buf):
                return start, end
            if end - start > self.limit:
                raise _TooLong(end, scalar=True)
            moved = self._more(start)
            if moved is None:
                return start, end
            start -= moved

    def _pass_over(self, where: _TooLong) -> None:
        """The rest of an element too large to hold, read past without holding it."""
        at = where.at
        if where.depth or where.in_string:
            _, at, _ = self._walk(at, at, where.depth, where.in_string, False)
        elif where.scalar:
            while at >= len(self.buf):
                moved = self._more(at)
                if moved is None:
                    break
                at = _SCALAR.match(self.buf, at - moved).end()
        self.pos = at
        self._advance(at)

    # -- after the array ----------------------------------------------------------------

    def after(self) -> tuple[int, int] | None:
        """After the array: the blank space passed (at most the record limit) up to
        whatever follows, whose (line, column) it gives, the scan left at the start of
        its line (``rest``); None at the end of the stream."""
        start = self.base + self.pos
        where = self.place(self.pos)
        while True:
            buf = self.buf
            end = _BLANK.match(buf, self.pos).end()
            if self.base + end - start > self.limit:
                raise _blank(where, self.limit)
            self.pos = max(self.pos, buf.rfind(b"\n", self.pos, end) + 1)
            if end < len(buf):
                self._advance(end)
                return self.line, self.col
            if self._more(self.pos) is None:
                return None

    def rest(self) -> bytes:
        """What was read past the scan (a following line's start, and on)."""
        return self.buf[self.pos :]


def _past(text: bytes, line: int, col: int) -> tuple[int, int]:
    """The line and column after ``text``, from those where it starts."""
    if b"\n" in text:
        return line + text.count(b"\n"), 1 + text_columns(text[text.rfind(b"\n") + 1 :])
    return line, col + text_columns(text)


def _blank(where: Location, limit: int) -> DataError:
    return DataError(
        f"more than {limit:,} bytes of blank space in a row, more than a record may take",
        where,
        "raise the limit with chatpipe --max-record-bytes N",
    )
