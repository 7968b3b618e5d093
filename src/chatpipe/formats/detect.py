"""Telling a source's dialect and record shape from its first records, by evidence: every
dialect scores the sample it is shown (``Dialect.score``: how sure it is, from keys and
shapes it alone has), and the highest score wins, wherever the dialect stands in the
registry. Dialects that tie and would read the sample differently are an error that names
them and ``--from``; dialects that tie and read it alike are one answer (the first
registered is named)."""

from __future__ import annotations

from typing import Any

from ..errors import DataError
from .base import CONVERSATIONS, EMPTY, MESSAGES, STREAM, Dialect, Guess, Sample
from .registry import dialects

__all__ = ["CONVERSATIONS", "MESSAGES", "STREAM", "Ambiguous", "detect", "scores"]

_LIST_WINDOW = 50  # messages of a bare list looked at to tell its dialect
_SAME = 1e-9  # scores closer than this tie


class Ambiguous(DataError):
    """A sample two or more dialects claim with the same certainty and read differently."""

    def __init__(self, names: list[str]) -> None:
        listed = " and ".join(names) if len(names) == 2 else ", ".join(names)
        super().__init__(
            f"this could be {listed}, which read it differently",
            hint="name the dialect with --from " + " or --from ".join(names),
        )
        self.names = names


def detect(value: Any, more: list[Any] = (), framed: bool = False) -> tuple[Dialect, str] | None:
    """The dialect and record shape a source's first records show, or None when no
    dialect knows them. ``more``: the records after ``value`` in the detection window;
    ``framed``: the records came as a sequence of their own (SSE events, the elements of a
    JSON array). Raises ``Ambiguous`` when dialects tie and read the sample differently."""
    if is_message_list(value):  # a bare array of messages (a JSONL line of a dataset)
        inner = detect(value[0], value[1:_LIST_WINDOW])
        if inner is not None and inner[1] == STREAM:  # a list of events (pydantic-ai's dumps)
            return inner
        return (inner[0], CONVERSATIONS) if inner is not None and inner[1] == MESSAGES else None
    ranked = scores(Sample(value, tuple(more), framed))
    if not ranked:
        return None
    best, guess = ranked[0]
    tied = [(d, g) for d, g in ranked[1:] if guess.score - g.score < _SAME]
    if guess.score <= EMPTY:  # a record of no messages: the first dialect that takes it
        return best, guess.shape
    if tied and not _read_alike(Sample(value, tuple(more), framed), [(best, guess), *tied]):
        raise Ambiguous([best.name] + [d.name for d, _ in tied])
    return best, guess.shape


def scores(sample: Sample) -> list[tuple[Dialect, Guess]]:
    """Every dialect that claims ``sample``, the surest first (registry order among equals)."""
    claimed = []
    for dialect in dialects():
        if not dialect.readable:
            continue
        try:
            guess = dialect.score(sample)
        except (TypeError, AttributeError, KeyError, IndexError, ValueError):
            guess = None  # a shape this dialect's checks do not expect (a list as "type")
        if guess is not None and guess.score > 0:
            claimed.append((dialect, guess))
    claimed.sort(key=lambda found: -found[1].score)  # (stable: registry order kept)
    return claimed


def telling(value: Any) -> bool:
    """Whether a record says more of its dialect than a conversation with no messages
    (every dialect's shape): detection looks at the first such record."""
    ranked = scores(Sample(value))
    return bool(ranked) and ranked[0][1].score > EMPTY


def is_message_list(value: Any) -> bool:
    """A bare array of messages (a JSONL line of a dataset stored so): a conversation."""
    return isinstance(value, list) and bool(value) and all(isinstance(m, dict) for m in value)


def _read_alike(sample: Sample, claims: list[tuple[Dialect, Guess]]) -> bool:
    """Whether the dialects that tie read the sample to the same conversations."""
    readings = [_reading(dialect, guess.shape, sample) for dialect, guess in claims]
    return all(reading == readings[0] for reading in readings[1:])


def _reading(dialect: Dialect, shape: str, sample: Sample) -> Any:
    """The conversations a dialect reads the sample as, as plain values (or the kind of
    error it meets), to compare two readings."""
    from ..errors import Location
    from ..model.canonical import message_to_canonical

    location = Location("<sample>")
    try:
        if shape == STREAM:
            conversations = list(dialect.read_stream(iter(sample.records), location))
        elif shape == MESSAGES:
            messages = [m for r in sample.records for m in dialect.read_turn(r)]
            conversations = [None, messages]
        else:
            conversations = [
                c for r in sample.records for c in dialect.read_conversations(r, location)
            ]
        return [
            [message_to_canonical(m) for m in c] if isinstance(c, list) else _plain(c)
            for c in conversations
            if c is not None
        ]
    except Exception as exc:
        return type(exc).__name__


def _plain(conversation: Any) -> Any:
    from ..model.canonical import message_to_canonical

    return [message_to_canonical(m) for m in conversation.messages], conversation.meta


def refusal(value: Any) -> tuple[str, str] | None:
    """(what it is, what to read instead) for a file people take for a chat log that holds
    none of its own; None for anything else."""
    if (
        isinstance(value, dict)
        and isinstance(value.get("ts"), (int, float))
        and value.get("type") in ("say", "ask")
        and isinstance(value.get(value["type"]), str)
    ):
        return (
            "this is a Cline or Roo Code ui_messages.json: what the task's panel showed, not "
            "the conversation",
            "read api_conversation_history.json from the same task folder instead",
        )
    return None
