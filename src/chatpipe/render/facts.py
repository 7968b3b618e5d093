"""What the transcripts for people (the HTML viewer, Markdown) say about a conversation and
its messages besides their content: title, dates, model, attachments, sizes, ChatGPT's
reasoning recap."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

from ..model import AnyMessage, Conversation, dates
from ..model.dates import message_time as message_time  # a message's time, for the viewer
from .commands import message_markup

# an untitled conversation is called by the start of its first question, this long at most
TITLE_LENGTH = 60


def moment(value: Any) -> datetime | None:
    """A time (UTC) from epoch seconds or an ISO 8601 string; None when it is neither."""
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return datetime.fromtimestamp(float(value), tz=timezone.utc)
        if isinstance(value, str) and value:
            found = datetime.fromisoformat(value.replace("Z", "+00:00"))
            return found.astimezone(timezone.utc) if found.tzinfo is not None else found
    except (ValueError, OverflowError, OSError):
        return None
    return None


def when(value: Any) -> str:
    """A time as ``YYYY-MM-DD HH:MM`` (UTC); a string that is not a time as it is."""
    found = moment(value)
    if found is None:
        return value if isinstance(value, str) else ""
    return found.strftime("%Y-%m-%d %H:%M")


def iso(value: Any) -> str:
    """A time as ISO 8601 (``2024-05-01T12:30:00Z``, UTC); a string that is not a time
    as it is."""
    found = moment(value)
    if found is None:
        return value if isinstance(value, str) else ""
    text = found.replace(microsecond=0).isoformat()
    return text.replace("+00:00", "Z") if found.tzinfo is not None else text


def source_fields(message: AnyMessage) -> dict[str, Any]:
    """The export's or session log's own fields of a message (ChatGPT's, Claude's, a
    coding agent's), or {}."""
    from .sessions import session_fields

    extra = message.additional_kwargs
    found = extra.get("chatgpt") or extra.get("claude") if extra else None
    return found if isinstance(found, dict) else session_fields(message)


def message_model(message: AnyMessage) -> str:
    model = message.response_metadata.get("model_name") or message.response_metadata.get("model")
    if not model:
        metadata = source_fields(message).get("metadata")
        model = metadata.get("model_slug") if isinstance(metadata, dict) else None
    return str(model) if model else ""


def _first_question(conversation: Conversation) -> str:
    """The start of the first thing the person asked: a slash command as typed (Claude
    Code's markup read), not a command's output or the context an agent adds."""
    for message in conversation.messages:
        words = " ".join(_asked(message).split())
        if words:
            if len(words) <= TITLE_LENGTH:
                return words
            cut = words[:TITLE_LENGTH].rsplit(" ", 1)[0] or words[:TITLE_LENGTH]
            return cut.rstrip(" ,.;:") + "…"
    return ""


def _asked(message: AnyMessage) -> str:
    from .sessions import session_fields

    if message.type != "human" or session_fields(message).get("isMeta"):
        return ""
    markup = message_markup(message)
    if markup is not None:
        return markup.text if markup.kind == "command" else ""
    content = message.content
    if isinstance(content, str):
        return content
    return " ".join(
        b if isinstance(b, str) else str(b.get("text") or "")
        for b in content
        if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text")
    )


def conversation_title(conversation: Conversation, number: int) -> str:
    """Its title; an untitled one (a dataset's rows) is called by the start of its first
    question, or ``Conversation N`` (``number`` counts from 0) when it has none."""
    meta = conversation.meta
    title = meta.get("title") or meta.get("name") or meta.get("summary")
    if title:
        return str(title)
    return _first_question(conversation) or f"Conversation {number + 1}"


def conversation_model(conversation: Conversation, messages: list[AnyMessage]) -> str:
    meta = conversation.meta
    model = meta.get("model") or meta.get("default_model_slug")
    if model:
        return str(model)
    return next((m for m in map(message_model, messages) if m), "")


def conversation_times(conversation: Conversation) -> tuple[float | None, float | None]:
    """(created, updated) in seconds since the epoch, as the conversation's record gives
    them, or its messages' first and last times; None where nothing says."""
    messages = conversation.messages
    return dates.conversation_times(conversation, messages if isinstance(messages, list) else [])


def conversation_date(conversation: Conversation, messages: list[AnyMessage]) -> str:
    """When the conversation was created, as ``YYYY-MM-DD HH:MM`` (UTC); '' when unknown."""
    return when(dates.created(conversation, messages))


# a collapsed tool call shows this much of its command or first argument
CALL_GIST_LENGTH = 120
# the arguments that say what a call does, in the order they are looked for
_GIST_KEYS = ("command", "cmd", "input", "code", "file_path", "path", "pattern", "url", "query")


def call_gist(args: Any) -> str:
    """What a collapsed tool call shows of its arguments, on one line: the command it
    runs (a shell tool's ``command``, code sent as ``input``) or the file, pattern or
    address it works on, else its first text argument, else its first argument; '' when
    it has none."""
    if not isinstance(args, dict) or not args:
        return ""
    texts = [v for v in args.values() if isinstance(v, str) and v.strip()]
    value = next(
        (args[k] for k in _GIST_KEYS if isinstance(args.get(k), (str, list)) and args[k]),
        texts[0] if texts else next(iter(args.values())),
    )
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        value = " ".join(value)  # Codex's shell call: ["bash", "-lc", "..."]
    if not isinstance(value, str):
        value = json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(value[: CALL_GIST_LENGTH * 4].split())
    return text if len(text) <= CALL_GIST_LENGTH else text[: CALL_GIST_LENGTH - 1] + "…"


def size_text(size: Any) -> str:
    if not isinstance(size, (int, float)) or isinstance(size, bool) or size < 0:
        return ""
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return ""


def attachments(message: AnyMessage) -> Iterator[tuple[str, str, str]]:
    """(name, detail, id) of each file attached to a message in its export: Claude's
    ``attachments`` and ``files``, ChatGPT's ``metadata.attachments``."""
    source = source_fields(message)
    metadata = source.get("metadata") if isinstance(source.get("metadata"), dict) else {}
    for items in (source.get("attachments"), source.get("files"), metadata.get("attachments")):
        for item in items if isinstance(items, list) else ():
            if not isinstance(item, dict):
                continue
            name = item.get("file_name") or item.get("name") or item.get("file_uuid") or "file"
            size = size_text(item.get("file_size", item.get("size")))
            kind = item.get("file_kind") or item.get("file_type") or item.get("mime_type") or ""
            preview = item.get("preview_asset")
            if isinstance(preview, dict) and preview.get("image_width"):
                size = size or f"{preview['image_width']}×{preview.get('image_height')}"
            detail = ", ".join(x for x in (str(kind), size) if x)
            yield str(name), detail, str(item.get("id") or item.get("file_uuid") or "")


def recap_text(block: Any) -> str | None:
    """ChatGPT's reasoning recap (``Thought for 4 seconds``) when ``block`` is one: a
    reasoning block that says it is one (as the export's reader gives it), or the
    recap's record kept whole."""
    if isinstance(block, dict) and block.get("type") == "reasoning":
        extras = block.get("extras")
        if isinstance(extras, dict) and extras.get("content_type") == "reasoning_recap":
            return str(block.get("reasoning") or "Thought")
        return None
    if not isinstance(block, dict) or block.get("type") != "non_standard":
        return None
    value = block.get("value")
    if isinstance(value, dict) and value.get("content_type") == "reasoning_recap":
        return str(value.get("content") or "Thought")
    return None
