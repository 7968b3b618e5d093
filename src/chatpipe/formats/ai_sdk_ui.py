"""Vercel AI SDK ``UIMessage`` logs (``ai-sdk-ui``): ``{id, role, parts, metadata}`` as
chat apps persist them (a JSON array, JSONL, or a request body ``{id, messages}``).

Parts become blocks: ``text``, ``reasoning``, ``file`` (a data URL inline, else by URL),
sources (``source-url``, ``source-document``) as citations on a text block, data and
custom parts kept as ``non_standard``. A tool part (``tool-NAME`` or ``dynamic-tool``)
holds a call and, once it ran, its result: the call goes to the assistant turn, the
output (or ``errorText``) to a tool message after it. An assistant message is several
turns: a new one begins at each ``step-start`` and wherever content follows a tool's
result. The AI SDK 4 shapes (``tool-invocation`` parts, ``content`` beside or instead of
``parts``) read the same way.

A record is several messages, so ``read_message`` gives a list that ``finish`` flattens.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ..errors import ValidationError
from ..model import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage
from .base import VARIANT, Dialect, Guess, Sample
from .record_errors import not_a_message

_ROLES = ("system", "user", "assistant")
_PART_TYPES = frozenset(
    ("text", "reasoning", "file", "source-url", "source-document", "step-start")
) | frozenset(("dynamic-tool", "tool-invocation", "reasoning-file", "custom", "source"))
_DONE = ("output-available", "output-error", "output-denied")
# the fields of a tool part that make its call and its result
_CALL_FIELDS = ("type", "toolName", "toolCallId", "input", "output", "errorText")


def _is_ai_sdk_part(part: Any) -> bool:
    kind = part.get("type") if isinstance(part, dict) else None
    return isinstance(kind, str) and (kind in _PART_TYPES or kind.startswith(("tool-", "data-")))


def is_ui_message(value: Any) -> bool:
    """A UIMessage: a role of the AI SDK's three, and ``parts`` each with a ``type`` (no
    Gemini part has one), at least one of the AI SDK's own kinds or an ``id`` beside."""
    if not isinstance(value, dict) or value.get("role") not in _ROLES:
        return False
    parts = value.get("parts")
    if not isinstance(parts, list) or isinstance(value.get("content"), list):
        return False
    if not all(isinstance(p, dict) and isinstance(p.get("type"), str) for p in parts):
        return False
    return any(map(_is_ai_sdk_part, parts)) or (not parts and "id" in value)


class AiSdkUiDialect(Dialect):
    name = "ai-sdk-ui"
    description = "Vercel AI SDK UIMessage logs {id, role, parts}: text, reasoning, tools, files"
    example = "ai_sdk_ui__pydanticai_submit_message_every_part.json"

    evidence = VARIANT

    def is_message(self, value: Any) -> bool:
        return is_ui_message(value)

    def score(self, sample: Sample) -> Guess | None:
        from .openai import variant_score  # (its {role, content} shape is OpenAI's)

        return variant_score(self, sample)

    def read_message(self, value: Any) -> Any:
        """The messages of one UIMessage (a list: an assistant message may be several)."""
        if not isinstance(value, dict) or value.get("role") not in _ROLES:
            raise not_a_message(self.name, value)
        parts = value.get("parts")
        content = value.get("content")
        if parts is None:  # AI SDK 4 messages may hold their text only
            parts = [{"type": "text", "text": content}] if isinstance(content, str) else []
            content = None
        if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
            raise ValidationError("a UIMessage's 'parts' must be a list of objects")
        kept = {k: v for k, v in value.items() if k not in ("id", "role", "parts", "content")}
        if isinstance(content, str) and content != _joined_text(parts):
            kept["content"] = content  # (AI SDK 4: the text beside the parts, when it differs)
        role = value["role"]
        numbered = list(enumerate(parts))
        cited = _cited(parts)
        if role == "assistant":
            messages = _assistant(numbered, cited)
        else:
            blocks, rest = _blocks(numbered, cited)
            blocks += [{"type": "non_standard", "value": p} for p in rest if _tool(p) is not None]
            cls = SystemMessage if role == "system" else HumanMessage
            messages = [cls(_content(blocks))]
        first = messages[0]
        given = value.get("id")
        if isinstance(given, str):
            first.id = given
        elif given is not None:
            kept["id"] = given  # (an id of another kind: kept as it came)
        first.additional_kwargs.update(kept)
        return messages

    def finish(
        self, messages: Iterable[Any], links: Any = None, start: int = 0
    ) -> Iterable[AnyMessage]:
        for item in messages:
            if isinstance(item, list):
                yield from item
            else:
                yield item


