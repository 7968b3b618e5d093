"""Token-trimmed histories: langchain-core's ``trim_messages``, and a streaming
``strategy="last"`` that holds only the window the budget can reach.

The algorithm is langchain's, step for step (the binary searches included), so the
result is the same for any counter. Additive counters are asked once per message and
prefix counts come from running sums.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..errors import UsageError
from ..model import AnyMessage, BaseMessage, SystemMessage
from .count import ApproximateCounter, TokenCounter, resolve_counter

TypeSpec = Any  # a type string, a message class, or a list of them


def default_text_splitter(text: str) -> list[str]:
    """Split on newlines, keeping each newline at the end of its piece."""
    pieces = text.split("\n")
    return [p + "\n" for p in pieces[:-1]] + pieces[-1:]


def is_message_type(message: AnyMessage, spec: TypeSpec) -> bool:
    items = [spec] if isinstance(spec, (str, type)) else list(spec)
    names = [t for t in items if isinstance(t, str)]
    classes = tuple(t for t in items if isinstance(t, type))
    return message.type in names or isinstance(message, classes)


class _Counts:
    """Counts of prefixes of one list, from running sums when the counter allows."""

    def __init__(self, messages: list[AnyMessage], counter: Callable[[list], int]) -> None:
        self.messages = messages
        self.counter = counter
        self.sums: list[int] | None = None
        if isinstance(counter, TokenCounter) and counter.additive:
            sums, total = [0], 0
            for message in messages:
                total += counter.cost(message)
                sums.append(total)
            self.sums = sums

    def prefix(self, k: int) -> int:
        if self.sums is not None:
            return self.counter.base + self.sums[k]
        return self.counter(self.messages[:k])

    def prefix_plus(self, k: int, extra: AnyMessage) -> int:
        if self.sums is not None:
            return self.counter.base + self.sums[k] + self.counter.cost(extra)
        return self.counter([*self.messages[:k], extra])

    def single(self, message: AnyMessage) -> int:
        if self.sums is not None:
            return self.counter.base + self.counter.cost(message)
        return self.counter([message])


def _keep_prefix(
    messages: list[AnyMessage],
    budget: int,
    counter: Callable[[list], int],
    splitter: Callable[[str], list[str]],
    partial: str | None,
    end_on: TypeSpec | None,
) -> list[AnyMessage]:
    """The longest prefix within the budget, a partial next message, then ``end_on``."""
    if not messages:
        return messages
    counts = _Counts(messages, counter)
    if counts.prefix(len(messages)) <= budget:
        if end_on:
            while messages and not is_message_type(messages[-1], end_on):
                messages = messages[:-1]
        return messages
    left, right = 0, len(messages)
    for _ in range(len(messages).bit_length()):
        if left >= right:
            break
        mid = (left + right + 1) // 2
        if counts.prefix(mid) <= budget:
            left = mid
        else:
            right = mid - 1
    idx = left
    if partial and idx < len(messages):
        kept = _partial(messages, idx, budget, counts, splitter, partial)
        if kept is not None:
            messages = [*messages[:idx], kept]
            idx += 1
    if end_on:
        while idx > 0 and not is_message_type(messages[idx - 1], end_on):
            idx -= 1
    return messages[:idx]


def _partial(
    messages: list[AnyMessage],
    idx: int,
    budget: int,
    counts: _Counts,
    splitter: Callable[[str], list[str]],
    mode: str,
) -> AnyMessage | None:
    """Part of ``messages[idx]`` that still fits: fewer blocks, else fewer lines."""
    excluded = messages[idx].deepcopy()
    content = excluded.content
    if isinstance(content, list):
        items = list(reversed(content)) if mode == "last" else list(content)
        for keep in range(len(items) - 1, 0, -1):
            excluded.content = items[:keep]
            if counts.prefix_plus(idx, excluded) <= budget:
                if mode == "last":
                    excluded.content = list(reversed(excluded.content))
                return excluded
        content = excluded.content  # the list as the last try reduced it
    text = None
    if isinstance(content, str):
        text = content
    elif isinstance(content, list) and content:
        for block in content:
            if isinstance(block, str):
                text = block
                break
            if isinstance(block, dict) and block.get("type") == "text":
                text = block.get("text")
                break
    if not text:
        return None
    pieces = splitter(text)
    base = counts.prefix(idx)
    if mode == "last":
        pieces = list(reversed(pieces))
    left, right = 0, len(pieces)
    for _ in range(len(pieces).bit_length()):
        if left >= right:
            break
        mid = (left + right + 1) // 2
        excluded.content = "".join(pieces[:mid])
        if base + counts.single(excluded) <= budget:
            left = mid
        else:
            right = mid - 1
    if left == 0:
        return None
    chosen = pieces[:left]
    excluded.content = "".join(reversed(chosen) if mode == "last" else chosen)
    return excluded


def resolve_token_counter(token_counter: Any) -> Callable[[list], int]:
    """langchain's token_counter argument: a shortcut name, a model, or a function."""
    if isinstance(token_counter, (str, TokenCounter)):
        return resolve_counter(token_counter)
    if hasattr(token_counter, "get_num_tokens_from_messages"):
        return token_counter.get_num_tokens_from_messages
    if callable(token_counter):
        try:
            params = list(inspect.signature(token_counter).parameters.values())
        except (TypeError, ValueError):
            params = []
        if params and params[0].annotation in (BaseMessage, "BaseMessage"):
            return lambda messages: sum(token_counter(m) for m in messages)
        return token_counter
    raise UsageError(
        "'token_counter' expected to be a model that implements "
        "'get_num_tokens_from_messages()' or a function. Received object of type "
        f"{type(token_counter)}."
    )


