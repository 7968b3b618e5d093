"""Messages as an Anthropic Messages API request: what ``--to anthropic`` writes, and the
``params`` of an anthropic-batch request.

System messages are lifted to the top level, tool results sent as user-turn blocks and
adjacent turns of one role merged, as the API requires. By default (``Writing.strict``)
the request holds only what the API takes (the ``anthropic`` package's
``MessageCreateParams``, 2.14.0): its fields with values of their kind, each block with its
type's keys, images and documents from any provider's form; what has no home is left out
and said: audio and video, reasoning that is not Anthropic's signed thinking (the API takes
back only its own), a reader's fields. With ``keep_extras`` blocks go as they are, and a
turn's own fields with it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..model import AIMessage, AnyMessage, SystemMessage, ToolMessage
from .anthropic_blocks import anthropic_block, complete, faithful
from .api import (
    ASKED_REASONING,
    DROP,
    EMPTIED,
    MESSAGE_FIELDS,
    PART_FIELDS,
    REASONING_FIELDS,
    SETTING_VALUES,
    Writing,
    extras_left,
    names,
    renamed,
    with_reasoning,
    with_refusal,
    without_streaming,
)
from .base import Conversation, Kept
from .registry import extras_named

# the fields of a request (MessageCreateParams) and the kind of value each holds
REQUEST_FIELDS: dict[str, type | tuple[type, ...]] = {
    "model": str,
    "max_tokens": int,
    "system": (str, list),
    "metadata": dict,
    "service_tier": str,
    "stop_sequences": list,
    "thinking": dict,
    "tool_choice": dict,
    "tools": list,
    "container": (str, dict),
    "output_config": dict,
    "cache_control": dict,
    "inference_geo": str,
    "speed": str,
    "diagnostics": dict,
    "user_profile_id": str,
    "workspace_id": str,
    "stream": bool,
}
_SERVICE_TIERS = ("auto", "standard_only")
# the keys of the fields that are objects of the API's own (another framework's field of
# the same name, AutoGen's ``container`` or an Agents SDK's ``metadata``, is not)
_OBJECT_KEYS = {"metadata": frozenset(("user_id",)), "container": frozenset(("id", "skills"))}
# other providers' names of its settings
_SAME = {
    "max_completion_tokens": "max_tokens",
    "max_output_tokens": "max_tokens",
    "stop": "stop_sequences",
}
# each block type's keys (the request's block params)
BLOCK_KEYS = {
    "text": ("type", "text", "cache_control", "citations"),
    "image": ("type", "source", "cache_control"),
    "document": ("type", "source", "cache_control", "citations", "context", "title"),
    "search_result": ("type", "content", "source", "title", "cache_control", "citations"),
    "thinking": ("type", "thinking", "signature"),
    "redacted_thinking": ("type", "data"),
    "tool_use": ("type", "id", "name", "input", "cache_control"),
    "tool_result": ("type", "tool_use_id", "content", "is_error", "cache_control"),
    "server_tool_use": ("type", "id", "name", "input", "cache_control"),
}
# blocks of Anthropic's own server tools, taken back as they are
SERVER_RESULTS = frozenset(
    {"web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result"}
    | {"bash_code_execution_tool_result", "text_editor_code_execution_tool_result"}
    | {"tool_search_tool_result", "container_upload"}
)
# additional_kwargs keys that are chatpipe's bookkeeping or written elsewhere
# (with keep_extras every other field goes on its turn, as it came)
_WRITTEN = frozenset(("__openai_role__", "tool_calls", "cache_control", "source"))
_BOOKKEEPING = frozenset(
    ("__openai_role__", "tool_calls", "cache_control", "source", "refusal", *REASONING_FIELDS)
)

UNSIGNED = (
    "reasoning that is not Anthropic's signed thinking (the API takes back only its own "
    "thinking, with its signature)"
)
MEDIA = "audio, video and files Anthropic cannot take"
NO_BLOCK = "content blocks with no Anthropic block"
REFUSALS = Kept("refusals", "written as the assistant's text")


def write_request(conversation: Conversation, writing: Writing | None = None) -> dict[str, Any]:
    """The request of a conversation: system, turns, then its fields the API takes."""
    from .tool_specs import for_target

    writing = writing or Writing()
    system, turns = write_turns(conversation.messages, writing)
    held = ("messages", "system", conversation.messages_key)  # (where the source's were)
    meta = {k: v for k, v in conversation.meta.items() if k not in held}
    if writing.strict:
        meta = request_fields(meta, writing)
    elif "tools" in meta:  # other providers' tool lists, as Anthropic declares tools
        meta["tools"] = for_target(meta["tools"], "anthropic")[0]
    record: dict[str, Any] = {}
    if system is not None:
        record["system"] = system
    record["messages"] = turns
    record.update(meta)
    return record


def request_fields(meta: dict[str, Any], writing: Writing) -> dict[str, Any]:
    """A conversation's fields the API takes: another provider's tools and tool choice in
    Anthropic's form, values of the kind the API takes; the others said."""
    from .tool_specs import api_choice, api_tools

    meta = renamed(without_streaming(meta, writing), _SAME)
    kept = writing.fields(meta, REQUEST_FIELDS.__contains__)
    if kept.get("tools") is not None:
        kept["tools"] = api_tools(kept["tools"], "anthropic", writing)
    if kept.get("tool_choice") is not None:
        kept["tool_choice"] = api_choice(kept["tool_choice"], "anthropic")
    wrong = [
        k
        for k, v in kept.items()
        if (v is None and meta.get(k) is not None and k != "tools")
        or (v is not None and not isinstance(v, REQUEST_FIELDS[k]))
        or (k == "service_tier" and v not in _SERVICE_TIERS)
        or (isinstance(v, dict) and k in _OBJECT_KEYS and not v.keys() <= _OBJECT_KEYS[k])
    ]
    if wrong:
        writing.left(SETTING_VALUES, None, names(wrong))
    return {k: v for k, v in kept.items() if k not in wrong and v is not None}


