"""What every dialect shares: the Dialect interface and its capabilities.

A dialect knows how to recognise its records, read a message record or a conversation
record into messages, and (when writable) write messages back as records. The shared
reading of ``{"messages": [...], ...}`` conversation records lives here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location, ValidationError, kind_of
from ..model import AnyMessage, Conversation


class Dialect:
    """A chat-log format. Subclasses set ``name`` and their capabilities, and override
    what they support."""

    name = ""
    description = ""
    # -- capabilities ---------------------------------------------------------------
    readable = True  # False for the write-only dialects (markdown, yaml)
    writable = False
    stream = False  # records are events that spell out messages (``read_stream``)
    # records are whole conversations when written (``write_conversation``: anthropic,
    # gemini, sharegpt), not message records
    conversation_records = False
    # written as one document for people or tools (``render``: markdown, yaml)
    document = False
    # written as a folder of files too (``render_pages``: html, with --output-dir)
    pages = False

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

    def finish(
        self, messages: Iterable[AnyMessage], links: Any = None, start: int = 0
    ) -> Iterable[AnyMessage]:
        """A pass over a conversation's messages after reading (e.g. linking tools);
        ``links`` and ``start``: the linking state and the number of the first message,
        for messages that continue a log (``tool_links.link_tool_results``)."""
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

    def read_conversations(
        self, value: Any, location: Location, options: Any = None
    ) -> Iterator[Conversation]:
        """The conversations one record holds: one, or (trees of exports, with
        ``options``) each branch asked for."""
        yield self.read_conversation(value, location)

    # -- writing --------------------------------------------------------------------

    def write_messages(self, messages: Iterable[AnyMessage]) -> Iterator[Any]:
        raise DataError(f"cannot write {self.name}")

    def write_conversation(self, conversation: Conversation) -> Any:
        """The record of a whole conversation (``conversation_records`` dialects)."""
        raise DataError(f"cannot write {self.name}")

    def render(self, conversations: Iterable[Conversation], per_message: bool) -> Iterator[str]:
        """The text of a whole document (``document`` dialects)."""
        raise DataError(f"cannot write {self.name}")

    def render_pages(self, conversations: Iterable[Conversation]) -> Iterator[tuple[str, str]]:
        """(path, text) of each file of a folder (``pages`` dialects)."""
        raise DataError(f"cannot write {self.name} as a folder")

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

    def read_records(
        self,
        records: Iterable[Any],
        location: Location,
        options: Any = None,
        handle: Callable[[ChatpipeError], None] | None = None,
    ) -> Iterator[Conversation]:
        """The conversations a source's records spell: ``records`` are ``io.records``
        records with their places (a ``BadRecord`` goes to ``handle``, which raises or
        counts it), ``options`` the reading options (``ReadOptions``). By default the
        values go to ``read_stream``; the session-log dialects read lines in their places."""
        from ..io.records import BadRecord

        def good() -> Iterator[Any]:
            for record in records:
                if isinstance(record, BadRecord):
                    if handle is None:
                        raise record.error
                    handle(record.error)
                else:
                    yield record.value

        return self.read_stream(good(), location)


def _keys_hint(value: Any) -> str:
    if isinstance(value, dict):
        keys = ", ".join(map(str, list(value)[:8])) or "none"
        return f"top-level keys: {keys}"
    return f"got {kind_of(value)}"


def not_a_message(dialect: str, value: Any) -> ValidationError:
    return ValidationError(f"not a {dialect} message", hint=_keys_hint(value))
