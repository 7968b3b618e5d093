"""The message model: langchain-core's message classes as plain ``__slots__`` values.

Same class names, field names, defaults, validation and coercions as langchain-core,
no pydantic. Two messages are equal when they are of the same class and
hold equal values. Chunk classes add with ``+`` by langchain's merge rules.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any, ClassVar

from ..errors import ValidationError, kind_of
from .chunk_merge import merge_content, merge_dicts
from .tool_calls import (
    InvalidToolCall,
    ToolCall,
    UsageMetadata,
    chunks_from_openai,
    normalize_invalid_tool_call,
    normalize_tool_call,
    normalize_usage,
    tool_calls_from_openai,
)

LC_ID_PREFIX = "lc_run-"
LC_AUTO_PREFIX = "lc_"

_MISSING: Any = object()


def _check_content(content: Any, cls_name: str) -> Any:
    if isinstance(content, str):
        return content
    if isinstance(content, tuple):
        content = list(content)
    if isinstance(content, list):
        for item in content:
            if not isinstance(item, (str, dict)):
                raise ValidationError(
                    f"{cls_name} content items must be strings or objects, got {kind_of(item)}"
                )
        return content
    if content is _MISSING:
        raise ValidationError(f"{cls_name} needs content")
    raise ValidationError(f"{cls_name} content must be a string or a list, got {kind_of(content)}")


def _check_id(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise ValidationError(f"id must be a string, got {kind_of(value)}")


def _check_dict(value: Any, what: str) -> dict[str, Any]:
    """An object field; None (as readers pass for an absent one) means empty, and an empty
    list is not taken for one (langchain-core refuses it)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValidationError(f"{what} must be an object, got {kind_of(value)}")
    return value


