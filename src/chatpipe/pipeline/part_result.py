"""What a part of a job gives back (``PartResult``, its ``Event``s in their places), where
its output goes while it is made (``Output``: kept, or handed to its own shard), shared
by the worker bodies (parts.py, log_parts.py) and the assembler."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..io.ranges import PIECE

ERROR, NOTE, PROBLEM = "error", "note", "problem"
USAGE = "usage"  # an ERROR's kind when the command line is at fault: it ends the run, exit 2


class Event:
    """Something a part said, in its place among its output (``offset``: the output's
    bytes before it): an ``ERROR``, a target's ``NOTE`` or a ``PROBLEM`` (validate), its
    line counted from the part's start (a whole file's: the file's own)."""

    __slots__ = ("col", "file", "hint", "index", "kind", "line", "message", "offset", "what")

    def __init__(
        self,
        what: str,
        offset: int,
        message: str,
        hint: str | None = None,
        line: int | None = None,
        col: int | None = None,
        index: int | None = None,
        kind: str | None = None,
        file: str | None = None,
    ) -> None:
        self.what, self.offset, self.message, self.hint = what, offset, message, hint
        self.line, self.col, self.index, self.kind, self.file = line, col, index, kind, file

    def __reduce__(self) -> Any:
        return Event, tuple(getattr(self, name) for name in _EVENT_FIELDS)


_EVENT_FIELDS = ("what", "offset", "message", "hint", "line", "col", "index", "kind", "file")


@dataclass
class PartResult:
    """What a part gave: its output (``data``; None when written to its shard), the lines
    (rows) it read, the conversations it wrote and, for a range of a message log, the
    messages it read; its events in order, its losses ``(kind, conversation, message
    index)``; the newest branches written (``Run.newest``). A range of a log whose output
    depends on the lines before it says so (``context``) and has no output; ``links``:
    a log range's tool links after it."""

    data: Any = None
    lines: int = 0
    conversations: int = 0
    messages: int = 0
    events: list[Event] = field(default_factory=list)
    losses: list[tuple[str, int, int | None]] = field(default_factory=list)
    newest: tuple[int, int] = (0, 0)
    unanswered: int = 0  # Run.unanswered's count (batch requests with no answer)
    read: int = 0  # Run.read's count (conversations read)
    context: bool = False
    links: Any = None
    state: Any = None  # what the job's operation gathered in the part (``for_part``)


class Shards(NamedTuple):
    """Where parts write their own shards (one a part: Dask's workers): the staging
    folder, Parquet or JSON lines, the folder as the command line named it (for errors)."""

    staging: str
    parquet: bool
    shown: str | None = None


class Output:
    """A part's output: kept to be handed back, or given to its shard about every
    megabyte of whole lines (a part of any size is written in the memory of a piece)."""

    def __init__(self, shard: Any = None) -> None:
        self.shard = shard
        self.pieces: list[Any] = []
        self.size = self.given = 0

    def line(self, data: bytes) -> None:
        self.pieces.append(data)
        self.pieces.append(b"\n")
        self.size += len(data) + 1

    def raw(self, data: Any) -> None:
        self.pieces.append(data)
        self.size += len(data)

    def borrowed(self, data: Any) -> None:
        """Bytes valid only until the caller's next step (a worker's shared memory)."""
        self.raw(bytes(data))

    def flush(self) -> None:
        pass

    def hand_on(self) -> None:
        """Whole lines so far to the shard, once they make a piece."""
        if self.shard is not None and self.size - self.given >= PIECE:
            self.shard.borrowed(b"".join(self.pieces))
            self.pieces.clear()
            self.given = self.size

    def close(self) -> bytes | None:
        data = b"".join(self.pieces)
        self.pieces.clear()
        if self.shard is None:
            return data
        self.shard.borrowed(data)
        self.shard.close()
        return None

    def abort(self) -> None:
        if self.shard is not None:
            self.shard.abort()


def finished(run: Any, result: PartResult, lines: int, conversations: int) -> PartResult:
    found = {} if run.losses is None else run.losses.cases
    result.losses = [(kind, c, m) for kind, cases in found.items() for c, m in cases]
    result.lines, result.conversations = lines, conversations
    result.newest = (run.newest[0], run.newest[1])
    result.unanswered = run.unanswered
    result.read = run.read
    return result