def _joined_text(parts: list[dict[str, Any]]) -> str:
    return "".join(str(p.get("text") or "") for p in parts if p.get("type") == "text")


def _content(blocks: list[dict[str, Any]]) -> Any:
    if not blocks:
        return ""
    if len(blocks) == 1 and blocks[0]["type"] == "text" and set(blocks[0]) == {"type", "text"}:
        return blocks[0]["text"]
    return blocks


def _extras(part: dict[str, Any], used: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in part.items() if k not in ("type", *used)}


def _with_extras(block: dict[str, Any], extras: dict[str, Any]) -> dict[str, Any]:
    if extras:
        block["extras"] = extras
    return block


def _block(part: dict[str, Any]) -> dict[str, Any] | None:
    """The block of a part that is content (None for sources, steps and tools)."""
    kind = part["type"]
    if kind == "text":
        return _with_extras(
            {"type": "text", "text": part.get("text") or ""}, _extras(part, ("text",))
        )
    if kind == "reasoning":  # (AI SDK 4 names the text "reasoning")
        key = "text" if "text" in part else "reasoning"
        block = {"type": "reasoning", "reasoning": part.get(key) or ""}
        return _with_extras(block, _extras(part, (key,)))
    if kind == "file":
        return _file(part)
    return {"type": "non_standard", "value": part}


def _file(part: dict[str, Any]) -> dict[str, Any]:
    mime = part.get("mediaType", part.get("mimeType"))
    head = mime.split("/", 1)[0] if isinstance(mime, str) else ""
    block: dict[str, Any] = {"type": head if head in ("image", "audio", "video") else "file"}
    url = part.get("url")
    data = part.get("data")  # (AI SDK 4: base64 data beside its mimeType)
    if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
        declared, block["base64"] = url[5:].split(";base64,", 1)
        mime = mime or declared
    elif isinstance(url, str):
        block["url"] = url
    elif isinstance(data, str):
        block["base64"] = data
    if isinstance(mime, str):
        block["mime_type"] = mime
    if isinstance(part.get("filename"), str):
        block["filename"] = part["filename"]
    return _with_extras(block, _extras(part, ("mediaType", "mimeType", "url", "data", "filename")))


def _citation(part: dict[str, Any]) -> dict[str, Any]:
    """A source as a citation (AI SDK 4: ``{type: "source", source: {...}}``)."""
    source = part.get("source") if isinstance(part.get("source"), dict) else part
    citation: dict[str, Any] = {"type": "citation"}
    for key in ("url", "title"):
        if isinstance(source.get(key), str):
            citation[key] = source[key]
    extras = {k: v for k, v in source.items() if k not in ("type", "url", "title")}
    if source is not part:
        extras["type"] = part["type"]
    return _with_extras(citation, extras)


_SOURCES = ("source-url", "source-document", "source")


