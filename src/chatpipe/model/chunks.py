"""The chunk classes (pieces of streamed messages) and their addition, the class
registries, and ``message_chunk_to_message``."""

from __future__ import annotations

import json
from typing import Any

from ..errors import ValidationError
from .chunk_merge import IDENTITY_KEYS, merge_content, merge_dicts, merge_lists, merge_obj
from .messages import (
    LC_AUTO_PREFIX,
    LC_ID_PREFIX,
    AIMessage,
    BaseMessage,
    BaseMessageChunk,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
    _chunk_operands,
)
from .tool_calls import (
    add_usage,
    normalize_tool_call_chunk,
    tool_call_chunk,
    tool_calls_from_chunks,
)


class HumanMessageChunk(HumanMessage, BaseMessageChunk):
    __slots__ = ()
    type = "HumanMessageChunk"


class SystemMessageChunk(SystemMessage, BaseMessageChunk):
    __slots__ = ()
    type = "SystemMessageChunk"


class FunctionMessageChunk(FunctionMessage, BaseMessageChunk):
    __slots__ = ()
    type = "FunctionMessageChunk"

    def __add__(self, other: Any) -> BaseMessageChunk:
        if isinstance(other, FunctionMessageChunk):
            if self.name != other.name:
                raise ValueError("Cannot concatenate FunctionMessageChunks with different names.")
            return self.__class__(
                name=self.name,
                id=self.id,
                content=merge_content(self.content, other.content),
                additional_kwargs=merge_dicts(self.additional_kwargs, other.additional_kwargs),
                response_metadata=merge_dicts(self.response_metadata, other.response_metadata),
            )
        return super().__add__(other)


class ChatMessageChunk(ChatMessage, BaseMessageChunk):
    __slots__ = ()
    type = "ChatMessageChunk"

    def __add__(self, other: Any) -> BaseMessageChunk:
        if not isinstance(other, BaseMessageChunk):
            return super().__add__(other)
        if isinstance(other, ChatMessageChunk) and self.role != other.role:
            raise ValueError("Cannot concatenate ChatMessageChunks with different roles.")
        return self.__class__(
            role=self.role,
            id=self.id,
            content=merge_content(self.content, other.content),
            additional_kwargs=merge_dicts(self.additional_kwargs, other.additional_kwargs),
            response_metadata=merge_dicts(self.response_metadata, other.response_metadata),
        )


class ToolMessageChunk(ToolMessage, BaseMessageChunk):
    __slots__ = ()
    type = "ToolMessageChunk"

    def __add__(self, other: Any) -> BaseMessageChunk:
        if isinstance(other, ToolMessageChunk):
            if self.tool_call_id != other.tool_call_id:
                # (sic) langchain-core's wording, although it compares tool_call_id
                raise ValueError("Cannot concatenate ToolMessageChunks with different names.")
            return self.__class__(
                tool_call_id=self.tool_call_id,
                content=merge_content(self.content, other.content),
                artifact=merge_obj(self.artifact, other.artifact),
                additional_kwargs=merge_dicts(self.additional_kwargs, other.additional_kwargs),
                response_metadata=merge_dicts(self.response_metadata, other.response_metadata),
                id=self.id,
                status="error" if "error" in (self.status, other.status) else "success",
            )
        return super().__add__(other)


