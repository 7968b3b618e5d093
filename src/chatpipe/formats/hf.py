"""LLaMA-Factory v1 rows: content is a list of ``{"type", "value"}`` parts (formats.md §8).

Parts become standard blocks (text, reasoning); a ``tool_call`` part, whose value is
JSON text ``{"name", "arguments"}``, becomes a tool call; tool results are paired with
calls by order. ``loss_weight`` and other message keys stay in ``additional_kwargs``.
Unknown parts are kept as they are.
"""

from __future__ import annotations

from typing import Any

from ..errors import ValidationError
from ..messages import AnyMessage
from .base import Dialect, not_a_message
from .openai import OpenAIDialect, message_from_dict, parse_arguments


def is_llamafactory_message(value: Any) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("role"), str):
        return False
    content = value.get("content")
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(p, dict) and "value" in p and "type" in p for p in content)
    )


def _tool_call(value: Any) -> dict[str, Any]:
    call, error = parse_arguments(value)
    if error is not None or not isinstance(call.get("name"), str):
        raise ValidationError('a tool_call part must be JSON text {"name", "arguments"}')
    arguments, error = parse_arguments(call.get("arguments"))
    if error is not None:
        raise ValidationError(f"tool_call {call['name']!r}: {error}")
    # no "id": the call gets a stable synthetic one when its result is linked
    return {"type": "function", "function": {"name": call["name"], "arguments": arguments}}


class LlamaFactoryDialect(OpenAIDialect):
    name = "llamafactory"
    description = "LLaMA-Factory v1 rows: content parts {type, value}, loss_weight, tools"

    writable = False
    # conversations are {"messages": [...]} rows only, recognised by their messages
    is_conversation = Dialect.is_conversation

    def is_message(self, value: Any) -> bool:
        return is_llamafactory_message(value)

    def read_message(self, value: Any) -> AnyMessage:
        if not isinstance(value, dict) or not isinstance(value.get("role"), str):
            raise not_a_message(self.name, value)
        fields = dict(value)
        content = fields.get("content")
        if isinstance(content, list):
            blocks: list[Any] = []
            calls: list[Any] = []
            for part in content:
                kind = part.get("type") if isinstance(part, dict) else None
                if kind == "text":
                    blocks.append({"type": "text", "text": part["value"]})
                elif kind == "reasoning":
                    blocks.append({"type": "reasoning", "reasoning": part["value"]})
                elif kind == "tool_call":
                    calls.append(_tool_call(part["value"]))
                else:
                    blocks.append(part)
            fields["content"] = blocks
            if calls:
                fields["tool_calls"] = [*(fields.get("tool_calls") or ()), *calls]
        return message_from_dict(fields)
