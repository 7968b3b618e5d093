"""Ollama's native chat API (``/api/chat``): requests, responses, and the NDJSON streams of
response chunks (its OpenAI-compatible endpoint is the ``openai`` dialect's).

A request is ``{model, messages, tools, options, format, think, keep_alive, stream}``;
its messages ``{role, content, thinking, images, tool_calls, tool_name}``: ``content`` is
text, ``thinking`` the reasoning, ``images`` base64 data (their type told from their
bytes), tool calls ``{function: {name, arguments}}`` with object arguments and no ids
(results are paired with calls by order, a tool message naming its tool in
``tool_name``). A response is ``{model, created_at, message, done, done_reason,
total_duration, ..., prompt_eval_count, eval_count}``; a stream is such chunks, one a
line, their ``message`` pieces joined until the one ``done`` (whose counters are the
usage). ``/api/generate``'s responses and streams, whose chunks hold ``response`` text
(and ``thinking``) instead of a message, are read as its answer. A file of them, or of
requests, is read in order: each request a conversation, each stream (or whole
response) one, message records one.
"""

from __future__ import annotations

from typing import Any

from ..errors import ChatpipeError, Location, ValidationError
from ..model import AIMessage, AnyMessage
from .base import Conversation
from .media import data_url, sniff
from .openai_messages import message_from_dict
from .record_errors import keys_hint
from .tool_links import link_tool_results

EXTRAS_KEY = "ollama"
# a request's keys that only Ollama's has
REQUEST_KEYS = frozenset(("options", "keep_alive", "think", "format"))
TAKEN = frozenset(("model", "messages", "tools", "format", "options", "keep_alive", "think"))
_MESSAGE_KEYS = ("role", "content", "thinking", "images", "tool_calls", "tool_name")
# a response's counters, nanoseconds and tokens
_COUNTERS = (
    "total_duration",
    "load_duration",
    "prompt_eval_count",
    "prompt_eval_duration",
    "eval_count",
    "eval_duration",
)


def is_chunk(value: Any) -> bool:
    """A response, or a chunk of a streamed one (``/api/chat``'s, with its message, or
    ``/api/generate``'s, with its ``response`` text)."""
    return (
        isinstance(value, dict)
        and (isinstance(value.get("message"), dict) or isinstance(value.get("response"), str))
        and isinstance(value.get("done"), bool)
        and "created_at" in value
    )


def as_chat(chunk: dict[str, Any]) -> dict[str, Any]:
    """A ``/api/generate`` chunk as ``/api/chat``'s: its text (and thinking) the answer's;
    its ``context`` (the tokens to go on from) kept with the response's fields."""
    if isinstance(chunk.get("message"), dict):
        return chunk
    message = {"role": "assistant", "content": chunk["response"]}
    if isinstance(chunk.get("thinking"), str):
        message["thinking"] = chunk["thinking"]
    rest = {k: v for k, v in chunk.items() if k not in ("response", "thinking")}
    return {**rest, "message": message}


def is_request(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("messages"), list)


# -- reading --------------------------------------------------------------------------


def _image(data: Any) -> dict[str, Any]:
    if not isinstance(data, str):
        raise ValidationError("an Ollama image must be base64 text")
    found = data_url(data)
    if found is not None:
        mime, data = found
    else:
        mime = sniff(data)
    if mime is None and ("/" in data or "." in data[-6:]):  # (a path, as clients take)
        return {"type": "image", "url": data}
    block: dict[str, Any] = {"type": "image", "base64": data}
    if mime is not None:
        block["mime_type"] = mime
    return block


