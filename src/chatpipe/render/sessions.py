"""What the transcripts for people (``show``, the HTML viewer) say of coding-agent sessions
beyond their messages: a message the agent wrote itself is named for what it is (a
generated summary, context), and the conversation's ``notes`` (compactions, errors,
commands, the CLI's notices) stand between the messages where they happened."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..model import AnyMessage, Conversation
from .commands import LABELS, command_markup, message_markup, without_escapes

# where each session dialect keeps a message's own fields
SOURCES = ("claude_code", "codex", "gemini_cli")


def session_fields(message: AnyMessage) -> dict[str, Any]:
    """The session log's own fields of a message, or {}."""
    extra = message.additional_kwargs
    for key in SOURCES:
        found = extra.get(key) if extra else None
        if isinstance(found, dict):
            return found
    return {}


def message_label(message: AnyMessage) -> str | None:
    """A name for a message the agent wrote, not the person or the model; None for the
    others (named by their type)."""
    fields = session_fields(message)
    if fields.get("isCompactSummary") or fields.get("compacted"):
        return "Summary (generated)"
    if fields.get("isMeta") or fields.get("context"):
        return "Context"
    markup = message_markup(message)
    return LABELS[markup.kind] if markup is not None else None


def notes_before(conversation: Conversation, index: int) -> list[dict[str, Any]]:
    """The notes that stand before message ``index`` (every one still to come, for the
    index past the last message)."""
    notes = conversation.meta.get("notes")
    if not isinstance(notes, list):
        return []
    return [n for n in notes if isinstance(n, dict) and n.get("at") == index]


def notes_after(conversation: Conversation, count: int) -> list[dict[str, Any]]:
    """The notes after the last of ``count`` messages."""
    notes = conversation.meta.get("notes")
    if not isinstance(notes, list):
        return []
    return [
        n
        for n in notes
        if isinstance(n, dict) and isinstance(n.get("at"), int) and n["at"] >= count
    ]


def note_text(note: dict[str, Any]) -> str:
    """A note in a line: what happened, and the detail a reader wants."""
    kind = str(note.get("subtype") or note.get("type") or "note")
    if kind in ("compact_boundary", "microcompact_boundary"):
        data = note.get("compactMetadata") or note.get("microcompactMetadata") or {}
        words = [
            "Conversation compacted" if kind == "compact_boundary" else "Context microcompacted"
        ]
        if isinstance(data, dict):
            if data.get("trigger"):
                words.append(str(data["trigger"]))
            if isinstance(data.get("preTokens"), int):
                words.append(f"{data['preTokens']:,} tokens before")
        return " · ".join(words)
    if kind == "turn_aborted":
        return f"Turn aborted ({note.get('reason') or 'interrupted'})"
    if kind == "ghost_snapshot":
        return "Undo snapshot"
    if kind == "session_meta":
        return f"Session {note.get('id') or ''} (recorded again)".replace("  ", " ")
    text = _text(note)
    markup = command_markup(note.get("content")) if kind == "local_command" else None
    if markup is not None:  # a slash command, or what it printed
        shown = " ".join(markup.text.split())
        return f"{LABELS[markup.kind]}: {shown}" if shown else LABELS[markup.kind]
    if kind == "local_command":
        text = without_escapes(text)
    label = {"api_error": "API error", "local_command": "Command", "stop_hook_summary": "Hooks"}
    name = label.get(kind, kind.replace("_", " ").capitalize())
    return f"{name}: {text}" if text else name


def _text(note: dict[str, Any]) -> str:
    for key in ("content", "message", "text", "error", "stopReason"):
        value = note.get(key)
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())
        if isinstance(value, list) and value:
            parts = [p.get("text") if isinstance(p, dict) else p for p in value]
            return " ".join(str(p) for p in parts if p)
    errors = note.get("hookErrors")
    if isinstance(errors, list) and errors:
        return "; ".join(map(str, errors))
    return ""


def subagent_line(conversation: Conversation) -> str | None:
    """For a subagent's conversation: who started it."""
    meta = conversation.meta
    call = meta.get("parent_tool_call_id")
    if "agentId" not in meta or not (call or meta.get("parent_session_id")):
        return None
    words = [f"subagent {meta.get('subagent_type') or meta['agentId']}"]
    if call:
        words.append(f"started by {call}")
    if meta.get("parent_session_id"):
        words.append(f"in session {meta['parent_session_id']}")
    return " ".join(words)


def with_notes(conversation: Conversation) -> Iterator[tuple[int, AnyMessage | None, Any]]:
    """The messages with the notes between them: (index, message, None) for a message,
    (index, None, note) for a note standing before message ``index``."""
    count = 0
    for index, message in enumerate(conversation.messages):
        for note in notes_before(conversation, index):
            yield index, None, note
        yield index, message, None
        count = index + 1
    for note in notes_after(conversation, count):
        yield count, None, note
