"""Writing Ollama ``/api/chat`` requests: what Ollama's chat request takes, and nothing else
(the ``ollama`` client's ``ChatRequest`` and ``Message``, which tests/provider_schemas.py
checks every fixture's request with).

A message's text is its ``content`` (plain-text files headed by their names), its
reasoning the ``thinking`` (reasoning blocks, or the ``reasoning_content`` field of
OpenAI-compatible servers), its images the base64 ``images``; tool calls are
``{function: {name, arguments}}`` and a tool message names its tool (``tool_name``), as
Ollama pairs them. The conversation's settings go into ``options`` (``temperature``,
``top_p``, ``max_tokens`` as ``num_predict``...), OpenAI's ``response_format`` into
``format``, ``reasoning_effort`` into ``think``.

Tool schemas: Ollama's tool model takes a function's ``parameters`` as ``type``,
``required``, ``$defs``, ``items`` and ``properties``, each property its ``type``,
``items``, ``description`` and ``enum`` only; its client drops any other key and its server
ignores it. The strict output writes what that model takes (an ``anyOf`` of one type and
``null`` as the type list it means) and says what it left out; ``keep_extras`` writes the
schemas whole.
"""

from __future__ import annotations

from typing import Any

from ..model import AIMessage, AnyMessage, FunctionMessage, SystemMessage, ToolMessage
from ..model.conversation import Conversation
from ..model.reasoning import FIELDS as REASONING_FIELDS
from ..model.reasoning import field_reasoning, has_reasoning_blocks, signed_by
from . import media
from .api import PART_FIELDS, extras_left, text_fields
from .api_request import EMPTIED, SETTING_VALUES, SIGNATURES, STREAMING
from .base import Kept
from .ollama_read import EXTRAS_KEY, TAKEN
from .tool_specs import functions

NAMES = "message names"
OTHER_ROLES = Kept("chat roles other than Ollama's", "written as user messages")
UNPARSED = "tool calls whose arguments are not JSON"
NOT_DATA = "images given by URL, path or file id (Ollama takes image data)"
NOT_IMAGES = "audio, video and files (Ollama takes text and images)"
TEXT_FILES = Kept(
    "text files (Ollama has no file part)", "written as text headed by the file's name"
)
REASONING_ELSEWHERE = "reasoning outside assistant messages"
REDACTED = "redacted reasoning (Ollama has no field for it)"
OTHER_BLOCKS = "content blocks Ollama has no form for"
EXTRA_FIELDS = "message fields other formats keep (their readers' extras)"
SCHEMA_KEYS = "tool-schema keys Ollama's tool model does not take"
_BOOKKEEPING = (EXTRAS_KEY, "__openai_role__", "refusal", *REASONING_FIELDS)
_TEXT = ("text", "input_text", "output_text")
_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}


