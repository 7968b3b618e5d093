"""What a conversation says about itself, whatever dialect it was read from: its id,
title, creation time, models, and whether it holds tool calls, images, reasoning, a
system turn or attachments. ``select``, ``grep``, ``sample`` and ``split`` ask here."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..errors import UsageError
from ..model import (
    AIMessage,
    AnyMessage,
    ChatMessage,
    Conversation,
    SystemMessage,
    ToolMessage,
    dates,
)
from ..model.dates import parse_time as parse_time  # the dates users give, as sources'
from ..model.media import MEDIA_KINDS

# where the dialects keep a conversation's id (chatgpt/claude exports, OpenAI responses,
# datasets) and its title, in the order they are looked at
ID_KEYS = ("id", "uuid", "conversation_id", "session_id")
TITLE_KEYS = ("title", "name", "summary")
MODEL_KEYS = ("model", "default_model_slug", "model_slug", "model_name", "modelVersion")

HAS = ("tool-calls", "images", "reasoning", "system", "attachments")
_IMAGE_BLOCKS = frozenset(block for block, kind in MEDIA_KINDS.items() if kind == "image")
_FILE_BLOCKS = frozenset(block for block, kind in MEDIA_KINDS.items() if kind != "image")
_REASONING_BLOCKS = frozenset(("reasoning", "thinking", "redacted_thinking"))
_CALL_BLOCKS = frozenset(("tool_use", "tool_call", "function_call", "server_tool_use"))
_REASONING_KWARGS = ("reasoning_content", "reasoning", "reasoning_details")
_MEDIA_META = ("images", "videos", "audios")  # LLaMA-Factory's multimodal rows


def listed(conversation: Conversation) -> tuple[Conversation, list[AnyMessage]]:
    """The conversation with its messages in a list (a log's one-pass iterator read
    once), and that list."""
    messages = conversation.messages
    if isinstance(messages, list):
        return conversation, messages
    messages = list(messages)
    return conversation.with_messages(messages), messages


def conversation_id(conversation: Conversation) -> str | None:
    """The id the source gives the conversation (``id``, ``uuid``, ``conversation_id``,
    ``session_id``), as text; None when it gives none."""
    meta = conversation.meta
    for key in ID_KEYS:
        value = meta.get(key)
        if isinstance(value, str) and value:
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
    return None


def label(conversation: Conversation, position: int) -> str:
    """How a report names a conversation: its id, else its place, else its number."""
    found = conversation_id(conversation)
    if found is not None:
        return found
    if conversation.location is not None:
        return str(conversation.location)
    return f"conversation {position + 1}"


def title(conversation: Conversation) -> str | None:
    """The conversation's title (an export's ``title``, Claude's ``name``), if any."""
    for key in TITLE_KEYS:
        value = conversation.meta.get(key)
        if isinstance(value, str) and value:
            return value
    return None


# -- time -----------------------------------------------------------------------------


def user_time(text: str, flag: str) -> float:
    """A date given on the command line, or a UsageError naming the flag."""
    seconds = parse_time(text)
    if seconds is None:
        raise UsageError(
            f"{flag} {text!r} is not a date",
            hint="give an ISO date or date-time (2024-05-01, 2024-05-01T10:00:00Z) "
            "or seconds since 1970",
        )
    return seconds


def created(conversation: Conversation, messages: list[AnyMessage]) -> float | None:
    """When the conversation was created (its record's time), or its first message was
    written (an export's message time, a log line's ``timestamp``); None when the source
    says neither (model/dates.py: the one place that knows where each dialect keeps it)."""
    return dates.created(conversation, messages)


# -- models ---------------------------------------------------------------------------


def models(conversation: Conversation, messages: list[AnyMessage]) -> Iterator[str]:
    """Every model name the conversation mentions: its record's (``model``, ChatGPT's
    ``default_model_slug``), then each message's (response metadata, an export's slug)."""
    for key in MODEL_KEYS:
        value = conversation.meta.get(key)
        if isinstance(value, str) and value:
            yield value
    for message in messages:
        metadata = message.response_metadata
        for key in ("model_name", "model"):
            if isinstance(metadata.get(key), str):
                yield metadata[key]
        chatgpt = message.additional_kwargs.get("chatgpt")
        if isinstance(chatgpt, dict) and isinstance(chatgpt.get("metadata"), dict):
            slug = chatgpt["metadata"].get("model_slug")
            if isinstance(slug, str):
                yield slug


# -- what a conversation holds ------------------------------------------------------


def role(message: AnyMessage) -> str:
    """A message's role as OpenAI names it: user, assistant, system, tool, function, or
    a chat message's own role (developer stays developer)."""
    if isinstance(message, ChatMessage):
        return message.role
    openai = message.additional_kwargs.get("__openai_role__")
    if isinstance(openai, str):
        return openai
    return _ROLES.get(message.type, message.type)


_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}
ROLE_NAMES = ("user", "assistant", "system", "developer", "tool", "function")
_ROLE_ALIASES = {"human": "user", "ai": "assistant"}


