"""Claude.ai data exports (``conversations.json``): each conversation's message tree, the
current branch by default."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import Location
from ..model import AIMessage, AnyMessage, HumanMessage
from .base import Conversation, Dialect
from .exports import ReadOptions, branch_meta, branch_paths, tree_field

ROOT = "00000000-0000-4000-8000-000000000000"


def is_claude_export(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("chat_messages"), list)


def _claude_block(block: Any) -> Any:
    if not isinstance(block, dict):
        return block
    kind = block.get("type")
    rest = {
        k: v
        for k, v in block.items()
        if k not in ("type", "text", "thinking", "id", "name", "input", "tool_use_id", "content")
    }
    if kind == "text":
        out: dict[str, Any] = {"type": "text", "text": block.get("text", "")}
    elif kind == "thinking":
        out = {"type": "reasoning", "reasoning": block.get("thinking", "")}
    elif kind == "tool_use":
        out = {
            "type": "server_tool_call",
            "id": block.get("id") or "",
            "name": block.get("name") or "",
            "args": block.get("input") or {},
        }
    elif kind == "tool_result":
        out = {
            "type": "server_tool_result",
            "tool_call_id": block.get("tool_use_id") or "",
            "status": "error" if block.get("is_error") else "success",
            "output": block.get("content"),
        }
        rest.pop("is_error", None)
    else:
        return {"type": "non_standard", "value": block}
    if rest:
        out["extras"] = rest
    return out


def _holds_nothing(content: Any) -> bool:
    """Whether a message's content blocks hold nothing: none, or text blocks all empty."""
    return not isinstance(content, list) or all(
        isinstance(b, dict) and b.get("type") == "text" and not b.get("text") for b in content
    )


def _claude_message(message: dict[str, Any]) -> AnyMessage:
    # the blocks hold the message (its ``text`` repeats them); where they hold nothing, as
    # in exports whose content is ``[]`` or one empty text block, its ``text`` holds it
    content = message.get("content")
    blocks_hold = not _holds_nothing(content)
    if blocks_hold:
        blocks = [_claude_block(b) for b in content]
    else:
        blocks = (
            [{"type": "text", "text": message.get("text") or ""}] if message.get("text") else []
        )
    for attachment in message.get("attachments") or []:
        if isinstance(attachment, dict) and attachment.get("extracted_content"):
            extras = {k: v for k, v in attachment.items() if k != "extracted_content"}
            blocks.append(
                {
                    "type": "text-plain",
                    "mime_type": "text/plain",
                    "text": attachment["extracted_content"],
                    "extras": extras,
                }
            )
    keep = {k: v for k, v in message.items() if k not in ("uuid", "sender", "content")}
    if blocks_hold:
        joined = "".join(
            str(b.get("text") or b.get("thinking") or "") for b in content if isinstance(b, dict)
        )
        if keep.get("text") in ("", joined):
            keep.pop("text", None)  # the blocks hold it (the text field repeats them)
    fields = {"id": message.get("uuid"), "additional_kwargs": {"claude": keep}}
    if len(blocks) == 1 and blocks[0]["type"] == "text" and "extras" not in blocks[0]:
        body: Any = blocks[0]["text"]
    else:
        body = blocks
    if message.get("sender") == "assistant":
        return AIMessage(body, **fields)
    return HumanMessage(body, **fields)


class ClaudeExportDialect(Dialect):
    name = "claude-export"
    description = "Claude.ai export conversations (chat_messages), web-app and ZIP shapes"
    example = "claude_export__yaleman_2025_thinking.json"
    extras_key = "claude"  # (the rest of each record, under additional_kwargs)

    def is_conversation(self, value: Any) -> bool:
        return is_claude_export(value)

    def read_message(self, value: Any) -> AnyMessage:
        return _claude_message(value)

    def read_conversations(
        self, value: Any, location: Location, options: ReadOptions
    ) -> Iterator[Conversation]:
        tree = tree_field(value, "chat_messages", list, "a list of messages", location)
        messages = [m for m in tree or () if isinstance(m, dict)]
        meta = {k: v for k, v in value.items() if k != "chat_messages"}
        if not any("parent_message_uuid" in m for m in messages):
            ordered = (
                sorted(messages, key=lambda m: m.get("index", 0))
                if all("index" in m for m in messages)
                else messages
            )
            yield Conversation([_claude_message(m) for m in ordered], meta, location)
            return
        by_id = {m.get("uuid"): m for m in messages}
        parents = {
            m.get("uuid"): (
                m.get("parent_message_uuid") if m.get("parent_message_uuid") in by_id else None
            )
            for m in messages
        }
        order = [m.get("uuid") for m in messages]
        times = {m.get("uuid"): m.get("created_at") for m in messages}
        active = value.get("current_leaf_message_uuid")
        paths, dropped = branch_paths(parents, order, active, times, options, location)
        for number, path in enumerate(paths):
            branch = branch_meta(path, number, len(paths), dropped, active, options)
            yield Conversation(
                [_claude_message(by_id[i]) for i in path], {**meta, "branch": branch}, location
            )

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        return next(self.read_conversations(value, location, ReadOptions()))
