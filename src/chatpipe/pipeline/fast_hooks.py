"""The pipeline's doors into fast/'s faster ways of doing a step, the only place in it
that knows of them.

Each hook gives the faster way to do one step, or None when fast/ has none for these
inputs; the caller then takes the ordinary way, which gives the same output.
"""

from __future__ import annotations

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
    """The conversation's messages when ``read_messages`` read them, else None."""
    from ..fast.lane import LaneMessages

    messages = conversation.messages
    return messages if type(messages) is LaneMessages else None


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
