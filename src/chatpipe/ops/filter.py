"""``filter_messages`` and ``merge_message_runs``.

filter is langchain-core's, except that excluding a tool call also removes its ``tool_call``
content blocks, not only its ``tool_use`` blocks (langchain-ai/langchain#36492). merge is
linear where langchain's is quadratic, and fixes what docs/langchain-differences.md
lists: names and extra fields are kept, equal ``__openai_role__`` values are not doubled,
invalid tool calls stay invalid, a string merged into an empty list is kept, and runs that
cannot merge (different names, function names or chat roles; remove messages; metadata
that langchain's rules cannot combine) stay separate instead of raising.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ..model import (
    CHUNK_TO_MESSAGE,
    AIMessage,
    AnyMessage,
    ChatMessage,
    FunctionMessage,
    RemoveMessage,
    ToolMessage,
    _rank_ids,
)
from ..model.chunk_merge import merge_dicts, merge_lists
from ..model.tool_calls import add_usage
from .trim import is_message_type

_CALL_BLOCKS = ("tool_use", "tool_call")


def filter_messages(
    messages: Iterable[Any],
    *,
    include_names: Sequence[str] | None = None,
    exclude_names: Sequence[str] | None = None,
    include_types: Sequence[Any] | None = None,
    exclude_types: Sequence[Any] | None = None,
    include_ids: Sequence[str] | None = None,
    exclude_ids: Sequence[str] | None = None,
    exclude_tool_calls: Sequence[str] | bool | None = None,
) -> list[AnyMessage]:
    from ..formats.coerce import convert_to_messages

    return list(
        iter_filter(
            convert_to_messages(messages),
            include_names=include_names,
            exclude_names=exclude_names,
            include_types=include_types,
            exclude_types=exclude_types,
            include_ids=include_ids,
            exclude_ids=exclude_ids,
            exclude_tool_calls=exclude_tool_calls,
        )
    )


def iter_filter(
    messages: Iterable[AnyMessage],
    *,
    include_names: Sequence[str] | None = None,
    exclude_names: Sequence[str] | None = None,
    include_types: Sequence[Any] | None = None,
    exclude_types: Sequence[Any] | None = None,
    include_ids: Sequence[str] | None = None,
    exclude_ids: Sequence[str] | None = None,
    exclude_tool_calls: Sequence[str] | bool | None = None,
) -> Iterator[AnyMessage]:
    """The filter one message at a time, for streams."""
    drop_calls = exclude_tool_calls if isinstance(exclude_tool_calls, (list, tuple, set)) else None
    for message in messages:
        if (
            (exclude_names and message.name in exclude_names)
            or (exclude_types and is_message_type(message, exclude_types))
            or (exclude_ids and message.id in exclude_ids)
        ):
            continue
        is_ai_call = isinstance(message, AIMessage) and bool(message.tool_calls)
        if exclude_tool_calls is True and (is_ai_call or isinstance(message, ToolMessage)):
            continue
        if drop_calls is not None:
            if is_ai_call:
                calls = [c for c in message.tool_calls if c["id"] not in drop_calls]
                if not calls:
                    continue
                content = message.content
                if isinstance(content, list):
                    content = [
                        b
                        for b in content
                        if not (
                            isinstance(b, dict)
                            and isinstance(b.get("type"), str)
                            and b["type"] in _CALL_BLOCKS
                            and b.get("id") in drop_calls
                        )
                    ]
                message = _replace(message, tool_calls=calls, content=content)
            elif isinstance(message, ToolMessage) and message.tool_call_id in drop_calls:
                continue
        if not (include_names or include_types or include_ids) or (
            (include_names and message.name in include_names)
            or (include_types and is_message_type(message, include_types))
            or (include_ids and message.id in include_ids)
        ):
            yield message


def _replace(message: AnyMessage, **fields: Any) -> AnyMessage:
    """A shallow copy with some fields set, as pydantic's ``model_copy(update=...)``."""
    clone = object.__new__(type(message))
    for slot in type(message)._all_slots():
        setattr(clone, slot, getattr(message, slot))
    for key, value in fields.items():
        setattr(clone, key, value)
    return clone


# -- merge ----------------------------------------------------------------------------


def merge_message_runs(messages: Iterable[Any], *, chunk_separator: str = "\n") -> list[AnyMessage]:
    """Merge runs of consecutive messages of the same kind into one message each."""
    from ..formats.coerce import convert_to_messages

    if not messages:
        return []
    return list(iter_merge(convert_to_messages(messages), chunk_separator=chunk_separator))


