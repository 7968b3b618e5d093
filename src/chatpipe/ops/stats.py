"""Statistics of conversations: messages by type, tool calls, media, characters, tokens,
and the spread of conversation lengths. One pass over each conversation."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import Any

from ..model import AIMessage, AnyMessage
from ..model.media import MEDIA_KINDS

# each media block kind, as the field of the figures it counts in
_FIELDS = {"image": "images", "audio": "audio", "video": "video", "file": "files"}
_MEDIA = {block: _FIELDS[kind] for block, kind in MEDIA_KINDS.items()}
FIELDS = ("messages", "tool_calls", "images", "audio", "video", "files", "characters", "tokens")


def conversation_stats(messages: Iterable[AnyMessage], counter: Any) -> dict[str, Any]:
    """One conversation's figures; ``counter`` counts its tokens."""
    stats: dict[str, Any] = dict.fromkeys(FIELDS, 0)
    by_type: dict[str, int] = {}
    additive = getattr(counter, "additive", False)
    kept: list[AnyMessage] = []
    tokens = getattr(counter, "base", 0) if additive else 0
    for message in messages:
        stats["messages"] += 1
        by_type[message.type] = by_type.get(message.type, 0) + 1
        if isinstance(message, AIMessage):
            stats["tool_calls"] += len(message.tool_calls) + len(message.invalid_tool_calls)
        if isinstance(message.content, list):
            for block in message.content:
                kind = _MEDIA.get(block.get("type")) if isinstance(block, dict) else None
                if kind:
                    stats[kind] += 1
        stats["characters"] += len(message.text)
        if additive:
            tokens += counter.cost(message)
        else:
            kept.append(message)
    stats["tokens"] = tokens if additive else counter.count(kept)
    stats["by_type"] = by_type
    return stats


def quantile(ordered: list[float], q: float) -> float:
    """The ``q`` quantile of sorted values, interpolated between the two nearest as
    NumPy's default (``linear``) does: the figures the OpenAI fine-tuning cookbook prints."""
    if not ordered:
        return 0
    at = (len(ordered) - 1) * q
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return _tidy(ordered[low] + (ordered[high] - ordered[low]) * (at - low))


def _tidy(value: float) -> float:
    """A whole number as an int (8, not 8.0), any other to two decimals."""
    return int(value) if value == int(value) else round(value, 2)


def spread(values: Iterable[float]) -> dict[str, float]:
    """min, p10, median, p90, max and mean of some values."""
    ordered = sorted(values)
    if not ordered:
        return dict.fromkeys(("min", "p10", "median", "p90", "max", "mean"), 0)
    mean = sum(ordered) / len(ordered)
    return {
        "min": ordered[0],
        "p10": quantile(ordered, 0.1),
        "median": quantile(ordered, 0.5),
        "p90": quantile(ordered, 0.9),
        "max": ordered[-1],
        "mean": _tidy(mean),
    }


def overall_stats(each: list[dict[str, Any]], max_tokens: int | None = None) -> dict[str, Any]:
    """Totals over conversations, with min, median and max conversation length, the
    spread of tokens and messages per conversation, and (with ``max_tokens``) how many
    conversations are over that many tokens."""
    total: dict[str, Any] = {"conversations": len(each)}
    for field in FIELDS:
        total[field] = sum(s[field] for s in each)
    by_type: dict[str, int] = {}
    for s in each:
        for kind, number in s["by_type"].items():
            by_type[kind] = by_type.get(kind, 0) + number
    total["by_type"] = by_type
    lengths = [s["messages"] for s in each]
    total["length"] = (
        {"min": min(lengths), "median": statistics.median(lengths), "max": max(lengths)}
        if lengths
        else {"min": 0, "median": 0, "max": 0}
    )
    total["spread"] = {
        "tokens": spread(s["tokens"] for s in each),
        "messages": spread(lengths),
    }
    if max_tokens is not None:
        total["over_max_tokens"] = {
            "max_tokens": max_tokens,
            "conversations": sum(1 for s in each if s["tokens"] > max_tokens),
        }
    return total
