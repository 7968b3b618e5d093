"""Writers of plain lines (fast/lane.py): the canonical and OpenAI forms of a plain
canonical dict, and of the commonest parsed lines, written without a message (the
buffer form: fast/lane_buffer.py).

Each must give what the ordinary writer gives for the message the line reads as;
tests/test_lane.py checks the two ways against each other on generated logs.
"""

from __future__ import annotations

from typing import Any

from ..formats.canonical import CanonicalDialect
from ..formats.openai import OpenAIDialect
from ..formats.openai_writer import OpenAIWriter, openai_tool_call
from ..model.canonical import message_to_canonical
from .lane_writer import LaneWriter
from .plain import ROLE_TYPES, line_head


def lane_writer(target: Any) -> LaneWriter | None:
    """The plain-line writer of what a pipeline writes with (a dialect, an
    ``OpenAIWriter``), or None when it has none and takes messages only."""
    if type(target) is CanonicalDialect:
        return LaneWriter(_same, lambda _, message: [message_to_canonical(message)], _canonical)
    if type(target) is OpenAIDialect:  # (its faithful writer: an API's request says more)
        if target.writing.strict:
            return None
        target = OpenAIWriter("keep", keep_fields=True, files_as_text=True)
    if type(target) is OpenAIWriter and target.text_format != "block":
        return LaneWriter(_openai, target.message, _openai_fast)
    return None


# -- canonical ----------------------------------------------------------------------------


def _same(value: Any) -> Any:
    """Plain dicts are canonical already."""
    return value


def _canonical(values: list[Any], other: Any) -> list[Any]:
    """The canonical dicts of {role, content} lines and tool results, from their values."""
    return [
        (
            {"type": head, "content": content}
            if head != "tool"
            else {"type": "tool", "content": content, "tool_call_id": value["tool_call_id"]}
        )
        if type(value) is dict
        and type(content := value.get("content")) is str
        and content
        and (head := line_head(value, ROLE_TYPES, "tool"))
        else other(value)
        for value in values
    ]


# -- OpenAI -------------------------------------------------------------------------------

_PLAIN_ROLES = {"human": "user", "ai": "assistant", "system": "system"}  # of plain messages
_ROLES = {role: _PLAIN_ROLES[kind] for role, kind in ROLE_TYPES.items()}  # of plain lines


def _openai(item: dict[str, Any]) -> dict[str, Any]:
    """``OpenAIWriter.message`` of a plain canonical dict, without the message."""
    kind = item["type"]
    if kind == "tool":
        return {"role": "tool", "tool_call_id": item["tool_call_id"], "content": item["content"]}
    calls = item.get("tool_calls")
    if calls:
        return {
            "role": "assistant",
            "tool_calls": [openai_tool_call(c) for c in calls],
            "content": item["content"],
        }
    return {"role": _PLAIN_ROLES[kind], "content": item["content"]}


def _openai_fast(values: list[Any], other: Any) -> list[Any]:
    """``_openai`` of {role, content} lines and tool results, from their parsed values."""
    return [
        (
            {"role": head, "content": content}
            if head != "tool"
            else {"role": "tool", "tool_call_id": value["tool_call_id"], "content": content}
        )
        if type(value) is dict
        and type(content := value.get("content")) is str
        and content
        and (head := line_head(value, _ROLES, "tool"))
        else other(value)
        for value in values
    ]