def user_role(name: str) -> str:
    """A role given on the command line (langchain's type names taken too)."""
    name = _ROLE_ALIASES.get(name, name)
    if not name or not re.fullmatch(r"[A-Za-z_][\w-]*", name):
        raise UsageError(f"{name!r} is not a role", hint="roles: " + ", ".join(ROLE_NAMES))
    return name


def has_role(message: AnyMessage, wanted: str) -> bool:
    return role(message) == wanted or (wanted == "system" and role(message) == "developer")


def _blocks(message: AnyMessage) -> Iterator[dict[str, Any]]:
    content = message.content
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict):
                yield block


def _block_type(block: dict[str, Any]) -> str:
    kind = block.get("type")
    return kind if isinstance(kind, str) else ""


def has_tool_calls(message: AnyMessage) -> bool:
    if isinstance(message, ToolMessage):
        return True
    if isinstance(message, AIMessage) and (message.tool_calls or message.invalid_tool_calls):
        return True
    if message.type == "function" or "function_call" in message.additional_kwargs:
        return True
    return any(_block_type(b) in _CALL_BLOCKS for b in _blocks(message))


def _is_image(block: dict[str, Any]) -> bool:
    kind = _block_type(block)
    if kind in _IMAGE_BLOCKS:
        return True
    mime = block.get("mime_type")
    return kind == "file" and isinstance(mime, str) and mime.startswith("image/")


def _export_files(message: AnyMessage) -> Iterator[dict[str, Any]]:
    """The files an export lists beside a message's text: Claude's ``attachments`` (text
    taken from a file) and ``files`` (uploads), ChatGPT's ``metadata.attachments``."""
    claude = message.additional_kwargs.get("claude")
    chatgpt = message.additional_kwargs.get("chatgpt")
    metadata = chatgpt.get("metadata") if isinstance(chatgpt, dict) else None
    lists = (
        *((claude.get("attachments"), claude.get("files")) if isinstance(claude, dict) else ()),
        metadata.get("attachments") if isinstance(metadata, dict) else None,
    )
    for items in lists:
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict):
                yield item


def _file_is_image(item: dict[str, Any]) -> bool:
    """An export's file that is a picture: Claude's ``file_kind: "image"``, or a file of
    an image/* type (ChatGPT's ``mime_type``, older exports' ``mimeType``)."""
    if item.get("file_kind") == "image":
        return True
    return any(
        isinstance(item.get(key), str) and item[key].startswith("image/")
        for key in ("mime_type", "mimeType", "file_type")
    )


def has_images(message: AnyMessage) -> bool:
    if any(_is_image(block) for block in _blocks(message)):
        return True
    return any(_file_is_image(item) for item in _export_files(message))


def has_reasoning(message: AnyMessage) -> bool:
    if any(_block_type(b) in _REASONING_BLOCKS for b in _blocks(message)):
        return True
    return any(message.additional_kwargs.get(key) for key in _REASONING_KWARGS)


def has_system(message: AnyMessage) -> bool:
    return isinstance(message, SystemMessage) or role(message) in ("system", "developer")


def has_attachments(message: AnyMessage) -> bool:
    for block in _blocks(message):
        if _block_type(block) in _FILE_BLOCKS and not _is_image(block):
            return True
    return any(not _file_is_image(item) for item in _export_files(message))


_HAS_MESSAGE = {
    "tool-calls": has_tool_calls,
    "images": has_images,
    "reasoning": has_reasoning,
    "system": has_system,
    "attachments": has_attachments,
}


def holds(conversation: Conversation, messages: list[AnyMessage], what: str) -> bool:
    """Whether the conversation holds ``what`` (one of ``HAS``): in a message, or (a
    system prompt, a dataset's images) in its record."""
    meta = conversation.meta
    if what == "system" and isinstance(meta.get("system"), (str, list)) and meta["system"]:
        return True
    if what == "images" and any(meta.get(key) for key in _MEDIA_META[:1]):
        return True
    if what == "attachments" and any(meta.get(key) for key in _MEDIA_META[1:]):
        return True
    test = _HAS_MESSAGE[what]
    return any(test(message) for message in messages)


def user_has(value: str) -> str:
    if value not in HAS:
        raise UsageError(
            f"--has {value!r} is not something to look for", hint="one of " + ", ".join(HAS)
        )
    return value


def user_types(values: list[str] | None, flag: str) -> list[str] | None:
    """Message types given on the command line (``human``, ``ai``...; langchain's class
    names are taken too), checked before any work."""
    if not values:
        return None
    from ..model.chunks import MESSAGE_CLASSES

    for value in values:
        if value not in MESSAGE_CLASSES:
            hint = {"user": "human", "assistant": "ai", "developer": "system"}.get(value)
            types = sorted(name for name in MESSAGE_CLASSES if name.islower())
            raise UsageError(
                f"{flag} {value!r} is not a message type",
                hint=f"did you mean {hint}?" if hint else "types: " + ", ".join(types),
            )
    return values
