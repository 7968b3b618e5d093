"""The buffer form of plain lines (fast/lane.py): prefix and XML texts of the commonest
parsed lines, written without a message. Each must give what the ordinary renderer gives
for the message the line reads as; tests/test_lane.py checks the two ways against each
other on generated logs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..io.jsontext import json_text
from ..model import AnyMessage
from ..render.buffer import BufferRenderer, escape, quoteattr, tool_call_xml
from .lane_writer import LaneWriter
from .plain import ROLE_TYPES, line_head


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


_CALL_TYPE = "'type': 'tool_call'"


# the labels of the renderers of the run (a row's writer is made for each row: not its labels)
_LABELS: dict[int, tuple[BufferRenderer, dict[str, str], dict[str, str]]] = {}


def _labels(renderer: BufferRenderer) -> tuple[dict[str, str], dict[str, str]]:
    """Each type's label before a text, and its XML attribute."""
    known = _LABELS.get(id(renderer))
    if known is None or known[0] is not renderer:
        if len(_LABELS) > 8:
            _LABELS.clear()
        labels = {k: f"{label}: " for k, label in renderer.type_labels.items()}
        kinds = {k: quoteattr(label.lower()) for k, label in renderer.type_labels.items()}
        known = _LABELS[id(renderer)] = (renderer, labels, kinds)
    return known[1], known[2]


def buffer_writer(renderer: BufferRenderer, one: Callable[[int, AnyMessage], list[str]]) -> Any:
    """A LaneWriter of buffer texts; ``one`` renders a message at an index.

    The lines its ``fast`` knows come as UTF-8 bytes, the label and the text encoded
    apart: the text orjson made is encoded far faster than a new string made of it
    (``label + text``), which is encoded character by character (a fifth of a run)."""
    labels, kinds = _labels(renderer)
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
