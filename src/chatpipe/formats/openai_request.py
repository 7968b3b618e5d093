"""Messages as the Chat Completions API takes them: what ``--to openai`` writes by default,
and the messages of an openai-batch's ``/v1/chat/completions`` bodies.

Each role gets the keys and content parts its message type has (the ``openai`` package's
``ChatCompletionMessageParam``, 3.57.0): text for system, developer and tool messages; text,
images, audio and files for user messages; text and refusals for assistant messages, with
their calls. A fine-tuning row's ``weight`` stays on assistant messages. What a role cannot
take is left out and said (``Writing.left``): a reader's own fields, media where the role
takes none, content with no part, and reasoning, for which Chat Completions has no field
(``--reasoning reasoning-content`` writes the ``reasoning_content`` of OpenAI-compatible
servers instead). The langchain writer (openai_writer.py) and the faithful one
(``--keep-extras``) are left as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError
from ..io.jsontext import json_text
from ..model import AIMessage, AnyMessage, ToolMessage
from ..model.blocks import is_data_content_block
from ..model.reasoning import field_blocks, signed_by
from ..model.tool_calls import DOUBLE_ENCODED
from .api import (
    ASKED_REASONING,
    DROP,
    MESSAGE_FIELDS,
    PART_FIELDS,
    REASONING_CONTENT,
    REASONING_FIELDS,
    REASONING_TYPES,
    SIGNATURES,
    Writing,
    extras_left,
    names,
    reasoning_text,
    text_fields,
)
from .base import Kept
from .openai_media import (
    FALLBACK_FILENAME,
    anthropic_image,
    data_block,
    media_image,
    unrecognized,
)
from .openai_writer import file_as_text, openai_role, openai_tool_call
from .registry import extras_named

ROLES = ("system", "developer", "user", "assistant", "tool", "function")
# the content parts each role's message takes (the others take text parts only)
PARTS = {
    "user": frozenset(("text", "image_url", "input_audio", "file")),
    "assistant": frozenset(("text", "refusal")),
}
# each role's message keys, and each part's (the openai package's message and part params)
ROLE_KEYS = {
    "system": frozenset(("role", "content", "name")),
    "developer": frozenset(("role", "content", "name")),
    "user": frozenset(("role", "content", "name")),
    "assistant": frozenset(
        ("role", "content", "name", "refusal", "audio", "tool_calls", "function_call")
    ),
    "tool": frozenset(("role", "content", "tool_call_id")),
    "function": frozenset(("role", "content", "name")),
}
PART_KEYS = {
    "text": ("type", "text"),
    "image_url": ("type", "image_url"),
    "input_audio": ("type", "input_audio"),
    "file": ("type", "file"),
    "refusal": ("type", "refusal"),
}
# fields of additional_kwargs that an assistant message takes as they are
_ASSISTANT_FIELDS = ("function_call", "weight")
# additional_kwargs keys that are chatpipe's or langchain's bookkeeping, said nowhere
_BOOKKEEPING = frozenset(("__openai_role__", "tool_calls", DOUBLE_ENCODED, "refusal"))

NO_REASONING_FIELD = (
    "reasoning (Chat Completions has no field for it; --reasoning reasoning-content writes "
    "the reasoning_content that DeepSeek, vLLM and OpenRouter take)"
)
MEDIA = "media in turns whose role takes text only (system, developer, assistant, tool)"
UNTAKEN_MEDIA = "media Chat Completions cannot take (video, files by URL, other audio)"
NO_PART = "content blocks with no Chat Completions part"
OTHER_ROLES = Kept("messages of roles Chat Completions does not have", "written as user turns")
TOOL_NAMES = "tool results' names other than their call's (a tool message has no name)"


class ChatRequestWriter:
    """Messages as Chat Completions messages, one at a time (a message may give several:
    tool results held in a user turn become tool messages), saying what it leaves out."""

    def __init__(self, writing: Writing, rows: bool = True) -> None:
        self.writing = writing
        self.calls: dict[Any, Any] = {}  # call id -> function name, of the calls so far
        # a fine-tuning row's assistant messages keep their weight; a request's have none
        self.taken = _ASSISTANT_FIELDS if rows else _ASSISTANT_FIELDS[:1]

    def write(self, messages: Iterable[AnyMessage]) -> Iterator[dict[str, Any]]:
        for index, message in enumerate(messages):
            yield from self.message(index, message)

    def message(self, i: int, message: AnyMessage) -> list[dict[str, Any]]:
        role = openai_role(message)
        if role not in ROLES:
            self.writing.left(OTHER_ROLES, i, role)
            role = "user"
        out: dict[str, Any] = {"role": role}
        if role == "tool":
            out["tool_call_id"] = message.tool_call_id  # type: ignore[union-attr]
            name = message.name
            if name and name != self.calls.get(out["tool_call_id"]):
                self.writing.left(TOOL_NAMES, i, name)
        elif message.name or role == "function":
            out["name"] = message.name or ""
        tool_messages: list[dict[str, Any]] = []
        reasoning: list[Any] = []
        content = self._content(i, message, role, out, tool_messages, reasoning)
        out["content"] = content
        if role == "assistant":
            self._assistant(i, message, out, reasoning)
        self._fields_left_out(i, message, role)
        if message.content and not content and tool_messages and "tool_calls" not in out:
            return tool_messages  # a user turn that held tool results only
        return [out, *tool_messages]

    # -- the assistant's calls, refusal, fields and reasoning ---------------------------

    def _assistant(self, i: int, message: AnyMessage, out: dict, reasoning: list[Any]) -> None:
        assert isinstance(message, AIMessage)
        calls = [openai_tool_call(c) for c in message.tool_calls]
        for bad in message.invalid_tool_calls:  # arguments as they came (said by losses())
            args = bad.get("args")
            arguments = args if isinstance(args, str) else json_text(args or {})
            call = {"name": bad.get("name") or "", "arguments": arguments}
            calls.append({"type": "function", "id": bad.get("id"), "function": call})
        calls += out.pop("tool_calls", [])  # (calls of blocks the message does not make)
        for call in calls:
            self.calls[call["id"]] = call["function"]["name"]
        if calls:
            out["tool_calls"] = calls
        kwargs = message.additional_kwargs
        if kwargs.get("refusal"):
            out["refusal"] = kwargs["refusal"]
        for key in self.taken:
            if kwargs.get(key) is not None:
                out[key] = kwargs[key]
        audio = kwargs.get("audio")
        if isinstance(audio, dict) and isinstance(audio.get("id"), str):
            out["audio"] = {"id": audio["id"]}  # (a reply's audio is sent back by its id)
        self._reasoning(i, out, [*field_blocks(kwargs), *reasoning])

    def _reasoning(self, i: int, out: dict, found: list[Any]) -> None:
        """Reasoning blocks and fields: ``reasoning_content`` when asked, else left out."""
        if not found:
            return
        mode = self.writing.reasoning
        text = reasoning_text(found)
        if mode == REASONING_CONTENT and text:
            out["reasoning_content"] = text
            if any(signed_by(block) for block in found):
                self.writing.left(SIGNATURES, i)
        elif mode == DROP:
            self.writing.left(ASKED_REASONING, i)
        else:
            self.writing.left(NO_REASONING_FIELD, i)

    def _fields_left_out(self, i: int, message: AnyMessage, role: str) -> None:
        taken = {*_BOOKKEEPING, *REASONING_FIELDS}
        if role == "assistant":
            taken.update((*self.taken, "audio"))
        left = [k for k in message.additional_kwargs if k not in taken]
        if role != "assistant":  # (reasoning in another turn: no field anywhere)
            left += [k for k in REASONING_FIELDS if k in message.additional_kwargs]
        if left:
            self.writing.left(MESSAGE_FIELDS, i, names(map(extras_named, left)))

    # -- content --------------------------------------------------------------------------

    def _content(
        self,
        i: int,
        message: AnyMessage,
        role: str,
        out: dict,
        tool_messages: list,
        reasoning: list,
    ) -> Any:
        """The message's content as its role takes it: a string stays a string, a list
        of parts a list (none left: an empty string)."""
        content = message.content
        if isinstance(content, str):
            return content
        taken = PARTS.get(role, frozenset(("text",)))
        parts: list[dict[str, Any]] = []
        for j, block in enumerate(content):
            if isinstance(block, str):
                parts.append({"type": "text", "text": block})
                continue
            if not isinstance(block, dict):
                self.writing.left(NO_PART, i, type(block).__name__)
                continue
            if block.get("type") in REASONING_TYPES:
                reasoning.append(block)
                if role != "assistant":
                    self.writing.left(NO_REASONING_FIELD, i)
                continue
            for part in self._block(i, j, block, message, out, tool_messages):
                if part["type"] in taken:
                    parts.append(part)
                else:
                    self.writing.left(MEDIA, i, f"{part['type']} in a {role} turn")
        if role == "function":  # (a function message's content is a string)
            return "\n".join(p["text"] for p in parts)
        return parts or ""

    def _block(
        self, i: int, j: int, block: dict, message: AnyMessage, out: dict, tool_messages: list
    ) -> list[dict[str, Any]]:
        """A content block as the Chat Completions parts it gives (none for a call, which
        goes to ``out``, or a tool result, which becomes a tool message)."""
        kind = block.get("type")
        if kind == "text":
            left = text_fields(block)
            if left:
                self.writing.left(PART_FIELDS, i, names(left))
            return [{"type": "text", "text": str(block.get("text", ""))}]
        if kind == "refusal":
            refusal = block.get("refusal")
            return [{"type": "refusal", "refusal": refusal}] if refusal else []
        if kind in ("tool_use", "function_call", "tool_result"):
            return self._call(i, block, message, out, tool_messages)
        if kind == "non_standard" or not isinstance(kind, str):
            self.writing.left(NO_PART, i, _named(block))
            return []
        return self._media(i, j, block)

    def _call(
        self, i: int, block: dict, message: AnyMessage, out: dict, tool_messages: list
    ) -> list[dict[str, Any]]:
        kind = block["type"]
        if kind == "tool_result":
            content = block.get("content", "")
            result = ToolMessage(content, tool_call_id=str(block.get("tool_use_id") or ""))
            tool_messages.extend(ChatRequestWriter(self.writing).message(i, result))  # (a tool's)
            return []
        made = {c["id"] for c in getattr(message, "tool_calls", None) or ()}
        ident = block.get("id") if kind == "tool_use" else block.get("call_id")
        if not isinstance(message, AIMessage):
            self.writing.left(NO_PART, i, f"{kind} in a {message.type} message")
        elif ident not in made:
            args = block.get("input") if kind == "tool_use" else block.get("arguments")
            arguments = args if isinstance(args, str) else json_text(args or {})
            function = {"name": str(block.get("name") or ""), "arguments": arguments}
            call = {"type": "function", "id": ident, "function": function}
            out.setdefault("tool_calls", []).append(call)
        return []

    def _media(self, i: int, j: int, block: dict) -> list[dict[str, Any]]:
        """Images, audio and files as parts; what Chat Completions cannot take, said."""
        kind = block.get("type")
        left = extras_left(block, ("detail",) if kind == "image" else ())
        if left:
            self.writing.left(PART_FIELDS, i, names(left))
        if kind == "image_url" and not block.get("image_url"):  # (a block that is no image)
            missing = "has 'type': 'image_url' but is missing expected key(s) ['image_url']"
            raise unrecognized(i, j, block, missing)
        try:
            if kind == "image_url":
                image = block["image_url"]
                image = image if isinstance(image, dict) else {"url": image}
                if not isinstance(image.get("url"), str):
                    raise ChatpipeError("an image without a URL")
                taken = {"url": image["url"]}
                if image.get("detail") in _DETAILS:
                    taken["detail"] = image["detail"]
                return [{"type": "image_url", "image_url": taken}]
            if kind == "text-plain":
                text = file_as_text(block)  # (said by losses(): written as text, or not)
                return [] if text is None else [{"type": "text", "text": text}]
            if kind == "video":
                raise ChatpipeError("video")
            if is_data_content_block(block):
                made = _audio_format(_named_file(data_block(block)))
                detail = (block.get("extras") or {}).get("detail")
                if made.get("type") == "image_url" and detail in _DETAILS:
                    made["image_url"]["detail"] = detail  # (as a Responses image kept it)
                return [made]
            if kind == "image" or "image" in block:
                return [anthropic_image(i, j, block)]
            if kind == "file" and isinstance(block.get("file"), dict):
                return [_file_part(block["file"])]
            if kind == "input_audio" and isinstance(block.get("input_audio"), dict):
                audio = block["input_audio"]
                taken = {k: audio[k] for k in ("data", "format") if k in audio}
                return [_audio_format({"type": "input_audio", "input_audio": taken})]
            if kind == "document":
                return _document(block)
            if kind == "media":
                return [media_image(i, j, block)]
            if kind in ("json", "guard_content"):
                text = block.get("json") if kind == "json" else block.get("guard_content")
                if kind == "guard_content" and isinstance(text, dict):
                    text = text.get("text")
                    text = text.get("text") if isinstance(text, dict) else text
                written = text if isinstance(text, str) else json_text(text, ascii=True)
                return [{"type": "text", "text": written}]
        except ChatpipeError:
            self.writing.left(UNTAKEN_MEDIA, i, str(kind))
            return []
        self.writing.left(NO_PART, i, str(kind))
        return []


def _named(block: dict[str, Any]) -> str:
    """A block with no part, as -v names it: its type (a kept value's own type)."""
    value = block.get("value")
    inner = value.get("type") if isinstance(value, dict) else None
    return str(inner or block.get("type") or "a block without a type")


_DETAILS = ("auto", "low", "high", "original")
# the audio Chat Completions takes, by the names a media type gives it
_AUDIO = {"wav": "wav", "x-wav": "wav", "wave": "wav", "mp3": "mp3", "mpeg": "mp3"}


def _audio_format(part: dict[str, Any]) -> dict[str, Any]:
    """An audio part in a format the API takes (wav, mp3), else none (said)."""
    audio = part.get("input_audio")
    if part.get("type") != "input_audio" or not isinstance(audio, dict):
        return part
    taken = _AUDIO.get(str(audio.get("format")).lower())
    if taken is None or not isinstance(audio.get("data"), str):
        raise ChatpipeError(f"audio of format {audio.get('format')!r}")
    return {"type": "input_audio", "input_audio": {"data": audio["data"], "format": taken}}


def _named_file(part: dict[str, Any]) -> dict[str, Any]:
    file = part.get("file")
    if part.get("type") == "file" and isinstance(file, dict):
        return _file_part(file)
    return part


def _file_part(file: dict[str, Any]) -> dict[str, Any]:
    """A file part with the keys it takes; inline data named (the API asks for a name)."""
    taken = {k: file[k] for k in ("file_data", "file_id", "filename") if file.get(k) is not None}
    if "file_data" in taken and "filename" not in taken:
        taken["filename"] = FALLBACK_FILENAME
    if not taken.keys() & {"file_data", "file_id"}:
        raise ChatpipeError("a file with neither data nor an id")
    return {"type": "file", "file": taken}


def _document(block: dict[str, Any]) -> list[dict[str, Any]]:
    """An Anthropic document: a PDF's data as a file part, a text document as text."""
    source = block.get("source")
    if not isinstance(source, dict):
        raise ChatpipeError("a document without a source")
    if source.get("type") == "text" and isinstance(source.get("data"), str):
        return [{"type": "text", "text": source["data"]}]
    if source.get("type") == "base64" and isinstance(source.get("data"), str):
        data = f"data:{source.get('media_type') or 'application/pdf'};base64,{source['data']}"
        return [_file_part({"file_data": data, "filename": block.get("title")})]
    if source.get("type") == "file" and isinstance(source.get("file_id"), str):
        return [_file_part({"file_id": source["file_id"]})]
    raise ChatpipeError("a document by URL")
