"""The YAML writer: conversations as a YAML document (a list of messages for one
conversation, of conversations for several); written only."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..model import AnyMessage
from ..model.canonical import message_to_canonical
from .base import Conversation, Dialect

_YAML_BATCH = 256


class YamlDialect(Dialect):
    name = "yaml"
    writable = True
    document = True
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
