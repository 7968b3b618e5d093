"""A Gemini CLI chat's messages as chatpipe's (gemini_cli.py reads the files): a ``user``
message's content (a string or Gemini parts), a ``gemini`` message's thoughts, text,
tokens and tool calls with their results, and the CLI's ``info``/``warning``/``error``
messages as the conversation's ``notes``."""

from __future__ import annotations

import json
from typing import Any

from ..errors import Location
from ..model import AIMessage, AnyMessage, Conversation, HumanMessage, ToolMessage
from .gemini import _block as part_block
from .gemini import _content as blocks_content
from .gemini import _usage as gemini_usage

NOTES = frozenset(("info", "warning", "error"))
_TOOL_FAILED = frozenset(("error", "cancelled"))


def build(
    branch: list[tuple[dict[str, Any], Location]], meta: dict[str, Any], location: Location
) -> Conversation:
    out: list[AnyMessage] = []
    places: list[Location] = []
    notes: list[dict[str, Any]] = []
    for message, at in branch:
        kind = message.get("type")
        if kind in NOTES:
            notes.append({"at": len(out), **message})
            continue
        made = _gemini(message) if kind == "gemini" else [_user(message)]
        out.extend(made)
        places.extend([at] * len(made))
    if notes:
        meta["notes"] = notes
    conversation = Conversation(out, meta, location)
    conversation.places = places
    return conversation


def _parts(content: Any) -> list[dict[str, Any]]:
    """A PartListUnion as blocks: a string, a part, or a list of strings and parts."""
    if content is None:
        return []
    items = content if isinstance(content, list) else [content]
    return [
        {"type": "text", "text": p} if isinstance(p, str) else part_block(p)
        for p in items
        if isinstance(p, (str, dict))
    ]


def _kept(message: dict[str, Any], *used: str) -> dict[str, Any]:
    return {k: v for k, v in message.items() if k not in ("id", "type", "content", *used)}


def _user(message: dict[str, Any]) -> HumanMessage:
    content = message.get("content")
    shown = content if isinstance(content, str) else blocks_content(_parts(content))
    return HumanMessage(
        shown,
        id=message.get("id"),
        additional_kwargs={"gemini_cli": _kept(message)},
    )


def _gemini(message: dict[str, Any]) -> list[AnyMessage]:
    """A model message: its thoughts, text and tool calls, then a tool message for each
    call's result."""
    blocks: list[dict[str, Any]] = []
    for thought in message.get("thoughts") or ():
        if not isinstance(thought, dict):
            continue
        subject = thought.get("subject") or ""
        text = thought.get("description") or ""
        block = {
            "type": "reasoning",
            "reasoning": f"**{subject}**\n\n{text}" if subject else str(text),
        }
        rest = {k: v for k, v in thought.items() if k not in ("subject", "description")}
        if rest:
            block["extras"] = rest
        blocks.append(block)
    content = message.get("content")
    blocks.extend(_parts(content))
    calls = [c for c in message.get("toolCalls") or () if isinstance(c, dict)]
    tokens = message.get("tokens")
    usage = None
    if isinstance(tokens, dict):
        usage = gemini_usage(
            {
                "promptTokenCount": tokens.get("input"),
                "candidatesTokenCount": tokens.get("output"),
                "cachedContentTokenCount": tokens.get("cached"),
                "thoughtsTokenCount": tokens.get("thoughts"),
                "totalTokenCount": tokens.get("total"),
            }
        )
    metadata: dict[str, Any] = {"model_provider": "google_genai"}
    if isinstance(message.get("model"), str):
        metadata["model_name"] = message["model"]
    kept = _kept(message, "thoughts", "toolCalls", "model")
    kept["toolCalls"] = [
        {k: v for k, v in c.items() if k not in ("args", "result", "name")} for c in calls
    ]
    if not kept["toolCalls"]:
        del kept["toolCalls"]
    ai = AIMessage(
        blocks_content(blocks) if blocks else (content if isinstance(content, str) else ""),
        tool_calls=[
            {
                "name": str(c.get("name") or ""),
                "args": c.get("args") if isinstance(c.get("args"), dict) else {},
                "id": str(c.get("id") or ""),
            }
            for c in calls
        ],
        id=message["id"],
        usage_metadata=usage,
        response_metadata=metadata,
        additional_kwargs={"gemini_cli": kept},
    )
    out: list[AnyMessage] = [ai]
    for call in calls:
        if call.get("result") is None:
            continue
        output, rest = tool_result(call["result"])
        out.append(
            ToolMessage(
                output,
                tool_call_id=str(call.get("id") or ""),
                name=str(call.get("name") or "") or None,
                status="error" if call.get("status") in _TOOL_FAILED else "success",
                additional_kwargs={"gemini_cli": {"status": call.get("status"), **rest}}
                if rest or call.get("status")
                else {},
            )
        )
    return out


def tool_result(result: Any) -> tuple[Any, dict[str, Any]]:
    """A tool's output from its result parts: the function response's ``output`` (or
    ``error``) as text, any other response as JSON text, other parts as blocks."""
    parts = result if isinstance(result, list) else [result]
    texts: list[Any] = []
    rest: dict[str, Any] = {}
    for part in parts:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict):
            body = response.get("response")
            if isinstance(body, dict) and set(body) <= {"output", "error"} and body:
                texts.extend(str(v) for v in body.values())
                if "error" in body:
                    rest["error"] = True
            else:
                texts.append(json.dumps(body, ensure_ascii=False))
            extra = {k: v for k, v in response.items() if k not in ("response", "name", "id")}
            if extra:
                rest.setdefault("functionResponse", []).append(extra)
        elif isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict):
            texts.append(part_block(part))
    if all(isinstance(t, str) for t in texts):
        return "\n".join(texts), rest
    return [{"type": "text", "text": t} if isinstance(t, str) else t for t in texts], rest
