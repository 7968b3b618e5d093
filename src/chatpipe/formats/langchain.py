"""The langchain dialect: ``messages_to_dict``'s ``{"type", "data"}`` records and ``dumpd``
envelopes (Python's ``FileChatMessageHistory`` file is a JSON array of the former), and
LangChain.js's ``FileSystemChatMessageHistory`` store, ``{user id: {session id: {messages,
context}}}``, each session a conversation."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ..errors import ChatpipeError, Location, ValidationError
from ..model import MESSAGE_CLASSES, AnyMessage, Conversation
from .base import Dialect
from .openai_messages import is_envelope
from .record_errors import not_a_message

_ENVELOPE_CLASSES = {cls.__name__: cls for cls in MESSAGE_CLASSES.values()}
# LangChain.js's StoredMessage types that Python names otherwise
_JS_TYPES = {"generic": "chat"}


def message_from_envelope(value: dict[str, Any]) -> AnyMessage:
    """A ``dumpd`` envelope holds constructor keywords: build the class it names."""
    cls = _ENVELOPE_CLASSES.get(value["id"][-1])
    if cls is None:
        raise ValidationError(f"unknown message class {value['id'][-1]!r}")
    kwargs = value["kwargs"]
    if cls.type == "remove":
        kwargs = {k: v for k, v in kwargs.items() if k != "content"}
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ValidationError(str(exc)) from None


def is_langchain_message(value: Any) -> bool:
    if is_envelope(value):
        return True
    return (
        isinstance(value, dict)
        and isinstance(value.get("type"), str)
        and isinstance(value["type"], str)
        and (value["type"] in MESSAGE_CLASSES or value["type"] in _JS_TYPES)
        and isinstance(value.get("data"), dict)
    )


def is_file_store(value: Any) -> bool:
    """LangChain.js ``FileSystemChatMessageHistory``'s file: users, their sessions, each
    ``{messages: [StoredMessage], context}``; at least one session holds messages."""
    if not isinstance(value, dict) or not value:
        return False
    found = False
    for sessions in value.values():
        if not isinstance(sessions, dict):
            return False
        for session in sessions.values():
            if not isinstance(session, dict) or not ("messages" in session or "context" in session):
                return False
            messages = session.get("messages", [])
            if not isinstance(messages, list):
                return False
            if messages:
                if not is_langchain_message(messages[0]):
                    return False
                found = True
    return found


class LangchainDialect(Dialect):
    name = "langchain"
    writable = True
    description = 'messages_to_dict\'s {"type", "data"} records, and dumpd envelopes'
    example = "langchain_dict__python_file_chat_message_history.json"

    def is_message(self, value: Any) -> bool:
        return is_langchain_message(value)

    def is_conversation(self, value: Any) -> bool:
        return super().is_conversation(value) or is_file_store(value)

    def read_conversations(
        self, value: Any, location: Location, options: Any = None
    ) -> Iterator[Conversation]:
        if not is_file_store(value):
            yield from super().read_conversations(value, location, options)
            return
        for user_id, sessions in value.items():
            for session_id, session in sessions.items():
                messages = []
                for index, item in enumerate(session.get("messages") or ()):
                    try:
                        messages.append(self.read_message(item))
                    except ChatpipeError as exc:
                        where = f"user {user_id!r}, session {session_id!r}: "
                        exc = type(exc)(where + exc.message, exc.location, exc.hint)
                        raise exc.located(location.at_message(index)) from None
                meta = {"user_id": user_id, "session_id": session_id}
                meta.update({k: (None if k == "messages" else v) for k, v in session.items()})
                meta.setdefault("messages", None)
                yield Conversation(messages, meta, location, "messages")

    def read_message(self, value: Any) -> AnyMessage:
        if is_envelope(value):
            return message_from_envelope(value)
        if not is_langchain_message(value):
            raise not_a_message(self.name, value)
        return message_from_dict(value)

    def write_messages(self, messages: Iterable[AnyMessage]) -> Iterator[Any]:
        for message in messages:
            yield {"type": message.type, "data": dict(message.fields())}


def messages_to_dict(messages: Sequence[AnyMessage]) -> list[dict[str, Any]]:
    """langchain's ``{"type", "data"}`` shape, every field written out."""
    return [{"type": m.type, "data": dict(m.fields())} for m in messages]


def message_from_dict(value: dict[str, Any]) -> AnyMessage:
    kind = value.get("type") if isinstance(value, dict) else None
    kind = _JS_TYPES.get(kind, kind) if isinstance(kind, str) else kind
    cls = MESSAGE_CLASSES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValidationError(f"Got unexpected message type: {kind}")
    data = value.get("data")
    if not isinstance(data, dict):
        raise ValidationError("a {type, data} message needs a 'data' object")
    fields = dict(data)
    if kind == "remove":
        fields.pop("content", None)
    elif "content" not in fields:
        raise ValidationError(f"a {kind} message needs 'content'")
    try:
        return cls(**fields)
    except TypeError as exc:
        raise ValidationError(str(exc)) from None


def messages_from_dict(messages: Sequence[dict[str, Any]]) -> list[AnyMessage]:
    return [message_from_dict(m) for m in messages]
