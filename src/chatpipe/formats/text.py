"""Writers whose output is a document rather than JSON lines: Markdown transcripts and
YAML."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..model import AnyMessage
from ..model.canonical import message_to_canonical
from .base import Conversation, Dialect


class MarkdownDialect(Dialect):
    name = "markdown"
    writable = True
    readable = False
    description = "a Markdown transcript for people (write only)"

    def write_messages(self, messages: Iterable[AnyMessage]) -> Iterator[Any]:
        from ..render.markdown import message_markdown

        return map(message_markdown, messages)

    def render(self, conversations: Iterable[Conversation], per_message: bool) -> Iterator[str]:
        """The transcript a message at a time: nothing is held but the message."""
        from ..render.markdown import conversation_markdown_parts

        for index, conversation in enumerate(conversations):
            if index:
                yield "\n---\n\n"
            yield from conversation_markdown_parts(conversation, index)


# messages given to the YAML emitter at once: few enough to hold, many enough that the
# emitter's set-up per call does not count
_YAML_BATCH = 256


class YamlDialect(Dialect):
    name = "yaml"
    writable = True
    readable = False
    description = "canonical messages as YAML (a list of messages, or of conversations)"

    def write_messages(self, messages: Iterable[AnyMessage]) -> Iterator[Any]:
        return map(message_to_canonical, messages)

    def render(self, conversations: Iterable[Conversation], per_message: bool) -> Iterator[str]:
        """One YAML list, written a batch of items at a time (a top-level block sequence
        is its items' texts one after another): at most one conversation is held."""
        import yaml

        class Dumper(yaml.SafeDumper):
            def ignore_aliases(self, data: Any) -> bool:
                return True  # each value written out, as JSON would: no &id001 anchors

        def dump(items: list[Any]) -> str:
            return yaml.dump(items, Dumper=Dumper, allow_unicode=True, sort_keys=False, width=100)

        batch: list[Any] = []
        written = False
        for conversation in conversations:
            if per_message:
                for message in conversation.messages:
                    batch.append(message_to_canonical(message))
                    if len(batch) >= _YAML_BATCH:
                        yield dump(batch)
                        batch, written = [], True
            else:
                messages = [message_to_canonical(m) for m in conversation.messages]
                batch.append(conversation.to_record(messages))
                yield dump(batch)
                batch, written = [], True
        if batch or not written:
            yield dump(batch)
