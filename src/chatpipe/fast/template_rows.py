"""Fine-tuning rows straight into the messages chat templates read, with no message objects.

Most rows of OpenAI-format datasets hold messages of three shapes: ``{role, content}``
with text, an assistant turn of function calls, and a tool result naming its call. For a
row whose every message is one of those, ``shaped_row`` makes the template's chat dicts
(templates/messages.py) directly: what reading the row into messages and shaping them
gives, at a fraction of the cost. Any other row gives None and takes the ordinary way.
tests/test_template_rows.py checks the two ways against each other.
"""

from __future__ import annotations

from typing import Any

from ..errors import Location
from ..formats.openai import OpenAIDialect
from ..formats.openai_messages import parse_arguments
from ..model import Conversation
from ..templates.messages import ShapedMessages

# the roles of plain {role, content} messages, as the template sees them
_ROLES = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "system": "system",
}
_ASSISTANT = frozenset(("assistant", "ai"))
_CALL_KEYS = frozenset(("id", "type", "function"))


def template_row(dialect: Any, value: Any, location: Location) -> Conversation | None:
    """The conversation of a plain OpenAI row, its messages ``ShapedMessages``; None for a
    row of any other dialect or shape."""
    if type(dialect) is not OpenAIDialect or type(value) is not dict:
        return None
    messages = value.get("messages")
    if type(messages) is not list or "choices" in value:
        return None
    shaped = shaped_row(messages)
    if shaped is None:
        return None
    meta = {k: (None if k == "messages" else v) for k, v in value.items()}
    return Conversation(shaped, meta, location, "messages")


def shaped_row(messages: list[Any]) -> ShapedMessages | None:
    """The template's dicts of ``messages`` when each is of a plain shape, else None."""
    out = ShapedMessages()
    names: dict[str, str] = {}  # call id -> tool name, for the results that answer it
    for message in messages:
        if type(message) is not dict:
            return None
        role = message.get("role")
        if type(role) is not str:
            return None
        content = message.get("content")
        size = len(message)
        if size == 2:  # {role, content}: most messages
            mapped = _ROLES.get(role)
            if mapped is None or type(content) is not str:
                return None
            out.append({"role": mapped, "content": content})
        elif size != 3:
            return None
        elif role == "tool":
            call_id = message.get("tool_call_id")
            if type(content) is not str or type(call_id) is not str or not call_id:
                return None
            name = names.get(call_id)
            if name:
                out.append(
                    {"role": "tool", "tool_call_id": call_id, "content": content, "name": name}
                )
            else:
                out.append({"role": "tool", "tool_call_id": call_id, "content": content})
        elif role in _ASSISTANT and (content is None or type(content) is str):
            calls = _calls(message.get("tool_calls"), names)
            if calls is None:
                return None
            out.append({"role": "assistant", "tool_calls": calls, "content": content or ""})
        else:
            return None
    return out


def _calls(raw: Any, names: dict[str, str]) -> list[dict[str, Any]] | None:
    """Function calls with their arguments as objects; None unless every call is plain."""
    if type(raw) is not list or not raw:
        return None
    calls = []
    for call in raw:
        if type(call) is not dict or call.keys() != _CALL_KEYS or call["type"] != "function":
            return None
        call_id, function = call["id"], call["function"]
        if type(call_id) is not str or not call_id or type(function) is not dict:
            return None
        name, arguments = function.get("name"), function.get("arguments")
        if len(function) != 2 or type(name) is not str or not name or type(arguments) is not str:
            return None
        if arguments.lstrip()[:1] == '"':  # double-encoded: the ordinary way keeps a note
            return None
        args, error = parse_arguments(arguments)
        if error is not None:
            return None
        names[call_id] = name
        calls.append(
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
        )
    return calls
