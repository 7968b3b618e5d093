"""Writing Bedrock Converse requests: what the ``Converse`` operation takes, and nothing
else (botocore's ``bedrock-runtime`` model, which tests/provider_schemas.py checks every
fixture's request with).

System messages become ``system`` text blocks; each turn a list of one-key blocks: text,
reasoning (``reasoningContent``, with its signature; redacted reasoning as
``redactedContent``; a ``reasoning_content`` field of OpenAI-compatible servers too), images,
documents, videos and audio given as bytes (or S3 locations) of the formats Bedrock names,
tool calls as ``toolUse`` and tool results as ``toolResult`` blocks of a user turn; turns of
one role are merged (the API alternates them); a tool the service ran, and its result,
stand in the assistant's turn. The settings and tools are bedrock_settings.py's; Anthropic's
``thinking`` setting goes into ``additionalModelRequestFields``, as Bedrock passes it on to
Claude.

What a message cannot hold is said by ``cannot_hold`` (the dialect's ``losses``), made by
the same mapping the writer uses; what the writer meets as it writes it says through the
dialect's ``left``.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from ..model import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage
from ..model.conversation import Conversation
from ..model.reasoning import ANTHROPIC, field_reasoning, has_reasoning_blocks, signed_by
from ..model.reasoning import FIELDS as REASONING_FIELDS
from . import media
from .api import PART_FIELDS, extras_left, text_fields
from .api_request import EMPTIED, SIGNATURES
from .base import Kept
from .bedrock_read import EXTRAS_KEY, MEDIA, REQUEST_KEYS
from .bedrock_settings import SETTINGS, Fit, inference, tool_config

# what a message cannot hold, in the words of the run's warning
NAMES = "message names"
OTHER_ROLES = Kept("chat and function roles", "written as user turns")
UNPARSED = "tool calls whose arguments are not JSON"
USER_REASONING = "reasoning in user turns (Bedrock takes it from the assistant)"
ASSISTANT_MEDIA = "media in assistant turns (Bedrock's models take it from the user)"
SYSTEM_MEDIA = "content other than text in system messages"
NOT_BYTES = "media given by URL or file id (Bedrock takes bytes or an S3 location)"
OTHER_FORMATS = "media of formats Bedrock does not take"
OTHER_BLOCKS = "content blocks Bedrock has no form for"
EXTRA_FIELDS = "message fields other formats keep (their readers' extras)"
# said by the writer as it writes
RENAMED = Kept("tool names or call ids Bedrock's pattern refuses", "made to fit [a-zA-Z0-9_-]")
_BOOKKEEPING = (EXTRAS_KEY, "__openai_role__", "refusal", *REASONING_FIELDS)
_TEXT = ("text", "input_text", "output_text")
_S3 = "s3://"
# what Bedrock's reader keeps in a media block's extras, and its writer writes (or reads
# the format from)
_MEDIA_EXTRAS = ("bucketOwner", "cachePoint", "format")
# a Bedrock citation's fields (botocore's Citation), as its reader keeps them in extras
_CITATION = frozenset(("title", "source", "sourceContent", "location"))
# a document's name: letters, digits, single spaces, hyphens, parentheses, brackets
_NOT_NAME = re.compile(r"[^a-zA-Z0-9\-()\[\] ]+")


class _Turn:
    """One message as Converse blocks, and the kinds of what it leaves out."""

    def __init__(self, message: AnyMessage, number: int = 0) -> None:
        self.message, self.number = message, number
        self.left: list[str] = []
        self.blocks: list[dict[str, Any]] = []
        self.role = "user"
        if isinstance(message, SystemMessage):
            self.role = "system"
        elif isinstance(message, AIMessage):
            self.role = "assistant"
        elif not isinstance(message, (HumanMessage, ToolMessage)):
            self.left.append(OTHER_ROLES)
        if message.name:
            self.left.append(NAMES)
        kept = message.additional_kwargs
        extras = [k for k, v in kept.items() if k not in _BOOKKEEPING and v is not None]
        if extras:
            self.left.append(EXTRA_FIELDS)
        if isinstance(message, ToolMessage):
            self.blocks = [{"toolResult": self._result(message)}]
        else:
            self._content(message)
        if isinstance(kept.get(EXTRAS_KEY), dict):  # (a cache point after the calls or results)
            point = kept[EXTRAS_KEY].get("cachePoint")
            if point is not None and self.blocks:
                self.blocks.append({"cachePoint": point})

    def _content(self, message: AnyMessage) -> None:
        kept = message.additional_kwargs
        if self.role == "assistant":
            self._reasoning_fields()
        elif field_reasoning(message):
            self.left.append(USER_REASONING if self.role == "user" else SYSTEM_MEDIA)
        for block in _items(message.content):
            written = len(self.blocks)
            self._block(block)
            extras = block.get("extras") if isinstance(block, dict) else None
            if isinstance(extras, dict) and "cachePoint" in extras and len(self.blocks) > written:
                self.blocks.append({"cachePoint": extras["cachePoint"]})  # (as read: after it)
        if isinstance(kept.get("refusal"), str):  # (OpenAI's refusal: the answer's text)
            self._text(kept["refusal"], None)
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                use = {"toolUseId": call.get("id") or "", "name": call["name"]}
                self.blocks.append({"toolUse": {**use, "input": call["args"]}})
            if message.invalid_tool_calls:
                self.left.append(UNPARSED)

    def _reasoning_fields(self) -> None:
        """The reasoning a reader kept as a field (``reasoning_content``...), when the
        content holds no reasoning block of its own."""
        text = field_reasoning(self.message)
        if text and not has_reasoning_blocks(self.message):
            self.blocks.append({"reasoningContent": {"reasoningText": {"text": text}}})

    def _block(self, block: Any) -> None:
        if isinstance(block, str):
            self._text(block, None)
            return
        kind = block.get("type")
        if kind in _TEXT:
            extras = block.get("extras") if isinstance(block.get("extras"), dict) else {}
            own = ("cachePoint", "citations") if _citations(extras) else ("cachePoint",)
            rest = {k: v for k, v in extras.items() if k not in own}
            if text_fields({**block, "extras": rest}):  # (another API's citations, say)
                self.left.append(PART_FIELDS)
            self._text(block.get("text"), extras)
        elif kind in ("reasoning", "thinking", "redacted_thinking"):
            self._reasoned(block)
        elif kind in ("tool_use", "tool_call", "function_call"):
            pass  # (the message's tool calls, written from them)
        elif kind in ("server_tool_call", "server_tool_result") and self.role == "assistant":
            self.blocks.append(_server_block(block))
        else:
            found = media.of(block)
            if found is None:
                self.left.append(OTHER_BLOCKS)
            elif self.role == "system":
                self.left.append(SYSTEM_MEDIA)
            elif self.role == "assistant":
                self.left.append(ASSISTANT_MEDIA)
            else:
                written = self._media(found, block.get("extras"))
                if written is not None:
                    self.blocks.append(written)
                if extras_left(block, _MEDIA_EXTRAS):
                    self.left.append(PART_FIELDS)

    def _text(self, text: Any, extras: Any) -> None:
        if not isinstance(text, str) or not text:
            return  # (Bedrock refuses a blank text block; nothing is in it)
        cited = _citations(extras)
        if cited and self.role == "assistant":  # (Bedrock's own, as read)
            content = {"content": [{"text": text}], "citations": cited}
            self.blocks.append({"citationsContent": content})
        else:
            self.blocks.append({"text": text})

    def _reasoned(self, block: dict[str, Any]) -> None:
        if self.role != "assistant":
            self.left.append(USER_REASONING if self.role == "user" else SYSTEM_MEDIA)
            return
        if block["type"] == "redacted_thinking":
            self.blocks.append({"reasoningContent": {"redactedContent": block.get("data")}})
            return
        if block["type"] == "thinking":
            text, signature = block.get("thinking"), block.get("signature")
        else:
            extras = block.get("extras") if isinstance(block.get("extras"), dict) else {}
            text, signature = block.get("reasoning"), extras.get("signature")
        if signed_by(block) not in (None, ANTHROPIC):  # (Bedrock's Claude signs as Anthropic)
            self.left.append(SIGNATURES)
        if isinstance(text, str) and text:
            written: dict[str, Any] = {"text": text}
            if isinstance(signature, str) and signature:
                written["signature"] = signature
            self.blocks.append({"reasoningContent": {"reasoningText": written}})

    def _media(self, found: media.Media, extras: Any = None) -> dict[str, Any] | None:
        kind = "document" if found.kind == "file" else found.kind
        formats = MEDIA[kind][1]
        data = found.data
        if found.text is not None:  # a plain-text document
            data = base64.b64encode(found.text.encode()).decode()
        if data:
            source: dict[str, Any] = {"bytes": data}
        elif found.url is not None and found.url.startswith(_S3):
            source = {"s3Location": {"uri": found.url}}
            owner = extras.get("bucketOwner") if isinstance(extras, dict) else None
            if isinstance(owner, str):  # (the account that owns the bucket, as read)
                source["s3Location"]["bucketOwner"] = owner
        else:
            self.left.append(NOT_BYTES)
            return None
        fmt = next((f for f, mime in formats.items() if mime == found.mime), None)
        if fmt is None and found.mime is None and "s3Location" in source:
            ending = found.url.rsplit(".", 1)[-1].lower() if found.url else ""
            fmt = "jpeg" if ending == "jpg" and kind == "image" else ending
            fmt = fmt if fmt in formats else None
        if fmt is None:
            self.left.append(OTHER_FORMATS)
            return None
        body: dict[str, Any] = {"format": fmt, "source": source}
        if kind == "document":
            body["name"] = _document_name(found.name, self.number)
        return {kind: body}

    def _result(self, message: ToolMessage) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        for block in _items(message.content):
            extras = block.get("extras") if isinstance(block, dict) else None
            if isinstance(extras, dict) and "json" in extras:
                parts.append({"json": extras["json"]})
            elif isinstance(block, str) or block.get("type") in _TEXT:
                text = block if isinstance(block, str) else block.get("text")
                if isinstance(text, str) and text:
                    parts.append({"text": text})
            else:
                found = media.of(block)
                written = self._media(found, block.get("extras")) if found is not None else None
                if extras_left(block, _MEDIA_EXTRAS):
                    self.left.append(PART_FIELDS)
                if found is None:
                    self.left.append(OTHER_BLOCKS)
                if written is not None and "audio" not in written:
                    parts.append(written)
                elif written is not None:
                    self.left.append(OTHER_BLOCKS)
        status = "error" if message.status == "error" else "success"
        return {"toolUseId": message.tool_call_id or "", "content": parts, "status": status}


def _server_block(block: dict[str, Any]) -> dict[str, Any]:
    """A tool the service ran, and its result, as the assistant's turn holds them."""
    extras = block.get("extras") if isinstance(block.get("extras"), dict) else {}
    if block["type"] == "server_tool_call":
        use = {"toolUseId": block.get("id") or "", "name": block.get("name") or ""}
        use["input"] = extras.get("input", block.get("args") or {})
        return {"toolUse": {**use, "type": "server_tool_use"}}
    output = block.get("output")
    if not isinstance(output, list):
        output = [{"text": output if isinstance(output, str) else json.dumps(output)}]
    result = {"toolUseId": block.get("tool_call_id") or "", "content": output}
    result["status"] = "error" if block.get("status") == "error" else "success"
    if isinstance(extras.get("type"), str):
        result["type"] = extras["type"]
    return {"toolResult": result}