def iter_merge(
    messages: Iterable[AnyMessage], *, chunk_separator: str = "\n"
) -> Iterator[AnyMessage]:
    """Merged runs as they end: holds one run at a time, looks at each message once."""
    run: list[AnyMessage] = []
    name: str | None = None  # the run's name, once one of its messages has one
    for message in messages:
        if run and _joins(run, name, message):
            run.append(message)
        else:
            if run:
                yield from _merged(run, chunk_separator)
            run, name = [message], None
        if name is None:
            name = message.name
    if run:
        yield from _merged(run, chunk_separator)


class _Unmergeable(TypeError):
    """additional_kwargs that langchain's merge rules cannot combine."""


def _merged(run: list[AnyMessage], separator: str) -> Iterator[AnyMessage]:
    """The run merged; where its messages' additional_kwargs hold what langchain's rules
    cannot combine (a number under one key in two of them, as every message of a ChatGPT
    export has its create_time), it is cut there and each piece merged: kept apart, as
    runs that cannot merge are, instead of raising (issue #51)."""
    try:
        merged = _merge_run(run, separator)
    except _Unmergeable:
        pass
    else:
        yield merged
        return
    start, kwargs = 0, run[0].additional_kwargs
    for index in range(1, len(run)):
        try:
            kwargs = merge_dicts(kwargs, run[index].additional_kwargs)
        except TypeError:
            yield _merge_run(run[start:index], separator)
            start, kwargs = index, run[index].additional_kwargs
    yield _merge_run(run[start:], separator)


def _plain(cls: type) -> type:
    return CHUNK_TO_MESSAGE.get(cls, cls)


def _joins(run: list[AnyMessage], name: str | None, message: AnyMessage) -> bool:
    head = run[0]
    # after the first merge the run stands as its plain class (langchain's rule)
    kind = type(head) if len(run) == 1 else _plain(type(head))
    if isinstance(message, (ToolMessage, RemoveMessage)) or isinstance(head, RemoveMessage):
        return False
    if not isinstance(message, kind):
        return False
    if isinstance(head, ChatMessage) and message.role != head.role:
        return False
    if isinstance(head, FunctionMessage) and message.name != head.name:
        return False
    return message.name is None or name is None or message.name == name


class _Content:
    """Content merged left to right by langchain's rules, in linear time."""

    def __init__(self, first: Any, separator: str) -> None:
        self.separator = separator
        self.parts: list[str] | None = None
        self.items: list[Any] | None = None
        if isinstance(first, str):
            self.parts, self.size = [first], len(first)
        else:
            self.items = list(first)

    def add(self, content: Any) -> None:
        if self.parts is not None:
            if isinstance(content, str):
                if self.size and content:
                    self.parts.append(self.separator)
                    self.size += len(self.separator)
                self.parts.append(content)
                self.size += len(content)
                return
            self.items = ["".join(self.parts), *content]
            self.parts = None
            return
        items = self.items
        if isinstance(content, list):
            if any(isinstance(i, dict) and "index" in i for i in content):
                self.items = merge_lists(items, content)
            else:
                items.extend(content)
        elif items and isinstance(items[-1], str):
            items[-1] += content
        elif content != "":
            items.append(content)  # kept even when the list is empty (langchain drops it)

    def value(self) -> Any:
        return "".join(self.parts) if self.parts is not None else self.items


def _merge_run(run: list[AnyMessage], separator: str) -> AnyMessage:
    if len(run) == 1:
        return run[0]
    head = run[0]
    content = _Content(head.content, separator)
    role = head.additional_kwargs.get("__openai_role__")
    extra_kwargs = []
    for message in run[1:]:
        content.add(message.content)
        kwargs = message.additional_kwargs
        if role is not None and kwargs.get("__openai_role__") == role:
            kwargs = {k: v for k, v in kwargs.items() if k != "__openai_role__"}
        extra_kwargs.append(kwargs)
    try:
        kwargs = merge_dicts(head.additional_kwargs, *extra_kwargs)
    except TypeError as exc:
        raise _Unmergeable(str(exc)) from None
    fields: dict[str, Any] = {
        "content": content.value(),
        "additional_kwargs": kwargs,
        "response_metadata": dict(head.response_metadata),
        "name": next((m.name for m in run if m.name is not None), None),
        "id": head.id,
        **head.extra,
    }
    cls = _plain(type(head))
    if issubclass(cls, AIMessage):
        fields["id"] = _rank_ids([m.id for m in run])
        fields["tool_calls"] = [
            {**c, "args": copy.deepcopy(c["args"])} for m in run for c in m.tool_calls
        ]
        fields["invalid_tool_calls"] = [dict(c) for m in run for c in m.invalid_tool_calls]
        usage = head.usage_metadata
        for message in run[1:]:
            if usage or message.usage_metadata is not None:
                usage = add_usage(usage, message.usage_metadata)
        fields["usage_metadata"] = usage
    elif issubclass(cls, ChatMessage):
        fields["role"] = head.role
    return cls(**fields)
