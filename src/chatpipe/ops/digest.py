"""Fixed-size digests of what a conversation says, for ``dedupe`` and for the stable keys
of ``sample`` and ``split``.

Texts are compared normalised: Unicode NFC, every run of whitespace one space, none at
the ends. A message counts by its role, name, texts, content blocks and tool calls (name
and arguments); ids, timestamps and provider metadata are left out, so that the same
conversation exported twice, or written by two clients, has one digest. Within one
conversation (``--by messages``) the ids that pair tool calls with their results count
too: a result is only the duplicate of a result of the same call.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable
from typing import Any

import orjson

from ..model import AIMessage, AnyMessage, Conversation, ToolMessage
from . import facts

DIGEST_SIZE = 16  # bytes: a collision among 10**12 conversations is about 1 in 10**15
_FIELD = b"\x1f"  # whitespace to str.split, so never left in a normalised text
_MESSAGE = b"\x1e"
# block keys that say where or when, not what
_VOLATILE = frozenset(
    ("id", "index", "extras", "cache_control", "signature", "citations", "start_timestamp")
)


def normalise(text: str) -> str:
    """NFC, whitespace runs collapsed to one space, no space at the ends."""
    if not text.isascii() and not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return " ".join(text.split())


def _block(block: Any) -> bytes:
    if isinstance(block, str):
        return normalise(block).encode("utf-8", "surrogatepass")
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return normalise(block["text"]).encode("utf-8", "surrogatepass")
    kept = {k: v for k, v in block.items() if k not in _VOLATILE}
    for key in ("reasoning", "thinking"):
        if isinstance(kept.get(key), str):
            kept[key] = normalise(kept[key])
    try:
        return orjson.dumps(kept, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return repr(sorted(kept.items(), key=lambda kv: str(kv[0]))).encode()


def _json(value: Any) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return repr(value).encode()


def message_bytes(message: AnyMessage, links: bool = False) -> bytes:
    """The message as its digest sees it; ``links``: with the ids that pair tool calls
    and results."""
    parts = [facts.role(message).encode(), (message.name or "").encode()]
    content = message.content
    if isinstance(content, str):
        parts.append(normalise(content).encode("utf-8", "surrogatepass"))
    else:
        parts.extend(
            _block(b) for b in content if not (isinstance(b, dict) and b.get("type") in _CALLS)
        )
    if isinstance(message, AIMessage):
        for call in message.tool_calls:
            parts.append(call["name"].encode() + b"(" + _json(call["args"]) + b")")
            if links:
                parts.append((call.get("id") or "").encode())
        for call in message.invalid_tool_calls:
            parts.append(_json([call.get("name"), call.get("args")]))
    elif isinstance(message, ToolMessage) and links:
        parts.append(message.tool_call_id.encode())
    reasoning = message.additional_kwargs.get("reasoning_content")
    if isinstance(reasoning, str):
        parts.append(normalise(reasoning).encode("utf-8", "surrogatepass"))
    return _FIELD.join(parts)


_CALLS = frozenset(("tool_use", "tool_call"))  # the same calls as ``tool_calls`` holds


def digest_messages(messages: Iterable[AnyMessage]) -> bytes:
    """The digest of a run of messages, in order."""
    hasher = hashlib.blake2b(digest_size=DIGEST_SIZE)
    for message in messages:
        hasher.update(message_bytes(message))
        hasher.update(_MESSAGE)
    return hasher.digest()


def digest_message(message: AnyMessage) -> bytes:
    """One message's digest within its conversation (tool-call ids count)."""
    return hashlib.blake2b(message_bytes(message, links=True), digest_size=DIGEST_SIZE).digest()


def prompt(messages: list[AnyMessage]) -> list[AnyMessage]:
    """The messages before the last assistant turn (all of them when there is none)."""
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], AIMessage):
            return messages[:index]
    return messages


BY = ("conversation", "prompt", "messages")


def digest(
    conversation: Conversation, messages: list[AnyMessage], by: str = "conversation"
) -> bytes:
    """The digest of the whole conversation (``by="conversation"``) or of its prompt."""
    return digest_messages(prompt(messages) if by == "prompt" else messages)


def identity(conversation: Conversation, messages: list[AnyMessage]) -> bytes:
    """What the stable keys of sample and split hash: the conversation's id where the
    source gives one, its content's digest otherwise."""
    found = facts.conversation_id(conversation)
    if found is not None:
        return b"id\x00" + found.encode("utf-8", "surrogatepass")
    return b"content\x00" + digest_messages(messages)
