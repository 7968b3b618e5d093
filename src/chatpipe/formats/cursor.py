"""Cursor agent transcripts (``~/.cursor/projects/<workspace>/agent-transcripts/<id>/<id>.jsonl``,
older builds ``agent-transcripts/<id>.jsonl``).

One line a message, ``{role, message: {content: [...]}}``, its content Anthropic-like
blocks: ``text``, ``tool_use`` (a name and its input, and no id), ``thinking``. No ids,
no timestamps, no model on a line. The user's prompt comes wrapped in
``<user_query>...</user_query>``: the text inside is the turn (the line's
``additional_kwargs["cursor"]["user_query"]`` says it was wrapped). Reasoning is not
written; a text block that is only ``[REDACTED]`` stands where it was, and is read as a
reasoning block holding that text. Beside the messages, a ``turn_ended`` line closes a
turn (one that ended in an error or was aborted is a note; a successful end says nothing),
and a ``metadata`` line gives the conversation's fields.

Cursor writes no ids on its calls: each gets ``cursor_<line>_<n>`` (the line's number
among the messages, the call's among the line's). It writes no tool results either; a
user line holding ``tool_result`` blocks (as other builds write them) gives tool messages
paired with the calls still waiting, by order. Keys beside ``role`` and ``message`` are
kept in ``additional_kwargs["cursor"]``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location, kind_of
from ..model import AIMessage, AnyMessage, Conversation, HumanMessage, ToolMessage
from .base import CERTAIN, LIKELY, STREAM, Guess, Sample, SessionDialect

_ROLES = ("user", "assistant")
_QUERY = re.compile(r"<user_query>\n?(.*?)\n?</user_query>", re.S)
_RESULTS = ("tool_result", "tool-result")
_CALLS = ("tool_use", "tool_call")
REDACTED = "[REDACTED]"


def _is_message_line(value: dict[str, Any]) -> bool:
    message = value.get("message")
    return (
        value.get("role") in _ROLES
        and isinstance(message, dict)
        and isinstance(message.get("content"), (list, str))
        and not any(k in value for k in ("type", "uuid", "sessionId", "content"))
    )


def is_cursor_line(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if value.get("type") == "turn_ended":
        return isinstance(value.get("status"), str) and "role" not in value
    if value.get("type") == "metadata":
        return isinstance(value.get("metadata"), dict) and len(value) == 2
    return _is_message_line(value)


def _marked(value: dict[str, Any]) -> bool:
    """What only Cursor writes: a wrapped prompt, a call with no id, a turn's end."""
    if value.get("type") == "turn_ended":
        return True
    content = value.get("message", {}).get("content")
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        if block.get("type") in _CALLS and "id" not in block:
            return True
        if block.get("type") == "text" and "<user_query>" in str(block.get("text")):
            return True
    return False


class CursorDialect(SessionDialect):
    name = "cursor"
    description = "Cursor agent transcripts (agent-transcripts/<id>.jsonl): {role, message}"
    example = "cursor__agentsessions_handmade_two_turn_shell.jsonl"
    extras_key = "cursor"  # (a line's keys beside role and message)
    line_hint = "each line is {role, message: {content}}, or a turn_ended or metadata line"

    def is_stream_event(self, value: Any) -> bool:
        return is_cursor_line(value)

    def score(self, sample: Sample) -> Guess | None:
        """A top-level role beside a ``message`` holding the content is Cursor's shape;
        a wrapped prompt, a call with no id or a turn's end make it certain."""
        lines = [r for r in sample.records if is_cursor_line(r)]
        if not lines or not is_cursor_line(sample.first):
            return None
        return Guess(CERTAIN if any(map(_marked, lines)) else LIKELY, STREAM)

    def read_records(
        self,
        records: Iterable[Any],
        location: Location,
        options: Any = None,
        handle: Callable[[ChatpipeError], None] | None = None,
    ) -> Iterator[Conversation]:
        transcript = _Transcript()
        first: Location | None = None
        for value, at in self.lines(records, handle):
            first = first or at
            with self.line_errors(at, handle):
                transcript.add(value, at)
        conversation = Conversation(transcript.messages, transcript.meta, first or location)
        conversation.places = transcript.places
        yield conversation


