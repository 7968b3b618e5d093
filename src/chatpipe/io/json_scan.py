"""The pieces of a JSON array's scan (io/json_array.py): the patterns that find where an
element ends, the markers of elements not held, a run of elements, and the count of a
column (characters, not bytes)."""

from __future__ import annotations

import re
import sys
from typing import Any

from ..errors import DataError, Location


class _Marker:
    __slots__ = ("said",)

    def __init__(self, said: str) -> None:
        self.said = said

    def __repr__(self) -> str:
        return self.said


TOO_LONG: Any = _Marker("TOO_LONG")  # an element larger than the record limit (never held)
DEEP: Any = _Marker("DEEP")  # an element nested deeper than the depth limit

OPEN = frozenset(b"[{")
QUOTE = ord('"')
_CONTINUATION = bytes(range(0x80, 0xC0))  # the bytes of a UTF-8 character after its first
LATER_BYTE = bytes(1 if 0x80 <= b < 0xC0 else 0 for b in range(256))  # (a translate table)
BLANK = re.compile(rb"[ \t\r\n]*")
# up to the next bracket, complete strings skipped whole (the exact scan's step)
STEP = re.compile(rb'[^"\[\]{}]*(?:"[^"\\]*(?:\\.[^"\\]*)*"[^"\[\]{}]*)*', re.S)
STRING_BODY = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*', re.S)  # a string's inside, to its end
SCALAR = re.compile(rb'[^ \t\r\n,\[\]{}"]*')  # a number, true, false, null
STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
RUN = 1024  # elements in a run at most
# elements nested no deeper than this are matched whole by one regular expression
NESTED_DEPTH = 16
_PATTERNS: dict[str, Any] = {}


def element_pattern() -> Any:
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


def next_pattern() -> Any:
    """A comma and the element after it (group 1: an array, object or string); None
    where ``element_pattern`` is."""
    element = element_pattern()
    if element is None:
        return None
    if "next" not in _PATTERNS:
        _PATTERNS["next"] = re.compile(
            rb"[ \t\r\n]*+,[ \t\r\n]*+(" + element.pattern + rb"|" + STRING.pattern + rb")",
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


def past(text: bytes, line: int, col: int) -> tuple[int, int]:
    """The line and column after ``text``, from those where it starts."""
    if b"\n" in text:
        return line + text.count(b"\n"), 1 + text_columns(text[text.rfind(b"\n") + 1 :])
    return line, col + text_columns(text)


def blank_error(where: Location, limit: int) -> DataError:
    return DataError(
        f"more than {limit:,} bytes of blank space in a row, more than a record may take",
        where,
        "raise the limit with chatpipe --max-record-bytes N",
    )
