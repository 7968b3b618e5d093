"""Messages as a Gemini ``generateContent`` request: what ``--to gemini`` writes.

System messages become ``systemInstruction``, tool calls ``functionCall`` parts (with the
thought signatures the reader kept) and tool results ``functionResponse`` parts, adjacent
turns of one role merged. By default (``Writing.strict``) the request holds only what the
API takes (``google-genai``'s ``Content``, ``Part``, ``Tool``, ``GenerationConfig``, 3.6.1,
in the REST API's camelCase): another provider's settings written into
``generationConfig``, its tools as ``functionDeclarations``, reasoning as thought parts,
media of any provider's form as inline or file data; what has no part is left out and
said. With ``keep_extras``, blocks with no part are written as JSON text and the
conversation's other fields kept, as before.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from ..model import AIMessage, AnyMessage, SystemMessage, ToolMessage
from ..model.reasoning import GEMINI, signed_by
from .api import (
    ASKED_REASONING,
    DROP,
    EMPTIED,
    MESSAGE_FIELDS,
    PART_FIELDS,
    REASONING_FIELDS,
    SETTING_VALUES,
    SIGNATURES,
    Writing,
    names,
    text_fields,
    with_reasoning,
    with_refusal,
    without_streaming,
)
from .base import Conversation, Kept
from .registry import extras_named

# the request's fields (the SDK's request builders' keys), by their camelCase names
REQUEST_FIELDS = frozenset(
    {"contents", "systemInstruction", "tools", "toolConfig", "safetySettings"}
    | {"cachedContent", "labels", "generationConfig", "model"}
)
_KINDS: dict[str, type | tuple[type, ...]] = {
    "contents": list,
    "systemInstruction": dict,
    "tools": list,
    "toolConfig": dict,
    "safetySettings": list,
    "cachedContent": str,
    "labels": dict,
    "generationConfig": dict,
    "model": str,
}
# the keys of the fields that are objects of the API's own (Bedrock's ``toolConfig`` of
# tools and a tool choice is not Gemini's of calling modes)
_OBJECT_KEYS = {"toolConfig": frozenset(("functionCallingConfig", "retrievalConfig"))}
# another provider's settings, and where generationConfig holds them
_GENERATION = {
    "temperature": "temperature",
    "top_p": "topP",
    "top_k": "topK",
    "max_tokens": "maxOutputTokens",
    "max_output_tokens": "maxOutputTokens",
    "max_completion_tokens": "maxOutputTokens",
    "stop": "stopSequences",
    "stop_sequences": "stopSequences",
    "seed": "seed",
    "presence_penalty": "presencePenalty",
    "frequency_penalty": "frequencyPenalty",
    "n": "candidateCount",
}
# a part's fields (Part, in camelCase)
PART_KEYS = frozenset(
    {"text", "thought", "thoughtSignature", "inlineData", "fileData", "functionCall"}
    | {"functionResponse", "executableCode", "codeExecutionResult", "videoMetadata"}
    | {"mediaResolution", "partMetadata", "toolCall", "toolResponse"}
)
_DATA_KEYS = {
    "inlineData": frozenset(("data", "mimeType", "displayName")),
    "fileData": frozenset(("fileUri", "mimeType", "displayName")),
}
_SNAKE = re.compile(r"_([a-z])")
# additional_kwargs keys that are chatpipe's bookkeeping or written elsewhere
_BOOKKEEPING = frozenset(("__openai_role__", "tool_calls", "thought_signatures", "source"))
_WRITTEN = _BOOKKEEPING | {"refusal", *REASONING_FIELDS}  # (the model's text, its thoughts)

NO_PART = "content blocks with no Gemini part"
AS_JSON = Kept("blocks with no Gemini part", "written as JSON text")
REDACTED = "another model's redacted thinking"
REFUSALS = Kept("refusals", "written as the model's text")


def camel(key: str) -> str:
    return _SNAKE.sub(lambda m: m.group(1).upper(), key)


def write_request(conversation: Conversation, writing: Writing | None = None) -> dict[str, Any]:
    from .tool_specs import for_target

    writing = writing or Writing()
    system, contents = write_contents(conversation.messages, writing)
    record: dict[str, Any] = {}
    if system is not None:
        record["systemInstruction"] = {"parts": [{"text": system}]}
    record["contents"] = contents
    held = ("contents", "messages", "systemInstruction", conversation.messages_key)
    meta = {k: v for k, v in conversation.meta.items() if k not in held}
    if writing.strict:
        record.update(request_fields(meta, writing))
        return record
    record.update(meta)
    if "tools" in record:  # other providers' tool lists, as functionDeclarations
        record["tools"] = for_target(record["tools"], "gemini")[0]
    return record


def request_fields(meta: dict[str, Any], writing: Writing) -> dict[str, Any]:
    """A conversation's fields as ``generateContent`` takes them: Gemini's own in
    camelCase, another provider's settings in ``generationConfig``, its tools and tool
    choice as Gemini's; the others said."""
    from .tool_specs import api_choice, api_tools

    meta = without_streaming(meta, writing)
    named = {camel(k) if camel(k) in REQUEST_FIELDS else k: v for k, v in meta.items()}
    generation = dict(named.pop("generationConfig", None) or {})
    for key, field in _GENERATION.items():
        value = named.pop(key, None)
        if value is not None and field not in generation:
            generation[field] = (
                [value] if field == "stopSequences" and isinstance(value, str) else value
            )
    choice = named.pop("tool_choice", None)
    kept = writing.fields(named, REQUEST_FIELDS)
    kept.pop("systemInstruction", None)  # (written from the system messages)
    if choice is not None and "toolConfig" not in kept:
        kept["toolConfig"] = api_choice(choice, "gemini")
        if kept["toolConfig"] is None:
            writing.left(SETTING_VALUES, None, "tool_choice")
    if kept.get("tools") is not None:
        kept["tools"] = api_tools(kept["tools"], "gemini", writing)
    if generation:
        kept["generationConfig"] = {camel(k): v for k, v in generation.items()}
    wrong = [
        k
        for k, v in kept.items()
        if (v is not None and not isinstance(v, _KINDS[k]))
        or (isinstance(v, dict) and k in _OBJECT_KEYS and not v.keys() <= _OBJECT_KEYS[k])
    ]
    if wrong:
        writing.left(SETTING_VALUES, None, names(wrong))
    return {k: v for k, v in kept.items() if k not in wrong and v is not None}


