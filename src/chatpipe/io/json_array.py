"""A JSON document's top-level array read from its stream element by element.

Memory is bounded by the largest element, not the document (a heavy user's ChatGPT export
runs to a gigabyte on one line): a scan of the bytes (strings, escapes, nesting) finds
where each element ends, the elements the buffer holds whole are handed to orjson as one
run (documents.py), and their bytes are let go.
An element is bounded by the record limit (``--max-record-bytes``), and so is each run of
blank space, so that a small compressed file of gigabytes of blank space is refused
within the limit. Each element's place (line, column) is counted as the scan passes it:
linear in the document, whatever its lines.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

from ..errors import DataError, Location
from . import json_scan as scan
from .json_scan import DEEP, TOO_LONG, Run
from .limits import LIMITS

CHUNK = 1 << 20  # bytes read at a time (a longer element doubles it until it fits)


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
        self.col += scan.text_columns(buf[mark:to])
        self.mark = to

    def _passed(self, item: bytes, end: int) -> None:
        """Lines and columns counted over an element just cut out (``item``, ending at
        buf[end], starting at the mark): no second copy of its bytes."""
        self.line, self.col = scan.past(item, self.line, self.col)
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
        pattern = scan.next_pattern() if LIMITS.depth >= scan.NESTED_DEPTH else None
        if pattern is None:
            return Run([(line, col)], item, [(0, len(item))])
        buf, pos, limit = self.buf, self.pos, self.limit
        start = pos - len(item)
        found = []
        size = len(buf)
        match = pattern.match
        while len(found) < scan.RUN:
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
        base, later = at, passed.translate(scan.LATER_BYTE)  # 1 where a byte continues a character
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
            end = scan.BLANK.match(buf, self.pos).end()
            if self.base + end - start > self.limit:
                raise scan.blank_error(self.run_place or self.place(start - self.base), self.limit)
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
        if first in scan.OPEN:
            pattern = scan.element_pattern() if LIMITS.depth >= scan.NESTED_DEPTH else None
            found = pattern.match(self.buf, start) if pattern is not None else None
            if found is not None:
                end = found.end()
            else:
                start, end, deepest = self._walk(start, start, 0, False, True)
                if deepest > LIMITS.depth:
                    self.pos = end
                    self._advance(end)
                    return DEEP
        elif first == scan.QUOTE:
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
                end = scan.STRING_BODY.match(buf, at).end()
                if end < len(buf) and buf[end] == scan.QUOTE:
                    at, in_string = end + 1, False
                    if depth == 0:
                        return start, at, deepest
                    continue
                at = end  # (at the end, or at a backslash the buffer ends with)
            else:
                at = scan.STEP.match(buf, at).end()
                if at < len(buf) and buf[at] != scan.QUOTE:
                    if buf[at] in scan.OPEN:
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
            end = scan.SCALAR.match(self.buf, start).end()
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
                at = scan.SCALAR.match(self.buf, at - moved).end()
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
            end = scan.BLANK.match(buf, self.pos).end()
            if self.base + end - start > self.limit:
                raise scan.blank_error(where, self.limit)
            self.pos = max(self.pos, buf.rfind(b"\n", self.pos, end) + 1)
            if end < len(buf):
                self._advance(end)
                return self.line, self.col
            if self._more(self.pos) is None:
                return None

    def rest(self) -> bytes:
        """What was read past the scan (a following line's start, and on)."""
        return self.buf[self.pos :]
