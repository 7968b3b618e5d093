"""Messages as OpenAI chat dicts: langchain-core's ``convert_to_openai_messages``.

Value for value what langchain-core gives, in string, block and strict modes, failing
where it fails (with a ``ConversionError`` that names the message and block). With
``keep_fields`` the OpenAI message keys a reader kept in ``additional_kwargs`` (weight,
audio, function_call, annotations...) are written back, so an OpenAI log round-trips.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import ConversionError
from ..io.jsontext import json_text
from ..model import (
    AIMessage,
    AnyMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from ..model.blocks import is_data_content_block, text_file
from ..model.tool_calls import DOUBLE_ENCODED
from .openai_media import (
    FALLBACK_FILENAME,
    anthropic_image,
    data_block,
    media_image,
    unrecognized,
)

# langchain's two, and "keep": content stays a string or a list as the message holds it
TEXT_FORMATS = ("string", "block", "keep")
# additional_kwargs keys that are chatpipe's or langchain's bookkeeping, never OpenAI fields
_NOT_FIELDS = frozenset(("__openai_role__", "tool_calls", DOUBLE_ENCODED))


def openai_role(message: AnyMessage) -> str:
    if isinstance(message, AIMessage):
        return "assistant"
    if isinstance(message, HumanMessage):
        return "user"
    if isinstance(message, ToolMessage):
        return "tool"
    if isinstance(message, SystemMessage):
        role = message.additional_kwargs.get("__openai_role__", "system")
        if not isinstance(role, str):
            kind = type(role).__name__
            raise ConversionError(f"Expected '__openai_role__' to be a str, got {kind}")
        return role
    if isinstance(message, FunctionMessage):
        return "function"
    if isinstance(message, ChatMessage):
        return message.role
    raise ConversionError(f"Unknown BaseMessage type {type(message)}.")


_json = json_text


def openai_tool_call(call: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "id": call["id"],
        "function": {"name": call["name"], "arguments": _json(call["args"])},
    }


def _unparsed_call(call: dict[str, Any]) -> dict[str, Any]:
    args = call.get("args")
    return {
        "type": "function",
        "id": call.get("id"),
        "function": {"name": call.get("name"), "arguments": "" if args is None else args},
    }


class OpenAIWriter:
    """Converts one message at a time; a message may give several dicts (tool results)."""

    def __init__(
        self,
        text_format: str = "string",
        include_id: bool = False,
        pass_through_unknown_blocks: bool = True,
        keep_fields: bool = False,
        files_as_text: bool = False,
    ) -> None:
        if text_format not in TEXT_FORMATS:
            raise ConversionError(
                f"Unrecognized text_format={text_format!r}, expected one of 'string' or 'block'."
            )
        self.as_string = text_format == "string"
        self.text_format = text_format
        self.include_id = include_id
        self.pass_through = pass_through_unknown_blocks
        self.keep_fields = keep_fields
        # text-plain blocks (OpenAI has no text-file part) as text parts; langchain-core raises
        self.files_as_text = files_as_text
        self.files_hint: str | None = None  # said with that error (the command's way out)

    def write(self, messages: Iterable[AnyMessage]) -> Iterator[dict[str, Any]]:
        for index, message in enumerate(messages):
            yield from self.message(index, message)

    def message(self, i: int, message: AnyMessage) -> list[dict[str, Any]]:
        out: dict[str, Any] = {"role": openai_role(message)}
        if message.name:
            out["name"] = message.name
        is_ai = isinstance(message, AIMessage)
        if is_ai and message.tool_calls:
            out["tool_calls"] = [openai_tool_call(c) for c in message.tool_calls]
            if self.keep_fields and DOUBLE_ENCODED in message.additional_kwargs:
                _arguments_as_they_came(out["tool_calls"], message.additional_kwargs)
        if is_ai and self.keep_fields and message.invalid_tool_calls:
            # a log read back: calls whose arguments could not be parsed, as they came
            out.setdefault("tool_calls", []).extend(map(_unparsed_call, message.invalid_tool_calls))
        if message.additional_kwargs.get("refusal"):
            out["refusal"] = message.additional_kwargs["refusal"]
        if isinstance(message, ToolMessage):
            out["tool_call_id"] = message.tool_call_id
        if self.include_id and message.id:
            out["id"] = message.id
        tool_messages: list[dict[str, Any]] = []
        out["content"] = self._content(i, message, out, tool_messages)
        if self.keep_fields:
            for key, value in message.additional_kwargs.items():
                if key not in _NOT_FIELDS and key not in out:
                    out[key] = value
        if message.content and not out["content"] and tool_messages:
            return tool_messages
        return [out, *tool_messages]

    # -- content --------------------------------------------------------------------

    def _content(self, i: int, message: AnyMessage, out: dict, tool_messages: list) -> Any:
        content = message.content
        if self.text_format == "keep" and isinstance(content, str):
            return content
        if not content:
            return "" if self.as_string else []
        if isinstance(content, str):
            return content if self.as_string else [{"type": "text", "text": content}]
        if self.as_string and all(isinstance(b, str) or b.get("type") == "text" for b in content):
            texts = []
            for j, block in enumerate(content):
                if isinstance(block, str):
                    texts.append(block)
                elif "text" not in block:
                    raise self._missing(i, j, block, "text", ["text"])
                else:
                    texts.append(block["text"])
            return "\n".join(texts)
        blocks: list[dict[str, Any]] = []
        for j, block in enumerate(content):
            if isinstance(block, str):
                blocks.append({"type": "text", "text": block})
            else:
                blocks.extend(self._block(i, j, block, message, out, tool_messages))
        if self.as_string and self._all_text(i, blocks):
            return "\n".join(b["text"] for b in blocks)
        return blocks

    @staticmethod
    def _all_text(i: int, blocks: list[dict[str, Any]]) -> bool:
        """Whether string mode may collapse the blocks; stops at the first other block."""
        for block in blocks:
            if "type" not in block:
                raise ConversionError(
                    f"messages[{i}]: a passed-through block without 'type' cannot be "
                    f"written in string mode (try --text-format block): {block!r}"
                )
            if block["type"] != "text":
                return False
        return True

    @staticmethod
    def _missing(i: int, j: int, block: Any, kind: str, missing: list[str]) -> ConversionError:
        return unrecognized(
            i, j, block, f"has 'type': '{kind}' but is missing expected key(s) {missing}"
        )

    def _block(
        self,
        i: int,
        j: int,
        block: dict[str, Any],
        message: AnyMessage,
        out: dict,
        tool_messages: list,
    ) -> list[dict[str, Any]]:
        """One content block as the parts it gives (none for a tool call or result, which
        go to ``out``'s calls and ``tool_messages``), in langchain-core's order of checks."""
        kind = block.get("type")
        for convert in (self._part, self._media, self._openai_media, self._call, self._wrapped):
            parts = convert(i, j, kind, block, message, out, tool_messages)
            if parts is not None:
                return parts
        if kind in ("thinking", "reasoning") or self.pass_through:
            return [block]
        raise unrecognized(
            i, j, block, "does not match OpenAI, Anthropic, Bedrock Converse, or VertexAI format"
        )

    def _part(self, i: int, j: int, kind: Any, block: dict, *_: Any) -> list[dict] | None:
        """A Chat Completions text or image part, as it is."""
        if kind == "text":
            if "text" not in block:
                raise self._missing(i, j, block, "text", ["text"])
            return [{"type": "text", "text": block["text"]}]
        if kind == "image_url":
            if "image_url" not in block:
                raise self._missing(i, j, block, "image_url", ["image_url"])
            return [{"type": "image_url", "image_url": block["image_url"]}]
        return None

    def _media(self, i: int, j: int, kind: Any, block: dict, *_: Any) -> list[dict] | None:
        """A text file, a LangChain data block, an Anthropic or Bedrock image."""
        if kind == "text-plain" and (self.files_as_text or is_data_content_block(block)):
            if not self.files_as_text:  # as langchain-core: no text-file part in OpenAI
                raise ConversionError(
                    "Block of type text-plain is not supported.", hint=self.files_hint
                )
            text = file_as_text(block)  # None: a file known only by url or id, left out
            return [] if text is None else [{"type": "text", "text": text}]
        if is_data_content_block(block):
            converted = data_block(block)
            if converted.get("type") == "file" and "filename" not in converted.get("file", {}):
                converted["file"]["filename"] = FALLBACK_FILENAME
            return [converted]
        if kind == "image" or "image" in block:
            return [anthropic_image(i, j, block)]
        return None

    def _openai_media(self, i: int, j: int, kind: Any, block: dict, *_: Any) -> list[dict] | None:
        """A Chat Completions file or audio part, as it is (a file named when it is not)."""
        if (
            kind == "file"
            and isinstance(block.get("file"), dict)
            and isinstance(block["file"].get("file_data"), str)
        ):
            if block["file"].get("filename") is None:
                return [{**block, "file": {**block["file"], "filename": FALLBACK_FILENAME}}]
            return [block]
        audio = block.get("input_audio")
        if (
            kind == "input_audio"
            and isinstance(audio, dict)
            and isinstance(audio.get("data"), str)
            and isinstance(audio.get("format"), str)
        ):
            return [block]
        return None

    def _call(
        self,
        i: int,
        j: int,
        kind: Any,
        block: dict,
        message: AnyMessage,
        out: dict,
        tool_messages: list,
    ) -> list[dict] | None:
        """Anthropic's tool_use and tool_result blocks, and Responses function calls: a
        call of ``out`` (unless the message makes it already), or a tool message."""
        if kind == "tool_use":
            missing = [k for k in ("id", "name", "input") if k not in block]
            if missing:
                raise unrecognized(
                    i, j, block, f"has 'type': 'tool_use', but is missing expected key(s) {missing}"
                )
            if not any(c["id"] == block["id"] for c in _tool_calls_of(message, i, j)):
                arguments = _json(block["input"])
                out.setdefault("tool_calls", []).append(
                    _function_call(block["id"], block["name"], arguments)
                )
            return []
        if kind == "function_call":  # an OpenAI Responses item
            if not any(c["id"] == block.get("call_id") for c in _tool_calls_of(message, i, j)):
                missing = [k for k in ("call_id", "name", "arguments") if k not in block]
                if missing:
                    why = f"has 'type': 'function_call', but is missing expected key(s) {missing}"
                    raise unrecognized(i, j, block, why)
                call = _function_call(block.get("call_id"), block.get("name"), block["arguments"])
                out.setdefault("tool_calls", []).append(call)
            return [block] if self.pass_through else []
        if kind == "tool_result":
            missing = [k for k in ("content", "tool_use_id") if k not in block]
            if missing:
                why = f"has 'type': 'tool_result', but is missing expected key(s) {missing}"
                raise unrecognized(i, j, block, why)
            result = ToolMessage(
                block["content"],
                tool_call_id=block["tool_use_id"],
                status="error" if block.get("is_error") else "success",
            )
            tool_messages.extend(OpenAIWriter(self.text_format).message(0, result))
            return []
        return None

    def _wrapped(self, i: int, j: int, kind: Any, block: dict, *_: Any) -> list[dict] | None:
        """JSON, Bedrock guard content, Vertex AI media and refusals, as parts."""
        if kind == "json" or "json" in block:
            if "json" not in block:
                raise unrecognized(i, j, block, "has 'type': 'json' but does not have a 'json' key")
            return [{"type": "text", "text": _json(block["json"], ascii=True)}]
        if kind == "guard_content" or "guard_content" in block:
            guard = block.get("guard_content")
            if not isinstance(guard, dict) or "text" not in guard:
                raise unrecognized(
                    i,
                    j,
                    block,
                    f"has 'type': 'guard_content' but does not have a "
                    f"messages[{i}].content[{j}]['guard_content']['text'] key",
                )
            text = guard["text"]
            return [{"type": "text", "text": text["text"] if isinstance(text, dict) else text}]
        if kind == "media":
            return [media_image(i, j, block)]
        if kind == "refusal":
            refusal = block.get("refusal")
            return [{"type": "refusal", "refusal": refusal}] if refusal else []
        return None


def _function_call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    return {"type": "function", "id": call_id, "function": {"name": name, "arguments": arguments}}


def _tool_calls_of(message: AnyMessage, i: int, j: int) -> list[dict[str, Any]]:
    calls = getattr(message, "tool_calls", None)
    if calls is None:
        raise ConversionError(
            f"messages[{i}].content[{j}]: a tool call block in a {message.type} message "
            "(only AI messages make tool calls)"
        )
    return calls


def file_as_text(block: dict[str, Any]) -> str | None:
    """A text file's content as prompt text, headed by its name; None with no text."""
    from html import escape

    name, text = text_file(block)
    if text is None:
        return None
    if not name:
        return text
    end = "" if text.endswith("\n") else "\n"
    return f'<file name="{escape(name)}">\n{text}{end}</file>'


def _arguments_as_they_came(calls: list[dict[str, Any]], kwargs: dict[str, Any]) -> None:
    """Double-encoded arguments a reader decoded, written back as the text they were."""
    for item in kwargs[DOUBLE_ENCODED] if isinstance(kwargs[DOUBLE_ENCODED], list) else ():
        index = item.get("index") if isinstance(item, dict) else None
        if isinstance(index, int) and 0 <= index < len(calls):
            calls[index]["function"]["arguments"] = item.get("arguments")
