"""The fast lane: message-per-line OpenAI JSONL at close to the speed of parsing it.

Most lines of real logs are a handful of shapes ({role, content}, a tool result, an
assistant turn of function calls). The lane reads such a log in large batches of lines,
parses them with orjson, and turns each plain line straight into its canonical dict
(docs/ARCHITECTURE.md, "Canonical JSONL") with no message object; every other line takes
the ordinary reader. Writers that know plain dicts write them directly; the rest get
messages. The two ways give the same output: tests/test_lane.py checks them against
each other on generated logs.

A batch is a list of items, each a plain canonical dict or a message, in log order,
tool results linked to their calls as ``link_tool_results`` links them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from ..errors import ChatpipeError, Location
from ..io import BadRecord, JsonlReader, Record, _col, _json_error, _too_deep_record
from ..messages import AnyMessage
from .base import Dialect
from .links import ToolLinks, needs_link
from .openai import parse_arguments

# OpenAI roles whose {role, content} lines are plain, and their canonical types
_PLAIN_TYPES = {
    "user": "human",
    "human": "human",
    "assistant": "ai",
    "ai": "ai",
    "system": "system",
}


def plain_canonical(value: Any) -> dict[str, Any] | None:
    """The canonical dict of a plain OpenAI message line, or None for any other line.

    Plain: {role, content} with a non-empty string; a tool result {role: tool, content,
    tool_call_id} with non-empty strings; an assistant turn {role, content: null or "",
    tool_calls} whose calls all have an id, a name and JSON-object arguments.
    """
    if type(value) is not dict:
        return None
    size = len(value)
    role = value.get("role")
    content = value.get("content")
    if size == 2:
        kind = _PLAIN_TYPES.get(role) if type(role) is str else None
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
    if role == "assistant" and (content is None or content == ""):
        calls = _plain_calls(value.get("tool_calls"))
        if calls:
            return {"type": "ai", "content": "", "tool_calls": calls}
    return None


def _plain_calls(raw_calls: Any) -> list[dict[str, Any]] | None:
    if type(raw_calls) is not list:
        return None
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
        args, error = parse_arguments(arguments)
        if error is not None:
            return None
        calls.append({"name": name, "args": args, "id": call_id, "type": "tool_call"})
    return calls


class Batch(list):
    """A list of items; ``plain`` when all of them are plain canonical dicts."""

    __slots__ = ("plain",)

    def __init__(self, items: list[Any], plain: bool) -> None:
        super().__init__(items)
        self.plain = plain


class _Bad:
    """A line that could not be read: reported in its place in the batch."""

    __slots__ = ("error",)

    def __init__(self, error: ChatpipeError) -> None:
        self.error = error


class Lane:
    """The batches of one message-per-line OpenAI JSONL source (see the module doc)."""

    def __init__(self, dialect: Dialect, records: Any, reader: JsonlReader, errors: Any) -> None:
        self.dialect = dialect
        # the source's record stream (formats.Records): the detection window to start
        # with, and the reader's generator, kept alive because closing it closes the file
        self.records = records
        self.reader = reader
        self.errors = errors
        self.links = ToolLinks()
        self.index = 0  # messages handed out so far
        self.started = False

    def batches(self) -> Iterator[list[Any]]:
        # a conversation offers its stream as messages or as batches: one read, not two
        if self.started:
            raise RuntimeError("a lane's stream is read once: as messages or as batches")
        self.started = True
        first = [self._record_item(record) for record in self.records.window]
        yield from self._finish(first, False)
        name = self.reader.source.name
        for lineno, lines in self.reader.line_batches():
            try:
                items = list(map(plain_canonical, map(orjson.loads, lines)))
            except (orjson.JSONDecodeError, TypeError):
                items = [self._line_item(line, lineno + i, name) for i, line in enumerate(lines)]
                plain = False
            else:
                plain = None not in items
                if not plain:
                    for i, item in enumerate(items):
                        if item is None:
                            items[i] = self._line_item(lines[i], lineno + i, name)
            yield from self._finish(items, plain)

    def _finish(self, items: list[Any], plain: bool) -> Iterator[Batch]:
        """Drop blanks, report bad lines (the good ones before a fatal one come first),
        link tool results, count."""
        if not plain:
            kept = []
            for item in items:
                if item is None:
                    continue  # a blank line
                if type(item) is _Bad:
                    if not self.errors.skip and kept:
                        yield self._linked(kept)
                        kept = []
                    self.errors.handle(item.error)
                    continue
                kept.append(item)
            items = kept
        if items:
            yield self._linked(items, plain)

    def _linked(self, items: list[Any], plain: bool = False) -> Batch:
        links, base = self.links, self.index
        if not plain and any(type(item) is not dict and needs_link(item) for item in items):
            for k, item in enumerate(items):
                links.step(item, base + k)
        else:
            links.skip(items)
        self.index = base + len(items)
        return Batch(items, plain or all(type(item) is dict for item in items))

    def _record_item(self, record: Record) -> Any:
        if isinstance(record, BadRecord):
            return _Bad(record.error)
        plain = plain_canonical(record.value)
        return plain if plain is not None else self._message(record.value, record.location)

    def _line_item(self, line: Any, lineno: int, name: str) -> Any:
        """A line the batch could not take as plain: a message, None (blank) or _Bad."""
        if isinstance(line, BadRecord):
            return _Bad(line.error)
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            if not line.strip():
                return None
            bare = line.rstrip(b"\r")  # parsed again without it: an early end is on this line
            try:
                value = orjson.loads(bare)
            except orjson.JSONDecodeError as exc:
                return _Bad(_json_error(exc, self.reader.source, bare, lineno - 1))
        plain = plain_canonical(value)
        if plain is not None:
            return plain
        location = Location(name, lineno, _col(line))
        deep = _too_deep_record(self.reader.source, value, line, location)
        if deep is not None:
            return _Bad(deep.error)
        return self._message(value, location)

    def _message(self, value: Any, location: Location) -> AnyMessage | _Bad:
        from . import message_of

        try:
            return message_of(self.dialect, value, location)
        except ChatpipeError as exc:
            return _Bad(exc)
