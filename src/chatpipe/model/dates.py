"""When a conversation was created and last written, wherever its dialect keeps it: the one
place that ``select --after/--before``, the HTML viewer, Markdown transcripts and notes ask.

A conversation's record says it (an export's ``create_time``, Claude's ``created_at``, a
Gemini CLI session's ``startTime`` and ``lastUpdated``); failing that, its messages do (a
session line's ``timestamp``, a stream chunk's ``created``, an AI SDK message's
``metadata.createdAt``, a Gemini response's ``createTime``). Times are seconds since the
epoch, UTC."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator
from typing import Any

from .conversation import Conversation
from .messages import AnyMessage

# a conversation record's keys, in the order they are looked at
CREATED_KEYS = (
    "create_time",  # ChatGPT exports
    "created_at",  # Claude.ai exports, OpenAI responses, Claude Code and Codex sessions
    "createdAt",  # camelCase stores
    "created",  # OpenAI chat completions
    "timestamp",
    "start_time",
    "startTime",  # Gemini CLI sessions
    "createTime",  # Gemini responses
)
UPDATED_KEYS = ("update_time", "updated_at", "updatedAt", "lastUpdated")
# a message's keys, in each of the places a reader keeps them (``_places``)
MESSAGE_KEYS = ("create_time", "created_at", "createdAt", "timestamp", "created", "createTime")

_EPOCH = re.compile(r"[+-]?\d+(\.\d*)?")


def parse_time(value: Any) -> float | None:
    """Seconds since the epoch (UTC) of a time as sources and users write it: a number
    (seconds, or milliseconds past the year 5138), an ISO 8601 date or date-time
    (``2024-05-01``, ``2024-05-01T10:00:00Z``, ``2024-05-01 10:00+02:00``; without an
    offset, UTC), or such a number as text. None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str):
        text = value.strip()
        if _EPOCH.fullmatch(text):
            seconds = float(text)
        else:
            try:
                parsed = dt.datetime.fromisoformat(
                    text.replace("Z", "+00:00").replace("z", "+00:00")
                )
            except ValueError:
                return None
            if parsed.tzinfo is None:
                parsed = parsed.replace(tzinfo=dt.timezone.utc)
            return parsed.timestamp()
    else:
        return None
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        return None
    return seconds / 1000 if abs(seconds) >= 1e11 else seconds


def _first(where: dict[str, Any], keys: Iterable[str]) -> float | None:
    for key in keys:
        if key in where:
            seconds = parse_time(where[key])
            if seconds is not None:
                return seconds
    return None


def _places(message: AnyMessage) -> Iterator[dict[str, Any]]:
    """Where a message's time may be: the objects in its additional_kwargs (the record's
    own fields, which an export's or a session's reader keeps under its dialect's key; the
    AI SDK's metadata), then additional_kwargs itself, its response metadata and extra."""
    kwargs = message.additional_kwargs
    for value in kwargs.values():
        if isinstance(value, dict):
            yield value
    yield kwargs
    yield message.response_metadata
    yield message.extra


def message_time(message: AnyMessage) -> float | None:
    """When a message was written, as its source says; None when it does not."""
    for where in _places(message):
        seconds = _first(where, MESSAGE_KEYS)
        if seconds is not None:
            return seconds
    return None


def _record_time(meta: dict[str, Any]) -> float | None:
    seconds = _first(meta, CREATED_KEYS)
    response = meta.get("response")
    body = response.get("body") if isinstance(response, dict) else None
    if seconds is None and isinstance(body, dict):  # an OpenAI batch output line
        seconds = _first(body, CREATED_KEYS)
    return seconds


def created(conversation: Conversation, messages: Iterable[AnyMessage]) -> float | None:
    """When the conversation was created: its record's time, else its first message's
    that has one; None when the source says neither."""
    seconds = _record_time(conversation.meta)
    if seconds is not None:
        return seconds
    return next((t for t in map(message_time, messages) if t is not None), None)


def conversation_times(
    conversation: Conversation, messages: list[AnyMessage]
) -> tuple[float | None, float | None]:
    """(created, updated): the record's times, else its messages' first and last; None
    where nothing says."""
    first = _record_time(conversation.meta)
    last = _first(conversation.meta, UPDATED_KEYS)
    if first is None or last is None:
        times = [t for t in map(message_time, messages) if t is not None]
        first = first if first is not None else (times[0] if times else None)
        last = last if last is not None else (times[-1] if times else None)
    return first, last
