"""OpenAI chat messages as messages (and everything langchain's ``convert_to_messages``
accepts): role dicts, envelopes, tuples and strings, their tool calls, arguments, usage
and the content parts the reader makes standard blocks.

One mapping from role dicts to messages serves the library's ``convert_to_messages`` and
the ``openai`` dialect reader (formats/openai.py): where langchain-core succeeds it gives
the same message; where langchain-core raises on shapes real logs contain (no ``content``
key, arguments that are not JSON, a tool result without ``tool_call_id``, a custom role,
usage on an AI dict) it gives the message the log means (docs/langchain-differences.md).
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from ..errors import DataError, ValidationError, kind_of
from ..io.json_numbers import NotJson, loads, stdlib_loads
from ..io.limits import LIMITS, too_deep
from ..model import (
    AIMessage,
    AnyMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from ..model.tool_calls import (
    DOUBLE_ENCODED,
    UsageMetadata,
    invalid_tool_call,
    normalize_usage,
    tool_call,
)
from .openai_media import PROCESSOR_MEDIA, processor_media
from .tool_links import _UNLINKED

ROLE_CLASSES: dict[str, type[AnyMessage]] = {
    "human": HumanMessage,
    "user": HumanMessage,
    "ai": AIMessage,
    "assistant": AIMessage,
    "system": SystemMessage,
    "developer": SystemMessage,
    "function": FunctionMessage,
    "tool": ToolMessage,
    "remove": RemoveMessage,
}

# langchain's envelope class names (``dumpd``) and the role they stand for
_ENVELOPE_TYPES = {
    f"{name}{suffix}": kind
    for name, kind in (
        ("HumanMessage", "human"),
        ("AIMessage", "ai"),
        ("SystemMessage", "system"),
        ("FunctionMessage", "function"),
        ("ToolMessage", "tool"),
    )
    for suffix in ("", "Chunk")
}
_ENVELOPE_TYPES["RemoveMessage"] = "remove"

# AI fields that langchain-core files under additional_kwargs; chatpipe sets them
_AI_FIELDS = ("usage_metadata", "invalid_tool_calls")


def is_envelope(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("lc") == 1
        and value.get("type") == "constructor"
        and isinstance(value.get("id"), list)
        and bool(value["id"])
        and isinstance(value.get("kwargs"), dict)
    )


def message_from_like(value: Any) -> AnyMessage:
    """One message from a message object, string, (role, content) pair or dict."""
    if isinstance(value, AnyMessage):
        return value
    if isinstance(value, str):
        return HumanMessage(value)
    if isinstance(value, dict):
        return message_from_dict(value)
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise ValidationError(
                "a message given as a list must be a (role, content) pair",
                hint=f"got {len(value)} items",
            )
        role, content = value
        return message_from_role(role, content)
    raise ValidationError(f"cannot read a message from {kind_of(value)}")


_PLAIN_ROLES: dict[str, type[AnyMessage]] = {
    "user": HumanMessage,
    "human": HumanMessage,
    "assistant": AIMessage,
    "ai": AIMessage,
    "system": SystemMessage,
}


def _plain_content(content: Any) -> bool:
    kind = type(content)
    return kind is str or (kind is list and all(type(x) in (str, dict) for x in content))


def message_from_dict(value: dict[str, Any]) -> AnyMessage:
    # the hot path: {"role", "content"} (and tool results) make most lines of most logs
    if len(value) == 2:
        role = value.get("role")
        cls = _PLAIN_ROLES.get(role) if type(role) is str else None
        content = value.get("content")
        if cls is not None and content and _plain_content(content):
            return cls._plain(content)
    elif len(value) == 3 and value.get("role") == "tool":
        content, call_id = value.get("content"), value.get("tool_call_id")
        if type(call_id) is str and content and _plain_content(content):
            return ToolMessage._plain(content, tool_call_id=call_id)
    if is_envelope(value):
        kind = _ENVELOPE_TYPES.get(value["id"][-1])
        if kind is not None:
            return message_from_dict({"type": kind, **value["kwargs"]})
    fields = dict(value)
    if "role" in fields:
        role = fields.pop("role")
        # a canonical chat message names both; its type is not extra data
        if fields.get("type") == "chat" and role not in ROLE_CLASSES:
            del fields["type"]
    elif "type" in fields:
        role = fields.pop("type")
        if "content" not in fields:  # langchain-core requires it too
            raise ValidationError(
                f"a {role!r} message needs 'content'",
                hint=(
                    "this is langchain's {type, data} shape: read it with --from langchain"
                    if isinstance(fields.get("data"), dict)
                    else "keys found: " + ", ".join(map(str, value))
                ),
            )
    else:
        raise ValidationError(
            "a message needs a 'role'",
            hint="keys found: " + (", ".join(map(str, value)) or "none"),
        )
    if not isinstance(role, str):
        raise ValidationError(f"a message role must be a string, got {kind_of(role)}")
    content = fields.pop("content", None) or ""
    return message_from_role(role, content, **fields)


def message_from_role(
    role: str,
    content: Any,
    name: Any = None,
    tool_call_id: Any = None,
    tool_calls: Any = None,
    id: Any = None,
    **extra: Any,
) -> AnyMessage:
    """Build the message for a role; unknown keys go to ``additional_kwargs``."""
    if not isinstance(role, str):
        raise ValidationError(f"a message role must be a string, got {kind_of(role)}")
    cls = ROLE_CLASSES.get(role, ChatMessage)
    kwargs: dict[str, Any] = {}
    if name is not None:
        kwargs["name"] = name
    if tool_call_id is not None:
        kwargs["tool_call_id"] = tool_call_id
    if cls is AIMessage:
        for field in _AI_FIELDS:
            if field in extra:
                kwargs[field] = extra.pop(field)
    if extra:
        metadata = extra.pop("response_metadata", None)
        if metadata:
            kwargs["response_metadata"] = metadata
        nested = extra.pop("additional_kwargs", None)
        if nested:
            if not isinstance(nested, dict):
                raise ValidationError("additional_kwargs must be an object")
            extra.update(nested)
        kwargs["additional_kwargs"] = extra
    if id is not None:
        kwargs["id"] = id
    if tool_calls is not None:
        calls, invalid, double = _read_tool_calls(tool_calls)
        kwargs["tool_calls"] = calls
        if double:
            extra = kwargs.setdefault("additional_kwargs", {})
            extra[DOUBLE_ENCODED] = double
        if invalid:
            kwargs["invalid_tool_calls"] = [*kwargs.get("invalid_tool_calls", ()), *invalid]
    extra = kwargs.get("additional_kwargs", {})
    if cls is HumanMessage or cls is AIMessage:
        example = extra.pop("example", False)
        if example:
            kwargs["example"] = example
    elif cls is SystemMessage:
        if role == "developer":
            kwargs["additional_kwargs"] = extra
            extra["__openai_role__"] = "developer"
    elif cls is ToolMessage:
        kwargs["artifact"] = extra.pop("artifact", None)
        status = extra.pop("status", None)
        if status is not None:
            kwargs["status"] = status
        kwargs.setdefault("tool_call_id", _UNLINKED)
    elif cls is RemoveMessage:
        return RemoveMessage(**kwargs)
    elif cls is ChatMessage:
        kwargs["role"] = role
    try:
        return cls(content, **kwargs)
    except TypeError as exc:
        raise ValidationError(str(exc)) from None


def _read_tool_calls(raw_calls: Any) -> tuple[list[Any], list[Any], list[Any]]:
    """OpenAI-form calls parsed (arguments as JSON text or object); others passed on.

    The third list holds the double-encoded arguments, as they came."""
    if not isinstance(raw_calls, list):
        raise ValidationError(f"tool_calls must be a list, got {kind_of(raw_calls)}")
    calls: list[Any] = []
    invalid: list[Any] = []
    double: list[Any] = []
    for raw in raw_calls:
        if not isinstance(raw, dict):
            raise ValidationError(f"a tool call must be an object, got {kind_of(raw)}")
        if "function" in raw or raw.get("type") == "custom":
            function = raw.get("function") or raw.get("custom")
            if not isinstance(function, dict):
                raise ValidationError("a tool call's function must be an object")
            name = function.get("name")
            # langchain-core requires the key; HF datasets leave it out
            call_id = raw.get("id", _UNLINKED)
            if "function" in raw:
                args, error = parse_arguments(function.get("arguments"))
            else:  # a custom tool takes free text
                args, error = {"input": function.get("input")}, None
            if error is None:
                arguments = function.get("arguments")
                if isinstance(arguments, str) and arguments.lstrip()[:1] == '"':
                    double.append({"index": len(calls), "arguments": arguments})
                calls.append(tool_call(name=name, args=args, id=call_id))
            else:
                invalid.append(
                    invalid_tool_call(
                        name=name, args=function.get("arguments"), id=call_id, error=error
                    )
                )
        else:
            calls.append(raw)
    return calls, invalid, double


def _lenient_json(text: str) -> Any:
    """``json.loads(text, strict=False)``, as langchain-core reads arguments (raw control
    characters allowed), but without NaN and Infinity, which would be written back as
    ``null`` or as text that is not JSON."""
    return stdlib_loads(text, strict=False)


def parse_arguments(arguments: Any) -> tuple[Any, str | None]:
    """Tool-call arguments as an object, or an error saying why they are not one.

    JSON text is parsed leniently about raw control characters (as langchain-core);
    text that decodes to a JSON string is decoded once more (double-encoded arguments);
    empty or null arguments mean no arguments.
    """
    if isinstance(arguments, dict):
        return arguments, None
    if arguments is None or arguments == "":
        return {}, None
    if not isinstance(arguments, str):
        return None, f"arguments must be JSON text or an object, got {kind_of(arguments)}"
    try:
        try:
            # orjson gives what json.loads gives, faster; what it refuses, json decides
            value = loads(arguments)
        except orjson.JSONDecodeError:
            value = _lenient_json(arguments)
        if isinstance(value, str):
            value = _lenient_json(value)
    except json.JSONDecodeError as exc:
        return None, f"arguments are not valid JSON: {exc.msg} (char {exc.pos})"
    except (DataError, NotJson) as exc:
        return None, f"arguments are not valid JSON: {exc}"
    except RecursionError:
        value = None
    # nesting needs brackets: text with no more of them than the limit cannot be too deep
    if value is None or (
        arguments.count("{") + arguments.count("[") > LIMITS.depth and too_deep(value)
    ):
        return None, f"arguments nest deeper than {LIMITS.depth} levels"
    if not isinstance(value, dict):
        return None, f"arguments must be a JSON object, got {kind_of(value)}"
    return value, None


# content parts the reader makes standard blocks: processors' media, reasoning parts
PARTS_MADE_BLOCKS = PROCESSOR_MEDIA | {"thinking"}


def with_processor_media(content: list[Any]) -> list[Any]:
    """Hugging Face processors' media parts (``{"type": "image", "image": URL}``) made
    standard media blocks, which every writer knows; langchain-core keeps them as they
    are, and fails on the images when writing OpenAI messages."""
    return [(type(p) is dict and processor_media(p)) or p for p in content]


def reasoning_parts(content: list[Any]) -> list[Any]:
    """Parts of reasoning that OpenAI-compatible servers put in the content as
    ``{"type": "thinking"}`` made standard reasoning blocks: Cohere's text, Mistral's list
    of text chunks (a block each: a request's chunks are thoughts of their own, a stream's
    the pieces of one, which the stream's reader joins); a signature, and the part's
    other keys, are the first block's ``extras``. Other parts as they are."""
    made: list[Any] = []
    for part in content:
        given = (
            part.get("thinking") if type(part) is dict and part.get("type") == "thinking" else None
        )
        if isinstance(given, str):
            given = [{"text": given}]
        if not isinstance(given, list):
            made.append(part)
            continue
        extras = {k: v for k, v in part.items() if k not in ("type", "thinking")}
        for chunk in given:
            text = chunk.get("text") if isinstance(chunk, dict) else chunk
            block: dict[str, Any] = {"type": "reasoning", "reasoning": str(text or "")}
            if extras:
                block["extras"], extras = extras, {}
            made.append(block)
    return made


def usage_from_openai(usage: dict[str, Any]) -> UsageMetadata | None:
    """langchain's usage record from OpenAI's ``usage`` (token details mapped by name)."""
    try:
        counts = {
            "input_tokens": usage.get("prompt_tokens") or 0,
            "output_tokens": usage.get("completion_tokens") or 0,
            "total_tokens": usage.get("total_tokens") or 0,
        }
        prompt = usage.get("prompt_tokens_details") or {}
        completion = usage.get("completion_tokens_details") or {}
        input_details = {
            k: v
            for k, v in (
                ("audio", prompt.get("audio_tokens")),
                ("cache_read", prompt.get("cached_tokens")),
            )
            if v is not None
        }
        output_details = {
            k: v
            for k, v in (
                ("audio", completion.get("audio_tokens")),
                ("reasoning", completion.get("reasoning_tokens")),
            )
            if v is not None
        }
        if input_details:
            counts["input_token_details"] = input_details
        if output_details:
            counts["output_token_details"] = output_details
        return normalize_usage(counts)
    except (AttributeError, ValidationError):
        return None  # an odd usage record stays in the conversation's metadata only
