"""Anthropic Messages API: requests, responses and stream events.

Messages keep Anthropic's own content blocks, as langchain-anthropic does, so thinking
signatures, citations and cache_control survive untouched; ``tool_use`` blocks also give
the AI message its tool calls, and each ``tool_result`` in a user turn becomes a
ToolMessage. The writer lifts system messages to the top level, sends tool results as
user-turn blocks and merges adjacent turns of one role, as the API requires.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, Location, ValidationError
from ..model import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage
from .api import SETTINGS
from .base import (
    CONVERSATIONS,
    LIKELY,
    MESSAGES,
    ONE,
    VARIANT,
    Conversation,
    Dialect,
    Guess,
    Sample,
)
from .media import fill_media_type
from .record_errors import keys_hint
from .tool_specs import for_target

_BLOCK_TYPES = frozenset(
    (
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "server_tool_use",
        "mcp_tool_use",
        "mcp_tool_result",
    )
)


def _own_block(block: Any) -> bool:
    """A block of Anthropic's own types, or a media block with a source. A ``thinking``
    block is Anthropic's when signed: Cohere's have no signature, Mistral's a list."""
    if not isinstance(block, dict):
        return False
    kind = block.get("type")
    if kind == "thinking":
        return isinstance(block.get("thinking"), str) and "signature" in block
    return (isinstance(kind, str) and kind in _BLOCK_TYPES) or isinstance(block.get("source"), dict)


def _blocks_look_anthropic(messages: list[Any]) -> bool:
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(_own_block(b) for b in content):
            return True
    return False


# keys of OpenAI messages that Anthropic's never have
_OPENAI_KEYS = ("tool_calls", "tool_call_id", "function_call", "refusal")


def is_anthropic_turns(messages: list[Any]) -> bool:
    """Messages that are Anthropic turns (a bare list, as agents save their API history):
    user and assistant roles only, and content blocks of Anthropic's own types."""
    return all(
        isinstance(m, dict)
        and m.get("role") in ("user", "assistant")
        and not any(k in m for k in _OPENAI_KEYS)
        for m in messages
    ) and _blocks_look_anthropic(messages)


def is_anthropic_request(value: Any) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
        return False
    model = value.get("model")
    return (
        ("max_tokens" in value and ("system" in value or isinstance(model, str)))
        and (
            (isinstance(model, str) and model.startswith("claude"))
            or "system" in value
            or _blocks_look_anthropic(value["messages"])
        )
    ) or _blocks_look_anthropic(value["messages"])


def is_anthropic_response(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") == "message"
        and value.get("role") == "assistant"
        and isinstance(value.get("content"), list)
    )


def ai_from_content(content: Any, **fields: Any) -> AIMessage:
    """An AI message holding Anthropic blocks; tool_use blocks are its tool calls."""
    calls = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                calls.append(
                    {
                        "name": block.get("name") or "",
                        "args": block.get("input") or {},
                        "id": block.get("id"),
                    }
                )
    return AIMessage(content if content is not None else "", tool_calls=calls, **fields)


def user_turn(content: Any) -> list[AnyMessage]:
    """A user turn: one ToolMessage per tool_result block, then the rest as a human turn."""
    if not isinstance(content, list):
        return [HumanMessage(content if content is not None else "")]
    results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
    rest = [b for b in content if not (isinstance(b, dict) and b.get("type") == "tool_result")]
    out: list[AnyMessage] = []
    for block in results:
        extra = {
            k: v
            for k, v in block.items()
            if k not in ("type", "tool_use_id", "content", "is_error")
        }
        out.append(
            ToolMessage(
                block.get("content", ""),
                tool_call_id=block.get("tool_use_id") or "",
                status="error" if block.get("is_error") else "success",
                additional_kwargs=extra,
            )
        )
    if rest or not results:
        out.append(HumanMessage(rest))
    return out


def read_turn(item: Any) -> list[AnyMessage]:
    """The messages of one turn of a request: an assistant turn, or a user turn (its tool
    results first); keys beside role and content (an agent's timestamps, model info) are
    kept on the turn's message."""
    if not isinstance(item, dict):
        raise ValidationError("a message must be an object")
    role, content = item.get("role"), with_media_types(item.get("content"))
    if role not in ("user", "assistant"):
        raise ValidationError(f"Anthropic roles are user and assistant, got {role!r}")
    check_blocks(content)
    extra = {k: v for k, v in item.items() if k not in ("role", "content")}
    if role == "assistant":
        return [ai_from_content(content, **({"additional_kwargs": extra} if extra else {}))]
    turn = user_turn(content)
    if extra:
        turn[-1].additional_kwargs.update(extra)
    return turn


# what each kind of media source needs, as the API requires it
_SOURCE_FIELDS = {
    "base64": ("media_type", "data"),
    "url": ("url",),
    "file": ("file_id",),
    "text": ("data",),
}


def with_media_types(content: Any) -> Any:
    """Content whose base64 images and documents that give no ``media_type`` (agents
    that save what they sent leave it out) have the one their bytes show, in tool
    results too; content with none of them as it is."""
    if not isinstance(content, list):
        return content
    filled = []
    for block in content:
        made = fill_media_type(block)
        if isinstance(made, dict) and made.get("type") == "tool_result":
            inner = with_media_types(made.get("content"))
            if inner is not made.get("content"):
                made = {**made, "content": inner}
        filled.append(made)
    return content if all(a is b for a, b in zip(filled, content, strict=True)) else filled


