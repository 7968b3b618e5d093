"""What every dialect shares: the Dialect interface and its capabilities.

A dialect knows how to recognise its records, read a message record or a conversation
record into messages, and (when writable) write messages back as records. The shared
reading of ``{"messages": [...], ...}`` conversation records lives here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location, ValidationError, kind_of
from ..model import AnyMessage, Conversation
from .shapes import check_message


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
    # a log's message lines are read one by one and written one by one (a log of it can
    # be cut into ranges of lines); other dialects chain their lines (trees, events)
    messages_by_line = False
    # a record may be a turn of several messages (an Anthropic user turn answering tools):
    # a log of such records is read whole (``read_turn``), one bad record failing all of it
    turn_records = False
    # where a conversation record holds its messages: a bare list of messages (a JSONL
    # line that is an array) reads as a record with the list there
    list_key = "messages"

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

    def read_turn(self, value: Any) -> list[AnyMessage]:
        """The messages one message record gives (one, but for ``turn_records`` dialects)."""
        return [self.read_message(value)]

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
        ``options``) each branch asked for. A bare list is a conversation's messages."""
        if isinstance(value, list):
            value = {self.list_key: value}
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


# what malformed records make readers raise, below the checks they make themselves
_SHAPE_ERRORS = (TypeError, AttributeError, KeyError, IndexError, ValueError)


@contextlib.contextmanager
def shape_errors(dialect: Dialect, location: Location) -> Iterator[None]:
    """A record of an unexpected shape is bad input: a located DataError, not a crash."""
    try:
        yield
    except ChatpipeError as exc:  # (placed by the reader where it knew the place)
        raise exc.located(location) from None
    except _SHAPE_ERRORS as exc:
        raise _shape_error(dialect, exc, location) from None


def _shape_error(dialect: Dialect, exc: Exception, location: Location) -> DataError:
    """Words for a record a reader met with a shape it did not check for."""
    if isinstance(exc, KeyError):
        what = f"it has no {exc.args[0]!r} field" if exc.args else "a field is missing"
    elif isinstance(exc, IndexError):
        what = "a list in it is shorter than this dialect needs"
    else:  # Python's own words ("'int' object has no attribute 'get'") mean nothing to a user
        what = "a field holds a value of another kind than this dialect needs"
    return DataError(
        f"cannot read this record as {dialect.name}: {what}",
        location,
        hint="check the record against the dialect, or name another with --from",
    )


def turn_of(dialect: Dialect, value: Any, location: Location) -> list[AnyMessage]:
    """The messages one message record gives (``Dialect.read_turn``), as ``message_of``."""
    try:
        return [check_message(message) for message in dialect.read_turn(value)]
    except ChatpipeError as exc:
        raise exc.located(location) from None
    except _SHAPE_ERRORS as exc:
        raise _shape_error(dialect, exc, location) from None


def message_of(dialect: Dialect, value: Any, location: Location) -> AnyMessage:
    """One message record read by a dialect; every failure a DataError at its place."""
    try:
        return check_message(dialect.read_message(value))
    except ChatpipeError as exc:
        raise exc.located(location) from None
    except _SHAPE_ERRORS as exc:
        raise _shape_error(dialect, exc, location) from None
