"""Output framing of the commands that write one text per conversation (buffer, template).

One conversation in, whatever holds it (a message-per-line log, a JSON document, a file of
one row), gives its text and a final newline. Several give one JSON string per line, so
they stay separable; ``--separator TEXT`` or ``-0`` print them raw instead. Which of the
two is known at the second conversation: the first one's text waits until then.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import UsageError
from ..io.encode import dumps_text


class TextFraming:
    """Writes each conversation's text (given in pieces) to ``sink``, framed as above."""

    def __init__(self, inputs, sink, separator: str | None, null: bool) -> None:
        if null and separator is not None:
            raise UsageError("-0 and --separator both say how to separate conversations; pick one")
        self.inputs = inputs
        self.sink = sink
        self.between = unescape(separator) if separator is not None else None
        self.null = null
        self.raw: bool | None = None  # decided at the first conversation, or the second
        self.pending: str | None = None  # the first text, while it may be the only one
        self.written = 0

    def write(self, pieces: Iterable[str]) -> None:
        sink = self.sink
        if self.raw is None:
            if self.inputs.message_stream() or self.null or self.between is not None:
                self.raw = True
            elif self.pending is None:
                self.pending = "".join(pieces)
                return
            else:  # a second conversation: every text is a JSON string
                self.raw = False
                sink.line(dumps_text(self.pending))
                self.pending = None
        if not self.raw:
            sink.line(dumps_text("".join(pieces)))
        else:
            if self.between is not None and self.written:
                sink.raw(self.between.encode("utf-8", "surrogateescape"))
            for piece in pieces:
                sink.raw(piece.encode("utf-8", "surrogateescape"))
            if self.null:
                sink.raw(b"\0")
        self.written += 1

    def close(self) -> None:
        """Writes a lone conversation's text; ends raw output with a newline (not after NULs)."""
        if self.pending is not None:
            self.sink.raw(self.pending.encode("utf-8", "surrogateescape"))
            self.pending, self.raw = None, True
            self.written += 1
        if self.raw and not self.null:
            self.sink.raw(b"\n")


def unescape(text: str) -> str:
    """Backslash escapes in separators typed on a command line: \\n \\t \\r \\0 \\\\."""
    if "\\" not in text:
        return text
    out, chars = [], iter(text)
    for char in chars:
        if char != "\\":
            out.append(char)
            continue
        nxt = next(chars, "")
        out.append({"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\"}.get(nxt, "\\" + nxt))
    return "".join(out)
