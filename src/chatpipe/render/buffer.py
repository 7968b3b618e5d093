"""Buffer strings: a conversation as one prompt text, ``Role: text`` or ``<message>`` XML.

Byte for byte what langchain-core's ``get_buffer_string`` makes. The renderer
works one message at a time so a long log can be rendered as it streams past.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

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


def escape(text: str) -> str:
    """``&``, ``<`` and ``>`` as entities (what xml.sax.saxutils.escape does)."""
    return text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def quoteattr(text: str) -> str:
    """A quoted attribute value, with xml.sax.saxutils.quoteattr's quote switching."""
    text = escape(text).replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' in text:
        if "'" in text:
            return '"' + text.replace('"', "&quot;") + '"'
        return "'" + text + "'"
    return '"' + text + '"'


FORMATS = ("prefix", "xml")
TOOL_CALL_FORMATS = ("repr", "json")
_TRUNCATE_AT = 500  # characters of a document or server-tool payload shown in XML
_ID_LIMIT = 64  # characters of a tool-call id shown in XML


class BufferRenderer:
    """Renders single messages; ``get_buffer_string`` joins them."""

    def __init__(
        self,
        human_prefix: str = "Human",
        ai_prefix: str = "AI",
        *,
        system_prefix: str = "System",
        function_prefix: str = "Function",
        tool_prefix: str = "Tool",
        format: str = "prefix",
        tool_calls: str = "repr",
    ) -> None:
        if format not in FORMATS:
            raise ValueError(
                f"Unrecognized format={format!r}. Supported formats are 'prefix' and 'xml'."
            )
        if tool_calls not in TOOL_CALL_FORMATS:
            raise ValueError(f"tool_calls must be 'repr' or 'json', got {tool_calls!r}")
        self.labels = (
            (HumanMessage, human_prefix),
            (AIMessage, ai_prefix),
            (SystemMessage, system_prefix),
            (FunctionMessage, function_prefix),
            (ToolMessage, tool_prefix),
        )
        self._by_class: dict[type, str] = {}  # label of each class met so far
        self.xml = format == "xml"
        self.calls_as_json = tool_calls == "json"
        self.render = self._xml if self.xml else self._prefix
        # the label of each message type that has a fixed one
        self.type_labels = {
            "human": human_prefix,
            "ai": ai_prefix,
            "system": system_prefix,
            "tool": tool_prefix,
        }

    def label(self, message: AnyMessage) -> str:
        kind = type(message)
        label = self._by_class.get(kind)
        if label is not None:
            return label
        for cls, label in self.labels:
            if isinstance(message, cls):
                self._by_class[kind] = label
                return label
        if isinstance(message, ChatMessage):
            return message.role
        raise ValueError(f"Got unsupported message type: {message!r}")

    # -- prefix -----------------------------------------------------------------------

    def _prefix(self, message: AnyMessage) -> str:
        text = f"{self.label(message)}: {message.text}"
        if isinstance(message, AIMessage):
            if message.tool_calls:
                text += self._calls(message.tool_calls)
            elif "function_call" in message.additional_kwargs:
                text += self._calls(message.additional_kwargs["function_call"])
        return text

    def _calls(self, value: Any) -> str:
        if self.calls_as_json:
            return json_text(value)
        return str(value)

    # -- xml ----------------------------------------------------------------------------

    def _xml(self, message: AnyMessage) -> str:
        if isinstance(message, ChatMessage):
            kind = quoteattr(message.role)
        else:
            kind = quoteattr(self.label(message).lower())
        parts = _content_parts(message.content)
        calls = message.tool_calls if isinstance(message, AIMessage) else None
        function_call = _MISSING
        if isinstance(message, AIMessage) and not calls:
            function_call = message.additional_kwargs.get("function_call", _MISSING)
        if not calls and function_call is _MISSING:
            return f"<message type={kind}>{' '.join(parts)}</message>"
        lines = [f"<message type={kind}>"]
        if parts:
            lines.append(f"  <content>{' '.join(parts)}</content>")
        if calls:
            lines.extend(map(tool_call_xml, calls))
        else:
            name = function_call.get("name")
            arguments = function_call.get("arguments")
            lines.append(
                f"  <function_call name={quoteattr(str(name or ''))}>"
                f"{escape(str(arguments or '{}'))}</function_call>"
            )
        lines.append("</message>")
        return "\n".join(lines)


def tool_call_xml(call: dict[str, Any]) -> str:
    return (
        f"  <tool_call id={quoteattr(_short_id(call['id']))} "
        f"name={quoteattr(str(call['name'] or ''))}>"
        f"{escape(_json(call['args']))}</tool_call>"
    )


_MISSING: Any = object()


_json = json_text