def write_contents(
    messages: Iterable[AnyMessage], writing: Writing | None = None
) -> tuple[str | None, list[dict[str, Any]]]:
    return _Contents(writing or Writing()).write(messages)


class _Contents:
    def __init__(self, writing: Writing) -> None:
        self.writing = writing
        self.contents: list[dict[str, Any]] = []
        self.names: dict[str, str] = {}  # call id -> function name
        self.index = 0

    def add(self, role: str, parts: list[dict[str, Any]], message: AnyMessage) -> None:
        contents = self.contents
        if not parts and self.writing.strict:
            # (the API refuses a turn of no parts: one that held nothing it takes is left
            # out, said; one of a role, merged, alternates)
            self.writing.left(EMPTIED, self.index)
            return
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": role, "parts": parts})
        if self.writing.keep_extras and not isinstance(message, ToolMessage):
            # (the faithful superset: a turn's own fields on the content it began)
            kept = message.additional_kwargs.items()
            written = {k: v for k, v in kept if k not in _BOOKKEEPING}
            contents[-1].update({k: v for k, v in written.items() if k not in contents[-1]})

    def write(self, messages: Iterable[AnyMessage]) -> tuple[str | None, list[dict[str, Any]]]:
        system: str | None = None
        for self.index, message in enumerate(messages):
            self.fields(message)
            if isinstance(message, SystemMessage):
                system = message.text if system is None else system + "\n" + message.text
                if self.writing.strict and not isinstance(message.content, str):
                    others = [
                        b
                        for b in message.content
                        if isinstance(b, dict) and b.get("type") != "text"
                    ]
                    if others:
                        self.writing.left(NO_PART, self.index, "media in a system instruction")
            elif isinstance(message, AIMessage):
                self.add("model", self.parts(message) + self.calls(message), message)
            elif isinstance(message, ToolMessage):
                self.add("user", [self.response(message)], message)
            else:
                self.add("user", self.parts(message), message)
        return system, self.contents

    def fields(self, message: AnyMessage) -> None:
        kwargs = message.additional_kwargs
        found = [k for k, v in kwargs.items() if k not in _WRITTEN and v is not None]
        kept = self.writing.keep_extras and not isinstance(message, (SystemMessage, ToolMessage))
        if found and not kept:  # (with keep_extras, on its content: ``add``)
            self.writing.left(MESSAGE_FIELDS, self.index, names(map(extras_named, found)))

    def calls(self, message: AIMessage) -> list[dict[str, Any]]:
        signatures = message.additional_kwargs.get("thought_signatures") or {}
        parts = []
        for call in message.tool_calls:
            self.names[call["id"] or ""] = call["name"]
            part = {"functionCall": {"id": call["id"], "name": call["name"], "args": call["args"]}}
            if call["id"] in signatures:
                part["thoughtSignature"] = signatures[call["id"]]
            parts.append(part)
        return parts

    def response(self, message: ToolMessage) -> dict[str, Any]:
        try:
            response = json.loads(message.text)
        except ValueError:
            response = None
        if not isinstance(response, dict):
            response = {"result": message.content}
        name = message.name or self.names.get(message.tool_call_id, "")
        return {
            "functionResponse": {"id": message.tool_call_id, "name": name, "response": response}
        }

    def parts(self, message: AnyMessage) -> list[dict[str, Any]]:
        content = message.content
        if self.writing.strict and isinstance(message, AIMessage):
            content = with_reasoning(message, with_refusal(message))
        if isinstance(content, str):
            return [{"text": content}] if content else []
        if not self.writing.strict:
            return [_part(b) for b in content]
        made = (self.taken(b, message) for b in content)
        return [p for p in made if p is not None]

    def taken(self, block: Any, message: AnyMessage) -> dict[str, Any] | None:
        """A block as a part the API takes, or None, said."""
        if isinstance(block, str):
            return {"text": block} if block else None
        if not isinstance(block, dict):
            self.writing.left(NO_PART, self.index, type(block).__name__)
            return None
        kind = block.get("type")
        if kind in ("reasoning", "thinking", "redacted_thinking"):
            return self.reasoning(block)
        if kind in ("tool_use", "function_call") and isinstance(message, AIMessage):
            return None  # (its call: the message's tool calls)
        if kind == "refusal" and isinstance(block.get("refusal"), str):
            self.writing.left(REFUSALS, self.index)
            return {"text": block["refusal"]}
        part = _media(block) or _part(block, strict=True)
        if part is None or not part or not part.keys() <= PART_KEYS:
            self.writing.left(NO_PART, self.index, _kind(block))
            return None
        extras = block.get("extras") if isinstance(block.get("extras"), dict) else {}
        if kind == "video" and isinstance((extras or {}).get("fps"), (int, float)):
            part = {**part, "videoMetadata": {"fps": extras["fps"]}}  # (a processor's rate)
        if kind == "text":  # (another API's citations or cache control beside its text too)
            left = text_fields(block, ("thought_signature",))
        else:
            video = part.get("videoMetadata", {})
            left = [k for k in extras or () if k != "thought_signature" and k not in video]
        if left:
            self.writing.left(PART_FIELDS, self.index, names(left))
        return self.own(part)

    def own(self, part: dict[str, Any]) -> dict[str, Any]:
        for key, keys in _DATA_KEYS.items():
            data = part.get(key)
            if isinstance(data, dict):
                named = {camel(k): v for k, v in data.items()}
                left = [k for k in named if k not in keys]
                if left:
                    self.writing.left(PART_FIELDS, self.index, names(left))
                part = {**part, key: {k: v for k, v in named.items() if k in keys}}
        return part

    def reasoning(self, block: dict[str, Any]) -> dict[str, Any] | None:
        """A thought part (Gemini's own, with its signature, or another model's text)."""
        if self.writing.reasoning == DROP:
            self.writing.left(ASKED_REASONING, self.index)
            return None
        if block["type"] == "redacted_thinking":
            self.writing.left(REDACTED, self.index)
            return None
        if signed_by(block) not in (None, GEMINI):
            self.writing.left(SIGNATURES, self.index)
        text = block.get("thinking") if block["type"] == "thinking" else block.get("reasoning")
        part: dict[str, Any] = {"text": text if isinstance(text, str) else "", "thought": True}
        signature = (block.get("extras") or {}).get("thought_signature")
        if block["type"] == "reasoning" and isinstance(signature, str):
            part["thoughtSignature"] = signature
        return part


