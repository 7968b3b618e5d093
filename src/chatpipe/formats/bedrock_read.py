"""Amazon Bedrock's Converse API read: its messages and blocks (bedrock.py reads whole
requests and responses with them, bedrock_stream.py ConverseStream events), and the
message lists agents keep in its form.

A request is ``{modelId?, messages, system, inferenceConfig, toolConfig, ...}``; its
messages are ``{role: user | assistant, content: [block, ...]}`` whose blocks are objects
of one key, the block's kind: ``{text}``, ``{image: {format, source: {bytes | s3Location}}}``,
``{document: {format, name, source}}``, ``{video}``, ``{audio}``, ``{toolUse: {toolUseId,
name, input}}``, ``{toolResult: {toolUseId, content, status}}`` (in a *user* turn: a tool
message each), ``{reasoningContent: {reasoningText: {text, signature}} | {redactedContent}}``
and ``{cachePoint}``. A response is ``{output: {message}, stopReason, usage, metrics}``;
the stream's events are objects of one key too (``messageStart``, ``contentBlockStart``,
``contentBlockDelta``, ``contentBlockStop``, ``messageStop``, ``metadata``), or AWS's own
frames ``{headers: {":event-type"}, payload}``.

Blocks become standard blocks (text, reasoning with its signature, image / file / video /
audio with their media type, Anthropic's ``redacted_thinking`` for redacted reasoning); a
``cachePoint`` is kept in the ``extras`` of the block before it (``cachePoint``), so that
the writer (bedrock_writer.py) puts it back. ``toolConfig``'s tools are read into the
conversation's ``tools`` as OpenAI function tools (every writer knows them), the rest of
it (``toolChoice``) kept as ``toolConfig``; the model, which Bedrock takes in the URL,
is the record's ``modelId`` when it has one.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import ValidationError
from ..model import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage
from ..model.tool_calls import invalid_tool_call, tool_call
from .openai_messages import parse_arguments
from .record_errors import keys_hint

# media formats as Bedrock names them, and their media types (the first of a type is the
# one written for it)
IMAGE_TYPES = {"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"}
DOCUMENT_TYPES = {
    "pdf": "application/pdf",
    "csv": "text/csv",
    "doc": "application/msword",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xls": "application/vnd.ms-excel",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "html": "text/html",
    "txt": "text/plain",
    "md": "text/markdown",
}
VIDEO_TYPES = {
    "mp4": "video/mp4",
    "mov": "video/quicktime",
    "mkv": "video/x-matroska",
    "webm": "video/webm",
    "flv": "video/x-flv",
    "mpeg": "video/mpeg",
    "mpg": "video/mpeg",
    "wmv": "video/x-ms-wmv",
    "three_gp": "video/3gpp",
}
AUDIO_TYPES = {
    "mp3": "audio/mpeg",
    "wav": "audio/wav",
    "flac": "audio/flac",
    "ogg": "audio/ogg",
    "opus": "audio/opus",
    "aac": "audio/aac",
    "webm": "audio/webm",
    "m4a": "audio/mp4",
    "mp4": "audio/mp4",
    "mka": "audio/x-matroska",
    "mkv": "audio/x-matroska",
    "x-aac": "audio/x-aac",
    "mpeg": "audio/mpeg",
    "mpga": "audio/mpeg",
    "pcm": "audio/pcm",
}
MEDIA = {
    "image": ("image", IMAGE_TYPES),
    "document": ("file", DOCUMENT_TYPES),
    "video": ("video", VIDEO_TYPES),
    "audio": ("audio", AUDIO_TYPES),
}
# the kinds of a content block (a block is an object with one of these keys, no "type")
BLOCK_KEYS = frozenset(
    ("text", "toolUse", "toolResult", "reasoningContent", "cachePoint", "guardContent")
) | frozenset(("citationsContent", "searchResult", *MEDIA))
REQUEST_KEYS = frozenset(
    ("modelId", "messages", "system", "inferenceConfig", "toolConfig", "guardrailConfig")
) | frozenset(
    (
        "additionalModelRequestFields",
        "promptVariables",
        "additionalModelResponseFieldPaths",
        "requestMetadata",
        "performanceConfig",
        "serviceTier",
        "outputConfig",
    )
)
EVENTS = frozenset(
    ("messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop")
) | frozenset(("messageStop", "metadata"))
EXTRAS_KEY = "bedrock"


def is_block(value: Any) -> bool:
    """A Converse content block: an object keyed by its kind, with no ``type``."""
    return isinstance(value, dict) and "type" not in value and any(k in value for k in BLOCK_KEYS)


def is_message(value: Any) -> bool:
    """A Converse message: a user or assistant turn whose content is a list of blocks,
    one of them at least of a kind (or a shape) only Bedrock has."""
    if not isinstance(value, dict) or value.get("role") not in ("user", "assistant"):
        return False
    content = value.get("content")
    return (
        isinstance(content, list)
        and bool(content)
        and all(is_block(b) for b in content)
        and not any(k in value for k in ("tool_calls", "tool_call_id", "parts"))
    )


def is_request(value: Any) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
        return False
    messages = value["messages"]
    if messages and all(is_message(m) for m in messages):
        return True
    return any(k in value for k in ("inferenceConfig", "toolConfig", "modelId")) and not messages


def is_response(value: Any) -> bool:
    output = value.get("output") if isinstance(value, dict) else None
    return (
        isinstance(output, dict)
        and isinstance(output.get("message"), dict)
        and ("stopReason" in value or "usage" in value)
    )


def event_of(value: Any) -> tuple[str, dict[str, Any]] | None:
    """(event type, payload) of a ConverseStream event, as boto3 gives it (an object of
    one key) or as AWS frames it (``headers`` and ``payload``); None for any other."""
    if not isinstance(value, dict):
        return None
    headers = value.get("headers")
    if isinstance(headers, dict) and isinstance(value.get("payload"), dict):
        kind = headers.get(":event-type")
        return (kind, value["payload"]) if kind in EVENTS else None
    if len(value) == 1:
        kind, payload = next(iter(value.items()))
        if kind in EVENTS and isinstance(payload, dict):
            return kind, payload
    return None


# -- blocks ---------------------------------------------------------------------------


def _media(kind: str, body: Any) -> dict[str, Any]:
    """A media block (image, document, video, audio) as a standard block."""
    if not isinstance(body, dict):
        raise ValidationError(f"a Bedrock {kind} block must be an object")
    standard, types = MEDIA[kind]
    source = body.get("source") if isinstance(body.get("source"), dict) else {}
    fmt = body.get("format")
    mime = types.get(fmt) if isinstance(fmt, str) else None
    extras = {k: v for k, v in body.items() if k not in ("format", "source", "name")}
    name = body.get("name")
    if isinstance(name, str):
        extras["filename"] = name
    if isinstance(source.get("text"), str) or isinstance(source.get("content"), list):
        text = source.get("text")
        if text is None:
            text = "\n".join(c.get("text", "") for c in source["content"] if isinstance(c, dict))
        block: dict[str, Any] = {"type": "text-plain", "mime_type": "text/plain", "text": text}
        if isinstance(name, str):
            block["title"] = name
            del extras["filename"]
    elif "bytes" in source:
        data = source["bytes"]
        if isinstance(data, dict) and isinstance(data.get("data"), str):
            data = data["data"]  # (Strands Agents' sessions: {"__bytes_encoded__", "data"})
        block = {"type": standard, "base64": data}
    elif isinstance(source.get("s3Location"), dict):
        where = source["s3Location"]
        block = {"type": standard, "url": where.get("uri")}
        if where.get("bucketOwner"):
            extras["bucketOwner"] = where["bucketOwner"]
    else:
        block = {"type": standard}
        extras["source"] = source
    if mime is not None and block["type"] != "text-plain":
        block["mime_type"] = mime
    elif fmt is not None and mime is None:
        extras["format"] = fmt
    if extras:
        block["extras"] = extras
    return block


def _reasoning(body: Any) -> dict[str, Any]:
    if isinstance(body, dict) and isinstance(body.get("reasoningText"), dict):
        text = body["reasoningText"]
        block: dict[str, Any] = {"type": "reasoning", "reasoning": text.get("text") or ""}
        if text.get("signature"):
            block["extras"] = {"signature": text["signature"]}
        return block
    if isinstance(body, dict) and "redactedContent" in body:
        return {"type": "redacted_thinking", "data": body["redactedContent"]}
    return {"type": "non_standard", "value": {"reasoningContent": body}}


def read_block(block: Any) -> dict[str, Any]:
    """A content block (other than toolUse and toolResult) as a standard block."""
    if not isinstance(block, dict):
        raise ValidationError("a Bedrock content block must be an object of one key")
    if "text" in block and isinstance(block["text"], str):
        return {"type": "text", "text": block["text"]}
    for kind in MEDIA:
        if kind in block:
            return _media(kind, block[kind])
    if "reasoningContent" in block:
        return _reasoning(block["reasoningContent"])
    if isinstance(block.get("citationsContent"), dict):
        cited = block["citationsContent"]
        text = "".join(c.get("text", "") for c in cited.get("content") or () if isinstance(c, dict))
        return {"type": "text", "text": text, "extras": {"citations": cited.get("citations")}}
    return {"type": "non_standard", "value": block}


def _blocks(
    content: list[Any], assistant: bool = False
) -> tuple[list[dict[str, Any]], list[Any], list[Any], dict]:
    """(standard blocks, tool calls, tool results, what the message keeps beside them: a
    cache point after a tool call) of a turn. In an assistant's turn a tool the service
    ran (``type: server_tool_use``) and its result are blocks of the answer."""
    blocks: list[dict[str, Any]] = []
    calls: list[Any] = []
    results: list[Any] = []
    extra: dict[str, Any] = {}
    for block in content:
        use = block.get("toolUse") if isinstance(block, dict) else None
        result = block.get("toolResult") if isinstance(block, dict) else None
        if isinstance(use, dict) and use.get("type") == "server_tool_use":
            blocks.append(_server_call(use))
        elif isinstance(use, dict):
            calls.append(_call(use))
            extra.pop("cachePoint", None)
        elif isinstance(result, dict) and assistant:
            blocks.append(_server_result(result))
        elif isinstance(result, dict):
            results.append(result)
        elif isinstance(block, dict) and "cachePoint" in block:
            if blocks and not calls:
                last = blocks[-1]
                blocks[-1] = {
                    **last,
                    "extras": {**last.get("extras", {}), "cachePoint": block["cachePoint"]},
                }
            else:
                extra["cachePoint"] = block["cachePoint"]
        else:
            blocks.append(read_block(block))
    return blocks, calls, results, extra


def _server_call(use: dict[str, Any]) -> dict[str, Any]:
    block = {"type": "server_tool_call", "id": use.get("toolUseId"), "name": use.get("name")}
    block["args"] = use.get("input") if isinstance(use.get("input"), dict) else {}
    rest = {k: v for k, v in use.items() if k not in ("toolUseId", "name", "input")}
    if not isinstance(use.get("input"), dict):
        rest["input"] = use.get("input")
    return {**block, "extras": rest}


def _server_result(result: dict[str, Any]) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "server_tool_result",
        "tool_call_id": result.get("toolUseId"),
        "status": "error" if result.get("status") == "error" else "success",
        "output": result.get("content"),
    }
    rest = {k: v for k, v in result.items() if k not in ("toolUseId", "status", "content")}
    return {**block, "extras": rest} if rest else block


def _call(use: dict[str, Any]) -> dict[str, Any]:
    """A ``toolUse`` as a tool call (an invalid one when its input is no object: a stream's
    arguments that are not JSON)."""
    name, ident, given = use.get("name") or "", use.get("toolUseId"), use.get("input")
    args, error = parse_arguments(given)
    if error is not None:
        return invalid_tool_call(name=name, args=given, id=ident, error=error)
    return tool_call(name=name, args=args, id=ident)


def _content(blocks: list[dict[str, Any]]) -> Any:
    """A turn's content: its one text as a string, else its blocks."""
    if len(blocks) == 1 and blocks[0]["type"] == "text" and "extras" not in blocks[0]:
        return blocks[0]["text"]
    return blocks


