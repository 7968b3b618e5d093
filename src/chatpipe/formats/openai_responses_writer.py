"""Messages as OpenAI Responses API ``input`` items, with ``instructions`` from the system
turn: what ``--to openai-responses`` writes, and the body of a ``/v1/responses`` batch line.

The reader (openai_responses_items.py) gathers one assistant turn's items (reasoning, messages,
function calls) into one AI message and keeps each item's own fields (ids, status) in
``additional_kwargs["items"]``; this writer gives those items back, so that a request
chatpipe reads is written as the same request. By default (``Writing.strict``) it writes
only what the API takes (the ``openai`` package's ``ResponseCreateParams``, 3.57.0): a
request's fields and each item's own keys, an assistant's text as a message item it takes
(an output message where the reader kept its id, else plain text), reasoning items that
came from the API (another model's reasoning has none of the id and encrypted content the
API needs: left out and said); a reader's other fields left out and said. With
``keep_extras`` every field goes back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ..io.jsontext import json_text
from ..model import AIMessage, AnyMessage, SystemMessage, ToolMessage
from .api import (
    ASKED_REASONING,
    DROP,
    MESSAGE_FIELDS,
    REASONING_FIELDS,
    SETTING_VALUES,
    Writing,
    names,
    renamed,
    with_reasoning,
    with_refusal,
    without_streaming,
)
from .base import Kept
from .openai_responses_parts import (
    BUILT_IN_ITEMS,
    NOT_PARTS,
    built_in_item,
    is_item,
    part,
    parts,
)
from .registry import extras_named

# the fields of a Responses API request (a response object read as a request keeps these)
_REQUEST_KEYS = """
    model instructions tools tool_choice parallel_tool_calls temperature top_p
    top_logprobs max_output_tokens max_tool_calls reasoning text truncation metadata
    previous_response_id conversation prompt prompt_cache_key prompt_cache_options
    prompt_cache_retention safety_identifier service_tier store include background user
    background_options context_management moderation stream stream_options"""
REQUEST_FIELDS = frozenset(_REQUEST_KEYS.split())
# what each of them holds, as JSON (a field of another provider's with the same name and
# another kind of value is said, not written)
_KINDS: dict[str, type | tuple[type, ...]] = {
    "model": str,
    "instructions": (str, list),
    "tools": list,
    "parallel_tool_calls": bool,
    "temperature": (int, float),
    "top_p": (int, float),
    "top_logprobs": int,
    "max_output_tokens": int,
    "max_tool_calls": int,
    "reasoning": dict,
    "text": dict,
    "truncation": str,
    "metadata": dict,
    "previous_response_id": str,
    "conversation": (str, dict),
    "prompt": dict,
    "include": list,
    "store": bool,
    "background": bool,
    "stream": bool,
    "user": str,
    "safety_identifier": str,
    "prompt_cache_key": str,
}
# other providers' names of its settings
_SAME = {"max_tokens": "max_output_tokens", "max_completion_tokens": "max_output_tokens"}
# each item's keys the API takes (its own; a reader's others are said)
ITEM_KEYS = {
    "function_call": frozenset(("type", "call_id", "name", "arguments", "id", "status")),
    "custom_tool_call": frozenset(("type", "call_id", "name", "input", "id")),
    "function_call_output": frozenset(("type", "call_id", "output", "id", "status")),
    "custom_tool_call_output": frozenset(("type", "call_id", "output", "id")),
    "reasoning": frozenset(("type", "id", "summary", "content", "encrypted_content", "status")),
}
_FOREIGN_REASONING = Kept(
    "reasoning that is not a Responses reasoning item",
    "written as reasoning items of summary text, without the id and encrypted content the "
    "API needs to take them back",
)
NO_REASONING_ITEM = (
    "reasoning that is not a Responses reasoning item (the API takes back only its own, "
    "by id with its encrypted content)"
)


def write_request(
    messages: Iterable[AnyMessage],
    meta: dict[str, Any] | None = None,
    writing: Writing | None = None,
) -> dict[str, Any]:
    """A Responses request: the conversation's fields, ``instructions`` and ``input``."""
    writing = writing or Writing()
    meta = dict(meta or {})
    if meta.get("object") == "response":  # a response read as a conversation: its request
        meta = {k: v for k, v in meta.items() if k in REQUEST_FIELDS}
    instructions, items = write_input(messages, writing)
    record: dict[str, Any] = {}
    for key, value in _fields(meta, writing).items():  # in their order, instructions in place
        if key == "instructions":
            record[key] = instructions if instructions is not None else value
        elif key == "tools" and isinstance(value, list) and writing.keep_extras:
            record[key] = [_tool(t) for t in value]
        elif key not in ("input", "messages"):
            record[key] = value
    if instructions is not None:
        record["instructions"] = instructions
    record["input"] = items
    return record