class _Message:
    """One message as Ollama's, and the kinds of what it leaves out."""

    def __init__(self, message: AnyMessage, names: dict[str, str] | None = None) -> None:
        self.left: list[str] = []
        role = _ROLES.get(message.type)
        if isinstance(message, FunctionMessage):
            role = "tool"
        if role is None:
            self.left.append(OTHER_ROLES)
            role = "user"
        self.role = role
        self.texts: list[str] = []
        self.thinking: list[str] = []
        self.images: list[str] = []
        if message.name and role != "tool":
            self.left.append(NAMES)
        kept = message.additional_kwargs
        if any(k not in _BOOKKEEPING and v is not None for k, v in kept.items()):
            self.left.append(EXTRA_FIELDS)
        for block in [message.content] if isinstance(message.content, str) else message.content:
            self._block(block)
        if isinstance(kept.get("refusal"), str):  # (OpenAI's refusal: the answer's text)
            self.texts.append(kept["refusal"])
        record: dict[str, Any] = {"role": role, "content": "".join(self.texts)}
        field = field_reasoning(message)
        if field and role == "assistant" and not has_reasoning_blocks(message):
            self.thinking.append(field)
        elif field and role != "assistant":
            self.left.append(REASONING_ELSEWHERE)
        if self.thinking:
            record["thinking"] = "\n\n".join(self.thinking)
        if self.images:
            record["images"] = self.images
        if isinstance(message, AIMessage):
            calls = [
                {"function": {"name": c["name"], "arguments": c["args"]}}
                for c in message.tool_calls
            ]
            if calls:
                record["tool_calls"] = calls
            if message.invalid_tool_calls:
                self.left.append(UNPARSED)
        if role == "tool":
            ident = getattr(message, "tool_call_id", None)
            name = (names or {}).get(ident) if ident else None
            if name or message.name:
                record["tool_name"] = name or message.name
        self.record = record

    @property
    def empty(self) -> bool:
        return not any(self.record.get(k) for k in ("content", "thinking", "images", "tool_calls"))

    def _block(self, block: Any) -> None:
        if isinstance(block, str):
            self.texts.append(block)
            return
        kind = block.get("type")
        if kind in _TEXT:
            if isinstance(block.get("text"), str):
                self.texts.append(block["text"])
            if text_fields(block):  # (citations, say: a message's content is its text)
                self.left.append(PART_FIELDS)
        elif kind in ("reasoning", "thinking"):
            text = block.get("reasoning") if kind == "reasoning" else block.get("thinking")
            if self.role != "assistant":
                self.left.append(REASONING_ELSEWHERE)
            elif isinstance(text, str) and text:
                self.thinking.append(text)
                if signed_by(block):
                    self.left.append(SIGNATURES)
        elif kind == "redacted_thinking":
            self.left.append(REDACTED)
        elif kind in ("tool_use", "tool_call", "function_call"):
            pass  # (the message's tool calls, written from them)
        else:
            self._media(block)

    def _media(self, block: dict[str, Any]) -> None:
        if extras_left(block):
            self.left.append(PART_FIELDS)
        found = media.of(block)
        if found is None:
            self.left.append(OTHER_BLOCKS)
        elif found.kind == "file" and found.text is not None:
            self.left.append(TEXT_FILES)
            head = f"{found.name}:\n\n" if found.name else ""
            self.texts.append(("\n\n" if self.texts else "") + head + found.text)
        elif found.kind != "image":
            self.left.append(NOT_IMAGES)
        elif found.data:
            self.images.append(found.data)
        else:
            self.left.append(NOT_DATA)


def cannot_hold(message: AnyMessage) -> list[str]:
    """The kinds of what a message leaves out (the dialect's ``losses``)."""
    return list(dict.fromkeys(_Message(message).left))


def tools_left_out(tools: Any) -> list[str]:
    items = functions(tools)
    return [
        str(i[1].get("name") or i[1].get("type") or ", ".join(i[1]))
        for i in items or ()
        if not isinstance(i, dict)
    ]


# -- a whole request ---------------------------------------------------------------------


def write(dialect: Any, conversation: Conversation) -> dict[str, Any]:
    written: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    for number, message in enumerate(conversation.messages):
        if isinstance(message, AIMessage):
            names.update({c["id"]: c["name"] for c in message.tool_calls if c.get("id")})
        turn = _Message(message, names)
        if turn.empty and not isinstance(message, (ToolMessage, SystemMessage)):
            dialect.left(EMPTIED, number)
            continue
        written.append(turn.record)
    meta = {k: v for k, v in conversation.meta.items() if k != conversation.messages_key}
    record: dict[str, Any] = {}
    model = dialect.settings.get("model") or meta.get("model")
    if isinstance(model, str) and model:
        record["model"] = model
    record["messages"] = written
    tools = _tools(dialect, meta.get("tools"))
    if tools:
        record["tools"] = tools
    _settings(dialect, meta, record)
    if (
        any(meta.get(k) is not None for k in ("stream", "stream_options"))
        and not dialect.keep_extras
    ):
        dialect.left(STREAMING)
    used = {"model", "messages", "tools", "stream", "stream_options", *_OPTIONS, *_ASKED}
    rest = {k: v for k, v in meta.items() if k not in used}
    record.update(dialect.fields(rest, TAKEN - used))
    return record