def _tool_message(result: dict[str, Any]) -> ToolMessage:
    parts = []
    for item in result.get("content") or ():
        if isinstance(item, dict) and "json" in item and len(item) == 1:
            text = json.dumps(item["json"], ensure_ascii=False)
            parts.append({"type": "text", "text": text, "extras": {"json": item["json"]}})
        else:
            parts.append(read_block(item))
    rest = {k: v for k, v in result.items() if k not in ("toolUseId", "content", "status")}
    return ToolMessage(
        _content(parts) if parts else "",
        tool_call_id=result.get("toolUseId") or "",
        status="error" if result.get("status") == "error" else "success",
        additional_kwargs={EXTRAS_KEY: rest} if rest else {},
    )


def read_turn(value: Any) -> list[AnyMessage]:
    """The messages of a turn: an assistant's, or a user's (its tool results first, a tool
    message each, then what it says beside them)."""
    if not isinstance(value, dict) or value.get("role") not in ("user", "assistant"):
        raise ValidationError("not a Bedrock Converse message", hint=keys_hint(value))
    content = value.get("content")
    if isinstance(content, str):
        content = [{"text": content}]
    if not isinstance(content, list):
        raise ValidationError("a Bedrock message's content must be a list of blocks")
    blocks, calls, results, kept = _blocks(content, value["role"] == "assistant")
    extra = {k: v for k, v in value.items() if k not in ("role", "content")}
    extra.update(kept)
    kwargs = {"additional_kwargs": {EXTRAS_KEY: extra}} if extra else {}
    if value["role"] == "assistant":
        valid = [c for c in calls if c.get("type") == "tool_call"]
        invalid = [c for c in calls if c.get("type") != "tool_call"]
        content = _content(blocks) if blocks else ""
        message = AIMessage(content, tool_calls=valid, invalid_tool_calls=invalid, **kwargs)
        return [message]
    turn: list[AnyMessage] = [_tool_message(r) for r in results]
    if blocks or not results:
        turn.append(HumanMessage(_content(blocks), **kwargs))
    elif extra:
        turn[-1].additional_kwargs.setdefault(EXTRAS_KEY, {}).update(extra)
    return turn


def system_message(system: Any) -> SystemMessage | None:
    """The request's ``system`` blocks as one system message."""
    if isinstance(system, str):
        return SystemMessage(system) if system else None
    if not isinstance(system, list) or not system:
        return None
    blocks, _, _, kept = _blocks(system)
    if not blocks:
        return None
    message = SystemMessage(_content(blocks))
    if kept:
        message.additional_kwargs[EXTRAS_KEY] = kept
    return message
