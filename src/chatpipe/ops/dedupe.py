"""``dedupe``: drop exact duplicates, keeping the first in input order.

``by="conversation"`` compares whole conversations, ``by="prompt"`` their prompts (the
messages before the last assistant turn), both by digest (ops/digest.py); ``by="messages"``
drops the messages that repeat an earlier one of the same conversation.

Across parts of the input (``--jobs``, Dask) it is two passes over the same parts
(``Deduper.first_pass``, ``second_pass``, which the pipeline runs): ``Digests`` gives each
part's ``(digest, position, label)``, ``FirstSeen.combine`` takes them part by part and
remembers the first position of each digest (memory: one digest, one position and, for a
report, one label per distinct conversation), and ``KeepFirst`` keeps, in the second
pass, the conversation at that position. On one process ``Deduper`` does both at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError
from ..model import AnyMessage, Conversation
from . import facts
from .digest import BY, digest, digest_message
from .operation import PerPart, TwoPasses

_Entries = list[tuple[bytes, tuple[int, int], Any]]  # a part's digests, positions, labels


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
    """The first position of each digest (and its label, for a report), from the parts'
    pass-one entries ``(digest, position[, label])`` (a position: anything ordered, such
    as ``(part, index)``)."""

    def __init__(self) -> None:
        self.first: dict[bytes, Any] = {}
        self.labels: dict[bytes, str] = {}
        self.dropped = 0

    def combine(self, pairs: Iterable[tuple[Any, ...]]) -> FirstSeen:
        first, labels = self.first, self.labels
        for found, position, *label in pairs:
            kept = first.get(found)
            if kept is not None:
                self.dropped += 1
                if not position < kept:
                    continue  # (parts combined out of order: the earliest is kept)
            first[found] = position
            if label and label[0] is not None:
                labels[found] = label[0]
        return self

    def kept(self, found: bytes, position: Any) -> bool:
        """Pass two: whether the conversation with this digest at this position stays."""
        return self.first.get(found, position) == position

    def duplicate_of(self, found: bytes) -> Any:
        return self.first.get(found)


class Digests(PerPart[_Entries]):
    """Pass one on parts (the operation of a first run over them): each conversation's
    digest and position ``(part, index)``, and its label for a report; it writes nothing.
    ``for_part`` gives a part's own, ``part_state`` what it gathered, ``absorb`` takes a
    part's into ``seen``."""

    def __init__(self, by: str, report: bool, part: int = 0) -> None:
        self.by, self.report, self.part = by, report, part
        self.entries: list[tuple[bytes, tuple[int, int], str | None]] = []
        self.seen = FirstSeen()

    def for_part(self, part: int) -> Digests:
        return Digests(self.by, self.report, part)

    def __call__(self, conversation: Conversation) -> None:
        conversation, messages = facts.listed(conversation)
        return self.add(conversation, digest(conversation, messages, self.by))

    def add(self, conversation: Conversation, found: bytes) -> None:
        """The next conversation and its digest, ``found``, taken in."""
        index = len(self.entries)
        label = _label(conversation, index) if self.report else None
        self.entries.append((found, (self.part, index), label))
        return None

    def part_state(self) -> _Entries:
        return self.entries

    def absorb(self, entries: _Entries, placed: Any) -> None:
        self.seen.combine((d, p, _said(label, placed)) for d, p, label in entries)


