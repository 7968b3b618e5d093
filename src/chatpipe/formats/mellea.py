"""Mellea-shaped messages: role and content plus images, audio,
documents, thinking; tool messages with ``tool_name``, ``arguments`` and ``tool_output``.

Attachments become content blocks after the text (image, audio, text-plain for
documents); ``thinking`` becomes ``additional_kwargs["reasoning_content"]`` as in OpenAI
replays; a tool message's name, arguments and output go to name, ``additional_kwargs``
and artifact. Everything else is read as OpenAI chat.
"""

from __future__ import annotations

from typing import Any

from ..errors import ValidationError
from ..model import AnyMessage
from .base import VARIANT, Dialect, Guess, Sample
from .openai import OpenAIDialect, variant_score
from .openai_messages import message_from_dict
from .record_errors import not_a_message

MELLEA_KEYS = (
    "images",
    "documents",
    "tool_name",
    "mellea_type",
    "thinking",
    "tool_output",
    "provider_fields",
)


def is_mellea_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("role"), str)
        and (any(k in value for k in MELLEA_KEYS) or isinstance(value.get("audio"), list))
    )


def _image_block(image: Any) -> dict[str, Any]:
    if isinstance(image, dict) and "base64" in image:
        return {"type": "image", "base64": image["base64"], "mime_type": "image/png"}
    if isinstance(image, dict) and "url" in image:
        return {"type": "image", "url": image["url"]}
    raise ValidationError("a Mellea image needs 'base64' or 'url'")


def _audio_block(audio: Any) -> dict[str, Any]:
    if not isinstance(audio, dict) or not ("base64" in audio or "url" in audio):
        raise ValidationError("a Mellea audio item needs 'base64' or 'url'")
    key = "base64" if "base64" in audio else "url"
    block = {"type": "audio", key: audio[key]}
    if audio.get("format"):
        block["mime_type"] = f"audio/{audio['format']}"
    return block


def _document_block(document: Any) -> dict[str, Any]:
    if isinstance(document, str):
        return {"type": "text-plain", "mime_type": "text/plain", "text": document}
    if not isinstance(document, dict) or "text" not in document:
        raise ValidationError("a Mellea document needs 'text'")
    block = {"type": "text-plain", "mime_type": "text/plain", "text": document["text"]}
    if document.get("title") is not None:
        block["title"] = document["title"]
    if document.get("doc_id") is not None:
        block["id"] = str(document["doc_id"])
    return block


class MelleaDialect(OpenAIDialect):
    name = "mellea"
    description = "Mellea-shaped messages: role, content, images, audio, documents, tool_name"
    example = "mellea_messages.jsonl"

    writable = False
    # conversations are {"messages": [...]} rows only, recognised by their messages
    is_conversation = Dialect.is_conversation

    evidence = VARIANT

    def is_message(self, value: Any) -> bool:
        return is_mellea_message(value)

    def score(self, sample: Sample) -> Guess | None:
        return variant_score(self, sample)

    def record_rules(self, name: str | None = None) -> None:
        return None  # its records carry keys of their own: not OpenAI fine-tuning rows

    def read_message(self, value: Any) -> AnyMessage:
        if not isinstance(value, dict) or not isinstance(value.get("role"), str):
            raise not_a_message(self.name, value)
        fields = {k: v for k, v in value.items() if v is not None}
        blocks = [
            *map(_document_block, fields.pop("documents", None) or ()),
            *map(_image_block, fields.pop("images", None) or ()),
            *map(_audio_block, fields.pop("audio", None) or ()),
        ]
        if blocks:
            text = fields.get("content") or ""
            fields["content"] = [{"type": "text", "text": text}, *blocks] if text else blocks
        if "thinking" in fields:
            fields["reasoning_content"] = fields.pop("thinking")
        if "provider_fields" in fields:
            fields["mellea_provider_fields"] = fields.pop("provider_fields")
        if fields["role"] == "tool":
            fields.pop("mellea_type", None)
            if "tool_name" in fields:
                fields.setdefault("name", fields.pop("tool_name"))
            if "tool_output" in fields:
                fields["artifact"] = fields.pop("tool_output")
            if "arguments" in fields:
                fields["args"] = fields.pop("arguments")
        return message_from_dict(fields)