def read_message(value: Any) -> AnyMessage:
    if not isinstance(value, dict) or not isinstance(value.get("role"), str):
        raise ValidationError("not an Ollama message", hint=keys_hint(value))
    content = value.get("content")
    if content is not None and not isinstance(content, str):
        raise ValidationError("an Ollama message's content must be text")
    blocks: list[dict[str, Any]] = []
    thinking = value.get("thinking")
    if isinstance(thinking, str) and thinking:
        blocks.append({"type": "reasoning", "reasoning": thinking})
    if content:
        blocks.append({"type": "text", "text": content})
    images = value.get("images") or []
    if not isinstance(images, list):
        raise ValidationError("an Ollama message's images must be a list of base64 texts")
    blocks += [_image(i) for i in images]
    fields: dict[str, Any] = {"role": value["role"], "content": blocks or ""}
    if len(blocks) == 1 and blocks[0]["type"] == "text":
        fields["content"] = content
    if value.get("tool_calls"):
        fields["tool_calls"] = [_call(c) for c in value["tool_calls"]]
    if isinstance(value.get("tool_name"), str) and value["role"] == "tool":
        fields["name"] = value["tool_name"]
    for key in ("tool_call_id", "id"):
        if isinstance(value.get(key), str) and value[key] not in ("", "null"):
            fields[key] = value[key]
    rest = {k: v for k, v in value.items() if k not in (*_MESSAGE_KEYS, "tool_call_id", "id")}
    if value.get("tool_call_id") == "null":  # (a client's bug some logs hold: kept)
        rest["tool_call_id"] = "null"
    if "tool_name" in value and "name" not in fields:
        rest["tool_name"] = value["tool_name"]
    if rest:
        fields["additional_kwargs"] = {EXTRAS_KEY: rest}
    return message_from_dict(fields)


def _call(call: Any) -> dict[str, Any]:
    if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
        raise ValidationError("an Ollama tool call needs its function {name, arguments}")
    function = call["function"]
    made: dict[str, Any] = {
        "type": "function",
        "function": {"name": function.get("name"), "arguments": function.get("arguments") or {}},
    }
    if isinstance(call.get("id"), str):
        made["id"] = call["id"]
    return made


def read_response(chunk: dict[str, Any], location: Location) -> Conversation:
    """A whole response (or a stream's chunks joined into one)."""
    chunk = as_chat(chunk)
    try:
        message = read_message(chunk["message"])
    except ChatpipeError as exc:
        raise exc.located(location.at_message(0)) from None
    meta = {k: v for k, v in chunk.items() if k != "message"}
    metadata = dict(meta)
    if "model" in metadata:
        metadata["model_name"] = metadata.pop("model")
    metadata["model_provider"] = "ollama"
    message.response_metadata = metadata
    given, produced = chunk.get("prompt_eval_count"), chunk.get("eval_count")
    if isinstance(message, AIMessage) and isinstance(given, int) and isinstance(produced, int):
        total = given + produced
        message.usage_metadata = {
            "input_tokens": given,
            "output_tokens": produced,
            "total_tokens": total,
        }
    return Conversation(list(link_tool_results([message])), meta, location)


def read_request(value: dict[str, Any], location: Location) -> Conversation:
    messages = []
    for index, item in enumerate(value["messages"]):
        try:
            messages.append(read_message(item))
        except ChatpipeError as exc:
            raise exc.located(location.at_message(index)) from None
    meta = {k: (None if k == "messages" else v) for k, v in value.items()}
    return Conversation(list(link_tool_results(messages)), meta, location, "messages")


class Stream:
    """A streamed response's chunks, joined: text and thinking pieces, calls, images."""

    def __init__(self, location: Location) -> None:
        self.location = location
        self.message: dict[str, Any] = {}
        self.last: dict[str, Any] = {}

    def add(self, chunk: dict[str, Any]) -> None:
        chunk = as_chat(chunk)
        piece = chunk["message"]
        held = self.message
        for key, value in piece.items():
            if key in ("content", "thinking") and isinstance(value, str):
                held[key] = held.get(key, "") + value
            elif key in ("tool_calls", "images") and isinstance(value, list):
                held[key] = [*held.get(key, ()), *value]
            else:
                held[key] = value
        self.last = chunk

    def response(self) -> Conversation:
        return read_response({**self.last, "message": self.message}, self.location)
