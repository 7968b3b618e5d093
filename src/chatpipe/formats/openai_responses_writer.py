"""Messages as OpenAI Responses API ``input`` items, with ``instructions`` from the system
turn: what ``--to openai-responses`` writes, and the body of a ``/v1/responses`` batch line.

The reader (openai_responses_items.py) gathers one assistant turn's items (reasoning, messages,
function calls) into one AI message and keeps each item's own fields (ids, status) in
``additional_kwargs["items"]``; this writer gives those items back, so that a request
chatpipe reads is written as the same request.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..io.jsontext import json_text
from ..model import AIMessage, AnyMessage, SystemMessage, ToolMessage

# the fields of a Responses API request (a response object read as a request keeps these)
REQUEST_FIELDS = frozenset(
    (
        "model",
        "instructions",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "temperature",
        "top_p",
        "top_logprobs",
        "max_output_tokens",
        "max_tool_calls",
        "reasoning",
        "text",
        "truncation",
        "metadata",
        "previous_response_id",
        "conversation",
        "prompt",
        "prompt_cache_key",
        "safety_identifier",
        "service_tier",
        "store",
        "include",
        "background",
        "user",
    )
)
_MEDIA_TYPES = {"image": "input_image", "file": "input_file"}
# blocks no content part stands for: tool calls (written from the message's own), and what
# the Responses API cannot hold (losses.py says so): another model's redacted thinking,
# audio and video
_NOT_PARTS = frozenset(
    ("tool_use", "function_call", "redacted_thinking", "audio", "video", "input_audio")
)


def write_request(
    messages: Iterable[AnyMessage], meta: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A Responses request: the conversation's fields, ``instructions`` and ``input``."""
    meta = dict(meta or {})
    if meta.get("object") == "response":  # a response read as a conversation: its request
        meta = {k: v for k, v in meta.items() if k in REQUEST_FIELDS}
    instructions, items = write_input(messages)
    record: dict[str, Any] = {}
    for key, value in meta.items():  # the fields in their order, instructions in its place
        if key == "instructions":
            record[key] = instructions if instructions is not None else value
        elif key == "tools" and isinstance(value, list):
            record[key] = [_tool(t) for t in value]
        elif key not in ("input", "messages"):
            record[key] = value
    if instructions is not None:
        record["instructions"] = instructions
    record["input"] = items
    return record


def _tool(tool: Any) -> Any:
    """A Chat Completions function tool ``{type, function: {...}}`` or an Anthropic tool
    ``{name, description, input_schema}`` as the Responses API takes it, ``{type, name,
    description, parameters, strict}``; other tools as they are."""
    if not isinstance(tool, dict):
        return tool
    function = tool.get("function")
    if isinstance(function, dict) and tool.get("type", "function") == "function":
        return {"type": "function", **function}
    if "input_schema" in tool and tool.get("type", "custom") == "custom":  # Anthropic's
        rest = {k: v for k, v in tool.items() if k not in ("type", "input_schema")}
        return {"type": "function", **rest, "parameters": tool["input_schema"]}
    return tool


def write_input(messages: Iterable[AnyMessage]) -> tuple[str | None, list[Any]]:
    """(instructions, input items). System messages read from ``instructions`` go back
    there; where none was, a conversation's first message, when it is a system message of
    text, becomes the instructions; other system messages are system or developer items."""
    messages = list(messages)
    marked = [m for m in messages if _from_instructions(m)]
    lifted: list[AnyMessage] = marked
    if not marked and messages and _plain_system(messages[0]):
        lifted = [messages[0]]
    instructions = "\n\n".join(_text(m.content) for m in lifted) if lifted else None
    items: list[Any] = []
    for message in messages:
        if any(message is m for m in lifted):
            continue
        items.extend(_items(message))
    return instructions, items


def _from_instructions(message: AnyMessage) -> bool:
    return (
        isinstance(message, SystemMessage)
        and message.additional_kwargs.get("source") == "instructions"
    )


def _plain_system(message: AnyMessage) -> bool:
    return (
        isinstance(message, SystemMessage)
        and "__openai_role__" not in message.additional_kwargs
        and not {k for k in message.additional_kwargs if k != "source"}
        and _text(message.content) is not None
    )


def _text(content: Any) -> Any:
    """The text of content that is text only, or None."""
    if isinstance(content, str):
        return content
    texts = []
    for block in content:
        if isinstance(block, str):
            texts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text" and not block.get("extras"):
            texts.append(block.get("text", ""))
        else:
            return None
    return "\n".join(texts)


def _extra(message: AnyMessage, *leave: str) -> dict[str, Any]:
    skip = {"__openai_role__", "source", "items", "refusal", *leave}
    return {k: v for k, v in message.additional_kwargs.items() if k not in skip}


def _items(message: AnyMessage) -> list[Any]:
    if isinstance(message, AIMessage):
        return _assistant_items(message)
    if isinstance(message, ToolMessage):
        kind = message.additional_kwargs.get("type") or "function_call_output"
        item = {"type": kind, "call_id": message.tool_call_id}
        content = message.content
        item["output"] = content if isinstance(content, str) else _parts(content)
        item.update(_extra(message, "type"))
        return [item]
    if isinstance(message, SystemMessage):
        role = message.additional_kwargs.get("__openai_role__", "system")
    else:  # human; chat and function roles are user turns (a reported loss)
        role = "user"
    content = message.content
    written: dict[str, Any] = {"role": role}
    written["content"] = content if isinstance(content, str) else _parts(content)
    written.update(_extra(message))
    return [written]