def _cited(parts: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    """The citations each text part carries, by its index: a source cites the text after
    it (the answer it backs), else the text before it; with no text at all, the source's
    own index (an empty text block holds it there)."""
    texts = [i for i, p in enumerate(parts) if p["type"] == "text"]
    cited: dict[int, list[dict[str, Any]]] = {}
    for i, part in enumerate(parts):
        if part["type"] in _SOURCES:
            after = [t for t in texts if t > i]
            at = after[0] if after else (texts[-1] if texts else i)
            cited.setdefault(at, []).append(_citation(part))
    return cited


def _blocks(
    parts: list[tuple[int, dict[str, Any]]], cited: dict[int, list[dict[str, Any]]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The content blocks of numbered parts, citations on the text they back; and the
    parts left for the caller (tools and steps)."""
    blocks: list[dict[str, Any]] = []
    rest: list[dict[str, Any]] = []
    for i, part in parts:
        kind = part["type"]
        if kind in _SOURCES:
            if i in cited:  # no text to back: an empty one holds the citations
                blocks.append({"type": "text", "text": "", "annotations": cited[i]})
        elif kind == "step-start" or _tool(part) is not None:
            rest.append(part)
        else:
            block = _block(part)
            if i in cited and kind == "text":
                block["annotations"] = cited[i]
            blocks.append(block)
    return blocks, rest


def _tool(part: dict[str, Any]) -> dict[str, Any] | None:
    """A tool part as ``{name, id, state, input, output, errorText, extras}`` (AI SDK 4's
    ``toolInvocation`` too); None for a part that is no tool."""
    kind = part["type"]
    if kind == "tool-invocation" and isinstance(part.get("toolInvocation"), dict):
        old = part["toolInvocation"]
        state = {"result": "output-available"}.get(old.get("state"), old.get("state"))
        extras = {k: v for k, v in old.items() if k not in ("toolName", "toolCallId", "args")}
        extras.pop("result", None)
        return {
            "name": old.get("toolName"),
            "id": old.get("toolCallId"),
            "state": state,
            "input": old.get("args"),
            "output": old.get("result"),
            "extras": extras,
        }
    if kind == "dynamic-tool":
        name = part.get("toolName")
    elif kind.startswith("tool-") and kind != "tool-invocation":
        name = kind[5:]
    else:
        return None
    return {
        "name": name,
        "id": part.get("toolCallId"),
        "state": part.get("state"),
        "input": part.get("input", part.get("rawInput")),
        "output": part.get("output"),
        "error": part.get("errorText"),
        "extras": _extras(part, _CALL_FIELDS[1:]),
    }


def _assistant(
    parts: list[tuple[int, dict[str, Any]]], cited: dict[int, list[dict[str, Any]]]
) -> list[AnyMessage]:
    """An assistant UIMessage's turns: each step's AI message and its tools' results."""
    out: list[AnyMessage] = []
    segment: list[tuple[int, dict[str, Any]]] = []
    results = False  # the segment holds a tool's result: content after it starts a turn
    for i, part in parts:
        tool = _tool(part)
        kind = part["type"]
        if kind == "step-start" or (results and kind in ("text", "reasoning", "file")):
            out.extend(_turn(segment, cited))
            segment, results = [], False
            if kind == "step-start":
                continue
        segment.append((i, part))
        results = results or (tool is not None and tool["state"] in _DONE)
    out.extend(_turn(segment, cited))
    return out or [AIMessage("")]


def _turn(
    parts: list[tuple[int, dict[str, Any]]], cited: dict[int, list[dict[str, Any]]]
) -> list[AnyMessage]:
    blocks, rest = _blocks(parts, cited)
    calls, invalid, answers, kept = [], [], [], {}
    for part in rest:
        tool = _tool(part)
        if tool is None:
            continue
        name = tool["name"] if isinstance(tool["name"], str) else ""
        call_id = tool["id"] if isinstance(tool["id"], str) else None
        args = _args(tool["input"])
        if args is None:
            text = tool["input"]
            text = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
            invalid.append(
                {"name": name, "args": text, "id": call_id, "error": "input is not an object"}
            )
        else:
            calls.append({"name": name, "args": args, "id": call_id})
        extras = tool["extras"]
        if tool["state"] and "state" not in extras:  # (an AI SDK 4 state stays as it came)
            extras = {**extras, "state": tool["state"]}
        if extras and call_id is not None:
            kept[call_id] = extras
        answer = _answer(tool, name, call_id)
        if answer is not None:
            answers.append(answer)
    if not (blocks or calls or invalid or answers):
        return []
    kwargs = {"tool_parts": kept} if kept else {}
    ai = AIMessage(
        _content(blocks), tool_calls=calls, invalid_tool_calls=invalid, additional_kwargs=kwargs
    )
    return [ai, *answers]


def _args(value: Any) -> dict[str, Any] | None:
    if value is None:
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    return value if isinstance(value, dict) else None


def _answer(tool: dict[str, Any], name: str, call_id: str | None) -> ToolMessage | None:
    state = tool["state"]
    fields: dict[str, Any] = {"tool_call_id": call_id or "", "name": name or None}
    if state == "output-available":
        output = tool["output"]
        text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
        return ToolMessage(text, **fields)
    if state == "output-error":
        return ToolMessage(str(tool.get("error") or ""), status="error", **fields)
    if state == "output-denied":
        approval = tool["extras"].get("approval")
        reason = approval.get("reason") if isinstance(approval, dict) else None
        return ToolMessage(reason if isinstance(reason, str) else "", status="error", **fields)
    return None