def write_turns(
    messages: Iterable[AnyMessage], writing: Writing | None = None
) -> tuple[Any, list[dict[str, Any]]]:
    """(system, turns) for a request: system lifted, tool results in user turns, same-role
    turns merged."""
    return _Turns(writing or Writing()).write(messages)


def _as_blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content)


class _Turns:
    def __init__(self, writing: Writing) -> None:
        self.writing = writing
        self.system: Any = None
        self.turns: list[dict[str, Any]] = []
        self.index = 0

    def write(self, messages: Iterable[AnyMessage]) -> tuple[Any, list[dict[str, Any]]]:
        for self.index, message in enumerate(messages):
            if isinstance(message, SystemMessage):
                text = (
                    self.content(message, system=True) if self.writing.strict else message.content
                )
                self.system = (
                    text if self.system is None else _as_blocks(self.system) + _as_blocks(text)
                )
                self.fields(message, None)
            elif isinstance(message, AIMessage):
                self.assistant(message)
            elif isinstance(message, ToolMessage):
                self.add("user", [self.tool_result(message)], message)
            else:
                self.add("user", self.content(message), message)
        return self.system, self.turns

    def add(self, role: str, content: Any, message: AnyMessage) -> None:
        turns = self.turns
        if not content and self.writing.strict:
            # (the API refuses a turn of no content, and an empty text block: a turn that
            # held nothing it takes is left out, said; one of a role, merged, alternates)
            self.writing.left(EMPTIED, self.index)
            self.fields(message, None)
            return
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"] = _as_blocks(turns[-1]["content"]) + _as_blocks(content)
            self.fields(message, turns[-1])
        else:
            turns.append({"role": role, "content": content})
            self.fields(message, turns[-1])

    def fields(self, message: AnyMessage, turn: dict[str, Any] | None) -> None:
        """A turn's own fields a reader kept: said, or (``keep_extras``) written on its
        turn (the first of a merged turn's)."""
        found = {
            k: v
            for k, v in message.additional_kwargs.items()
            if k not in _BOOKKEEPING and v is not None
        }
        if self.writing.strict or turn is None or isinstance(message, ToolMessage):
            # (no turn holds a system prompt's or a tool result's own fields)
            if self.writing.keep_extras:
                found = {k: v for k, v in message.additional_kwargs.items() if k not in _WRITTEN}
            if found:
                self.writing.left(MESSAGE_FIELDS, self.index, names(map(extras_named, found)))
        else:
            kept = {k: v for k, v in message.additional_kwargs.items() if k not in _WRITTEN}
            turn.update({k: v for k, v in kept.items() if k not in turn})

    def assistant(self, message: AIMessage) -> None:
        content = self.content(message)
        blocks = (
            [{"type": "text", "text": content}]
            if isinstance(content, str) and content
            else ([] if isinstance(content, str) else content)
        )
        present = {
            b.get("id") for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"
        }
        for call in message.tool_calls:
            if call["id"] not in present:
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call["id"],
                        "name": call["name"],
                        "input": call["args"],
                    }
                )
        if not message.tool_calls and isinstance(content, str):
            self.add("assistant", content, message)
        else:
            self.add("assistant", blocks, message)

    def tool_result(self, message: ToolMessage) -> dict[str, Any]:
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": message.tool_call_id,
            "content": self.content(message, result=True),
        }
        if message.status == "error":
            block["is_error"] = True
        block.update(
            {k: v for k, v in message.additional_kwargs.items() if k in ("cache_control",)}
        )
        return block

    def content(self, message: AnyMessage, system: bool = False, result: bool = False) -> Any:
        content = message.content
        if self.writing.strict and isinstance(message, AIMessage):
            content = with_reasoning(message, with_refusal(message))
        if isinstance(content, str):
            return content
        if not self.writing.strict:
            return [faithful(b) for b in content]
        blocks = [self.taken(b, message, system, result) for b in content]
        blocks = [b for b in blocks if b is not None]
        if isinstance(message.content, str) and blocks == [
            {"type": "text", "text": message.content}
        ]:
            return message.content  # (text it was, text it stays: its reasoning was left out)
        return blocks

    def taken(self, block: Any, message: AnyMessage, system: bool, result: bool) -> Any:
        """A block as the API takes it here, or None, said."""
        if isinstance(block, str):
            return {"type": "text", "text": block} if block else None
        if not isinstance(block, dict):
            self.writing.left(NO_BLOCK, self.index, type(block).__name__)
            return None
        kind = block.get("type")
        if kind in ("reasoning", "thinking", "redacted_thinking"):
            return self.reasoning(block, message, system or result)
        if kind in ("tool_use", "function_call") and isinstance(message, AIMessage):
            return self.own(block) if kind == "tool_use" else None  # (its call: tool_calls)
        if kind == "refusal" and isinstance(block.get("refusal"), str):
            self.writing.left(REFUSALS, self.index)
            return {"type": "text", "text": block["refusal"]}
        left = extras_left(block)
        if left:  # (a standard media block's extras: the block made has none)
            self.writing.left(PART_FIELDS, self.index, names(left))
        made = anthropic_block(block)
        kind = made.get("type") if isinstance(made, dict) else None
        if kind == "text" and not made.get("text"):
            return None  # (an empty text block: the API refuses it, and it holds nothing)
        allowed = ("text",) if system else ("text", "image", "document", "search_result")
        if kind in allowed and complete(made) and (not result or kind != "document"):
            return self.own(made)
        if kind in SERVER_RESULTS and isinstance(message, AIMessage) and not result:
            return made
        what = "an image of another type" if kind == "image" else str(kind)
        media = kind in ("image", "document", "audio", "video", "file", "input_audio")
        self.writing.left(MEDIA if media else NO_BLOCK, self.index, what)
        return None

    def own(self, block: dict[str, Any]) -> dict[str, Any]:
        """A block with its type's keys (the rest said: a standard block's extras)."""
        keys = BLOCK_KEYS.get(block.get("type"), ())  # type: ignore[arg-type]
        left = [k for k in block if k not in keys]
        if left:
            extras = block.get("extras") if isinstance(block.get("extras"), dict) else {}
            named = [k for k in left if k != "extras"] + list(extras or {})
            self.writing.left(PART_FIELDS, self.index, names(named or left))
        return {k: v for k, v in block.items() if k in keys}

    def reasoning(self, block: dict[str, Any], message: AnyMessage, elsewhere: bool) -> Any:
        """Thinking the API takes back: Anthropic's own, signed (or redacted); other
        reasoning left out, said."""
        writing = self.writing
        if writing.reasoning == DROP:
            writing.left(ASKED_REASONING, self.index)
            return None
        made = anthropic_block(block)
        signed = made.get("type") == "redacted_thinking" or made.get("signature")
        if not signed or elsewhere or not isinstance(message, AIMessage):
            writing.left(UNSIGNED, self.index)
            return None
        return {k: v for k, v in made.items() if k in BLOCK_KEYS[made["type"]]}