# a conversation's settings of other providers, and their names among Ollama's options
_OPTIONS = {
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "seed": "seed",
    "stop": "stop",
    "stop_sequences": "stop",
    "max_tokens": "num_predict",
    "max_completion_tokens": "num_predict",
    "max_output_tokens": "num_predict",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
}
_GEMINI = {
    "temperature": "temperature",
    "topP": "top_p",
    "topK": "top_k",
    "seed": "seed",
    "stopSequences": "stop",
    "maxOutputTokens": "num_predict",
    "presencePenalty": "presence_penalty",
    "frequencyPenalty": "frequency_penalty",
}
_ASKED = ("options", "format", "think", "response_format", "reasoning_effort", "generationConfig")


def _settings(dialect: Any, meta: dict[str, Any], record: dict[str, Any]) -> None:
    options = dict(meta["options"]) if isinstance(meta.get("options"), dict) else {}
    asked = [(_OPTIONS[k], v) for k, v in meta.items() if k in _OPTIONS and v is not None]
    config = meta.get("generationConfig")
    if isinstance(config, dict):
        asked += [(_GEMINI[k], v) for k, v in config.items() if k in _GEMINI]
        if config.keys() - _GEMINI.keys():
            dialect.left(SETTING_VALUES)
    if dialect.settings.get("max_tokens"):
        asked.append(("num_predict", dialect.settings["max_tokens"]))
    for key, value in asked:
        options[key] = [value] if key == "stop" and isinstance(value, str) else value
    if options:
        record["options"] = options
    given = meta.get("format")
    found = given if given is not None else _format(meta.get("response_format"))
    if found is not None:
        record["format"] = found
    elif meta.get("response_format") is not None:
        dialect.left(SETTING_VALUES)
    think = meta.get("think")
    if think is None and meta.get("reasoning_effort") in ("low", "medium", "high"):
        think = meta["reasoning_effort"]
    if think is not None:
        record["think"] = think
    if meta.get("keep_alive") is not None:
        record["keep_alive"] = meta["keep_alive"]


def _format(response_format: Any) -> Any:
    """OpenAI's ``response_format`` as Ollama's ``format``: "json", or the schema."""
    if not isinstance(response_format, dict):
        return None
    if response_format.get("type") == "json_object":
        return "json"
    schema = response_format.get("json_schema")
    if isinstance(schema, dict) and isinstance(schema.get("schema"), dict):
        return schema["schema"]
    return None


def _tools(dialect: Any, tools: Any) -> list[dict[str, Any]]:
    written = []
    left: list[str] = []
    for item in functions(tools) or ():
        if not isinstance(item, dict):
            continue  # (another provider's built-in tool: said by tools_left_out)
        function: dict[str, Any] = {"name": item.get("name")}
        if isinstance(item.get("description"), str):
            function["description"] = item["description"]
        schema = item.get("parameters")
        if isinstance(schema, dict):
            function["parameters"] = schema if dialect.keep_extras else _parameters(schema, left)
        written.append({"type": "function", "function": function})
    if left:
        dialect.left(SCHEMA_KEYS, None, ", ".join(dict.fromkeys(left)))
    return written


_PARAMETERS = ("type", "$defs", "items", "required", "properties")
_PROPERTY = ("type", "items", "description", "enum")


def _parameters(schema: dict[str, Any], left: list[str]) -> dict[str, Any]:
    kept = {k: v for k, v in schema.items() if k in _PARAMETERS and k != "type"}
    left += [k for k in schema if k not in _PARAMETERS]
    if schema.get("type") not in (None, "object"):
        left.append("type")
    if isinstance(kept.get("properties"), dict):
        kept["properties"] = {
            name: _property(value, left) for name, value in kept["properties"].items()
        }
    return {"type": "object", **kept}


def _property(schema: Any, left: list[str]) -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {}
    kept = {k: v for k, v in schema.items() if k in _PROPERTY}
    others = [k for k in schema if k not in _PROPERTY]
    union = schema.get("anyOf")
    if "type" not in kept and isinstance(union, list):
        types = [u.get("type") for u in union if isinstance(u, dict)]
        if types and all(isinstance(t, str) for t in types) and all(len(u) == 1 for u in union):
            kept["type"] = types  # (Optional[str]: ["string", "null"])
            others.remove("anyOf")
    left += others
    if "description" in kept and not isinstance(kept["description"], str):
        left.append("description")
        del kept["description"]
    return kept
