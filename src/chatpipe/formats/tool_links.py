"""Pairing tool results with the calls they answer, when the log pairs them by order."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..model import AIMessage, AnyMessage, ToolMessage

# marks a tool message whose tool_call_id the log did not give
_UNLINKED = "\x00unlinked"


def link_tool_results(
    messages: Iterable[AnyMessage], links: ToolLinks | None = None, start: int = 0
) -> Iterator[AnyMessage]:
    """Give tool results that name no ``tool_call_id`` the id of the call they answer.

    HF datasets and Mellea logs pair a result with a call by order only. Each such result
    takes the oldest unanswered call of the latest AI message; a call the log gave no id
    gets a stable synthetic one, ``call_<message index>_<call index>``. Holds one AI
    turn's call ids at a time. ``links`` and ``start``: the state and the number of the
    first message, for messages that continue a log.
    """
    links = links if links is not None else ToolLinks()
    for index, message in enumerate(messages, start):
        links.step(message, index)
        yield message


class ToolLinks:
    """The pairing state of ``link_tool_results``: the latest AI turn's call ids
    (``pending``; None before any AI turn, for a piece of a log whose earlier turns are
    not known) and the ids answered since; ``linked`` says whether an id was given."""

    __slots__ = ("answered", "linked", "pending")

    def __init__(self, pending: list[str] | None = None, answered: set[str] | None = None) -> None:
        self.pending: list[str] | None = [] if pending is None else pending
        self.answered: set[str] = set() if answered is None else answered
        self.linked = False

    def step(self, message: Any, index: int) -> None:
        if isinstance(message, AIMessage):
            self.answered = set()
            self.pending = pending = []
            for n, call in enumerate([*message.tool_calls, *message.invalid_tool_calls]):
                if call["id"] == _UNLINKED:
                    call["id"] = f"call_{index}_{n}"
                    self.linked = True
                if call["id"]:
                    pending.append(call["id"])
        elif isinstance(message, ToolMessage):
            if message.tool_call_id == _UNLINKED:
                unanswered = [c for c in self.pending or () if c not in self.answered]
                message.tool_call_id = unanswered[0] if unanswered else ""
                self.linked = True
            self.answered.add(message.tool_call_id)

    @staticmethod
    def is_ai(item: Any) -> bool:
        return isinstance(item, AIMessage)

    def skip(self, items: list[Any]) -> None:
        """The state after ``items`` when none of them needs linking: only the last AI
        message and the results after it matter, so only those are looked at."""
        for k in range(len(items) - 1, -1, -1):
            item = items[k]
            if self.is_ai(item):
                self.step(item, 0)  # no id of it is missing: the index is not used
                for after in items[k + 1 :]:
                    self.step(after, 0)
                return
        for item in items:
            self.step(item, 0)


def needs_link(message: AnyMessage) -> bool:
    """Whether a message lacks an id that linking gives (a result or call with none)."""
    if isinstance(message, ToolMessage):
        return message.tool_call_id == _UNLINKED
    if isinstance(message, AIMessage):
        return any(c["id"] == _UNLINKED for c in (*message.tool_calls, *message.invalid_tool_calls))
    return False
