"""Output framing of the commands that write one text per conversation (buffer, template).

One conversation in (a message-per-line log) gives its text and a final newline. Several
(a conversation-per-line file, or several files) give one JSON string per line, so they
stay separable; ``--separator TEXT`` or ``-0`` print them raw instead.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..canonical import dumps_text
from ..errors import UsageError
from .options import unescape


class TextFraming:
    """Writes each conversation's text (given in pieces) to ``sink``, framed as above."""

    def __init__(self, inputs, sink, separator: str | None, null: bool) -> None:
        if null and separator is not None:
            raise UsageError("-0 and --separator both say how to separate conversations; pick one")
        self.inputs = inputs
        self.sink = sink
        self.between = unescape(separator) if separator is not None else None
        self.null = null
        self.raw: bool | None = None  # decided at the first conversation
        self.written = 0

    def write(self, pieces: Iterable[str]) -> None:
        sink = self.sink
        if self.raw is None:
            self.raw = self.inputs.message_stream() or self.null or self.between is not None
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
        """Ends raw output with a newline (not after NULs)."""
        if self.raw and not self.null:
            self.sink.raw(b"\n")
