"""``dedupe``: drop exact duplicates, keeping the first in input order.

``by="conversation"`` compares whole conversations, ``by="prompt"`` their prompts (the
messages before the last assistant turn), both by digest (ops/digest.py); ``by="messages"``
drops the messages that repeat an earlier one of the same conversation.

Across parts of the input (``--jobs``, Dask) it is two passes: ``digests`` gives each
part's ``(digest, position)`` pairs, ``FirstSeen.combine`` takes them part by part in
input order and remembers the first position of each digest (memory: one digest and one
position per distinct conversation), and ``FirstSeen.kept`` says, in the second pass,
whether a conversation at a position is the one kept. On one process ``Deduper`` does
both at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError
from ..model import AnyMessage, Conversation
from . import facts
from .digest import BY, digest, digest_message


def check_by(by: str) -> str:
    if by not in BY:
        raise UsageError(f"--by must be conversation, prompt or messages, got {by!r}")
    return by


# -- two passes, for parts ------------------------------------------------------------


def digests(
    conversations: Iterable[Conversation], by: str = "conversation", first: int = 0
) -> Iterator[tuple[bytes, int]]:
    """Pass one on a part: ``(digest, position)`` per conversation, positions counted
    from ``first``."""
    check_by(by)
    if by == "messages":
        raise UsageError("--by messages works within each conversation: one pass")
    for position, conversation in enumerate(conversations, first):
        conversation, messages = facts.listed(conversation)
        yield digest(conversation, messages, by), position


class FirstSeen:
    """The first position of each digest, from the parts' pass-one pairs in input order
    (a position: anything ordered, such as ``(part, index)``)."""

    def __init__(self) -> None:
        self.first: dict[bytes, Any] = {}
        self.dropped = 0

    def combine(self, pairs: Iterable[tuple[bytes, Any]]) -> FirstSeen:
        first = self.first
        for found, position in pairs:
            kept = first.get(found)
            if kept is None:
                first[found] = position
                continue
            self.dropped += 1
            if position < kept:  # parts combined out of order: the earliest is kept
                first[found] = position
        return self

    def kept(self, found: bytes, position: Any) -> bool:
        """Pass two: whether the conversation with this digest at this position stays."""
        return self.first.get(found, position) == position

    def duplicate_of(self, found: bytes) -> Any:
        return self.first.get(found)


# -- one pass, on one process -------------------------------------------------------


@dataclass
class Dropped:
    """What dedupe left out: per dropped conversation, its label and the kept one's
    (``pairs``); with ``by="messages"``, per conversation its label and the
    ``(dropped index, kept index)`` of its messages (``messages``)."""

    conversations: int = 0
    message_count: int = 0
    pairs: list[tuple[str, str]] = field(default_factory=list)
    messages: list[tuple[str, list[tuple[int, int]]]] = field(default_factory=list)


class Deduper:
    """The operation that keeps the first of each digest: called on a conversation it
    gives it back, or None for a duplicate (``by="messages"``: the conversation without
    its repeated messages). ``dropped`` says what was left out; ``report`` keeps the
    pairs for a report (else only counts)."""

    def __init__(self, by: str = "conversation", report: bool = False) -> None:
        self.by = check_by(by)
        self.report = report
        self.seen: dict[bytes, str | None] = {}
        self.position = 0
        self.dropped = Dropped()

    def __call__(self, conversation: Conversation) -> Conversation | None:
        conversation, messages = facts.listed(conversation)
        position = self.position
        self.position += 1
        if self.by == "messages":
            return self._messages(conversation, messages, position)
        found = digest(conversation, messages, self.by)
        kept = self.seen.get(found, _NEW)
        if kept is _NEW:
            self.seen[found] = facts.label(conversation, position) if self.report else None
            return conversation
        self.dropped.conversations += 1
        if self.report:
            self.dropped.pairs.append((facts.label(conversation, position), str(kept)))
        return None

    def _messages(
        self, conversation: Conversation, messages: list[AnyMessage], position: int
    ) -> Conversation:
        first: dict[bytes, int] = {}
        kept: list[AnyMessage] = []
        repeats: list[tuple[int, int]] = []
        for index, message in enumerate(messages):
            where = first.setdefault(digest_message(message), index)
            if where == index:
                kept.append(message)
            else:
                repeats.append((index, where))
        if not repeats:
            return conversation
        self.dropped.message_count += len(repeats)
        if self.report:
            self.dropped.messages.append((facts.label(conversation, position), repeats))
        return conversation.with_messages(kept)

    def stream(self, conversations: Iterable[Conversation]) -> Iterator[Conversation]:
        """The run's conversations less their duplicates, in order: the first of each is
        kept across the whole run, so a job with this operation is one process."""
        for conversation in conversations:
            kept = self(conversation)
            if kept is not None:
                yield kept

    def summary(self) -> str:
        """What was dropped, in a line for people."""
        many = f"{self.position} conversation{'s' * (self.position != 1)}"
        if self.by == "messages":
            n = self.dropped.message_count
            return f"dedupe: dropped {n} repeated message{'s' * (n != 1)} in {many}"
        n = self.dropped.conversations
        return f"dedupe: dropped {n} duplicate{'s' * (n != 1)} of {many} (by {self.by})"

    def report_data(self) -> dict[str, Any]:
        """What was dropped, and what each dropped one repeats (``report=True``), as JSON."""
        made: dict[str, Any] = {"by": self.by, "conversations": self.position}
        dropped = self.dropped
        if self.by == "messages":
            made["messages_dropped"] = dropped.message_count
            made["repeats"] = [
                {"conversation": name, "dropped": [{"message": i, "repeats": j} for i, j in pairs]}
                for name, pairs in dropped.messages
            ]
        else:
            made["dropped"] = dropped.conversations
            made["duplicates"] = [{"dropped": a, "duplicate_of": b} for a, b in dropped.pairs]
        return made


_NEW: Any = object()


def dedupe(
    conversations: Iterable[Conversation], by: str = "conversation"
) -> Iterator[Conversation]:
    """The conversations without exact duplicates, the first of each kept, in order."""
    keep = Deduper(by)
    for conversation in conversations:
        kept = keep(conversation)
        if kept is not None:
            yield kept
