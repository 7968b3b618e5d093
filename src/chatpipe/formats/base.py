"""What every dialect shares: the Conversation, and the Dialect interface.

A dialect knows how to recognise its records, read a message record or a conversation
record into messages, and (when writable) write messages back as records. The shared
reading of ``{"messages": [...], ...}`` conversation records lives here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location, ValidationError
from ..model import AnyMessage


class Conversation:
    """Messages plus what the source says about them as a whole (id, title, tools...).

    ``messages`` is a list, or a one-pass iterator for a message-per-record stream so
    that a long log is never held in memory. ``meta`` keeps the record's other keys in
    their order; ``messages_key`` is where the messages stood among them.
    """

    __slots__ = ("lane", "location", "messages", "messages_key", "meta")

    def __init__(
        self,
        messages: Iterable[AnyMessage],
        meta: dict[str, Any] | None = None,
        location: Location | None = None,
        messages_key: str | None = None,
        lane: Any = None,
    ) -> None:
        # a message stream from the fast lane (formats.lane.Lane) can be taken instead
        # as its batches or written by a lane writer: one of the three, once
        self.lane = lane
        self.messages = messages
        self.meta = meta if meta is not None else {}
        self.location = location
        self.messages_key = messages_key

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


class Dialect:
    """A chat-log format. Subclasses set ``name`` and override what they support."""

    name = ""
    writable = False
    readable = True  # False for the write-only dialects (markdown, yaml)
    description = ""

    # -- recognising ----------------------------------------------------------------

    def is_message(self, value: Any) -> bool:
        return False

    def is_conversation(self, value: Any) -> bool:
        return (
            isinstance(value, dict)
            and isinstance(value.get("messages"), list)
            and (not value["messages"] or self.is_message(value["messages"][0]))
        )

    # -- reading --------------------------------------------------------------------

    def read_message(self, value: Any) -> AnyMessage:
        raise NotImplementedError

    def finish(self, messages: Iterable[AnyMessage]) -> Iterable[AnyMessage]:
        """A pass over a conversation's messages after reading (e.g. linking tools)."""
        return messages

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
            raise DataError(
                f"expected a conversation record with a 'messages' list for {self.name}",
                location,
                hint=_keys_hint(value),
            )
        messages = []
        for index, item in enumerate(value["messages"]):
            try:
                messages.append(self.read_message(item))
            except ChatpipeError as exc:
                raise exc.located(location.at_message(index)) from None
        meta = {k: (None if k == "messages" else v) for k, v in value.items()}
        return Conversation(list(self.finish(messages)), meta, location, "messages")

    # -- writing --------------------------------------------------------------------

    def write_messages(self, messages: Iterable[AnyMessage]) -> Iterator[Any]:
        raise DataError(f"cannot write {self.name}")

    def lane_writer(self) -> Any:
        """A ``write.LaneWriter`` for the fast lane's batches, or None: messages only."""
        return None

    def record_meta(self, meta: dict[str, Any]) -> dict[str, Any]:
        """A conversation's fields as this dialect's records hold them."""
        return meta


class StreamDialect(Dialect):
    """Records are events that spell out messages; ``read_stream`` reassembles them."""

    stream = True

    def is_stream_event(self, value: Any) -> bool:
        return False

    def is_conversation(self, value: Any) -> bool:
        return False

    def read_message(self, value: Any) -> AnyMessage:
        raise ValidationError(f"{self.name} records are stream events, read as a whole")

    def read_stream(self, values: Iterable[Any], location: Location) -> Iterator[Conversation]:
        raise NotImplementedError


def _keys_hint(value: Any) -> str:
    if isinstance(value, dict):
        keys = ", ".join(map(str, list(value)[:8])) or "none"
        return f"top-level keys: {keys}"
    return f"got a {type(value).__name__}"


def not_a_message(dialect: str, value: Any) -> ValidationError:
    return ValidationError(f"not a {dialect} message", hint=_keys_hint(value))
