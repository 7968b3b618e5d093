"""Where the elements of a top-level JSON array start (line, column): found only when an
error needs to name one, by one scan of the document's tokens."""

from __future__ import annotations

import bisect
import re


class ElementFinder:
    """Finds (line, column) of each element of a top-level JSON array, on first request."""

    def __init__(self, data: bytes, first_lineno: int) -> None:
        self.data = data
        self.first_lineno = first_lineno
        self.offsets: list[int] | None = None
        self.line_starts: list[int] | None = None

    def position(self, index: int) -> tuple[int, int | None]:
        if self.offsets is None:
            self.offsets = _array_element_offsets(self.data)
            self.line_starts = [0] + [m.end() for m in re.finditer(rb"\n", self.data)]
        if index >= len(self.offsets):
            return self.first_lineno, None
        offset = self.offsets[index]
        line = bisect.bisect_right(self.line_starts, offset) - 1
        start = self.line_starts[line]
        col = len(self.data[start:offset].decode("utf-8", "replace")) + 1
        return self.first_lineno + line, col


_JSON_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{},]|[^\s\[\]{},"]+', re.S)


def _array_element_offsets(data: bytes) -> list[int]:
    token = _JSON_TOKEN
    offsets = []
    depth = 0
    expect_element = False
    for match in token.finditer(data):
        tok = match.group()
        if depth == 1 and expect_element and tok not in (b"]",):
            offsets.append(match.start())
            expect_element = False
        if tok in (b"[", b"{"):
            depth += 1
            if depth == 1:
                expect_element = True
        elif tok in (b"]", b"}"):
            depth -= 1
        elif tok == b"," and depth == 1:
            expect_element = True
    return offsets