class _Transcript:
    """A transcript's lines made messages, calls given ids and results their calls."""

    def __init__(self) -> None:
        self.messages: list[AnyMessage] = []
        self.places: list[Location] = []
        self.meta: dict[str, Any] = {}
        self.waiting: list[tuple[str, str]] = []  # calls with no result yet: (id, name)
        self.count = 0  # message lines read

    def add(self, value: dict[str, Any], at: Location) -> None:
        if value.get("type") == "metadata":
            self.meta.update(value["metadata"])
            return
        if value.get("type") == "turn_ended":
            if value.get("status") != "success":
                note = {"at": len(self.messages), **value}
                self.meta.setdefault("notes", []).append(note)
            return
        self.count += 1
        content = value["message"]["content"]
        rest = {k: v for k, v in value.items() if k not in ("role", "message")}
        more = {k: v for k, v in value["message"].items() if k != "content"}
        if more:
            rest["message"] = more
        made = (
            [self.assistant(content)] if value["role"] == "assistant" else self.user(content, rest)
        )
        if rest:
            made[-1].additional_kwargs.setdefault("cursor", {}).update(rest)
        self.messages.extend(made)
        self.places.extend([at] * len(made))

    def assistant(self, content: Any) -> AIMessage:
        blocks: list[dict[str, Any]] = []
        calls = []
        kept_calls: list[dict[str, Any]] = []  # what a call holds beyond its name and input
        for n, block in enumerate(_blocks(content)):
            kind = block.get("type")
            if kind in _CALLS:
                ident = block.get("id") or f"cursor_{self.count}_{n}"
                name = str(block.get("name") or "")
                args = block.get("input") if "input" in block else block.get("arguments")
                calls.append(
                    {"name": name, "args": args if isinstance(args, dict) else {}, "id": ident}
                )
                self.waiting.append((ident, name))
                kept = _rest(block, "name", "input", "id")
                if kept.pop("type") != "tool_use" or kept or not isinstance(args, dict):
                    if not isinstance(args, dict) and args is not None:
                        kept["input"] = args
                    kept_calls.append({"id": ident, "type": block["type"], **kept})
            elif kind == "thinking":
                blocks.append(_block("reasoning", block.get("thinking"), block, "thinking"))
            elif kind == "text" and block.get("text") == REDACTED:
                blocks.append(
                    {"type": "reasoning", "reasoning": REDACTED, "extras": {"redacted": True}}
                )
            elif kind == "text":
                blocks.append(_block("text", block.get("text"), block, "text"))
            else:
                blocks.append({"type": "non_standard", "value": block})
        plain = len(blocks) == 1 and blocks[0]["type"] == "text" and "extras" not in blocks[0]
        message = AIMessage(blocks[0]["text"] if plain else blocks, tool_calls=calls)
        if kept_calls:
            message.additional_kwargs["cursor"] = {"tool_calls": kept_calls}
        return message

    def user(self, content: Any, rest: dict[str, Any]) -> list[AnyMessage]:
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        out: list[AnyMessage] = []
        blocks: list[Any] = []
        for block in content:
            if isinstance(block, dict) and block.get("type") in _RESULTS:
                out.append(self.result(block))
            elif isinstance(block, dict) and block.get("type") == "text":
                text = block.get("text")
                if not isinstance(text, str):
                    raise DataError(f"a text block's text must be a string, got {kind_of(text)}")
                inner = _QUERY.fullmatch(text.strip())
                if inner is not None:
                    text = inner.group(1)
                    rest["user_query"] = True
                blocks.append(_block("text", text, block, "text"))
            else:
                blocks.append(block)
        if blocks or not out:
            plain = all(b.get("type") == "text" and "extras" not in b for b in blocks)
            text = "\n".join(b["text"] for b in blocks) if plain and len(blocks) == 1 else None
            out.append(HumanMessage(text if text is not None else blocks))
        return out

    def result(self, block: dict[str, Any]) -> ToolMessage:
        """A tool result: the oldest call still waiting (by its name, when the block
        names one) is the one it answers."""
        name = block.get("name")
        found = next(
            (i for i, (_, n) in enumerate(self.waiting) if name in (None, n)),
            0 if self.waiting else None,
        )
        ident, called = self.waiting.pop(found) if found is not None else ("", None)
        rest = _rest(block, "type", "content", "name", "is_error")
        return ToolMessage(
            block.get("content", ""),
            tool_call_id=block.get("tool_use_id") or ident,
            name=name or called or None,
            status="error" if block.get("is_error") else "success",
            additional_kwargs={"cursor": rest} if rest else {},
        )


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return [b for b in content if isinstance(b, dict)]


def _rest(block: dict[str, Any], *used: str) -> dict[str, Any]:
    return {k: v for k, v in block.items() if k not in used}


def _block(kind: str, text: Any, block: dict[str, Any], key: str) -> dict[str, Any]:
    made: dict[str, Any] = {"type": kind, kind: text if isinstance(text, str) else ""}
    extras = _rest(block, "type", key)
    if extras:
        made["extras"] = extras
    return made
