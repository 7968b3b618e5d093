"""A conversation as a Markdown transcript for people: a heading per turn, tool calls as
fenced JSON, reasoning as quotes, Claude's artifacts as titled code blocks, images as
links (or, when the export does not hold them, named), attachments named, dates ISO."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from ..model import AIMessage, AnyMessage, Conversation, ToolMessage
from ..model.media import MEDIA_KINDS
from ..model.reasoning import field_reasoning, has_reasoning_blocks
from .artifacts import segments
from .commands import Shown, message_markup
from .facts import (
    attachments,
    conversation_model,
    conversation_times,
    conversation_title,
    iso,
    recap_text,
    size_text,
)
from .sessions import message_label

# what a person calls each message type (the Markdown and HTML transcripts)
LABELS = {
    "human": "User",
    "ai": "Assistant",
    "system": "System",
    "tool": "Tool",
    "function": "Function",
}
_TITLES = ("title", "name", "summary")
# where an image an export zip holds is linked from, by its pointer (None: not held)
Images = Callable[[Any], "str | None"] | None
_ALT = re.compile(r"[\[\]\n]")  # what would end an image's alt text


def one_line(text: Any) -> str:
    """A title, a name or an id as one line of a heading or a list item: its line breaks
    (and every other run of white space) one space, so that the data cannot add headings,
    rules or items of its own to the document."""
    return " ".join(str(text).split())


def _fence(text: str, language: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{language}\n{text}\n{ticks}"


def _quote(text: str) -> str:
    return "\n".join(">" if not line.strip() else "> " + line for line in text.splitlines())


def _text(text: str, ai: bool) -> str:
    """A text as written; an answer's Claude artifacts fenced under their titles and its
    ``<antThinking>`` quoted as reasoning."""
    if not ai or "<ant" not in text:
        return text
    parts = []
    for segment in segments(text):
        if segment.kind == "text":
            parts.append(segment.text.strip("\n"))
        elif segment.kind == "thinking":
            parts.append(_quote(f"*Reasoning:* {segment.text}"))
        else:
            ident = segment.attributes.get("identifier")
            head = f"**{one_line(segment.title)}**"
            head += f" (artifact `{one_line(ident)}`)" if ident else ""
            parts.append(f"{head}\n\n{_fence(segment.text, segment.language)}")
    return "\n\n".join(p for p in parts if p)


def _media(block: dict[str, Any], kind: str, names: dict[str, str], images: Images) -> str:
    """An image or file: a web image as an image link, and one its export zip holds
    (``images``: where to link it); one the export does not hold (ChatGPT's
    ``file-service://``, a data URL, a path) named in a note."""
    extras = block.get("extras") if isinstance(block.get("extras"), dict) else {}
    url = block.get("url")
    if kind == "image_url":
        image = block.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        kind = "image"
    if kind == "image" and isinstance(url, str) and url.startswith(("http://", "https://")):
        return f"![image]({url})"
    held = images(url) if kind == "image" and images is not None else None
    if held is not None:
        alt = names.get(str(url).rsplit("/", 1)[-1]) or extras.get("file_name") or "image"
        return f"![{_ALT.sub(' ', str(alt))}]({held})"
    pointer = url if isinstance(url, str) and not url.startswith("data:") else ""
    name = (
        names.get(pointer.rsplit("/", 1)[-1] if pointer else "")
        or extras.get("file_name")
        or extras.get("filename")
        or block.get("filename")
        or block.get("name")
        or pointer
        or block.get("file_id")
        or ""
    )
    size = size_text(extras.get("size_bytes", block.get("size")))
    missing = pointer and not pointer.startswith(("http://", "https://"))
    detail = ", ".join(x for x in (size, "not in the export" if missing else "") if x)
    label = f"{kind}: {name}" if name else kind
    return f"*[{label}{f' ({detail})' if detail else ''}]*"


def _block(block: Any, names: dict[str, str], ai: bool, images: Images = None) -> str:
    if isinstance(block, str):
        return _text(block, ai)
    kind = block.get("type")
    if kind == "text":
        return _text(str(block.get("text") or ""), ai)
    recap = recap_text(block)
    if recap is not None:
        return f"*{recap}*"
    if kind in ("reasoning", "thinking"):
        text = str(block.get("reasoning") or block.get("thinking") or "")
        return _quote(text) if text else ""
    if kind in MEDIA_KINDS:
        return _media(block, kind, names, images)
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


def _markup(shown: Shown) -> str:
    """A command as code, its output fenced, a caveat as prose."""
    if shown.kind == "command":
        return f"`{shown.text}`" if "`" not in shown.text else f"`` {shown.text} ``"
    if shown.kind == "caveat" or not shown.text:
        return shown.text or "*(no output)*"
    return _fence(shown.text)


def _call_block(block: Any, calls: set[str]) -> bool:
    return (
        isinstance(block, dict)
        and block.get("type") in ("tool_use", "tool_call", "function_call")
        and block.get("id") in calls
    )


def message_markdown(message: AnyMessage, images: Images = None) -> str:
    """One turn as Markdown; ``images(pointer)``: where an image its conversation's zip
    holds is linked (a data URL, a file beside a note), or None."""
    label = (
        message_label(message) or LABELS.get(message.type) or getattr(message, "role", message.type)
    )
    heading = f"### {one_line(label)}"
    if message.name:
        heading += f" ({one_line(message.name)})"
    if isinstance(message, ToolMessage):
        heading += f" — result of `{one_line(message.tool_call_id)}`"
        if message.status == "error":
            heading += " (failed)"
    attached = list(attachments(message))
    names = {ident: name for name, _, ident in attached if ident}
    ai = isinstance(message, AIMessage)
    content = message.content
    # a tool_use block is written once, as the tool call it gives the message (below)
    calls = {c["id"] for c in getattr(message, "tool_calls", ()) if c.get("id")}
    markup = message_markup(message)  # Claude Code's tags for a slash command, its output
    if markup is not None:
        parts = [_markup(markup)]
    elif isinstance(content, str):
        parts = [_text(content, ai)]
    else:
        parts = [_block(b, names, ai, images) for b in content if not _call_block(b, calls)]
    reasoning = field_reasoning(message)  # (DeepSeek's reasoning_content...: quoted first)
    if reasoning and not has_reasoning_blocks(message):
        parts.insert(0, _quote(reasoning))
    for name, detail, _ in attached:
        parts.append(f"*[attached: {name}{f' ({detail})' if detail else ''}]*")
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


def conversation_facts(
    conversation: Conversation, ahead: list[AnyMessage] | None = None
) -> dict[str, str]:
    """id, created, updated (ISO 8601) and model of a conversation, those it has. A log
    read as a stream is read once: of its messages, only those read ``ahead`` (up to its
    first question) are asked, for its creation, not its last update."""
    meta = conversation.meta
    whole = isinstance(conversation.messages, list)
    held = conversation.messages if whole else (ahead or [])
    created, updated = conversation_times(conversation.with_messages(held))
    if not whole:
        updated = conversation_times(conversation.with_messages([]))[1]  # its record's
    facts = {
        "id": meta.get("id") or meta.get("uuid") or meta.get("conversation_id"),
        "created": iso(created) if created is not None else None,
        "updated": iso(updated) if updated is not None else None,
        "model": conversation_model(conversation, held),
    }
    return {key: str(value) for key, value in facts.items() if value}


def titled(conversation: Conversation, index: int) -> tuple[str, Conversation, list[AnyMessage]]:
    """The conversation's title, the conversation to read on, and the messages read
    ahead: a stream's messages up to its first question are read to name it, and given
    back in front (all of them, as a list, when it holds no question)."""
    messages = conversation.messages
    if isinstance(messages, list) or any(conversation.meta.get(k) for k in _TITLES):
        return conversation_title(conversation, index), conversation, []
    messages = iter(messages)
    ahead = []
    for message in messages:
        ahead.append(message)
        if message.type == "human":
            break
    else:
        conversation = conversation.with_messages(ahead)
        return conversation_title(conversation, index), conversation, ahead
    title = conversation_title(conversation.with_messages(ahead), index)
    return title, conversation.with_messages(itertools.chain(ahead, messages)), ahead


def conversation_markdown_parts(
    conversation: Conversation, index: int, facts: bool = True, images: Images = None
) -> Iterator[str]:
    """A conversation's transcript in pieces, a message at a time, joined as they come;
    its facts listed under the title (``facts``: a note has them in its front matter).
    The images its zip holds are shown inline as data URLs, or where ``images`` says."""
    if images is None and conversation.files is not None:
        images = conversation.files.data_url
    title, conversation, ahead = titled(conversation, index)
    yield f"# {one_line(title)}"
    details = conversation_facts(conversation, ahead) if facts else {}
    if details:
        yield "\n\n" + "\n".join(f"- {key}: {one_line(value)}" for key, value in details.items())
    for message in conversation.messages:
        yield "\n\n" + message_markdown(message, images)
    yield "\n"
