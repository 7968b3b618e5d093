"""Messages in the shape chat templates read: the dicts people pass to ``apply_chat_template``.

Each message is its OpenAI chat dict (``role``, ``content``, ``name``, ``tool_calls``,
``tool_call_id``), with what templates expect instead of what the OpenAI API expects:

- a tool call's ``function.arguments`` is the arguments object, not its JSON text;
- a tool result carries the ``name`` of the tool it answers (from the call it links to);
- reasoning (``reasoning``/``thinking`` blocks, or ``reasoning_content`` as DeepSeek and
  vLLM write it) is the message's ``reasoning_content``, not part of its content;
- content is a string when it is only text; otherwise a list of parts: ``{"type": "text",
  "text"}``, ``{"type": "image", "url"}`` (a data URL for inline images), ``{"type":
  "audio", ...}``, other blocks as they are;
- content is always there: ``""`` for an assistant turn that only calls tools (many
  templates, Qwen 3's among them, fail on a message without ``content``, which is what
  the OpenAI API's ``null`` becomes once transformers drops ``None`` values).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..formats.openai_writer import OpenAIWriter
from ..model import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage

_SIMPLE = {HumanMessage: "user", AIMessage: "assistant", SystemMessage: "system"}
_REASONING_BLOCKS = {"reasoning": "reasoning", "thinking": "thinking"}


class ShapedMessages(list):
    """Messages already in this shape (fast/template_rows.py makes them from plain rows)."""

    __slots__ = ()


def chat_messages(
    messages: Iterable[AnyMessage], origins: list[int] | None = None
) -> list[dict[str, Any]]:
    """The template-shaped dicts of ``messages``, in order (a message may give several);
    ``origins``, when given, gets the index of the message each dict comes from."""
    if type(messages) is ShapedMessages:
        if origins is not None:
            origins.extend(range(len(messages)))
        return messages
    writer = OpenAIWriter(text_format="block")
    names: dict[str, str] = {}  # tool-call id -> tool name, for the results
    out: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        simple = _SIMPLE.get(type(message))
        if (  # most messages: text, and nothing else to say
            simple is not None
            and type(message.content) is str
            and not message.additional_kwargs
            and not message.name
            and not (simple == "assistant" and (message.tool_calls or message.invalid_tool_calls))
        ):
            out.append({"role": simple, "content": message.content})
            if origins is not None:
                origins.append(index)
            continue
        reasoning = _reasoning(message)
        for item in writer.message(index, message):
            shaped = _shaped(item, message, names)
            if reasoning and item["role"] == "assistant":
                shaped["reasoning_content"] = reasoning
                reasoning = None
            out.append({k: v for k, v in shaped.items() if v is not None})
            if origins is not None:
                origins.append(index)
    return out


def _shaped(item: dict[str, Any], message: AnyMessage, names: dict[str, str]) -> dict[str, Any]:
    out = dict(item)
    calls = out.get("tool_calls")
    if calls:
        out["tool_calls"] = _calls(message, calls, names)
    if isinstance(message.content, str):
        out["content"] = message.content
    else:
        out["content"] = _content(out.get("content"))
    if out["role"] == "tool" and "name" not in out:
        name = names.get(out.get("tool_call_id") or "")
        if name is None and isinstance(message, ToolMessage):
            name = message.additional_kwargs.get("name")
        if name:
            out["name"] = name
    return out


def _calls(message: AnyMessage, written: list[dict], names: dict[str, str]) -> list[dict]:
    """Tool calls with their arguments as objects (as parsed); unparsed ones as they came."""
    parsed = message.tool_calls if isinstance(message, AIMessage) else []
    out = []
    for k, call in enumerate(written):
        function = dict(call.get("function") or {})
        if k < len(parsed):
            function["arguments"] = parsed[k].get("args", {})
        shaped = {"id": call.get("id"), "type": call.get("type", "function"), "function": function}
        if shaped["id"] is None:
            del shaped["id"]
        elif function.get("name"):
            names[shaped["id"]] = function["name"]
        out.append(shaped)
    return out


def _content(content: Any) -> Any:
    """String content as it is; blocks without reasoning: a string when all text, else parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if not isinstance(block, dict):
            parts.append({"type": "text", "text": str(block)})
            continue
        kind = block.get("type")
        if kind in _REASONING_BLOCKS:
            continue
        if kind == "image_url":
            image = block.get("image_url")
            url = image.get("url") if isinstance(image, dict) else image
            parts.append({"type": "image", "url": url})
        elif kind == "input_audio":
            parts.append({"type": "audio", **(block.get("input_audio") or {})})
        else:
            parts.append(block)
    if not parts:
        return ""
    if all(p.get("type") == "text" for p in parts):
        return "\n".join(str(p.get("text", "")) for p in parts)
    return parts


def _reasoning(message: AnyMessage) -> str | None:
    if not isinstance(message, AIMessage):
        return None
    texts = []
    if isinstance(message.content, list):
        for block in message.content:
            kind = block.get("type") if isinstance(block, dict) else None
            if isinstance(kind, str) and kind in _REASONING_BLOCKS:
                text = block.get(_REASONING_BLOCKS[block["type"]])
                if isinstance(text, str) and text:
                    texts.append(text)
    extra = message.additional_kwargs.get("reasoning_content")
    if not texts and isinstance(extra, str) and extra:
        texts.append(extra)
    return "\n".join(texts) if texts else None
