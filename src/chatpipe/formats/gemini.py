"""Google Gemini: requests ``{contents, systemInstruction}``, responses and streamed
responses. camelCase and snake_case keys both read.

Parts become standard blocks: text, reasoning for ``thought`` parts, image / audio /
video / file for inline and file data; ``functionCall`` parts become tool calls (ids made
up when missing, and paired with the ``functionResponse`` parts that answer them, by
order and name); ``thoughtSignature`` is kept, on the block's ``extras`` or, for calls,
in ``additional_kwargs["thought_signatures"]``. Parts with no standard home stay as
``non_standard`` blocks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, Location, ValidationError
from ..model import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage
from .api import SETTINGS
from .base import ONE, Conversation, Dialect, dict_blocks
from .gemini_calls import CallPieces, Pairing
from .tool_specs import for_target

_SNAKE = re.compile(r"_([a-z])")


def _camel(key: str) -> str:
    return _SNAKE.sub(lambda m: m.group(1).upper(), key)


def _get(part: dict[str, Any], key: str) -> Any:
    """A field by its camelCase name, whichever spelling the file uses."""
    if key in part:
        return part[key]
    snake = re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), key)
    return part.get(snake)


def is_gemini_request(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    contents = value.get("contents")
    return (
        isinstance(contents, list) and all(isinstance(c, dict) and "parts" in c for c in contents)
    ) or (_get(value, "systemInstruction") is not None and "messages" not in value)


def is_gemini_response(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and (isinstance(value.get("candidates"), list) or _get(value, "usageMetadata") is not None)
        and "choices" not in value
    )


def _media_kind(mime: Any) -> str:
    head = mime.split("/", 1)[0] if isinstance(mime, str) else ""
    return head if head in ("image", "audio", "video") else "file"


def _block(part: dict[str, Any]) -> dict[str, Any]:
    signature = _get(part, "thoughtSignature")
    extras = {"thought_signature": signature} if signature else {}
    if "text" in part:
        if _get(part, "thought"):
            block: dict[str, Any] = {"type": "reasoning", "reasoning": part["text"]}
        else:
            block = {"type": "text", "text": part["text"]}
    elif _get(part, "inlineData") is not None:
        data = _get(part, "inlineData")
        mime = _get(data, "mimeType")
        block = {"type": _media_kind(mime), "base64": data.get("data"), "mime_type": mime}
    elif _get(part, "fileData") is not None:
        data = _get(part, "fileData")
        mime = _get(data, "mimeType")
        block = {"type": _media_kind(mime), "url": _get(data, "fileUri")}
        if mime:
            block["mime_type"] = mime
    else:
        return {"type": "non_standard", "value": part}
    rest = {
        k: v
        for k, v in part.items()
        if k
        not in (
            "text",
            "thought",
            "thoughtSignature",
            "thought_signature",
            "inlineData",
            "inline_data",
            "fileData",
            "file_data",
        )
    }
    extras.update(rest)
    if extras:
        block["extras"] = extras
    return block


def _content(blocks: list[dict[str, Any]]) -> Any:
    if len(blocks) == 1 and blocks[0]["type"] == "text" and "extras" not in blocks[0]:
        return blocks[0]["text"]
    return blocks


def messages_from_contents(contents: list[Any], pairing: Pairing | None = None) -> list[AnyMessage]:
    pairing = pairing or Pairing()
    pieces = CallPieces()
    out: list[AnyMessage] = []
    for turn, item in enumerate(contents):
        if not isinstance(item, dict):
            raise ValidationError("a content must be an object {role, parts}")
        role = item.get("role") or "user"
        parts = item.get("parts") or []
        if role == "model":
            message = _model_turn(parts, turn, pairing, pieces)
            if message is not None:
                out.append(message)
            elif pieces.unread:  # pieces that fit no call: kept on the call's message
                if not out or not isinstance(out[-1], AIMessage):
                    out.append(AIMessage(""))
                out[-1].additional_kwargs.setdefault("unread_partial_args", []).extend(
                    pieces.unread
                )
                pieces.unread = []
        else:
            out.extend(_user_turn(parts, pairing))
    return out


def _continues(part: Any) -> bool:
    """A part that only carries pieces of a call begun before it (or ends that call)."""
    call = _get(part, "functionCall") if isinstance(part, dict) else None
    return isinstance(call, dict) and not call.get("name")


def _model_turn(
    parts: list[Any], turn: int, pairing: Pairing, pieces: CallPieces | None = None, **fields: Any
) -> AIMessage | None:
    """A model turn's message; None for a turn that only continues a call of the turn
    before it (a replayed stream keeps each chunk as a turn of its own)."""
    if pieces is not None and parts and all(map(_continues, parts)):
        for part in parts:
            pieces.add(_get(part, "functionCall"))
        return None
    pieces = pieces or CallPieces()
    blocks, calls, signatures = [], [], {}
    for part in parts:
        call = _get(part, "functionCall")
        if isinstance(call, dict) and not pieces.starts(call):
            pieces.add(call)
        elif isinstance(call, dict):
            call_id = pairing.call_id(call, turn, len(calls))
            calls.append(
                {"name": call.get("name") or "", "args": pieces.start(call), "id": call_id}
            )
            signature = _get(part, "thoughtSignature")
            if signature:
                signatures[call_id] = signature
        else:
            blocks.append(_block(part))
    kwargs = dict(fields.pop("additional_kwargs", {}))
    if signatures:
        kwargs["thought_signatures"] = signatures
    if pieces.unread:
        kwargs["unread_partial_args"] = pieces.unread
        pieces.unread = []
    message = AIMessage(
        _content(blocks) if blocks else "", tool_calls=calls, additional_kwargs=kwargs, **fields
    )
    pairing.made(message)
    return message


def _user_turn(parts: list[Any], pairing: Pairing) -> list[AnyMessage]:
    out: list[AnyMessage] = []
    blocks = []
    for part in parts:
        response = _get(part, "functionResponse")
        if response is not None:
            out.append(
                ToolMessage(
                    json.dumps(response.get("response"), ensure_ascii=False),
                    name=response.get("name"),
                    tool_call_id=pairing.response_id(response),
                )
            )
        else:
            blocks.append(_block(part))
    if blocks or not out:
        out.append(HumanMessage(_content(blocks) if blocks else ""))
    return out


def _usage(meta: Any) -> dict[str, Any] | None:
    if not isinstance(meta, dict):
        return None
    prompt = _get(meta, "promptTokenCount") or 0
    output = (_get(meta, "candidatesTokenCount") or 0) + (_get(meta, "thoughtsTokenCount") or 0)
    total = _get(meta, "totalTokenCount") or prompt + output
    usage: dict[str, Any] = {"input_tokens": prompt, "output_tokens": output, "total_tokens": total}
    if _get(meta, "cachedContentTokenCount"):
        usage["input_token_details"] = {"cache_read": _get(meta, "cachedContentTokenCount")}
    if _get(meta, "thoughtsTokenCount"):
        usage["output_token_details"] = {"reasoning": _get(meta, "thoughtsTokenCount")}
    return usage


def message_from_response(value: dict[str, Any], pairing: Pairing | None = None) -> AIMessage:
    candidates = value.get("candidates") or [{}]
    first = candidates[0]
    metadata = {k: v for k, v in first.items() if k != "content"}
    for key, target in (("modelVersion", "model_name"), ("responseId", "id")):
        if _get(value, key) is not None:
            metadata[target] = _get(value, key)
    metadata["model_provider"] = "google_genai"
    parts = (first.get("content") or {}).get("parts") or []
    return _model_turn(
        parts,
        0,
        pairing or Pairing(),
        response_metadata=metadata,
        usage_metadata=_usage(_get(value, "usageMetadata")),
    )


# the blocks a Gemini part holds (the others are written as JSON text)
_PARTS = frozenset(
    ("text", "reasoning", "image", "audio", "video", "file", "image_url", "non_standard")
)


def _written_as_json(message: AnyMessage) -> list[str]:
    """What ``keep_extras`` writes as JSON text, beside what no writing holds."""
    found = _cannot_hold(message)
    if any(b.get("type") not in _PARTS for b in dict_blocks(message)):
        found.append("blocks with no Gemini part (written as JSON text)")
    return found


def _cannot_hold(message: AnyMessage) -> list[str]:
    found = []
    if message.type in ("chat", "function"):
        found.append("chat and function roles (written as user turns)")
    if getattr(message, "invalid_tool_calls", None):
        found.append("invalid tool calls")
    return found


class GeminiDialect(Dialect):
    name = "gemini"
    writable = True
    conversation_records = True
    description = "Gemini requests {contents, systemInstruction}, responses and streams"
    example = "gemini__pydanticai_req_function_call_response.json"
    holds_artifacts = False
    system_messages = ONE
    api = "Gemini generateContent"
    writer_settings = SETTINGS
    checks = ("gemini",)

    def losses(self) -> Any:
        return _written_as_json if self.writing.keep_extras else _cannot_hold

    def tools_left_out(self, tools: Any) -> list[str]:
        return for_target(tools, self.name)[1]

    def request_rules(self, check: str) -> Any:
        from .api_request_rules import gemini

        return gemini() if check in self.checks else None

    def is_conversation(self, value: Any) -> bool:
        return is_gemini_request(value) or (is_gemini_response(value) and "candidates" in value)

    def read_message(self, value: Any) -> AnyMessage:
        raise ValidationError("Gemini contents are read as a whole request")

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        if is_gemini_response(value) and "contents" not in value:
            meta = {k: v for k, v in value.items() if k != "candidates"}
            others = (value.get("candidates") or [])[1:]
            if others:
                meta["candidates"] = others
            return Conversation([message_from_response(value)], meta, location)
        messages: list[AnyMessage] = []
        system = _get(value, "systemInstruction")
        if system:
            parts = system.get("parts") if isinstance(system, dict) else None
            texts = [p.get("text", "") for p in parts or () if isinstance(p, dict)]
            if not all(isinstance(t, str) for t in texts):
                raise ValidationError("systemInstruction's parts must hold text strings", location)
            messages.append(SystemMessage("\n".join(texts) if parts is not None else system))
        try:
            messages.extend(messages_from_contents(value.get("contents") or []))
        except ChatpipeError as exc:
            raise exc.located(location) from None
        meta = {
            k: (None if k == "contents" else v)
            for k, v in value.items()
            if k not in ("systemInstruction", "system_instruction")
        }
        return Conversation(messages, meta, location, "contents")

    def write_messages(self, messages: Iterable[AnyMessage]) -> Iterator[Any]:
        from .gemini_writer import write_contents

        return iter(write_contents(messages, self.writing)[1])

    def write_conversation(self, conversation: Conversation) -> dict[str, Any]:
        from .gemini_writer import write_request

        return write_request(conversation, self.writing)