def _assistant_items(message: AIMessage) -> list[Any]:
    """An assistant turn: reasoning items, one message item for its text, other items as
    they were, then its function calls."""
    entries = [e for e in message.additional_kwargs.get("items") or () if isinstance(e, dict)]
    about = next((e for e in entries if "type" not in e), None)  # the message item's fields
    items: list[Any] = []
    parts: list[Any] = []
    content = message.content
    blocks = [content] if isinstance(content, str) else content
    for block in blocks:
        if isinstance(block, dict) and block.get("type") in ("reasoning", "thinking"):
            items.append(_reasoning(block))
        elif isinstance(block, dict) and block.get("type") == "non_standard":
            value = block.get("value")
            (items if _is_item(value) else parts).append(value)
        elif isinstance(block, dict) and block.get("type") in _NOT_PARTS:
            continue  # its tool calls, written below; what Responses cannot hold (a loss)
        elif block != "":
            parts.append(_part(block, "assistant"))
    if parts:
        item: dict[str, Any] = {"type": "message", "role": "assistant", "content": parts}
        ident = about.get("id") if about else None
        if ident is None and isinstance(message.id, str) and message.id.startswith("msg_"):
            ident = message.id
        if ident is not None:
            item["id"] = ident
        if about:
            item.update({k: v for k, v in about.items() if k != "id"})
        items.append(item)
    calls = {e.get("call_id"): e for e in entries if e.get("type")}
    for call in message.tool_calls:
        entry = calls.get(call["id"]) or {"type": "function_call"}
        written: dict[str, Any] = dict(entry)  # the item's own fields, in their order
        written["call_id"] = call["id"]
        written["name"] = call["name"]
        if entry.get("type") == "custom_tool_call":
            written["input"] = call["args"].get("input", "")
        else:
            written["arguments"] = json_text(call["args"])
        items.append(written)
    for bad in message.invalid_tool_calls:  # arguments that are not JSON: text, as they came
        args = bad.get("args")
        items.append(
            {
                "type": "function_call",
                "call_id": bad.get("id"),
                "name": bad.get("name") or "",
                "arguments": args if isinstance(args, str) else json_text(args),
            }
        )
    return items


def _is_item(value: Any) -> bool:
    """Whether a kept Responses value is an item of its own (a built-in tool's call, an
    item reference), not a part of the message's content."""
    kind = value.get("type") if isinstance(value, dict) else None
    return isinstance(kind, str) and (
        kind.endswith(("_call", "_output", "_reference")) or kind.startswith("mcp_")
    )


def _reasoning(block: dict[str, Any]) -> dict[str, Any]:
    """A reasoning item: the one the reader kept, or one made of another model's thinking."""
    if block.get("type") == "thinking":
        text, extras = block.get("thinking", ""), {}
    else:
        text, extras = block.get("reasoning", ""), dict(block.get("extras") or {})
    if "summary" not in extras:
        extras["summary"] = [{"type": "summary_text", "text": text}] if text else []
    keep = ("id", "summary", "content", "encrypted_content", "status")
    item: dict[str, Any] = {"type": "reasoning"}
    item.update({k: v for k, v in extras.items() if k in keep})
    return item


def _parts(blocks: list[Any]) -> list[Any]:
    return [
        _part(b, "user")
        for b in blocks
        if not (isinstance(b, dict) and b.get("type") in _NOT_PARTS)
    ]


def _part(block: Any, role: str) -> Any:
    """A content block as a Responses content part."""
    if isinstance(block, str):
        return {"type": "output_text" if role == "assistant" else "input_text", "text": block}
    if not isinstance(block, dict):
        return block
    kind = block.get("type")
    extras = dict(block.get("extras") or {})
    if kind == "text":
        default = "output_text" if role == "assistant" else "input_text"
        part = {"type": extras.pop("source_type", default), "text": block.get("text", "")}
        part.update(extras)
        if part["type"] == "output_text":
            part.setdefault("annotations", [])
        return part
    if kind == "non_standard":
        return block.get("value")
    if kind == "image_url":
        image = block.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        part = {"type": "input_image", "image_url": url}
        if isinstance(image, dict) and "detail" in image:
            part["detail"] = image["detail"]
        return part
    if kind == "text-plain":
        from .openai_writer import file_as_text

        text = file_as_text(block)
        if text is not None:
            return {"type": "input_text", "text": text}
    if kind in _MEDIA_TYPES:
        return _media(block, _MEDIA_TYPES[kind], extras)
    return block  # Responses parts already, and blocks of other kinds, as they are


def _media(block: dict[str, Any], kind: str, extras: dict[str, Any]) -> dict[str, Any]:
    part: dict[str, Any] = {"type": kind}
    if block.get("file_id"):
        part["file_id"] = block["file_id"]
    elif block.get("base64"):
        data = f"data:{block.get('mime_type') or 'application/octet-stream'};base64,"
        data += block["base64"]
        part["image_url" if kind == "input_image" else "file_data"] = data
    elif block.get("url"):
        part["image_url" if kind == "input_image" else "file_url"] = block["url"]
    if kind == "input_file" and (block.get("filename") or extras.get("filename")):
        part["filename"] = block.get("filename") or extras.pop("filename")
    part.update(extras)
    return part