def _kind(block: dict[str, Any]) -> str:
    value = block.get("value")
    inner = value.get("type") if isinstance(value, dict) else None
    return str(inner or block.get("type") or "a block without a type")


def _media(block: dict[str, Any]) -> dict[str, Any] | None:
    """Images, audio and files of other providers' forms as inline or file data."""
    kind = block.get("type")
    if kind == "image_url":
        image = block.get("image_url")
        return _url_part(image.get("url") if isinstance(image, dict) else image, None)
    source = block.get("source")
    if kind in ("image", "document") and isinstance(source, dict):  # Anthropic's
        if source.get("type") == "base64":
            return {
                "inlineData": {"mimeType": source.get("media_type"), "data": source.get("data")}
            }
        if source.get("type") == "url":
            return _url_part(source.get("url"), None)
        if source.get("type") == "text":
            return {"text": str(source.get("data", ""))}
        return None
    if kind == "file" and isinstance(block.get("file"), dict):  # Chat Completions'
        return _url_part(block["file"].get("file_data"), None)
    audio = block.get("input_audio")
    if kind == "input_audio" and isinstance(audio, dict):
        return {
            "inlineData": {"mimeType": f"audio/{audio.get('format')}", "data": audio.get("data")}
        }
    if kind == "text-plain":
        from .openai_writer import file_as_text

        text = file_as_text(block)
        return None if text is None else {"text": text}
    if kind == "json" and "json" in block:
        return {"text": json.dumps(block["json"], ensure_ascii=False)}
    return None