def _fields(meta: dict[str, Any], writing: Writing) -> dict[str, Any]:
    """The conversation's fields the API takes, another provider's tools and tool choice
    as the Responses API says them."""
    from .tool_specs import api_choice, api_tools

    meta = renamed(without_streaming(meta, writing), _SAME)
    kept = writing.fields(meta, lambda k: k in REQUEST_FIELDS or k in ("input", "messages"))
    if writing.keep_extras:
        return kept
    if kept.get("tools") is not None:
        kept["tools"] = api_tools(kept["tools"], "openai-responses", writing)
    if kept.get("tool_choice") is not None:
        kept["tool_choice"] = api_choice(kept["tool_choice"], "openai-responses")
    wrong = [
        k for k, v in kept.items() if v is not None and k in _KINDS and not isinstance(v, _KINDS[k])
    ]
    if kept.get("tool_choice", False) is None and meta.get("tool_choice") is not None:
        wrong.append("tool_choice")  # (one it has no words for)
    if wrong:
        writing.left(SETTING_VALUES, None, names(wrong))
    return {k: v for k, v in kept.items() if k not in wrong and (v is not None or k == "input")}


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


def write_input(
    messages: Iterable[AnyMessage], writing: Writing | None = None
) -> tuple[str | None, list[Any]]:
    """(instructions, input items). System messages read from ``instructions`` go back
    there; where none was, a conversation's first message, when it is a system message of
    text, becomes the instructions; other system messages are system or developer items."""
    writing = writing or Writing()
    messages = list(messages)
    marked = [m for m in messages if _from_instructions(m)]
    lifted: list[AnyMessage] = marked
    if not marked and messages and _plain_system(messages[0]):
        lifted = [messages[0]]
    instructions = "\n\n".join(_text(m.content) for m in lifted) if lifted else None
    items: list[Any] = []
    for index, message in enumerate(messages):
        if any(message is m for m in lifted):
            continue
        items.extend(_Items(writing, index).of(message))
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


def _responses_id(ident: Any, strict: bool) -> bool:
    """Whether a message's id is a Responses output message's (``msg_`` and hex; an
    Anthropic message's ``msg_01...`` id is none)."""
    if not isinstance(ident, str) or not ident.startswith("msg_"):
        return False
    return not strict or re.fullmatch(r"msg_[0-9a-f]{32,}", ident) is not None


