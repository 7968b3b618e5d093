"""Trimming the newest messages of a long log to a budget without making a message of
every line: whole batches of the lane counted from their plain dicts (fast/lane.py)."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import ChatpipeError
from ..model import AnyMessage
from ..ops.count import ApproximateCounter
from .lane import LaneMessages
from .plain import message_from_plain

# the length of the OpenAI role of each plain message type, which the count includes
_ROLE_CHARS = {"human": len("user"), "ai": len("assistant"), "system": 6, "tool": 4}


def budget_suffix(messages: LaneMessages, counter: Any, budget: int) -> Iterator[AnyMessage] | None:
    """The end of a lane's message stream that ``strategy="last"`` (with no end_on and no
    include_system) can keep, or None for a counter this cannot count: whole batches,
    oldest dropped while the newer ones alone exceed the budget. Plain dicts are counted
    without messages, and only the messages of the batches kept are made. Counting
    errors surface at the end, where ``trim_last_stream`` raises them."""
    if type(counter) is not ApproximateCounter or not counter.additive:
        return None
    return batches_within(messages.batches(), counter, budget)


def _plain_cost(counter: ApproximateCounter) -> Callable[[dict[str, Any]], int]:
    """``counter.cost`` of a plain canonical dict."""
    per_token, extra = counter.chars_per_token, counter.extra

    def cost(item: dict[str, Any]) -> int:
        chars = len(item["content"]) + _ROLE_CHARS[item["type"]]
        calls = item.get("tool_calls")
        if calls:
            chars += len(repr(calls))
        elif item["type"] == "tool":
            chars += len(item["tool_call_id"])
        return int(math.ceil(chars / per_token) + extra)

    return cost


def batches_within(
    batches: Iterator[Any], counter: ApproximateCounter, budget: int
) -> Iterator[AnyMessage]:
    plain_cost = _plain_cost(counter)
    window: deque = deque()
    total = 0
    limit = budget - counter.base
    error: ChatpipeError | None = None
    for batch in batches:
        if batch.plain:
            cost = sum(map(plain_cost, batch))
        else:
            cost = 0
            for item in batch:
                try:
                    cost += plain_cost(item) if type(item) is dict else counter.cost(item)
                except ChatpipeError as exc:
                    error = error or exc
        window.append((batch, cost))
        total += cost
        while len(window) > 1 and total - window[0][1] > limit:
            total -= window.popleft()[1]
    if error is not None:
        raise error
    for batch, _ in window:
        for item in batch:
            yield message_from_plain(item) if type(item) is dict else item