def _url_part(url: Any, mime: Any) -> dict[str, Any] | None:
    if not isinstance(url, str):
        return None
    if url.startswith("data:") and ";base64," in url:
        head, data = url[5:].split(";base64,", 1)
        return {"inlineData": {"mimeType": head, "data": data}}
    file = {"fileUri": url}
    if mime:
        file["mimeType"] = mime
    return {"fileData": file}


def _part(block: Any, strict: bool = False) -> Any:
    """A block as a part (``strict``: None for one with no part; else as JSON text)."""
    if isinstance(block, str):
        return {"text": block}
    kind = block.get("type")
    extras = dict(block.get("extras") or {})
    signature = extras.pop("thought_signature", None)
    if kind == "text":
        part: dict[str, Any] = {"text": block.get("text", "")}
    elif kind == "reasoning":
        part = {"text": block.get("reasoning", ""), "thought": True}
    elif kind in ("image", "audio", "video", "file") and "base64" in block:
        part = {"inlineData": {"mimeType": block.get("mime_type"), "data": block["base64"]}}
    elif kind in ("image", "audio", "video", "file") and "url" in block:
        part = {"fileData": {"fileUri": block["url"]}}
        if block.get("mime_type"):
            part["fileData"]["mimeType"] = block["mime_type"]
    elif kind == "image_url":
        url = (
            block["image_url"]["url"]
            if isinstance(block.get("image_url"), dict)
            else block.get("image_url")
        )
        part = {"fileData": {"fileUri": url}}
    elif kind == "non_standard" and isinstance(block.get("value"), dict):
        return block["value"]
    elif strict:
        return None
    else:
        return {"text": json.dumps(block, ensure_ascii=False)}
    if signature:
        part["thoughtSignature"] = signature
    if not strict:
        part.update(extras)
    return part
