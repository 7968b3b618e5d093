"""Plain OpenAI message lines: which lines are plain ({role, content}, a tool result with
its id, an assistant turn of well-formed function calls), their canonical dicts
(docs/architecture.md, "Canonical JSONL"), and the message of such a dict. The lane reads
logs of them, the row lane rows of them, and the writers write them as they are.
"""

from __future__ import annotations

from typing import Any

from orjson import JSONDecodeError

from ..errors import DataError
from ..formats.tool_links import ToolLinks
from ..io.json_numbers import loads
from ..io.limits import LIMITS
from ..model import AIMessage, AnyMessage
from ..model.canonical import CANONICAL_TYPES

# roles of the AI messages of plain lines
AI_ROLES = frozenset(("assistant", "ai"))
# nesting of the deepest plain line (a turn of calls: line, calls, call, function); a
# lower --max-depth makes such lines errors, which the ordinary reader reports
PLAIN_DEPTH = 4
# OpenAI roles whose {role, content} lines are plain, and their canonical types
ROLE_TYPES = {
    "user": "human",
    "human": "human",
    "assistant": "ai",
    "ai": "ai",
    "system": "system",
}


def message_from_plain(item: dict[str, Any]) -> AnyMessage:
    """The message of a plain canonical dict, whose values the lane has checked already."""
    fields = {k: v for k, v in item.items() if k != "type" and k != "content"}
    return CANONICAL_TYPES[item["type"]]._plain(item["content"], **fields)


class PlainLinks(ToolLinks):
    """``link_tool_results``'s state over items that are messages or plain dicts (whose
    ids are all given)."""

    __slots__ = ()

    def step(self, message: Any, index: int) -> None:
        if type(message) is not dict:
            super().step(message, index)
        elif message["type"] == "ai":
            self.answered = set()
            self.pending = [c["id"] for c in message.get("tool_calls", ()) if c["id"]]
        elif message["type"] == "tool":
            self.answered.add(message["tool_call_id"])

    @staticmethod
    def is_ai(item: Any) -> bool:
        return item["type"] == "ai" if type(item) is dict else isinstance(item, AIMessage)


def plain_canonical(value: Any) -> dict[str, Any] | None:
    """The canonical dict of a plain OpenAI message line, or None for any other line.

    Plain: {role, content} with a non-empty string; a tool result {role: tool, content,
    tool_call_id} with non-empty strings; an assistant turn {role, content: null or a
    string, tool_calls} whose calls all have an id, a name and JSON-object arguments.
    """
    if type(value) is not dict:
        return None
    size = len(value)
    role = value.get("role")
    content = value.get("content")
    if size == 2:
        kind = ROLE_TYPES.get(role) if type(role) is str else None
        if kind is not None and type(content) is str and content:
            return {"type": kind, "content": content}
        return None
    if size != 3 or type(role) is not str:
        return None
    if role == "tool":
        call_id = value.get("tool_call_id")
        if type(call_id) is str and call_id and type(content) is str and content:
            return {"type": "tool", "content": content, "tool_call_id": call_id}
        return None
    if role == "assistant" and (content is None or type(content) is str) and "content" in value:
        calls = _plain_calls(value.get("tool_calls"))
        if calls:
            return {"type": "ai", "content": content or "", "tool_calls": calls}
    return None


def line_head(value: dict[str, Any], heads: dict[str, Any], tool: Any) -> Any:
    """What a writer's quick look (``write.LaneWriter.fast``) gives a line whose content it
    found a non-empty string: ``heads[role]`` for a {role, content} line, ``tool`` for a
    tool result with an id, None for any other line. ``heads`` maps roles of ROLE_TYPES."""
    size = len(value)
    if size == 2:
        return heads.get(value.get("role"))
    if size == 3 and value.get("role") == "tool":
        call_id = value.get("tool_call_id")
        if type(call_id) is str and call_id:
            return tool
    return None


def _plain_calls(raw_calls: Any) -> list[dict[str, Any]] | None:
    """Calls with ids, names and arguments that are a JSON object in JSON text orjson
    reads, not near the depth limit; others (lenient, empty, double-encoded or deep
    arguments) are for ``parse_arguments`` on the ordinary path."""
    if type(raw_calls) is not list:
        return None
    depth = LIMITS.depth
    calls = []
    for raw in raw_calls:
        if type(raw) is not dict or len(raw) != 3 or raw.get("type") != "function":
            return None
        call_id, function = raw.get("id"), raw.get("function")
        if type(call_id) is not str or not call_id:
            return None
        if type(function) is not dict or len(function) != 2:
            return None
        name, arguments = function.get("name"), function.get("arguments")
        if type(name) is not str or type(arguments) is not str:
            return None
        try:
            args = loads(arguments)
        except (JSONDecodeError, DataError):
            return None
        if type(args) is not dict:
            return None
        if len(arguments) > depth and arguments.count("{") + arguments.count("[") > depth:
            return None
        calls.append({"name": name, "args": args, "id": call_id, "type": "tool_call"})
    return calls
