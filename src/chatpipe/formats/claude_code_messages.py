"""The messages of a Claude Code branch: each line's message read (a reply split over lines
joined, its usage counted once), tool results paired with their calls, the agent's own
lines (commands, hooks, compactions) as notes or system messages, each message's place
kept. claude_code_session.py walks the tree; this builds what a branch says."""

from __future__ import annotations

from typing import Any

from ..errors import Location
from ..model import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage
from .anthropic import message_from_response
from .session_tree import Node

_NOT_NOTES = ("turn_duration",)


class Builder:
    """A branch's lines made messages in order: an assistant message's lines joined, tool
    results named after their calls, the other lines noted."""

    def __init__(self, consts: dict[str, Any]) -> None:
        self.consts = consts
        self.items: list[Any] = []  # messages, and lists of an assistant message's lines
        self.places: list[Location] = []
        self.notes: list[dict[str, Any]] = []
        self.open: dict[str, list[dict[str, Any]]] = {}  # message id -> its lines
        self.calls: dict[str, str] = {}  # tool call id -> tool name

    def envelope(self, line: dict[str, Any]) -> dict[str, Any]:
        return {
            k: v
            for k, v in line.items()
            if k not in ("type", "message", "toolUseResult")
            and not (k in self.consts and self.consts[k] == v)
        }

    def add(self, node: Node) -> None:
        line, place = node.value.value, node.value.location
        if line is None:
            return  # a progress line
        if not node.is_message:
            note = self.note(line)
            if note is not None:
                self.notes.append({"at": len(self.items), **note})
            return
        if line["type"] == "assistant":
            self.assistant(line, place)
        else:
            self.user(line, place)

    def note(self, line: dict[str, Any]) -> dict[str, Any] | None:
        if line["type"] == "system" and (
            line.get("subtype") in _NOT_NOTES
            or (
                line.get("subtype") == "stop_hook_summary"
                and not (line.get("hookErrors") or line.get("preventedContinuation"))
            )
        ):
            return None
        note = self.envelope(line)
        note["type"] = line["type"]
        if line["type"] == "assistant":  # an API error Claude Code wrote as a reply
            note["type"] = "api_error"
            content = line["message"].get("content")
            note["content"] = content if isinstance(content, str) else _text(content)
        return note

    def assistant(self, line: dict[str, Any], place: Location) -> None:
        for block in _blocks(line["message"].get("content")):
            if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                self.calls[block["id"]] = str(block.get("name") or "")
        ident = line["message"].get("id")
        group = self.open.get(ident) if isinstance(ident, str) else None
        if group is not None:
            group.append(line)
            return
        group = [line]
        if isinstance(ident, str):
            self.open[ident] = group
        self.items.append(group)
        self.places.append(place)

    def user(self, line: dict[str, Any], place: Location) -> None:
        content = line["message"].get("content")
        envelope = self.envelope(line)
        results = [b for b in _blocks(content) if b.get("type") == "tool_result"]
        rest = (
            content
            if isinstance(content, str)
            else [b for b in content if not any(b is r for r in results)]
        )
        for block in results:
            call = block.get("tool_use_id") if isinstance(block.get("tool_use_id"), str) else ""
            extra = {
                k: v
                for k, v in block.items()
                if k not in ("type", "tool_use_id", "content", "is_error")
            }
            if "toolUseResult" in line and len(results) > 1:
                extra["toolUseResult"] = line["toolUseResult"]
            self.items.append(
                ToolMessage(
                    block.get("content", ""),
                    tool_call_id=call,
                    name=self.calls.get(call) or None,
                    status="error" if block.get("is_error") else "success",
                    artifact=line.get("toolUseResult") if len(results) == 1 else None,
                    id=line.get("uuid"),
                    additional_kwargs={**extra, "claude_code": envelope},
                )
            )
            self.places.append(place)
        if rest or not results:
            fields = {"id": line.get("uuid"), "additional_kwargs": {"claude_code": envelope}}
            generated = line.get("isCompactSummary") or line.get("isMeta")
            self.items.append(
                SystemMessage(rest, **fields) if generated else HumanMessage(rest, **fields)
            )
            self.places.append(place)
            if not generated:
                self.open = {}  # a new turn: an assistant message id starts afresh

    def messages(self) -> list[AnyMessage]:
        return [self.ai(item) if isinstance(item, list) else item for item in self.items]

    def ai(self, lines: list[dict[str, Any]]) -> AIMessage:
        """One AI message of an API response's lines: their blocks in order, the last
        line's usage and stop reason (each line repeats the usage as it stood)."""
        first, last = lines[0]["message"], lines[-1]["message"]
        blocks = [b for line in lines for b in _content_blocks(line["message"].get("content"))]
        response = {**first, **{k: v for k, v in last.items() if k != "content"}, "content": blocks}
        message = message_from_response(response)
        envelope = self.envelope(lines[0])
        if len(lines) > 1:
            envelope["merged"] = [
                {
                    k: v
                    for k, v in self.envelope(line).items()
                    if k in ("uuid", "parentUuid", "timestamp", "requestId")
                }
                for line in lines[1:]
            ]
        message.additional_kwargs["claude_code"] = envelope
        return message


def _blocks(content: Any) -> list[dict[str, Any]]:
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _content_blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content) if isinstance(content, list) else []


def _text(content: Any) -> str:
    return "".join(str(b.get("text") or "") for b in _blocks(content))
