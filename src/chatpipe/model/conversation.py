"""A conversation: its messages and what the source says about them as a whole."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import Location
from .messages import AnyMessage


class Conversation:
    """Messages plus what the source says about them as a whole (id, title, tools...).

    ``messages`` is a list, or a one-pass iterator for a message-per-record stream so
    that a long log is never held in memory. ``meta`` keeps the record's other keys in
    their order; ``messages_key`` is where the messages stood among them. ``start`` is
    the number of the first message in its log: 0, but for a piece of a log read from
    its middle (a ``--jobs`` worker's range of lines). ``places``: where each message
    came from (a list of locations), when a reader knows it (session logs, a log read
    with ``ReadOptions(places=True)``), else None; a conversation ``with_messages`` keeps
    them, and one whose messages were dropped or added has a count that differs.
    ``left_out``: what its reader left out of it on purpose, each a kind the run says
    once (a session's subagents without ``--include-subagents``), else None.
    ``files``: the files its source holds beside it, by the ids its messages name them
    with (an export zip's images: ``files.data_url(pointer)``), else None.
    """

    __slots__ = (
        "files",
        "left_out",
        "location",
        "messages",
        "messages_key",
        "meta",
        "places",
        "start",
    )

    def __init__(
        self,
        messages: Iterable[AnyMessage],
        meta: dict[str, Any] | None = None,
        location: Location | None = None,
        messages_key: str | None = None,
        start: int = 0,
    ) -> None:
        self.messages = messages
        self.meta = meta if meta is not None else {}
        self.location = location
        self.messages_key = messages_key
        self.start = start
        self.places: list[Location] | None = None
        self.left_out: list[str] | None = None
        self.files: Any = None

    def with_messages(self, messages: Iterable[AnyMessage]) -> Conversation:
        """The same conversation holding other messages (an operation's result)."""
        changed = Conversation(messages, self.meta, self.location, self.messages_key, self.start)
        changed.left_out = self.left_out
        changed.files = self.files
        changed.places = self.places  # (the messages' read: compare their count to use them)
        return changed

    def to_record(self, messages: list[Any], meta: dict[str, Any] | None = None) -> dict[str, Any]:
        """The conversation as one record, ``{"messages": [...]}`` with the other fields
        where they stood (a source's ``contents`` or ``conversations`` becomes ``messages``)."""
        meta = self.meta if meta is None else meta
        key = self.messages_key
        if key is None or key not in meta:
            return {"messages": messages, **meta}
        return {
            ("messages" if k == key else k): (messages if k == key else v) for k, v in meta.items()
        }