def _short_id(call_id: str | None) -> str:
    call_id = call_id or ""
    return call_id[:_ID_LIMIT] + "..." if len(call_id) > _ID_LIMIT else call_id


def _truncate(text: str) -> str:
    return text[:_TRUNCATE_AT] + "..." if len(text) > _TRUNCATE_AT else text


def _content_parts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [escape(content)] if content else []
    parts = []
    for item in content:
        if isinstance(item, str):
            if item:
                parts.append(escape(item))
        else:
            part = _block_xml(item)
            if part is not None:
                parts.append(part)
    return parts


def _is_inline_data(block: dict[str, Any]) -> bool:
    if block.get("base64"):
        return True
    url = block.get("url")
    if isinstance(url, str) and url.startswith("data:"):
        return True
    image_url = block.get("image_url")
    if isinstance(image_url, dict):
        url = image_url.get("url")
        return isinstance(url, str) and url.startswith("data:")
    return False


def _media(kind: str, block: dict[str, Any]) -> str | None:
    if block.get("url"):
        return f"<{kind} url={quoteattr(str(block['url']))} />"
    if block.get("file_id"):
        return f"<{kind} file_id={quoteattr(str(block['file_id']))} />"
    return None


def _block_xml(block: dict[str, Any]) -> str | None:
    """One content block as XML, or None when the format leaves it out."""
    if _is_inline_data(block):
        return None
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        # langchain-core crashes on a non-string text; shown as text here
        return escape(str(text)) if text else None
    if kind == "reasoning":
        reasoning = block.get("reasoning")
        return f"<reasoning>{escape(str(reasoning))}</reasoning>" if reasoning else None
    if kind in ("image", "audio", "video"):
        return _media(kind, block)
    if kind == "image_url":
        image_url = block.get("image_url")
        if isinstance(image_url, dict) and image_url.get("url"):
            return f"<image url={quoteattr(str(image_url['url']))} />"
        return None
    if kind == "text-plain":
        text = block.get("text")
        return escape(_truncate(str(text))) if text else None
    if kind == "server_tool_call":
        return (
            f"<server_tool_call id={quoteattr(str(block.get('id') or ''))} "
            f"name={quoteattr(str(block.get('name') or ''))}>"
            f"{escape(_truncate(_json(block.get('args') or {})))}</server_tool_call>"
        )
    if kind == "server_tool_result":
        output = block.get("output")
        body = escape(_truncate(_json(output))) if output else ""
        return (
            f"<server_tool_result tool_call_id={quoteattr(str(block.get('tool_call_id') or ''))} "
            f"status={quoteattr(str(block.get('status') or ''))}>{body}</server_tool_result>"
        )
    return None


def get_buffer_string(
    messages: Iterable[AnyMessage],
    human_prefix: str = "Human",
    ai_prefix: str = "AI",
    *,
    system_prefix: str = "System",
    function_prefix: str = "Function",
    tool_prefix: str = "Tool",
    message_separator: str = "\n",
    format: str = "prefix",
) -> str:
    """The messages as one string, each rendered and joined by ``message_separator``."""
    renderer = BufferRenderer(
        human_prefix,
        ai_prefix,
        system_prefix=system_prefix,
        function_prefix=function_prefix,
        tool_prefix=tool_prefix,
        format=format,
    )
    return message_separator.join(map(renderer.render, messages))


class TurnLabels:
    """Role labels ('Human', 'AI', chat roles) and the one that starts a line inside a
    message's text, if any: in the prefix format such a line reads as a new turn."""

    def __init__(self, labels: Iterable[str]) -> None:
        self.labels: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        self._bytes_pattern: re.Pattern[bytes] | None = None
        for label in labels:
            self.add(label)

    def add(self, label: str) -> None:
        if label not in self.labels:
            self.labels.add(label)
            self._pattern = self._bytes_pattern = None

    def find(self, text: str) -> str | None:
        """``Label: `` where it starts a line of ``text`` (the first such line)."""
        if "\n" not in text:
            return None
        found = self.pattern().search(text)
        return None if found is None else found.group(1) + ": "

    def count(self, data: bytes) -> int:
        """How many lines of ``data`` (UTF-8) after its first start with ``Label: ``: a
        match in the bytes is a match in the text, since no character's UTF-8 holds the
        bytes of another."""
        if self._bytes_pattern is None:
            utf8 = self.pattern().pattern.encode("utf-8", "surrogateescape")
            self._bytes_pattern = re.compile(utf8)
        return len(self._bytes_pattern.findall(data))

    def pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            # one pass over the text for all labels; of two that fit, the longer
            labels = sorted(self.labels, key=len, reverse=True)
            self._pattern = re.compile("\n(" + "|".join(map(re.escape, labels)) + "): ")
            self._bytes_pattern = None
        return self._pattern