class KeepFirst(PerPart["tuple[Dropped, int]"]):
    """Pass two on parts: the conversation at the first position of its digest kept, the
    others dropped and counted into ``deduper.dropped`` (``absorb``: a part's counts)."""

    def __init__(self, deduper: Deduper, seen: FirstSeen, part: int = 0) -> None:
        self.deduper, self.seen, self.part = deduper, seen, part
        self.index = 0
        self.dropped = Dropped()

    def for_part(self, part: int) -> KeepFirst:
        return KeepFirst(self.deduper, self.seen, part)

    def __call__(self, conversation: Conversation) -> Conversation | None:
        conversation, messages = facts.listed(conversation)
        return self.keep(conversation, digest(conversation, messages, self.deduper.by))

    def keep(self, conversation: Conversation, found: bytes) -> Conversation | None:
        """The next conversation, given its digest ``found``: kept, or None (dropped)."""
        position = (self.part, self.index)
        self.index += 1
        if self.seen.kept(found, position):
            return conversation
        self.dropped.conversations += 1
        if self.deduper.report:
            label = _label(conversation, self.index - 1)
            self.dropped.pairs.append((label, self.seen.labels.get(found, "")))
        return None

    def part_state(self) -> tuple[Dropped, int]:
        return self.dropped, self.index

    def absorb(self, state: tuple[Dropped, int], placed: Any) -> None:
        dropped, seen = state
        mine = self.deduper.dropped
        mine.conversations += dropped.conversations
        mine.pairs.extend((_said(label, placed), kept) for label, kept in dropped.pairs)
        self.deduper.position += seen


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


class Deduper(TwoPasses, PerPart["tuple[Dropped, int]"]):
    """The operation that keeps the first of each digest: called on a conversation it
    gives it back, or None for a duplicate (``by="messages"``: the conversation without
    its repeated messages). ``dropped`` says what was left out; ``report`` keeps the
    pairs for a report (else only counts). In parts: two passes (``by="conversation"``,
    ``"prompt"``), or one, each part's counts absorbed (``by="messages"``)."""

    def __init__(self, by: str = "conversation", report: bool = False) -> None:
        self.by = check_by(by)
        self.report = report
        self.seen: dict[bytes, str | None] = {}
        self.position = 0
        self.dropped = Dropped()
        self.in_part = False  # a part's own (``for_part``): its places said where parts meet

    def first_pass(self) -> Digests | None:
        """On parts, the operation of a first run that gathers every digest (None for
        ``by="messages"``, which works within each conversation: one pass)."""
        return None if self.by == "messages" else Digests(self.by, self.report)

    def second_pass(self, gathered: Digests) -> KeepFirst:
        """On parts, the operation that keeps what the first run found first."""
        return KeepFirst(self, gathered.seen)

    def for_part(self, part: int) -> Deduper:
        """``by="messages"`` on parts: a part's own (its counts handed back)."""
        own = Deduper(self.by, self.report)
        own.in_part = True
        return own

    def part_state(self) -> tuple[Dropped, int]:
        return self.dropped, self.position

    def absorb(self, state: tuple[Dropped, int], placed: Any) -> None:
        dropped, seen = state
        self.dropped.message_count += dropped.message_count
        self.dropped.messages.extend(
            (_said(label, placed), pairs) for label, pairs in dropped.messages
        )
        self.position += seen

    def __call__(self, conversation: Conversation) -> Conversation | None:
        conversation, messages = facts.listed(conversation)
        if self.by == "messages":
            self.position += 1
            return self._messages(conversation, messages, self.position - 1)
        return self.keep(conversation, digest(conversation, messages, self.by))

    def keep(self, conversation: Conversation, found: bytes) -> Conversation | None:
        """The next conversation, given its digest ``found`` (``by`` conversation or
        prompt): kept, or None for a duplicate."""
        position = self.position
        self.position += 1
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
            label = _label(conversation, position)  # (a part's place: said where they meet)
            self.dropped.messages.append((label if self.in_part else str(label), repeats))
        return conversation.with_messages(kept)

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


def _label(conversation: Conversation, position: int) -> Any:
    """What a report calls a conversation, before it is said: its id, else its place (a
    part's, which the process putting the parts together makes its file's), else its
    number."""
    if facts.conversation_id(conversation) is None and conversation.location is not None:
        return conversation.location
    return facts.label(conversation, position)


def _said(label: Any, placed: Any) -> Any:
    """A label as a report says it: a place made its file's (``placed``)."""
    return label if label is None or isinstance(label, str) else str(placed(label))


def dedupe(
    conversations: Iterable[Conversation], by: str = "conversation"
) -> Iterator[Conversation]:
    """The conversations without exact duplicates, the first of each kept, in order."""
    keep = Deduper(by)
    for conversation in conversations:
        kept = keep(conversation)
        if kept is not None:
            yield kept
