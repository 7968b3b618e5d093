"""Responses API items read into messages: an assistant turn's reasoning, text and calls
gathered into one message, function call outputs as tool messages, other users' and system
items as theirs; a response's output and usage as its conversation. The Responses dialect,
Codex rollouts and OpenAI batch results read items through here."""

from __future__ import annotations

from typing import Any

from ..errors import Location
from .base import Conversation


def _part_block(part: Any) -> Any:
    """A Responses content part as a standard block; extras keep the rest."""
    if not isinstance(part, dict):
        return part
    kind = part.get("type")
    if kind in ("input_text", "output_text", "text"):
        block: dict[str, Any] = {"type": "text", "text": part.get("text", "")}
        rest = {k: v for k, v in part.items() if k not in ("type", "text")}
        if rest.get("annotations") == []:
            rest.pop("annotations")
        if rest.get("logprobs") == []:
            rest.pop("logprobs")
        if kind != "input_text":
            rest["source_type"] = kind
        if rest:
            block["extras"] = rest
        return block
    if kind == "input_image":
        url = part.get("image_url")
        block = (
            {"type": "image", "url": url}
            if url
            else {"type": "image", "file_id": part.get("file_id")}
        )
        rest = {k: v for k, v in part.items() if k not in ("type", "image_url", "file_id")}
        if rest:
            block["extras"] = rest
        return block
    return {"type": "non_standard", "value": part}


def messages_from_items(items: list[Any], instructions: Any = None) -> list[Any]:
    """Responses items as messages: one assistant turn's reasoning, text and calls together."""
    from ..model import SystemMessage

    reading = _Items()
    if instructions:
        reading.out.append(
            SystemMessage(instructions, additional_kwargs={"source": "instructions"})
        )
    for item in items:
        reading.item(item)
    reading.close()
    return reading.out


class _Items:
    """Responses items read in order into messages: an assistant turn gathers its
    reasoning, text and calls (``turn``) until an item of another turn closes it."""

    def __init__(self) -> None:
        self.out: list[Any] = []
        self.turn: dict[str, Any] | None = None  # the assistant turn being gathered

    def item(self, item: Any) -> None:
        if isinstance(item, str):
            from ..model import HumanMessage

            self.close()
            self.out.append(HumanMessage(item))
            return
        kind = item.get("type", "message")
        if kind == "message":
            if item.get("role") == "assistant":
                self.assistant_message(item)
            else:
                self.message(item)
        elif kind == "reasoning":
            self.reasoning(item)
        elif kind in ("function_call", "custom_tool_call"):
            self.call(item, kind)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self.output(item, kind)
        else:  # built-in tools, item references: kept whole in the assistant turn
            self.assistant()["blocks"].append({"type": "non_standard", "value": item})

    def assistant(self) -> dict[str, Any]:
        if self.turn is None:
            self.turn = {"blocks": [], "calls": [], "kwargs": {}}
        return self.turn

    def close(self) -> None:
        from ..model import AIMessage

        turn, self.turn = self.turn, None
        if turn is not None:
            self.out.append(
                AIMessage(
                    turn["blocks"],
                    tool_calls=turn["calls"],
                    id=turn.get("id"),
                    additional_kwargs=turn["kwargs"],
                )
            )

    def assistant_message(self, item: dict[str, Any]) -> None:
        current = self.assistant()
        content = item.get("content")
        parts = content if isinstance(content, list) else [{"type": "output_text", "text": content}]
        for part in parts:
            if isinstance(part, dict) and part.get("type") == "refusal":
                current["kwargs"]["refusal"] = part.get("refusal")
            current["blocks"].append(_part_block(part))
        current.setdefault("id", item.get("id"))
        rest = {k: v for k, v in item.items() if k not in ("type", "role", "content", "id")}
        if rest:
            current["kwargs"].setdefault("items", []).append({"id": item.get("id"), **rest})

    def message(self, item: dict[str, Any]) -> None:
        from ..model import HumanMessage, SystemMessage

        self.close()
        content = item.get("content")
        content = [_part_block(p) for p in content] if isinstance(content, list) else content
        role = item.get("role")
        extra = {k: v for k, v in item.items() if k not in ("type", "role", "content")}
        if role in ("system", "developer"):
            kwargs = {"__openai_role__": "developer", **extra} if role == "developer" else extra
            self.out.append(SystemMessage(content or "", additional_kwargs=kwargs))
        else:
            self.out.append(HumanMessage(content or "", additional_kwargs=extra))

    def reasoning(self, item: dict[str, Any]) -> None:
        summary = "".join(
            s.get("text", "") for s in item.get("summary") or () if isinstance(s, dict)
        )
        extras = {k: v for k, v in item.items() if k not in ("type",)}
        self.assistant()["blocks"].append(
            {"type": "reasoning", "reasoning": summary, "extras": extras}
        )

    def call(self, item: dict[str, Any], kind: str) -> None:
        current = self.assistant()
        if kind == "function_call":
            from .openai_messages import parse_arguments

            args, _ = parse_arguments(item.get("arguments"))
            args = args if isinstance(args, dict) else {"arguments": item.get("arguments")}
        else:
            args = {"input": item.get("input")}
        current["calls"].append(
            {"name": item.get("name") or "", "args": args, "id": item.get("call_id")}
        )
        current["kwargs"].setdefault("items", []).append(
            {k: v for k, v in item.items() if k not in ("arguments", "input", "name")}
        )

    def output(self, item: dict[str, Any], kind: str) -> None:
        from ..model import ToolMessage

        self.close()
        output = item.get("output")
        extra = {k: v for k, v in item.items() if k not in ("type", "call_id", "output")}
        if kind != "function_call_output":
            extra["type"] = kind
        self.out.append(
            ToolMessage(
                output if output is not None else "",
                tool_call_id=item.get("call_id") or "",
                additional_kwargs=extra,
            )
        )


def _responses_usage(usage: Any) -> Any:
    if not isinstance(usage, dict):
        return None
    out = {
        "input_tokens": usage.get("input_tokens") or 0,
        "output_tokens": usage.get("output_tokens") or 0,
        "total_tokens": usage.get("total_tokens") or 0,
    }
    cached = (usage.get("input_tokens_details") or {}).get("cached_tokens")
    reasoning = (usage.get("output_tokens_details") or {}).get("reasoning_tokens")
    if cached:
        out["input_token_details"] = {"cache_read": cached}
    if reasoning:
        out["output_token_details"] = {"reasoning": reasoning}
    return out


def conversation_from_response(value: dict[str, Any], location: Location) -> Conversation:
    messages = messages_from_items(value.get("output") or [])
    usage = _responses_usage(value.get("usage"))
    for message in messages:
        if message.type == "ai":
            message.response_metadata = {
                "id": value.get("id"),
                "model_name": value.get("model"),
                "status": value.get("status"),
                "model_provider": "openai",
            }
            if message.id is None:
                message.id = value.get("id")
    ais = [m for m in messages if m.type == "ai"]
    if ais and usage:
        ais[-1].usage_metadata = usage
    meta = {k: v for k, v in value.items() if k != "output"}
    return Conversation(messages, meta, location)
