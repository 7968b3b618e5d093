"""``strategy="last"`` over a stream, holding only the window the budget can reach, and
``keep_tool_pairs``, which removes what trimming split (a result without its call, a call
without its results)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..errors import ChatpipeError
from ..model import AnyMessage, SystemMessage
from .count import TokenCounter
from .trim import TypeSpec, _keep_prefix, _trim_last, default_text_splitter, is_message_type


class _Window:
    """The shortest suffix of a stream whose count, less its oldest message, fits."""

    __slots__ = ("budget", "counter", "error", "items", "popped", "total")

    def __init__(self, counter: TokenCounter, budget: int) -> None:
        from collections import deque

        self.counter = counter
        self.budget = budget
        self.items: deque = deque()
        self.total = 0
        self.popped = False
        self.error: Exception | None = None  # a message the counter could not count

    def push(self, message: AnyMessage, cost: int) -> None:
        items = self.items
        items.append((message, cost))
        self.total += cost
        base, budget = self.counter.base, self.budget
        while len(items) > 1 and base + self.total - items[0][1] > budget:
            self.total -= items.popleft()[1]
            self.popped = True

    def messages(self) -> list[AnyMessage]:
        return [m for m, _ in self.items]


def trim_last_stream(
    messages: Iterable[AnyMessage],
    *,
    max_tokens: int,
    counter: Callable[[list], int],
    allow_partial: bool = False,
    include_system: bool = False,
    start_on: TypeSpec | None = None,
    end_on: TypeSpec | None = None,
    text_splitter: Callable[[str], list[str]] | None = None,
) -> tuple[list[AnyMessage], set[str]]:
    """``strategy="last"`` over a stream, holding only what the budget can reach.

    Gives the same messages as ``trim_messages`` on the whole list, and the tool_call_ids
    answered after the kept part (for ``keep_tool_pairs``). A counter that is not a sum of
    per-message costs needs the whole list, and gets it.
    """
    splitter = text_splitter or default_text_splitter
    if not (isinstance(counter, TokenCounter) and counter.additive):
        every = list(messages)
        kept = _trim_last(
            every, max_tokens, counter, splitter, allow_partial, include_system, start_on, end_on
        )
        return kept, answered_after(every, kept)
    stream = iter(messages)
    first = next(stream, None)
    if first is None:
        return [], set()
    system = None
    budget = max_tokens
    system_error = None
    if include_system and isinstance(first, SystemMessage):
        system = first
        try:
            budget = max(0, max_tokens - counter([system]))
        except ChatpipeError as exc:  # raised below, if the system message is kept
            system_error = exc
    committed = _Window(counter, budget)  # up to the last message matching end_on
    tail = _Window(counter, budget) if end_on else committed
    matched = system is not None and bool(end_on) and is_message_type(system, end_on)
    tail_answers: set[str] = set()
    rest = stream if system is not None else _prepend(first, stream)
    for message in rest:
        try:
            cost = counter.cost(message)
        except ChatpipeError as exc:
            # langchain counts everything it keeps after end_on: fail only if this is kept
            tail.error = tail.error or exc
            cost = 0
        tail.push(message, cost)
        if not end_on:
            continue
        call_id = getattr(message, "tool_call_id", None)
        if call_id is not None:
            tail_answers.add(call_id)
        if is_message_type(message, end_on):
            matched = True
            if tail.popped:
                tail.error = tail.error or committed.error
                committed = tail
            else:
                for item, cost in tail.items:
                    committed.push(item, cost)
                committed.error = committed.error or tail.error
            tail = _Window(counter, budget)
            tail_answers = set()
    if end_on and not matched:
        return [], tail_answers
    if system_error is not None:
        raise system_error
    if committed.error is not None:
        raise committed.error
    window = committed.messages()
    kept = _keep_prefix(
        window[::-1], budget, counter, splitter, "last" if allow_partial else None, start_on
    )[::-1]
    return ([system, *kept] if system is not None else kept), tail_answers


def _prepend(first: AnyMessage, rest: Iterable[AnyMessage]) -> Iterable[AnyMessage]:
    yield first
    yield from rest


def answered_after(every: list[AnyMessage], kept: list[AnyMessage]) -> set[str]:
    if not kept:
        return set()
    last = kept[-1]
    position = next((i for i in range(len(every) - 1, -1, -1) if every[i] is last), None)
    if position is None:  # a partial copy: it stands where its original stood
        position = len(every) - 1
    return {m.tool_call_id for m in every[position + 1 :] if getattr(m, "tool_call_id", None)}


# -- tool pairs ------------------------------------------------------------------------


def keep_tool_pairs(
    kept: list[AnyMessage],
    answered_after: set[str],
    *,
    start_on: TypeSpec | None = None,
    end_on: TypeSpec | None = None,
) -> tuple[list[AnyMessage], list[tuple[AnyMessage, str]]]:
    """Drop what trimming split: tool results whose call was cut, and calls whose results
    were cut (with any of their results that were kept). Parallel calls go as a whole.

    Returns the messages and what was dropped, with why.
    """
    from ..model import AIMessage, ToolMessage

    dropped: list[tuple[AnyMessage, str]] = []
    result = list(kept)
    while True:
        before = len(result)
        head = 1 if result and isinstance(result[0], SystemMessage) else 0
        calls = {c["id"] for m in result if isinstance(m, AIMessage) for c in m.tool_calls}
        while (
            head < len(result)
            and isinstance(result[head], ToolMessage)
            and (result[head].tool_call_id not in calls)
        ):
            dropped.append((result.pop(head), "its tool call was trimmed away"))
        last_ai = next(
            (
                i
                for i in range(len(result) - 1, -1, -1)
                if isinstance(result[i], AIMessage) and result[i].tool_calls
            ),
            None,
        )
        if last_ai is not None:
            ids = {c["id"] for c in result[last_ai].tool_calls}
            answered = {m.tool_call_id for m in result[last_ai + 1 :] if isinstance(m, ToolMessage)}
            if ids - answered and (ids - answered) & answered_after:
                for message in result[last_ai:]:
                    dropped.append((message, "part of a tool call whose results were trimmed away"))
                del result[last_ai:]
        if start_on:
            while head < len(result) and not is_message_type(result[head], start_on):
                dropped.append((result.pop(head), "start_on"))
        if end_on:
            while len(result) > head and not is_message_type(result[-1], end_on):
                dropped.append((result.pop(), "end_on"))
        if len(result) == before:
            return result, dropped
