"""What detection shows a dialect and what the dialect answers (``Dialect.score``): the
sample of a source's first records, the shape a dialect reads them in, and how sure it is,
on named levels so that every dialect weighs the same evidence alike."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

# the shapes a source's records come in
MESSAGES = "messages"  # the records are the messages of one conversation
CONVERSATIONS = "conversations"  # each record is a conversation
STREAM = "stream"  # the records are events that spell out messages

# how sure a dialect is that a sample is its own (``Dialect.score``): named levels, so that
# dialects weigh the same evidence alike
CERTAIN = 1.0  # a marker only this format has (a stream event's type, an export's tree)
LIKELY = 0.8  # keys or shapes of its own, which other formats rarely have
VARIANT = 0.65  # a shared shape with keys of its own in it (Mellea's fields in OpenAI messages)
GENERIC = 0.5  # a shape several formats share ({role, content} messages)
EMPTY = 0.3  # a conversation record with no messages: every dialect's shape, and none's


@dataclass(frozen=True)
class Sample:
    """What detection shows a dialect: a source's first record that any dialect knows
    (``first``), the records after it in the window (``more``), and whether the records came
    framed, as a sequence of their own (SSE events, the elements of a JSON array)."""

    first: Any
    more: Sequence[Any] = ()
    framed: bool = False

    @property
    def records(self) -> list[Any]:
        return [self.first, *self.more]

    def messages(self) -> list[Any]:
        """The messages the sample shows: the records themselves, or those of its
        conversation records (``{"messages": [...]}``)."""
        found = []
        for record in self.records:
            inner = record.get("messages") if isinstance(record, dict) else None
            found.extend(inner if isinstance(inner, list) else [record])
        return found


def holds_messages(value: Any, own: Any) -> bool | None:
    """Whether a record's ``messages`` list holds messages ``own`` says are a dialect's;
    None when the record holds no such list. chatpipe writes a conversation's other fields
    beside its messages, so a record whose messages are another dialect's is that
    dialect's conversation, whatever other keys it carries (a Responses object's, an
    Ollama request's, a batch line's): the messages are the evidence."""
    messages = value.get("messages") if isinstance(value, dict) else None
    if not isinstance(messages, list) or not messages:
        return None
    return all(isinstance(m, dict) and own(m) for m in messages[:20])


class Guess(NamedTuple):
    """A dialect's answer to a sample: how sure it is, and the shape it reads it as."""

    score: float
    shape: str
