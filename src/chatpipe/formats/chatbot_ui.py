"""chatbot-ui exports (the legacy mckaywrigley/chatbot-ui app): one JSON document holding
every conversation of the app, ``{version, history, folders, prompts}``.

Each ``history`` entry is a conversation: its ``messages`` are ``{role, content}`` (v4 adds
``type: "text"``), its ``prompt`` the system prompt, ``model`` and ``temperature`` its
settings, ``folderId`` the folder it sits in (named in ``folders``). ``prompts`` are saved
templates, not chats: they are not read. v2 and v3 files have the same shape without
``version`` or ``prompts``; a v1 file is a bare array of conversations, which reads as
OpenAI rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import ChatpipeError, Location, ValidationError
from ..model import SystemMessage
from .base import CERTAIN, Conversation, Dialect
from .openai_messages import message_from_dict


def is_export(value: Any) -> bool:
    """A chatbot-ui export: its history (a list of conversations) beside its folders."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("history"), list)
        and isinstance(value.get("folders"), list)
    )


# what its reader leaves out, said once (on the export's first conversation)
PROMPTS = "the export's saved prompts, templates that are not chats"


class ChatbotUiDialect(Dialect):
    name = "chatbot-ui"
    description = "chatbot-ui exports {history, folders, prompts}: a chat per history entry"
    example = "chatbot_ui__librechat-tests_v4_export.json"
    extras_key = "chatbot_ui"  # (a message's keys besides role and content)
    evidence = CERTAIN  # a history beside folders is chatbot-ui's alone

    def is_conversation(self, value: Any) -> bool:
        return is_export(value)

    def read_conversations(
        self, value: Any, location: Location, options: Any = None
    ) -> Iterator[Conversation]:
        if not is_export(value):
            raise ValidationError("not a chatbot-ui export", location, hint="no history list")
        folders = {f.get("id"): f.get("name") for f in value["folders"] if isinstance(f, dict)}
        prompts = value.get("prompts")
        for number, entry in enumerate(value["history"], 1):
            if not isinstance(entry, dict) or not isinstance(entry.get("messages"), list):
                raise ValidationError(
                    f"conversation {number} of the history has no messages list", location
                )
            conversation = self._conversation(entry, folders, location)
            if number == 1 and prompts:
                conversation.left_out = [PROMPTS]
            yield conversation

    def _conversation(
        self, entry: dict[str, Any], folders: dict[Any, Any], location: Location
    ) -> Conversation:
        messages = []
        prompt = entry.get("prompt")
        if isinstance(prompt, str) and prompt:
            messages.append(SystemMessage(prompt))
        for index, item in enumerate(entry["messages"]):
            try:
                messages.append(self.read_message(item))
            except ChatpipeError as exc:
                raise exc.located(location.at_message(index)) from None
        meta = {k: v for k, v in entry.items() if k not in ("messages", "prompt")}
        if "name" in meta:
            meta["title"] = meta.pop("name")
        if entry.get("folderId") in folders:
            meta["folder"] = folders[entry["folderId"]]
        return Conversation(messages, meta, location)

    def read_message(self, value: Any) -> Any:
        if not isinstance(value, dict) or not isinstance(value.get("role"), str):
            raise ValidationError("a chatbot-ui message needs a role and its content")
        rest = {k: v for k, v in value.items() if k not in ("role", "content", "type")}
        if value.get("type", "text") != "text":
            rest["type"] = value["type"]
        message = message_from_dict({"role": value["role"], "content": value.get("content", "")})
        if rest:
            message.additional_kwargs[self.extras_key] = rest
        return message