def check_blocks(content: Any, where: str = "") -> None:
    """A media block whose source lacks what the API requires is bad input, said where:
    writers would otherwise fail on it, or write an image no one can show."""
    if not isinstance(content, list):
        return
    for j, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        place = f"{where}content block {j + 1}"
        if kind == "tool_result":
            check_blocks(block.get("content"), f"{place} (a tool result), ")
        if kind not in ("image", "document") or "source" not in block:
            continue
        source = block["source"]
        if not isinstance(source, dict):
            raise ValidationError(f"{place}: the {kind}'s source must be an object")
        fields = _SOURCE_FIELDS.get(source.get("type"), ())
        missing = [k for k in fields if not isinstance(source.get(k), str)]
        if not missing:
            continue
        example = "image/png" if kind == "image" else "application/pdf"
        raise ValidationError(
            f"{place}: the {kind}'s {source['type']} source has no {missing[0]!r}",
            hint=f"give it the media's type, e.g. {example}"
            if missing[0] == "media_type"
            else f"an Anthropic {source['type']} source needs " + " and ".join(fields),
        )


def usage_from_anthropic(usage: Any) -> dict[str, Any] | None:
    """langchain-anthropic's usage: input counts include cache reads and writes."""
    if not isinstance(usage, dict):
        return None
    created = usage.get("cache_creation_input_tokens") or 0
    read = usage.get("cache_read_input_tokens") or 0
    given = usage.get("input_tokens") or 0
    output = usage.get("output_tokens") or 0
    if not all(isinstance(n, int) for n in (created, read, given, output)):
        return None
    total_in = given + created + read
    out: dict[str, Any] = {
        "input_tokens": total_in,
        "output_tokens": output,
        "total_tokens": total_in + output,
    }
    details = {k: v for k, v in (("cache_read", read), ("cache_creation", created)) if v}
    if details:
        out["input_token_details"] = details
    return out


def message_from_response(value: dict[str, Any]) -> AIMessage:
    metadata = {k: v for k, v in value.items() if k not in ("content", "type", "role", "id")}
    if "model" in metadata:
        metadata["model_name"] = metadata.pop("model")
    metadata["model_provider"] = "anthropic"
    return ai_from_content(
        value.get("content"),
        id=value.get("id"),
        response_metadata=metadata,
        usage_metadata=usage_from_anthropic(value.get("usage")),
    )


def _cannot_hold(message: AnyMessage) -> list[str]:
    found = []
    if message.type in ("chat", "function"):
        found.append("chat and function roles (written as user turns)")
    if message.name:
        found.append("message names")
    if getattr(message, "invalid_tool_calls", None):
        found.append("invalid tool calls")
    return found


class AnthropicDialect(Dialect):
    name = "anthropic"
    writable = True
    conversation_records = True
    turn_records = True
    description = "Anthropic Messages requests {system, messages}, responses, stream events"
    example = "anthropic_messages__pydanticai_req_thinking_text_tool_use_tool_result.json"
    holds_artifacts = False
    system_messages = ONE
    api = "Anthropic Messages"
    writer_settings = SETTINGS
    checks = ("anthropic",)

    def is_message(self, value: Any) -> bool:
        return False  # bare {role, content} lists read as OpenAI

    def is_conversation(self, value: Any) -> bool:
        return is_anthropic_request(value) or is_anthropic_response(value)

    def score(self, sample: Sample) -> Guess | None:
        """A response; a request whose turns are user and assistant turns (one whose
        messages have other roles, or other shapes, only looks like one: a conversation
        of another dialect's, with blocks Anthropic also has); or turns of a message log
        (a bare list saved by an agent) told by their blocks of Anthropic's own types."""
        first = sample.first
        if is_anthropic_response(first):
            return Guess(LIKELY, CONVERSATIONS)
        if is_anthropic_request(first):
            turns = all(
                isinstance(m, dict) and m.get("role") in ("user", "assistant")
                for m in first["messages"]
            )
            return Guess(LIKELY if turns else VARIANT, CONVERSATIONS)
        if is_anthropic_turns(sample.records):
            return Guess(LIKELY, MESSAGES)
        return None

    def losses(self) -> Any:
        return _cannot_hold

    def request_rules(self, check: str) -> Any:
        from .api_request_rules import anthropic

        return anthropic() if check in self.checks else None

    def tools_left_out(self, tools: Any) -> list[str]:
        return for_target(tools, self.name)[1]

    def read_message(self, value: Any) -> AnyMessage:
        turn = self.read_turn(value)
        if len(turn) != 1:
            raise ValidationError(
                "a user turn with tool results is several messages, one a line cannot hold",
                hint='give the turns as one conversation record, {"messages": [...]}',
            )
        return turn[0]

    def read_turn(self, value: Any) -> list[AnyMessage]:
        if not isinstance(value, dict) or value.get("role") not in ("user", "assistant"):
            raise ValidationError("not an Anthropic message", hint=keys_hint(value))
        return read_turn(value)

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        if is_anthropic_response(value):
            meta = {k: v for k, v in value.items() if k not in ("content",)}
            return Conversation([message_from_response(value)], meta, location)
        messages: list[AnyMessage] = []
        system = value.get("system")
        if system:
            messages.append(SystemMessage(system))
        for index, item in enumerate(value.get("messages") or ()):
            try:
                messages.extend(read_turn(item))
            except ChatpipeError as exc:
                raise exc.located(location.at_message(index)) from None
        meta = {k: (None if k == "messages" else v) for k, v in value.items() if k != "system"}
        return Conversation(messages, meta, location, "messages")

    def write_messages(self, messages: Iterable[AnyMessage]) -> Iterator[Any]:
        from .anthropic_writer import write_turns

        return iter(write_turns(messages, self.writing)[1])

    def write_conversation(self, conversation: Conversation) -> dict[str, Any]:
        from .anthropic_writer import write_request

        return write_request(conversation, self.writing)
