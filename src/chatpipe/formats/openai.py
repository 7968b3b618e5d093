"""The ``openai`` dialect: OpenAI chat messages, ``{messages}`` rows of the datasets
(Hugging Face, TRL, verl), Chat Completions responses; its messages are read by
formats/openai_messages.py, written by openai_request.py (what the API takes) or
openai_writer.py (the faithful superset).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, Location
from ..model import (
    AIMessage,
    AnyMessage,
)
from .api import SETTINGS
from .base import (
    CONVERSATIONS,
    GENERIC,
    MESSAGES,
    Conversation,
    Dialect,
    Guess,
    Kept,
    Sample,
    dict_blocks,
)
from .openai_messages import (
    PARTS_MADE_BLOCKS,
    message_from_dict,
    message_from_like,
    reasoning_parts,
    usage_from_openai,
    with_processor_media,
)
from .openai_rows import answer_key, row_key, with_row_images
from .record_errors import not_a_message
from .tool_links import link_tool_results
from .tool_specs import for_target

# -- the dialect ----------------------------------------------------------------------


def is_openai_message(value: Any) -> bool:
    if isinstance(value, str):
        return True
    if isinstance(value, (list, tuple)):
        return len(value) == 2 and isinstance(value[0], str)
    return isinstance(value, dict) and isinstance(value.get("role"), str)


def is_openai_response(value: Any) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("choices"), list):
        return False
    choices = value["choices"]
    return bool(choices) and isinstance(choices[0], dict) and "message" in choices[0]


UNPARSED = Kept("tool-call arguments that are not valid JSON", "written as they came")
_TEXT_FILES = Kept(
    "text files (OpenAI has no text-file part)", "written as text parts headed by the file's name"
)


def _cannot_hold(message: AnyMessage) -> list[str]:
    found: list[str] = []
    if getattr(message, "invalid_tool_calls", None):
        found.append(UNPARSED)
    files = [b for b in dict_blocks(message) if b.get("type") == "text-plain"]
    if not files:
        return found
    from ..model.blocks import text_file  # (its TypedDicts: loaded when a file is met)

    if any(text_file(b)[1] is not None for b in files):
        found.append(_TEXT_FILES)
    if any(text_file(b)[1] is None for b in files):
        found.append("text files known only by url or id")
    return found


def variant_score(dialect: Dialect, sample: Sample) -> Guess | None:
    """How sure a variant of OpenAI's messages (Mellea's, LLaMA-Factory's, the AI SDK's)
    is of a sample: its own shape in the first record, or an OpenAI-shaped sample with a
    message of its own anywhere in it (the keys that tell it need not be in the first)."""
    guess = Dialect.score(dialect, sample)
    if guess is not None:
        return guess
    first = sample.first
    if is_openai_message(first):
        shape = MESSAGES
    elif Dialect.is_conversation(OPENAI, first) or row_key(first) is not None:
        shape = CONVERSATIONS
    else:
        return None
    found = any(dialect.is_message(m) for m in sample.messages())
    return Guess(dialect.evidence, shape) if found else None


class OpenAIDialect(Dialect):
    name = "openai"
    writable = True
    messages_by_line = True
    # {role, content} messages are what every chat format builds on: the others' own
    # keys and shapes outweigh them
    evidence = GENERIC
    holds_artifacts = False
    api = "OpenAI Chat Completions (and fine-tuning rows)"
    writer_settings = SETTINGS
    checks = ("openai-chat", "openai-finetune")
    description = (
        "OpenAI chat messages, fine-tuning rows {messages, tools}, HF {messages} datasets, "
        "chat.completion responses, (role, content) pairs and plain strings"
    )
    example = "openai_tool_calls.jsonl"

    def is_message(self, value: Any) -> bool:
        return is_openai_message(value)

    def losses(self) -> Any:
        return _cannot_hold

    def record_rules(self, name: str | None = None) -> Any:
        from .openai_finetune import RULES  # (OpenAI's fine-tuning checks)

        return RULES if name in (None, RULES.name) else None

    def tools_left_out(self, tools: Any) -> list[str]:
        return for_target(tools, self.name)[1]

    def request_rules(self, check: str) -> Any:
        from .api_request_rules import chat

        return chat(finetune=check == "openai-finetune") if check in self.checks else None

    def is_conversation(self, value: Any) -> bool:
        return (
            super().is_conversation(value)
            or is_openai_response(value)
            or row_key(value) is not None
        )

    def read_message(self, value: Any) -> AnyMessage:
        if type(value) is dict:
            content = value.get("content")
            if type(content) is list and any(
                type(p) is dict and p.get("type") in PARTS_MADE_BLOCKS for p in content
            ):
                content = reasoning_parts(with_processor_media(content))
                value = {**value, "content": content}
            return message_from_dict(value)  # which says what is wrong with a dict
        if isinstance(value, AnyMessage) or not is_openai_message(value):
            raise not_a_message(self.name, value)
        return message_from_like(value)

    def finish(
        self, messages: Iterable[AnyMessage], links: Any = None, start: int = 0
    ) -> Iterable[AnyMessage]:
        return link_tool_results(messages, links, start)

    def record_meta(self, meta: dict[str, Any]) -> dict[str, Any]:
        """Fine-tuning rows hold tools as a list of ``{"type": "function", ...}``; other
        datasets give them as JSON text or bare function schemas, and other providers'
        requests in their own forms (Gemini ``functionDeclarations``, Anthropic tools).
        By default a row holds what both a Chat Completions request and a fine-tuning
        row take (``openai_request.row_fields``); with ``keep_extras``, every field."""
        if self.writing.strict:
            from .openai_request_fields import row_fields

            return row_fields(meta, self.writing)
        tools = meta.get("tools")
        if isinstance(tools, str):
            try:
                tools = json.loads(tools)
            except ValueError:
                return meta
        written, _ = for_target(tools, "openai")
        return meta if written is meta.get("tools") else {**meta, "tools": written}

    def write_messages(self, messages: Iterable[AnyMessage]) -> Iterator[Any]:
        """Messages as Chat Completions takes them (``openai_request``); with
        ``keep_extras``, lossless: the OpenAI fields a reader kept go back."""
        if self.writing.strict:
            from .openai_request import ChatRequestWriter

            return ChatRequestWriter(self.writing).write(messages)
        from .openai_writer import OpenAIWriter

        return OpenAIWriter("keep", keep_fields=True, files_as_text=True).write(messages)

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        if is_openai_response(value):
            return self._read_response(value, location)
        if isinstance(value, dict):
            value = with_row_images(value)
        key = row_key(value)
        if key is not None:
            return self._read_row(value, key, location)
        return super().read_conversation(value, location)

    def _read_row(self, value: dict[str, Any], key: str, location: Location) -> Conversation:
        """A TRL row (openai_rows.py): the conversation is ``prompt`` followed by
        ``chosen`` or ``completion`` when the row has one, or ``chosen`` whole;
        ``rejected`` and the other fields stay among the row's fields, the messages
        where ``key`` was."""
        answer = answer_key(value, key)
        prompt = value["prompt"] if key == "prompt" else []
        messages = [*prompt, *(value[answer] if answer else ())]
        if key == "chosen":
            messages = value["chosen"]
        row = {k: v for k, v in value.items() if k != answer}
        conversation = super().read_conversation({"messages": messages}, location)
        meta = {k: (None if k == key else v) for k, v in row.items()}
        return Conversation(conversation.messages, meta, location, key)

    def _read_response(self, value: dict[str, Any], location: Location) -> Conversation:
        """A chat.completion: the first choice's message, with what the response says."""
        first, *others = value["choices"]
        try:
            message = self.read_message(first["message"])
        except ChatpipeError as exc:
            raise exc.located(location.at_message(0)) from None
        metadata = {k: v for k, v in first.items() if k != "message"}
        if "model" in value:
            metadata["model_name"] = value["model"]
        message.response_metadata = {**metadata, **message.response_metadata}
        if message.id is None and isinstance(value.get("id"), str):
            message.id = value["id"]
        usage = value.get("usage")
        if isinstance(message, AIMessage) and isinstance(usage, dict):
            message.usage_metadata = usage_from_openai(usage)
        meta = {k: v for k, v in value.items() if k != "choices"}
        if others:
            meta["choices"] = others
        return Conversation([message], meta, location)


OPENAI = OpenAIDialect()  # (its checks, for the variants)
