"""Writers of plain lines (fast/lane.py): the canonical, OpenAI and buffer forms of a
plain canonical dict, and of the commonest parsed lines, written without a message.

Each must give what the ordinary writer gives for the message the line reads as;
tests/test_lane.py checks the two ways against each other on generated logs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..formats.canonical import CanonicalDialect
from ..formats.openai import OpenAIDialect
from ..formats.openai_writer import OpenAIWriter, openai_tool_call
from ..io.jsontext import json_text
from ..model import AnyMessage
from ..model.canonical import message_to_canonical
from ..render.buffer import BufferRenderer, escape, quoteattr, tool_call_xml
from .lane import ROLE_TYPES, line_head

Fast = Callable[[list[Any], Callable[[Any], Any]], list[Any]]


class LaneWriter:
    """A writer for the lane's batches, in three parts, each giving records.

    ``fast(values, other)`` writes a batch of parsed lines: the lines it knows at a
    glance (a subset of the plain ones), ``other(value)`` for the rest, which gives
    ``plain`` of the line's canonical dict, or None for a line that is not plain.
    ``plain`` writes a plain canonical dict; ``one`` the message at an index, as a list.
    """

    __slots__ = ("fast", "one", "plain")

    def __init__(
        self,
        plain: Callable[[dict[str, Any]], Any],
        one: Callable[[int, AnyMessage], list[Any]],
        fast: Fast | None = None,
    ) -> None:
        self.plain = plain
        self.one = one
        self.fast = fast or _each


def _each(values: list[Any], other: Callable[[Any], Any]) -> list[Any]:
    return list(map(other, values))


def lane_writer(target: Any) -> LaneWriter | None:
    """The plain-line writer of what a pipeline writes with (a dialect, an
    ``OpenAIWriter``), or None when it has none and takes messages only."""
    if type(target) is CanonicalDialect:
        return LaneWriter(_same, lambda _, message: [message_to_canonical(message)], _canonical)
    if type(target) is OpenAIDialect:
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


# -- buffer strings -----------------------------------------------------------------------


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


_CALL_TYPE = "'type': 'tool_call'"


def buffer_writer(renderer: BufferRenderer, one: Callable[[int, AnyMessage], list[str]]) -> Any:
    """A LaneWriter of buffer texts; ``one`` renders a message at an index.

    The lines its ``fast`` knows come as UTF-8 bytes, the label and the text encoded
    apart: the text orjson made is encoded far faster than a new string made of it
    (``label + text``), which is encoded character by character (a fifth of a run)."""
    labels = {k: f"{label}: " for k, label in renderer.type_labels.items()}
    kinds = {k: quoteattr(label.lower()) for k, label in renderer.type_labels.items()}
    if renderer.xml:

        def plain_xml(item: dict[str, Any]) -> str:
            kind = kinds[item["type"]]
            calls = item.get("tool_calls")
            if calls:
                content = item["content"]
                lines = [f"<message type={kind}>"]
                if content:
                    lines.append(f"  <content>{escape(content)}</content>")
                lines.extend(map(tool_call_xml, calls))
                lines.append("</message>")
                return "\n".join(lines)
            return f"<message type={kind}>{escape(item['content'])}</message>"

        opens = {role: _bytes(f"<message type={kinds[kind]}>") for role, kind in ROLE_TYPES.items()}
        tool = _bytes(f"<message type={kinds['tool']}>")

        def fast_xml(values: list[Any], other: Any) -> list[Any]:
            return [
                head
                + content.replace("&", "&amp;")
                .replace(">", "&gt;")
                .replace("<", "&lt;")
                .encode("utf-8", "surrogateescape")
                + b"</message>"
                if type(value) is dict
                and type(content := value.get("content")) is str
                and content
                and (head := line_head(value, opens, tool))
                else other(value)
                for value in values
            ]

        return LaneWriter(plain_xml, one, fast_xml)
    as_json = renderer.calls_as_json

    def plain_prefix(item: dict[str, Any]) -> str:
        calls = item.get("tool_calls")
        if not calls:
            return labels[item["type"]] + item["content"]
        if as_json:
            return labels[item["type"]] + item["content"] + json_text(calls)
        # plain calls have these keys in this order: their repr, written directly
        reprs = [
            f"{{'name': {c['name']!r}, 'args': {c['args']!r}, 'id': {c['id']!r}, {_CALL_TYPE}}}"
            for c in calls
        ]
        return labels[item["type"]] + item["content"] + "[" + ", ".join(reprs) + "]"

    heads = {role: _bytes(labels[kind]) for role, kind in ROLE_TYPES.items()}
    tool_head = _bytes(labels["tool"])

    def fast_prefix(values: list[Any], other: Any) -> list[Any]:
        return [
            head + content.encode("utf-8", "surrogateescape")
            if type(value) is dict
            and type(content := value.get("content")) is str
            and content
            and (head := line_head(value, heads, tool_head))
            else other(value)
            for value in values
        ]

    return LaneWriter(plain_prefix, one, fast_prefix)
