"""grep's hits and redact's replacements in rows read by the row lane (from their items:
fast/row_ops.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..model import Conversation
from ..ops.grep import GrepLines, arguments_text, fields
from ..ops.redact import Redactor
from .rows import RowMessages, message_of, role_of, row_items, text_dict, untouched_row

# -- grep ---------------------------------------------------------------------------------


def grep_lines(lines: GrepLines) -> Callable[[Conversation], Iterator[bytes]]:
    search = lines.search

    def call(conversation: Conversation) -> Iterator[bytes]:
        items = row_items(conversation)
        if items is None:
            return lines(conversation)
        return lines.lines(search.found(conversation, items, _fields, role_of))

    return call


def _fields(item: Any, wanted: Any) -> Any:
    """``grep.fields`` of an item's message."""
    if not text_dict(item):
        return fields(message_of(item), wanted)
    found = []
    if item["type"] == "tool":
        if "result" in wanted:
            found.append(("result", item["content"], None))
    elif "text" in wanted:
        found.append(("text", item["content"], None))
    if "arguments" in wanted:
        for call in item.get("tool_calls", ()):
            found.append(("arguments", arguments_text(call["args"]), call["name"]))
    return found


# -- redact -------------------------------------------------------------------------------


def redacting(redactor: Redactor) -> Callable[[Conversation], Conversation]:
    def call(conversation: Conversation) -> Conversation:
        row = untouched_row(conversation)
        if row is None:
            return redactor(conversation)
        return redacted_row(redactor, conversation, row)

    return call


def redacted_row(redactor: Redactor, conversation: Conversation, row: RowMessages) -> Conversation:
    """``redactor(conversation)`` of a row the row lane read: its dicts' texts (contents,
    and the strings and keys of calls' arguments) looked at as one text first; a row with
    nothing the scanner's pattern finds in them stays as it is, the others' dicts are
    redacted as their messages would be (``Redactor.value``, ``_call``), and what is no
    dict is redacted as the message it is."""
    redactor._changed = False
    meta = redactor.value(conversation.meta)
    items = row.items
    texts: list[str] = []
    for item in items:
        if text_dict(item):
            texts.append(item["content"])
            for call in item.get("tool_calls", ()):
                _strings(call["args"], texts)
    # one search of them all, a line feed between two: it stands where a text begins or
    # ends as the text's edge does for every look-around of the scanner's pattern (none
    # takes a line feed, the \\Z of a URL's end has \\s beside it), so that the pattern finds
    # something there when it finds something in one of them (or across two: looked at)
    pattern = redactor.scanner.pattern
    found = pattern is not None and pattern.search("\n".join(texts)) is not None
    values, made = row.values, row.made
    if found or any(type(item) is not dict or not text_dict(item) for item in made.values()):
        values, made = list(values), dict(made)
        for index, item in enumerate(items):
            if not text_dict(item):
                made[index] = redactor.message(message_of(item))
            elif found:
                new = _redacted_item(redactor, item)
                if new is not item:
                    made[index] = new
                    values[index] = None  # (written from its item)
    if redactor._changed:
        redactor.conversations += 1
    messages = RowMessages(values, made) if (values, made) != (row.values, row.made) else row
    return Conversation(
        messages, meta, conversation.location, conversation.messages_key, conversation.start
    )


def _redacted_item(redactor: Redactor, item: dict[str, Any]) -> dict[str, Any]:
    """What ``Redactor.message`` makes of a dict's message, as a dict (the same one when
    nothing changed)."""
    content = redactor.value(item["content"])
    calls = item.get("tool_calls")
    new_calls = [redactor._call(call) for call in calls] if calls else calls
    if content is item["content"] and (
        not calls or all(a is b for a, b in zip(new_calls, calls, strict=True))
    ):
        return item
    changed = {**item, "content": content}
    if calls:
        changed["tool_calls"] = new_calls
    return changed


def _strings(value: Any, into: list[str]) -> None:
    """Every string of a JSON-like value, keys too, into ``into``."""
    if isinstance(value, str):
        into.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                into.append(key)
            _strings(item, into)
    elif isinstance(value, list):
        for item in value:
            _strings(item, into)
