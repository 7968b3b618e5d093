"""The canonical dialect: chatpipe's flat JSONL, one message object per line (also
LangGraph's ``model_dump``; docs/architecture.md, "Canonical JSONL")."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..model import AnyMessage
from ..model.canonical import CANONICAL_TYPES, message_from_canonical, message_to_canonical
from .base import Dialect
from .record_errors import not_a_message


def is_canonical_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("type"), str)
        and isinstance(value["type"], str)
        and value["type"] in CANONICAL_TYPES
        and "role" not in value
        and "data" not in value
        and ("content" in value or value.get("type") == "remove")
    )


class CanonicalDialect(Dialect):
    name = "canonical"
    writable = True
    messages_by_line = True
    description = "chatpipe's flat JSONL, one message object per line (LangGraph model_dump)"
    example = "langchain_dict__generated_flat_model_dump_openai_system_tool.json"

    def is_message(self, value: Any) -> bool:
        return is_canonical_message(value)

    def read_message(self, value: Any) -> AnyMessage:
        if not isinstance(value, dict):
            raise not_a_message(self.name, value)
        return message_from_canonical(value)

    def write_messages(self, messages: Iterable[AnyMessage]) -> Iterator[Any]:
        return map(message_to_canonical, messages)