class _Items:
    """The items of one message (its index ``index``), as ``writing`` asks."""

    def __init__(self, writing: Writing, index: int) -> None:
        self.writing, self.index = writing, index

    def parts(self, blocks: list[Any]) -> list[Any]:
        return parts(blocks, self.writing, self.index)

    def extra(self, message: AnyMessage, *leave: str) -> dict[str, Any]:
        """The message's own fields a reader kept: written back with ``keep_extras``,
        else said."""
        skip = {"__openai_role__", "source", "items", "refusal", *leave}
        found = {k: v for k, v in message.additional_kwargs.items() if k not in skip}
        if found and self.writing.strict:
            self.writing.left(MESSAGE_FIELDS, self.index, names(map(extras_named, found)))
            return {}
        return found

    def of(self, message: AnyMessage) -> list[Any]:
        if isinstance(message, AIMessage):
            return self.assistant(message)
        if isinstance(message, ToolMessage):
            kind = message.additional_kwargs.get("type") or "function_call_output"
            item = {"type": kind, "call_id": message.tool_call_id}
            content = message.content
            item["output"] = content if isinstance(content, str) else self.parts(content)
            item.update(self.extra(message, "type"))
            return [item]
        if isinstance(message, SystemMessage):
            role = message.additional_kwargs.get("__openai_role__", "system")
        else:  # human; chat and function roles are user turns (a reported loss)
            role = "user"
        content = message.content
        written: dict[str, Any] = {"role": role}
        written["content"] = content if isinstance(content, str) else self.parts(content)
        written.update(self.extra(message))
        return [written]

    def assistant(self, message: AIMessage) -> list[Any]:
        """An assistant turn: reasoning items, one message item for its text, other
        items as they were, then its function calls."""
        kept = message.additional_kwargs.get("items") or ()
        entries = [e for e in kept if isinstance(e, dict)]
        about = next((e for e in entries if "type" not in e), None)  # the message item's
        items: list[Any] = []
        texts: list[Any] = []
        strict = self.writing.strict
        content = with_reasoning(message, with_refusal(message)) if strict else message.content
        for block in [content] if isinstance(content, str) else content:
            if isinstance(block, dict) and block.get("type") in ("reasoning", "thinking"):
                items.extend(self.reasoning(block))
            elif isinstance(block, dict) and block.get("type") == "non_standard":
                value = block.get("value")
                if not is_item(value):
                    made = part(block, "assistant", self.writing, self.index)
                    texts.extend([made] if made is not None else [])
                elif self.writing.keep_extras:
                    items.append(value)
                else:
                    made = built_in_item(value, self.writing, self.index)
                    items.extend([made] if made is not None else [])
            elif isinstance(block, dict) and block.get("type") in NOT_PARTS:
                continue  # its tool calls, written below; what Responses cannot hold (a loss)
            elif block != "":
                made = part(block, "assistant", self.writing, self.index)
                if made is not None:
                    texts.append(made)
        if texts:
            items.append(self.message_item(message, texts, about))
        items.extend(self.calls(message, entries))
        self.extra(message, *(REASONING_FIELDS if strict else ()))
        return items

    def message_item(self, message: AIMessage, texts: list[Any], about: Any) -> dict[str, Any]:
        """The assistant's text: an output message with its id and status (as the reader
        kept them), or, with no id, the text as an input message of the assistant."""
        ident = about.get("id") if about else None
        if ident is None and _responses_id(message.id, self.writing.strict):
            ident = message.id
        if self.writing.strict and ident is None:
            text = "\n".join(p.get("text") or p.get("refusal") or "" for p in texts)
            return {"role": "assistant", "content": text}
        item: dict[str, Any] = {"type": "message", "role": "assistant", "content": texts}
        if ident is not None:
            item["id"] = ident
        if about:
            taken = ("status",) if self.writing.strict else tuple(about)
            item.update({k: v for k, v in about.items() if k != "id" and k in taken})
        if self.writing.strict:
            item.setdefault("status", "completed")
        return item

    def calls(self, message: AIMessage, entries: list[dict[str, Any]]) -> list[Any]:
        calls = {e.get("call_id"): e for e in entries if e.get("type")}
        items = []
        for call in message.tool_calls:
            entry = calls.get(call["id"]) or {"type": "function_call"}
            written: dict[str, Any] = dict(entry)  # the item's own fields, in their order
            written["call_id"] = call["id"]
            if self.writing.strict and entry.get("type") in BUILT_IN_ITEMS:
                # a built-in tool's call (a shell's): its arguments are its action
                written.setdefault("action", call["args"])
                if entry["type"] == "local_shell_call" and isinstance(written["action"], dict):
                    written["action"] = {"env": {}, **written["action"]}  # (none logged)
                made = built_in_item(written, self.writing, self.index)
                items.extend([made] if made is not None else [])
                continue
            written["name"] = call["name"]
            if entry.get("type") == "custom_tool_call":
                written["input"] = call["args"].get("input", "")
            else:
                written["arguments"] = json_text(call["args"])
            items.append(self.own(written))
        for bad in message.invalid_tool_calls:  # arguments that are not JSON: as they came
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

    def own(self, item: dict[str, Any]) -> dict[str, Any]:
        """An item with the keys of its type (a reader's others said)."""
        taken = ITEM_KEYS.get(item.get("type"))  # type: ignore[arg-type]
        if taken is None or self.writing.keep_extras:
            return item
        left = [k for k in item if k not in taken]
        if left:
            self.writing.left(MESSAGE_FIELDS, self.index, names(left))
        return {k: v for k, v in item.items() if k in taken}

    def reasoning(self, block: dict[str, Any]) -> list[dict[str, Any]]:
        """A reasoning item: the one the reader kept, or one made of another model's
        thinking (written with ``keep_extras``; by default the API takes only its own)."""
        if block.get("type") == "thinking":
            text, extras = block.get("thinking", ""), {}
        else:
            text, extras = block.get("reasoning", ""), dict(block.get("extras") or {})
        writing = self.writing
        if writing.reasoning == DROP and writing.strict:
            writing.left(ASKED_REASONING, self.index)
            return []
        if "id" not in extras:
            kind = _FOREIGN_REASONING if writing.keep_extras else NO_REASONING_ITEM
            writing.left(kind, self.index)
            if writing.strict:
                return []
        if not isinstance(extras.get("summary"), list):  # (none, or another app's null)
            extras["summary"] = [{"type": "summary_text", "text": text}] if text else []
        keep = ("id", "summary", "content", "encrypted_content", "status")
        item: dict[str, Any] = {"type": "reasoning"}
        item.update({k: v for k, v in extras.items() if k in keep})
        return [item]
