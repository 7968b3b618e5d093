"""Telling a source's dialect and record shape from its first records (the detection order
is the registry's: the most specific shapes first)."""

from __future__ import annotations

from typing import Any

from .anthropic import is_anthropic_response, is_anthropic_turns
from .base import Dialect
from .gemini import is_gemini_response
from .registry import dialects, get_dialect

MESSAGES = "messages"  # the records are the messages of one conversation
CONVERSATIONS = "conversations"  # each record is a conversation
STREAM = "stream"  # the records are events that spell out messages
_LIST_WINDOW = 50  # messages of a bare list looked at to tell its dialect


def detect(value: Any, more: list[Any] = (), framed: bool = False) -> tuple[Dialect, str] | None:
    """``framed``: the records came as a sequence of their own (SSE events, the elements
    of a JSON array), so one Gemini response among them is a stream's only chunk."""
    try:
        return _detect(value, more, framed)
    except (TypeError, AttributeError):  # a shape no dialect expects (e.g. a list as "type")
        return None


def is_message_list(value: Any) -> bool:
    """A bare array of messages (a JSONL line of a dataset stored so): a conversation."""
    return isinstance(value, list) and bool(value) and all(isinstance(m, dict) for m in value)


def _detect(value: Any, more: list[Any], framed: bool = False) -> tuple[Dialect, str] | None:
    """The dialect and record shape a first record shows, or None.

    ``more`` holds the next few records: the OpenAI family (Mellea, LLaMA-Factory) is
    told apart by keys that need not appear in the first message, and Anthropic turns by
    their content blocks.
    """
    if is_message_list(value):
        inner = _detect(value[0], value[1:_LIST_WINDOW])
        if inner is not None and inner[1] == STREAM:  # a list of events (pydantic-ai's dumps)
            return inner
        return (inner[0], CONVERSATIONS) if inner is not None and inner[1] == MESSAGES else None
    found = None
    for dialect in dialects():
        if dialect.stream and dialect.is_stream_event(value):
            return dialect, STREAM
    if is_anthropic_response(value):
        return get_dialect("anthropic"), CONVERSATIONS
    if (
        is_gemini_response(value)
        and "candidates" in value
        and (more or framed)
        and all(is_gemini_response(v) for v in more)
    ):
        return get_dialect("gemini-stream"), STREAM
    for dialect in dialects():
        if dialect.is_message(value):
            found = dialect, MESSAGES
            break
    else:
        for dialect in dialects():
            if dialect.is_conversation(value):
                found = dialect, CONVERSATIONS
                break
    if found is None or found[0].name != "openai":
        return found
    if found[1] == MESSAGES:
        samples = [value, *more]
        if is_anthropic_turns(samples):
            return get_dialect("anthropic"), MESSAGES
    else:
        samples = [
            m
            for v in (value, *more)
            if isinstance(v, dict)
            for m in v.get("messages") or ()
            if isinstance(v.get("messages"), list)
        ]
    for dialect in (get_dialect("mellea"), get_dialect("llamafactory"), get_dialect("ai-sdk-ui")):
        if any(dialect.is_message(m) for m in samples):
            return dialect, found[1]
    return found


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
