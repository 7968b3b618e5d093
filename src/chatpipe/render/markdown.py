"""A conversation as a Markdown transcript for people: a heading per turn, tool calls as
fenced JSON, images as links, reasoning as quotes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..model import AIMessage, AnyMessage, Conversation, ToolMessage

# what a person calls each message type (the Markdown and HTML transcripts)
LABELS = {
    "human": "User",
    "ai": "Assistant",
    "system": "System",
    "tool": "Tool",
    "function": "Function",
}


def _fence(text: str, language: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{language}\n{text}\n{ticks}"


def _block(block: Any) -> str:
    if isinstance(block, str):
        return block
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text") or "")
    if kind in ("reasoning", "thinking"):
        text = str(block.get("reasoning") or block.get("thinking") or "")
        return "\n".join("> " + line for line in text.splitlines()) if text else ""
    if kind in ("image", "image_url"):
        url = block.get("url")
        if kind == "image_url":
            image = block.get("image_url")
            url = image.get("url") if isinstance(image, dict) else image
        if isinstance(url, str) and not url.startswith("data:"):
            return f"![image]({url})"
        return "*[image]*"
    if kind in ("audio", "video", "file", "text-plain", "input_audio"):
        name = (block.get("extras") or {}).get("file_name") or block.get("url") or kind
        return f"*[{kind}: {name}]*"
    if kind in ("tool_use", "server_tool_call"):
        args = block.get("input", block.get("args"))
        return _fence(
            json.dumps(
                {"name": block.get("name"), "arguments": args}, ensure_ascii=False, indent=2
            ),
            "json",
        )
    if kind in ("tool_result", "server_tool_result"):
        output = block.get("content", block.get("output"))
        if not isinstance(output, str):
            output = json.dumps(output, ensure_ascii=False, indent=2)
        return _fence(output)
    return _fence(json.dumps(block, ensure_ascii=False, indent=2), "json")


def message_markdown(message: AnyMessage) -> str:
    label = LABELS.get(message.type) or getattr(message, "role", message.type)
    heading = f"### {label}"
    if message.name:
        heading += f" ({message.name})"
    if isinstance(message, ToolMessage):
        heading += f" — result of `{message.tool_call_id}`"
    content = message.content
    parts = [content] if isinstance(content, str) else [_block(b) for b in content]
    if isinstance(message, AIMessage):
        for call in message.tool_calls:
            args = call["args"]
            if list(args) == ["input"] and isinstance(args["input"], str):
                shown = _fence(args["input"].replace("\r\n", "\n"))  # code sent to a tool
            else:
                shown = _fence(json.dumps(args, ensure_ascii=False, indent=2), "json")
            parts.append(f"Tool call `{call['name']}` (`{call['id']}`):\n\n{shown}")
    body = "\n\n".join(p for p in parts if p)
    return f"{heading}\n\n{body}" if body else heading


def conversation_markdown_parts(conversation: Conversation, index: int) -> Iterator[str]:
    """A conversation's transcript in pieces, a message at a time, joined as they come."""
    meta = conversation.meta
    title = meta.get("title") or meta.get("name") or f"Conversation {index + 1}"
    yield f"# {title}"
    details = [
        f"{key}: {meta[key]}"
        for key in ("id", "uuid", "create_time", "created_at", "model")
        if meta.get(key) is not None
    ]
    if details:
        yield "\n\n" + "\n".join(f"- {d}" for d in details)
    for message in conversation.messages:
        yield "\n\n" + message_markdown(message)
    yield "\n"
