"""Writers whose output is a document rather than JSON lines: Markdown transcripts and
YAML."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..canonical import message_to_canonical
from ..messages import AnyMessage
from .base import Conversation, Dialect


class MarkdownDialect(Dialect):
    name = "markdown"
    writable = True
    description = "a Markdown transcript for people (write only)"

    def write_messages(self, messages: Iterable[AnyMessage]) -> Iterator[Any]:
        from ..render.markdown import message_markdown

        return map(message_markdown, messages)

    def render(self, conversations: Iterable[Conversation], per_message: bool) -> Iterator[str]:
        from ..render.markdown import conversation_markdown

        for index, conversation in enumerate(conversations):
            yield ("\n---\n\n" if index else "") + conversation_markdown(conversation, index)


class YamlDialect(Dialect):
    name = "yaml"
    writable = True
    description = "canonical messages as YAML (a list of messages, or of conversations)"

    def write_messages(self, messages: Iterable[AnyMessage]) -> Iterator[Any]:
        return map(message_to_canonical, messages)

    def render(self, conversations: Iterable[Conversation], per_message: bool) -> Iterator[str]:
        import yaml

        records: list[Any] = []
        for conversation in conversations:
            messages = [message_to_canonical(m) for m in conversation.messages]
            if per_message:
                records.extend(messages)
            else:
                records.append(conversation.to_record(messages))
        yield yaml.safe_dump(records, allow_unicode=True, sort_keys=False, width=100)
