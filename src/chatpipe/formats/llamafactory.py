"""LLaMA-Factory v1 rows: content is a list of ``{"type", "value"}`` parts.

Parts become standard blocks (text, reasoning, and image/video/audio from ``image_url``,
``video_url``, ``audio_url`` parts whose value is a URL or a dataset path); a ``tool_call``
part, whose value is
JSON text ``{"name", "arguments"}``, becomes a tool call; tool results are paired with
calls by order. ``loss_weight`` and other message keys stay in ``additional_kwargs``.
Unknown parts are kept as they are.
"""

from __future__ import annotations

from typing import Any

from ..errors import Location, ValidationError
from ..model import AnyMessage
from .base import VARIANT, Conversation, Dialect, Guess, Sample
from .openai import OpenAIDialect, variant_score
from .openai_media import media_reference
from .openai_messages import message_from_dict, parse_arguments
from .record_errors import not_a_message


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


# media parts: their value is a URL, a data URL, or a path relative to the dataset
_MEDIA = {
    "image_url": "image",
    "image": "image",
    "video_url": "video",
    "video": "video",
    "audio_url": "audio",
    "audio": "audio",
}


class LlamaFactoryDialect(OpenAIDialect):
    name = "llamafactory"
    description = "LLaMA-Factory v1 rows: content parts {type, value}, loss_weight, tools"
    example = "hf_messages__llamafactory_v1_reason_tool_use_first8.jsonl"

    writable = False
    evidence = VARIANT

    def score(self, sample: Sample) -> Guess | None:
        return variant_score(self, sample)

    def record_rules(self, name: str | None = None) -> None:
        return None  # its records carry keys of their own: not OpenAI fine-tuning rows

    def is_conversation(self, value: Any) -> bool:
        """A ``{"messages": [...]}`` row, or a preference row whose ``chosen_messages`` is
        read as the conversation (``rejected_messages`` stays among the row's fields)."""
        if Dialect.is_conversation(self, value):
            return True
        chosen = value.get("chosen_messages") if isinstance(value, dict) else None
        return (
            "messages" not in value
            and isinstance(chosen, list)
            and bool(chosen)
            and self.is_message(chosen[0])
        )

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        if (
            isinstance(value, dict)
            and "messages" not in value
            and isinstance(value.get("chosen_messages"), list)
        ):
            renamed = {("messages" if k == "chosen_messages" else k): v for k, v in value.items()}
            return super().read_conversation(renamed, location)
        return super().read_conversation(value, location)

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
                elif kind in _MEDIA and isinstance(part.get("value"), str):
                    rest = {k: v for k, v in part.items() if k not in ("type", "value")}
                    blocks.append(media_reference(_MEDIA[kind], part["value"], rest))
                else:
                    blocks.append(part)
            fields["content"] = blocks
            if calls:
                fields["tool_calls"] = [*(fields.get("tool_calls") or ()), *calls]
        return message_from_dict(fields)