class AIMessageChunk(AIMessage, BaseMessageChunk):
    __slots__ = ("chunk_position", "tool_call_chunks")
    type = "AIMessageChunk"
    _fields = (*AIMessage._fields, ("tool_call_chunks", []), ("chunk_position", None))

    def _init_fields(self, kwargs: dict[str, Any]) -> None:
        super()._init_fields(kwargs)
        chunks = [normalize_tool_call_chunk(c) for c in kwargs.pop("tool_call_chunks", None) or []]
        position = kwargs.pop("chunk_position", None)
        if position not in (None, "last"):
            raise ValidationError(f"chunk_position must be null or 'last', got {position!r}")
        self.chunk_position = position
        if chunks:
            self.tool_calls, self.invalid_tool_calls = tool_calls_from_chunks(chunks)
        else:
            chunks = [
                tool_call_chunk(name=c["name"], args=json.dumps(c["args"]), id=c["id"])
                for c in self.tool_calls
            ] + [
                tool_call_chunk(name=c["name"], args=c["args"], id=c["id"])
                for c in self.invalid_tool_calls
            ]
        self.tool_call_chunks = chunks

    def __add__(self, other: Any) -> BaseMessageChunk:
        if isinstance(other, AIMessageChunk) or (
            isinstance(other, (list, tuple)) and all(isinstance(o, AIMessageChunk) for o in other)
        ):
            return add_ai_message_chunks(self, *_chunk_operands(self, other))
        return super().__add__(other)


def _rank_ids(ids: list[str | None]) -> str | None:
    """A provider id beats an ``lc_run-`` id, which beats any other ``lc_`` id."""
    best, best_rank = None, -1
    for value in ids:
        if not value:
            continue
        if not value.startswith(LC_AUTO_PREFIX):
            return value
        rank = 1 if value.startswith(LC_ID_PREFIX) else 0
        if rank > best_rank:
            best, best_rank = value, rank
    return best


def add_ai_message_chunks(
    left: AIMessageChunk, *others: AIMessageChunk, identities: frozenset[str] = IDENTITY_KEYS
) -> AIMessageChunk:
    """Sum AI chunks: content, kwargs and metadata merged, tool-call chunks by index.

    ``identities``: the keys whose equal string values are kept once (merge.py); the
    default is langchain-core's set, the stream readers pass ``STREAM_IDENTITY_KEYS``.
    """
    merged_chunks = merge_lists(
        left.tool_call_chunks, *(o.tool_call_chunks for o in others), identities=identities
    )
    usage = None
    if left.usage_metadata or any(o.usage_metadata is not None for o in others):
        usage = left.usage_metadata
        for other in others:
            usage = add_usage(usage, other.usage_metadata)
    everyone = (left, *others)
    return left.__class__(
        content=merge_content(left.content, *(o.content for o in others)),
        additional_kwargs=merge_dicts(
            left.additional_kwargs,
            *(o.additional_kwargs for o in others),
            identities=identities,
        ),
        tool_call_chunks=[
            tool_call_chunk(
                name=c.get("name"), args=c.get("args"), id=c.get("id"), index=c.get("index")
            )
            for c in merged_chunks or []
        ],
        response_metadata=merge_dicts(
            left.response_metadata,
            *(o.response_metadata for o in others),
            identities=identities,
        ),
        usage_metadata=usage,
        id=_rank_ids([m.id for m in everyone]),
        chunk_position="last" if any(m.chunk_position == "last" for m in everyone) else None,
    )


CHUNK_TO_MESSAGE: dict[type, type] = {
    HumanMessageChunk: HumanMessage,
    AIMessageChunk: AIMessage,
    SystemMessageChunk: SystemMessage,
    ToolMessageChunk: ToolMessage,
    FunctionMessageChunk: FunctionMessage,
    ChatMessageChunk: ChatMessage,
}

MESSAGE_CLASSES: dict[str, type[BaseMessage]] = {
    cls.type: cls
    for cls in (
        HumanMessage,
        AIMessage,
        SystemMessage,
        ToolMessage,
        FunctionMessage,
        ChatMessage,
        RemoveMessage,
        *CHUNK_TO_MESSAGE,
    )
}


def message_chunk_to_message(chunk: BaseMessage) -> BaseMessage:
    """A chunk as its plain class (tool_call_chunks, chunk_position and extras dropped)."""
    target = CHUNK_TO_MESSAGE.get(type(chunk))
    if target is None:
        return chunk
    values = {
        field: value
        for field, value in chunk.fields()
        if field not in ("type", "tool_call_chunks", "chunk_position") and field not in chunk.extra
    }
    return target(**values)