def _citations(extras: Any) -> list[dict[str, Any]] | None:
    """The citations a text block's extras hold, where they are Bedrock's own (a Claude
    export's or another app's keep other fields): None otherwise."""
    cited = extras.get("citations") if isinstance(extras, dict) else None
    if not isinstance(cited, list) or not cited:
        return None
    if all(isinstance(c, dict) and c and c.keys() <= _CITATION for c in cited):
        return cited
    return None


def _items(content: Any) -> list[Any]:
    return [content] if isinstance(content, str) else list(content or ())


def _document_name(name: str | None, number: int) -> str:
    """A document's name as Bedrock takes it (its extension a word of its own)."""
    fitted_name = " ".join(_NOT_NAME.sub(" ", name or "").split())[:200]
    return fitted_name or f"document {number + 1}"


def cannot_hold(message: AnyMessage) -> list[str]:
    """The kinds of what a message's turn leaves out (the dialect's ``losses``)."""
    return list(dict.fromkeys(_Turn(message).left))


# -- a whole request ---------------------------------------------------------------------


def write(dialect: Any, conversation: Conversation) -> dict[str, Any]:
    system: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    fit = Fit()
    called: dict[str, None] = {}
    for number, message in enumerate(conversation.messages):
        turn = _Turn(message, number)
        if turn.role == "system":
            system.extend(turn.blocks)
            continue
        for block in turn.blocks:
            use = block.get("toolUse") or block.get("toolResult")
            if use is not None:
                use["toolUseId"] = fit.ident(use["toolUseId"])
                if "name" in use:
                    use["name"] = fit.name(use["name"])
                    called[use["name"]] = None
        if not turn.blocks:
            dialect.left(EMPTIED, number)
        elif turns and turns[-1]["role"] == turn.role:
            turns[-1]["content"].extend(turn.blocks)
        else:
            turns.append({"role": turn.role, "content": turn.blocks})
    record: dict[str, Any] = {}
    model = dialect.settings.get("model") or conversation.meta.get("modelId")
    if model:
        record["modelId"] = model
    record["messages"] = turns
    if system:
        record["system"] = system
    meta = {k: v for k, v in conversation.meta.items() if k != conversation.messages_key}
    inference_config = inference(dialect, meta)
    if inference_config:
        record["inferenceConfig"] = inference_config
    tools = tool_config(dialect, meta, called, fit)
    if tools:
        record["toolConfig"] = tools
    if fit.changed:
        dialect.left(RENAMED)
    used = {"modelId", "messages", "system", "inferenceConfig", "toolConfig", "tools"}
    rest = {k: v for k, v in meta.items() if k not in used and k not in SETTINGS}
    thinking = rest.get("thinking")
    if isinstance(thinking, dict) and not isinstance(
        rest.get("additionalModelRequestFields"), dict
    ):
        # Anthropic's thinking setting, as Bedrock passes it on to Claude
        rest["additionalModelRequestFields"] = {"thinking": rest.pop("thinking")}
    record.update(dialect.fields(rest, REQUEST_KEYS - used))
    return record
