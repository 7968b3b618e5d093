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
from collections.abc import Callable, Iterable
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
    # Most texts need little or nothing: the only whitespace a printable text holds is
    # the space (every other is a control, a separator or a line break), so one with no
    # run of spaces and none at an end is normalised already, and one whose only other
    # whitespace is the line feed needs its runs of the two made one space. Both are
    # what splitting at whitespace and joining gives, without making a word at a time.
    if text.isprintable():
        if "  " not in text and text[:1] != " " and text[-1:] != " ":
            return text
    elif "\n" in text:
        spaced = text.replace("\n", " ")
        if spaced.isprintable():
            while "  " in spaced:
                spaced = spaced.replace("  ", " ")
            return spaced.strip(" ")
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
    ai = isinstance(message, AIMessage)
    return fields_bytes(
        facts.role(message),
        message.name,
        message.content,
        message.tool_calls if ai else (),
        message.invalid_tool_calls if ai else (),
        message.tool_call_id if isinstance(message, ToolMessage) else None,
        message.additional_kwargs.get("reasoning_content"),
        links,
    )


def fields_bytes(
    role: str,
    name: str | None,
    content: Any,
    calls: Any = (),
    invalid: Any = (),
    call_id: str | None = None,
    reasoning: Any = None,
    links: bool = False,
) -> bytes:
    """What ``message_bytes`` makes of a message's fields (the same of a message's
    canonical dict, which holds them: fast/row_ops.py): its role and name, its texts
    normalised and other blocks as JSON, each call's name and arguments (with their ids,
    and a result's, for ``links``), its reasoning."""
    parts = [role.encode(), (name or "").encode()]
    if isinstance(content, str):
        parts.append(normalise(content).encode("utf-8", "surrogatepass"))
    else:
        parts.extend(
            _block(b) for b in content if not (isinstance(b, dict) and b.get("type") in _CALLS)
        )
    for call in calls:
        parts.append(call["name"].encode() + b"(" + _json(call["args"]) + b")")
        if links:
            parts.append((call.get("id") or "").encode())
    for call in invalid:
        parts.append(_json([call.get("name"), call.get("args")]))
    if links and call_id is not None:
        parts.append(call_id.encode())
    if isinstance(reasoning, str):
        parts.append(normalise(reasoning).encode("utf-8", "surrogatepass"))
    return _FIELD.join(parts)


_CALLS = frozenset(("tool_use", "tool_call"))  # the same calls as ``tool_calls`` holds


def digest_messages(
    messages: Iterable[Any], to_bytes: Callable[[Any], bytes] = message_bytes
) -> bytes:
    """The digest of a run of messages, in order (``to_bytes``: what each is to it)."""
    pieces = [to_bytes(message) for message in messages]
    pieces.append(b"")  # (each message's bytes followed by the separator)
    return hashlib.blake2b(_MESSAGE.join(pieces), digest_size=DIGEST_SIZE).digest()


def digest_message(message: AnyMessage) -> bytes:
    """One message's digest within its conversation (tool-call ids count)."""
    return hashlib.blake2b(message_bytes(message, links=True), digest_size=DIGEST_SIZE).digest()


def _is_ai(message: AnyMessage) -> bool:
    return isinstance(message, AIMessage)


def prompt(messages: list[Any], is_ai: Callable[[Any], bool] = _is_ai) -> list[Any]:
    """The messages before the last assistant turn (all of them when there is none)."""
    for index in range(len(messages) - 1, -1, -1):
        if is_ai(messages[index]):
            return messages[:index]
    return messages


BY = ("conversation", "prompt", "messages")


def digest(
    conversation: Conversation,
    messages: list[Any],
    by: str = "conversation",
    to_bytes: Callable[[Any], bytes] = message_bytes,
    is_ai: Callable[[Any], bool] = _is_ai,
) -> bytes:
    """The digest of the whole conversation (``by="conversation"``) or of its prompt;
    ``to_bytes`` and ``is_ai`` read each of ``messages`` (messages, or what stands for
    them: fast/row_ops.py)."""
    return digest_messages(prompt(messages, is_ai) if by == "prompt" else messages, to_bytes)


def identity(
    conversation: Conversation,
    messages: list[Any],
    to_bytes: Callable[[Any], bytes] = message_bytes,
) -> bytes:
    """What the stable keys of sample and split hash: the conversation's id where the
    source gives one, its content's digest otherwise."""
    found = facts.conversation_id(conversation)
    if found is not None:
        return b"id\x00" + found.encode("utf-8", "surrogatepass")
    return b"content\x00" + digest_messages(messages, to_bytes)