def trim_messages(
    messages: Iterable[Any],
    *,
    max_tokens: int,
    token_counter: Any,
    strategy: str = "last",
    allow_partial: bool = False,
    end_on: TypeSpec | None = None,
    start_on: TypeSpec | None = None,
    include_system: bool = False,
    text_splitter: Callable[[str], list[str]] | None = None,
) -> list[AnyMessage]:
    """Keep the messages that fit in ``max_tokens``, as langchain-core does."""
    from ..formats.coerce import convert_to_messages

    if start_on and strategy == "first":
        raise UsageError("start_on parameter is only valid with strategy='last'")
    if include_system and strategy == "first":
        raise UsageError("include_system parameter is only valid with strategy='last'")
    messages = convert_to_messages(messages)
    counter = resolve_token_counter(token_counter)
    splitter = text_splitter or default_text_splitter
    if strategy == "first":
        return _keep_prefix(
            list(messages),
            max_tokens,
            counter,
            splitter,
            "first" if allow_partial else None,
            end_on,
        )
    if strategy != "last":
        raise UsageError(
            f"Unrecognized strategy={strategy!r}. Supported strategies are 'last' and 'first'."
        )
    return _trim_last(
        messages, max_tokens, counter, splitter, allow_partial, include_system, start_on, end_on
    )


def _trim_last(
    messages: Sequence[AnyMessage],
    max_tokens: int,
    counter: Callable[[list], int],
    splitter: Callable[[str], list[str]],
    allow_partial: bool,
    include_system: bool,
    start_on: TypeSpec | None,
    end_on: TypeSpec | None,
) -> list[AnyMessage]:
    messages = list(messages)
    if end_on:
        while messages and not is_message_type(messages[-1], end_on):
            messages.pop()
    system = None
    budget = max_tokens
    if include_system and messages and isinstance(messages[0], SystemMessage):
        system, messages = messages[0], messages[1:]
        budget = max(0, max_tokens - counter([system]))
    kept = _keep_prefix(
        messages[::-1], budget, counter, splitter, "last" if allow_partial else None, start_on
    )[::-1]
    return [system, *kept] if system is not None else kept


__all__ = [
    "ApproximateCounter",
    "default_text_splitter",
    "is_message_type",
    "resolve_token_counter",
    "trim_messages",
]
