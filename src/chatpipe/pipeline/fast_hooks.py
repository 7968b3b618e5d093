"""The pipeline's doors into fast/'s faster ways of doing a step, the only place in it
that knows of them.

Each hook gives the faster way to do one step, or None when fast/ has none for these
inputs; the caller then takes the ordinary way, which gives the same output.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..model import AnyMessage, Conversation

# tests turn the fast paths off to compare them with the ordinary ones
ENABLED = True


def read_messages(
    dialect: Any, source: Any, records: Any, errors: Any, start: int = 0, links: Any = None
) -> Any:
    """A message-per-line source's messages, read in batches (fast/lane.py): iterated,
    they are messages; once read, ``read()`` gives the number of the message after the
    last and the tool links after them. ``start`` and ``links``: the number of the first
    message and the links before it, for a log read from its middle."""
    if not ENABLED:
        return None
    from ..fast.lane import read_lines

    return read_lines(dialect, source, records, errors, start, links)


def read_in_batches(conversation: Conversation) -> bool:
    """Whether the conversation's messages are read in batches by the fast lane (checks
    made message by message pass them by: the lane reads plain lines only)."""
    return _read_in_batches(conversation) is not None


def _read_in_batches(conversation: Conversation) -> Any:
    """The conversation's messages when ``read_messages`` read them (or the row lane, and
    nothing has looked at them since), else None."""
    from ..fast.lane import LaneMessages
    from ..fast.rows import RowMessages

    messages = conversation.messages
    kind = type(messages)
    if kind is LaneMessages or (kind is RowMessages and messages.untouched):
        return messages
    return None


def written_batches(conversation: Conversation, target: Any) -> Iterator[list[Any]] | None:
    """The records ``target`` (a dialect or writer) writes for each batch of a
    conversation read by ``read_messages``."""
    messages = _read_in_batches(conversation)
    if messages is None:
        return None
    from ..fast.writers import lane_writer

    writer = lane_writer(target)
    return None if writer is None else messages.write(writer)


def buffer_batches(
    conversation: Conversation, renderer: Any, one: Callable[[int, AnyMessage], list[str]]
) -> Iterator[list[str]] | None:
    """The buffer texts of each batch of a conversation read by ``read_messages``;
    ``one`` renders a message at an index."""
    messages = _read_in_batches(conversation)
    if messages is None:
        return None
    from ..fast.lane_buffer import buffer_writer

    return messages.write(buffer_writer(renderer, one))


def budget_suffix(conversation: Conversation, counter: Any, budget: int) -> Iterable[Any] | None:
    """The newest messages that can be within ``budget`` for ``strategy="last"`` (whole
    batches of a conversation read by ``read_messages``, counted without messages)."""
    messages = _read_in_batches(conversation)
    if messages is None:
        return None
    from ..fast.budget import budget_suffix

    return budget_suffix(messages, counter, budget)


def template_rows() -> Callable[[Any, Any, Any], Conversation | None] | None:
    """A reader of plain OpenAI rows straight into chat-template messages
    (fast/template_rows.py), for ``Reading.row_reader``; None when the fast paths are off."""
    if not ENABLED:
        return None
    from ..fast.template_rows import template_row

    return template_row


# -- rows ------------------------------------------------------------------------------
# (fast/'s modules for rows are loaded when a row is read, and asked only then: a run of
# another input, or that starts and ends at once, does not load them)


def row_reader(operation: Any, target: Any) -> Any:
    """A reader of conversation-per-record rows into plain dicts (fast/rows.py), for
    ``Reading.row_reader``, when the run's operation and target take such rows (the
    target says so, ``plain_rows``; fast/row_ops.py knows the operation); else None.
    Called, it gives a row's conversation or None; ``note()`` says for ``-v`` what it
    read."""
    if not ENABLED or not getattr(target, "plain_rows", False):
        return None
    if operation is not None:
        from ..fast.row_ops import takes

        if not takes(operation):
            return None
    return _Rows()


class _Rows:
    """``fast.rows.RowReader``, made at the first row."""

    __slots__ = ("reader",)

    def __init__(self) -> None:
        self.reader: Any = None

    def __call__(self, dialect: Any, value: Any, location: Any) -> Conversation | None:
        if self.reader is None:
            from ..fast.rows import RowReader

            self.reader = RowReader()
        return self.reader(dialect, value, location)

    def note(self) -> str | None:
        return None if self.reader is None else self.reader.note()


def _row(conversation: Conversation) -> Any:
    """The messages of a row the row lane read, while nothing has looked at them (what
    looked may have changed them); else None."""
    rows = sys.modules.get("chatpipe.fast.rows")  # (none read: not loaded)
    messages = conversation.messages
    if rows is None or type(messages) is not rows.RowMessages or not messages.untouched:
        return None
    return messages


def row_others(conversation: Conversation) -> list[tuple[int, Any]] | None:
    """The messages among the items of a row the row lane read (of no plain shape), with
    their indexes; None for any other conversation."""
    row = _row(conversation)
    return None if row is None else row.others()


def row_call(operation: Any) -> Callable[[Conversation], Conversation | None] | None:
    """The operation's call, deciding about rows the row lane read from their items
    (fast/row_ops.py); None where it has no such way."""
    from ..fast.row_ops import row_call

    return row_call(operation)


def row_stream(operation: Any) -> Callable[[Iterator[Conversation]], Iterator[Any]] | None:
    """A ``Streaming`` operation's stream, deciding about rows from their items."""
    from ..fast.row_ops import row_stream

    return row_stream(operation)


def written_row(conversation: Conversation, target: Any) -> list[Any] | None:
    """The records ``target`` (a dialect or writer) writes for the messages of a row the
    row lane read, from its items; None when it has no such way."""
    row = _row(conversation)
    if row is None:
        return None
    from ..fast.writers import lane_writer

    writer = lane_writer(target)
    return None if writer is None else row.written(writer)


def split_side(splitter: Any, conversation: Conversation) -> str | None:
    """``splitter.side(conversation)`` of a row the row lane read, from its items."""
    if _row(conversation) is None:
        return None
    from ..fast.row_ops import split_side

    return split_side(splitter, conversation)


def row_line(line: Any) -> Callable[[Conversation], Any] | None:
    """A ``Lines`` target's line of a row the row lane read, from its items (count's,
    grep's); None where there is no such way (the ordinary line then)."""
    if not ENABLED or type(line).__name__ not in ("CountLine", "GrepLines"):
        return None
    from ..fast.row_ops import row_line

    return row_line(line)


def row_within(conversation: Conversation, counter: Any, budget: int) -> Iterable[Any] | None:
    """The messages of a row the row lane read when all of them are within ``budget``,
    counted from its items; else None."""
    if _row(conversation) is None:
        return None
    from ..fast.row_ops import row_within

    return row_within(conversation, counter, budget)