class BaseMessage:
    """Fields every message has; class-specific fields are listed in ``_fields``."""

    __slots__ = ("additional_kwargs", "content", "extra", "id", "name", "response_metadata")

    type: ClassVar[str] = "base"
    # class-specific fields in langchain's dump order, with their defaults
    _fields: ClassVar[tuple[tuple[str, Any], ...]] = ()
    # human, system, AI and tool messages may be built from v1 blocks: content_blocks=[...]
    # stands for the content, as in langchain-core
    _takes_content_blocks: ClassVar[bool] = False

    def __init__(self, content: Any = _MISSING, **kwargs: Any) -> None:
        cls_name = type(self).__name__
        if self._takes_content_blocks:
            blocks = kwargs.pop("content_blocks", None)
            if blocks is not None:
                content = blocks
        self.content = _check_content(content, cls_name)
        self.additional_kwargs = _check_dict(
            kwargs.pop("additional_kwargs", None), "additional_kwargs"
        )
        self.response_metadata = _check_dict(
            kwargs.pop("response_metadata", None), "response_metadata"
        )
        name = kwargs.pop("name", None)
        if name is not None and not isinstance(name, str):
            raise ValidationError(f"name must be a string, got {kind_of(name)}")
        self.name = name
        self.id = _check_id(kwargs.pop("id", None))
        given_type = kwargs.pop("type", _MISSING)
        if given_type is not _MISSING and given_type != self.type:
            raise ValidationError(f"{cls_name} has type {self.type!r}, got {given_type!r}")
        self._init_fields(kwargs)
        # unknown keywords are kept, as langchain-core keeps them
        self.extra = kwargs

    def _init_fields(self, kwargs: dict[str, Any]) -> None:
        """Pop and check the class-specific fields out of ``kwargs``."""

    @classmethod
    def _plain(cls, content: Any, **fields: Any) -> BaseMessage:
        """A message from values a reader has already checked: no validation, for the hot
        path. Class fields take their defaults unless given."""
        self = object.__new__(cls)
        self.content = content
        self.additional_kwargs = {}
        self.response_metadata = {}
        self.name = None
        self.id = None
        self.extra = {}
        for field, default in cls._fields:
            setattr(self, field, [] if isinstance(default, list) else default)
        for field, value in fields.items():
            setattr(self, field, value)
        return self

    # -- values ---------------------------------------------------------------------

    def fields(self) -> Iterator[tuple[str, Any]]:
        """Every field in langchain's ``model_dump`` order, extras last."""
        yield "content", self.content
        yield "additional_kwargs", self.additional_kwargs
        yield "response_metadata", self.response_metadata
        yield "type", self.type
        yield "name", self.name
        yield "id", self.id
        for field, _ in self._fields:
            yield field, getattr(self, field)
        yield from self.extra.items()

    def __getattr__(self, name: str) -> Any:
        # only reached for names that are not slots: the extra fields
        if name != "extra":
            try:
                return self.extra[name]
            except KeyError:
                pass
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, slot) == getattr(other, slot) for slot in self._all_slots())

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def _all_slots(cls) -> tuple[str, ...]:
        return (*BaseMessage.__slots__, *(f for f, _ in cls._fields))

    def __repr__(self) -> str:
        parts = [f"content={self.content!r}"]
        defaults = dict(self._fields)
        for field, value in self.fields():
            if field in ("content", "type"):
                continue
            if value in (None, {}, []) or (field in defaults and value == defaults[field]):
                continue
            parts.append(f"{field}={value!r}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def copy(self, **changes: Any) -> BaseMessage:
        """A new message of the same class with some fields replaced."""
        values = dict(self.fields())
        del values["type"]
        if self.type == "remove":
            del values["content"]
        values.update(changes)
        return type(self)(**values)

    def deepcopy(self) -> BaseMessage:
        """A copy sharing no mutable values with this message."""
        values = copy.deepcopy(dict(self.fields()))
        del values["type"]
        if self.type == "remove":
            del values["content"]
        return type(self)(**values)

    @property
    def text(self) -> str:
        """The message's text: string content, or its strings and text blocks joined."""
        content = self.content
        if isinstance(content, str):
            return content
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return "".join(parts)


class BaseMessageChunk(BaseMessage):
    """A piece of a streamed message; pieces add up with ``+``."""

    __slots__ = ()

    def __add__(self, other: Any) -> BaseMessageChunk:
        others = _chunk_operands(self, other)
        return self.__class__(
            id=self.id,
            content=merge_content(self.content, *(o.content for o in others)),
            additional_kwargs=merge_dicts(
                self.additional_kwargs, *(o.additional_kwargs for o in others)
            ),
            response_metadata=merge_dicts(
                self.response_metadata, *(o.response_metadata for o in others)
            ),
        )


def _chunk_operands(left: BaseMessageChunk, other: Any) -> list[BaseMessageChunk]:
    if isinstance(other, BaseMessageChunk):
        return [other]
    if isinstance(other, (list, tuple)) and all(isinstance(o, BaseMessageChunk) for o in other):
        return list(other)
    raise TypeError(
        f'unsupported operand type(s) for +: "{type(left).__name__}" and "{type(other).__name__}"'
    )


# -- the message classes ------------------------------------------------------------


class HumanMessage(BaseMessage):
    __slots__ = ()
    type = "human"
    _takes_content_blocks = True


class SystemMessage(BaseMessage):
    __slots__ = ()
    type = "system"
    _takes_content_blocks = True


class AIMessage(BaseMessage):
    __slots__ = ("invalid_tool_calls", "tool_calls", "usage_metadata")
    type = "ai"
    _fields = (("tool_calls", []), ("invalid_tool_calls", []), ("usage_metadata", None))

    tool_calls: list[ToolCall]
    invalid_tool_calls: list[InvalidToolCall]
    usage_metadata: UsageMetadata | None

    _takes_content_blocks = True

    def __init__(self, content: Any = _MISSING, **kwargs: Any) -> None:
        blocks = kwargs.get("content_blocks")
        if blocks is not None:
            calls = [b for b in blocks if b.get("type") == "tool_call"]
            if calls and "tool_calls" not in kwargs:
                kwargs["tool_calls"] = calls
        super().__init__(content, **kwargs)

    def _init_fields(self, kwargs: dict[str, Any]) -> None:
        calls = kwargs.pop("tool_calls", None) or []
        invalid = kwargs.pop("invalid_tool_calls", None) or []
        raw = self.additional_kwargs.get("tool_calls")
        if raw and not (calls or invalid or kwargs.get("tool_call_chunks")):
            # langchain's backwards-compatible reading of OpenAI-style raw tool calls
            try:
                if isinstance(self, BaseMessageChunk):
                    kwargs["tool_call_chunks"] = chunks_from_openai(raw)
                else:
                    calls, invalid = tool_calls_from_openai(raw)
            except Exception:
                pass
        self.tool_calls = [normalize_tool_call(c) for c in calls]
        self.invalid_tool_calls = [normalize_invalid_tool_call(c) for c in invalid]
        self.usage_metadata = normalize_usage(kwargs.pop("usage_metadata", None))


class ToolMessage(BaseMessage):
    __slots__ = ("artifact", "status", "tool_call_id")
    type = "tool"
    _fields = (("tool_call_id", _MISSING), ("artifact", None), ("status", "success"))
    _takes_content_blocks = True

    def __init__(self, content: Any = _MISSING, **kwargs: Any) -> None:
        # tool output is coerced to text rather than rejected
        if content is not _MISSING and not isinstance(content, (str, list)):
            content = list(content) if isinstance(content, tuple) else str(content)
        if isinstance(content, list):
            content = [x if isinstance(x, (str, dict)) else str(x) for x in content]
        super().__init__(content, **kwargs)

    def _init_fields(self, kwargs: dict[str, Any]) -> None:
        if "tool_call_id" not in kwargs:
            raise ValidationError("a tool message needs a tool_call_id")
        call_id = kwargs.pop("tool_call_id")
        if not isinstance(call_id, str):
            if call_id is None or isinstance(call_id, (bool, dict, list)):
                raise ValidationError("tool_call_id must be a string")
            call_id = str(call_id)
        self.tool_call_id = call_id
        self.artifact = kwargs.pop("artifact", None)
        status = kwargs.pop("status", "success")
        if status not in ("success", "error"):
            raise ValidationError(f"status must be 'success' or 'error', got {status!r}")
        self.status = status


class FunctionMessage(BaseMessage):
    __slots__ = ()
    type = "function"

    def _init_fields(self, kwargs: dict[str, Any]) -> None:
        if self.name is None:
            raise ValidationError("a function message needs a name")


class ChatMessage(BaseMessage):
    __slots__ = ("role",)
    type = "chat"
    _fields = (("role", _MISSING),)

    def _init_fields(self, kwargs: dict[str, Any]) -> None:
        role = kwargs.pop("role", None)
        if not isinstance(role, str):
            raise ValidationError("a chat message needs a role string")
        self.role = role


class RemoveMessage(BaseMessage):
    """Asks a message store to delete the message with this id; it has no content."""

    __slots__ = ()
    type = "remove"

    def __init__(self, id: Any = _MISSING, **kwargs: Any) -> None:
        if "content" in kwargs:
            raise ValidationError("RemoveMessage does not support 'content' field.")
        if id is _MISSING or id is None:
            raise ValidationError("a remove message needs an id")
        super().__init__("", id=id, **kwargs)


AnyMessage = BaseMessage

__all__ = [
    "LC_AUTO_PREFIX",
    "LC_ID_PREFIX",
    "AIMessage",
    "AnyMessage",
    "BaseMessage",
    "BaseMessageChunk",
    "ChatMessage",
    "FunctionMessage",
    "HumanMessage",
    "RemoveMessage",
    "SystemMessage",
    "ToolMessage",
]
