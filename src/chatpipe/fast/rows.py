"""The row lane: conversation-per-line rows of the common datasets (OpenAI/Hugging Face
``{messages}`` rows, ShareGPT's ``{conversations}`` of text turns) read into plain
canonical dicts, with no message objects.

A row's messages are mostly of the log lane's plain shapes (fast/lane.py:
``plain_canonical``: ``{role, content}`` with text, a tool result, an assistant turn of
function calls) or ``{role, content}`` with a list of parts (text and images). Each such
message becomes its canonical dict; any other becomes its message, read by the dialect
(so a row the ordinary reader would refuse is left to it, which says what is wrong).
The row's conversation holds them in a ``RowMessages``: iterated, it gives the messages
the ordinary reader gives (each dict made a message once, on the first look); the fast
ways of a step (the writers of fast/writers.py and fast/lane_buffer.py, the decisions of
fast/row_ops.py) take the dicts themselves, through pipeline/fast_hooks.py, as long as
nothing has looked at the messages (what looked may have changed them).

tests/test_row_lane.py runs every command on generated rows and on the fixtures both
ways and compares the bytes and the errors.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import Location
from ..formats.openai import OpenAIDialect
from ..formats.openai_messages import PARTS_MADE_BLOCKS
from ..formats.openai_rows import with_row_images
from ..formats.shapes import CheckedMessages, check_message
from ..formats.sharegpt import AI, HUMAN, ShareGPTDialect
from ..formats.tool_links import needs_link
from ..model import AnyMessage, Conversation
from .lane import Batch
from .plain import ROLE_TYPES, message_from_plain, plain_canonical

# roles of the {role, content} messages whose content may be a list of parts, and their types
_PART_ROLES = {"user": "human", "human": "human", "assistant": "ai", "ai": "ai", "system": "system"}


class RowMessages(CheckedMessages):
    """A row's messages: ``values`` (the row's message objects, as parsed) and ``items``
    (their plain canonical dicts, or messages where a message is of no plain shape), in
    order; the items of ``{role, content}`` with text are made on first use. Iterated,
    the messages themselves, made once and kept; ``batches`` and ``write`` give the items
    as the log lane's ``LaneMessages`` does."""

    __slots__ = ("_items", "_messages", "made", "values")

    def __init__(self, values: list[Any], made: dict[int, Any]) -> None:
        self.values = values
        self.made = made  # the items of the messages not {role, content} with text, by index
        self._items: list[Any] | None = None
        self._messages: list[AnyMessage] | None = None

    def __iter__(self) -> Iterator[AnyMessage]:
        return iter(self.messages())

    def __len__(self) -> int:
        return len(self.values)

    @property
    def items(self) -> list[Any]:
        if self._items is None:
            made = self.made
            self._items = [
                made[index]
                if index in made
                else {"type": ROLE_TYPES[v["role"]], "content": v["content"]}
                if len(v) == 2
                else {"type": "tool", "content": v["content"], "tool_call_id": v["tool_call_id"]}
                for index, v in enumerate(self.values)
            ]
        return self._items

    @property
    def plain(self) -> bool:
        """Whether every item is a dict."""
        return all(type(item) is dict for item in self.made.values())

    def messages(self) -> list[AnyMessage]:
        """The messages, as the ordinary reader makes them (once: the same objects after)."""
        if self._messages is None:
            self._messages = [
                message_from_plain(item) if type(item) is dict else item for item in self.items
            ]
        return self._messages

    @property
    def untouched(self) -> bool:
        """Whether no one has looked at the messages (then the items are what they hold)."""
        return self._messages is None

    def others(self) -> list[tuple[int, Any]]:
        """The items that are messages, with their indexes."""
        return [(index, item) for index, item in self.made.items() if type(item) is not dict]

    def batches(self) -> Iterator[Batch]:
        """The items as one batch of the log lane's: its plain dicts (text content) and
        messages (the rest made messages)."""
        items = [
            item
            if type(item) is not dict or type(item["content"]) is str
            else message_from_plain(item)
            for item in self.items
        ]
        yield Batch(items, all(type(item) is dict for item in items))

    def write(self, writer: Any) -> Iterator[list[Any]]:
        yield self.written(writer)

    def written(self, writer: Any) -> list[Any]:
        """What a ``LaneWriter`` writes for the row: its ``fast`` of the messages it
        knows at a glance, ``plain`` of the other dicts with text content, ``one`` of any
        other (its message) at its index."""
        plain, one, made = writer.plain, writer.one, self.made
        try:
            outs = writer.fast(self.values, _unknown)
        except TypeError:  # a value its quick checks cannot take (an object for a role)
            outs = [None] * len(self.values)
        if not made or None not in outs:
            return outs
        written: list[Any] = []
        for index, out in enumerate(outs):
            if out is not None:
                written.append(out)
                continue
            item = made[index] if index in made else self.items[index]
            if type(item) is dict and type(item["content"]) is str:
                written.append(plain(item))
            else:
                message = message_from_plain(item) if type(item) is dict else item
                written.extend(one(index, message))
        return written


def _unknown(value: Any) -> None:
    """What a writer's ``fast`` gives a message it does not know at a glance: nothing
    (written from its item)."""
    return None


def _texts(values: list[Any]) -> list[int]:
    """The indexes of the messages that are neither ``{role, content}`` with text of a
    role of ROLE_TYPES nor a tool's result with text and an id (the commonest messages,
    whose items, as ``plain_canonical`` makes them, are made on first use)."""
    try:
        return [
            i
            for i, v in enumerate(values)
            if not (
                type(v) is dict
                and type(c := v.get("content")) is str
                and c
                and (
                    (len(v) == 2 and v.get("role") in ROLE_TYPES)
                    or (
                        len(v) == 3
                        and v.get("role") == "tool"
                        and type(t := v.get("tool_call_id")) is str
                        and t
                    )
                )
            )
        ]
    except TypeError:  # (a role that cannot be looked up: an object): each its own way
        return list(range(len(values)))


def parts_canonical(value: Any) -> dict[str, Any] | None:
    """The canonical dict of ``{role, content}`` whose content is a non-empty list of
    parts (strings and objects, none a part the reader makes a block of: a processor's
    media, reasoning), as the OpenAI reader reads it; None for any other message."""
    if type(value) is not dict or len(value) != 2:
        return None
    content, role = value.get("content"), value.get("role")
    kind = _PART_ROLES.get(role) if type(role) is str else None
    if kind is None or type(content) is not list or not content:
        return None
    for part in content:
        kind_of = type(part)
        if kind_of is dict:
            if part.get("type") in PARTS_MADE_BLOCKS:  # (the reader's to make)
                return None
        elif kind_of is not str:
            return None
    return {"type": kind, "content": content}


class RowReader:
    """``Reading.row_reader`` for the row lane: the conversation of an OpenAI or ShareGPT
    row, its messages a ``RowMessages``; None for a row of another dialect or shape,
    which the ordinary reader reads. Counts the rows it read, for ``-v``."""

    def __init__(self) -> None:
        self.taken = 0  # rows read by the lane
        self.left = 0  # rows of a dialect it knows left to the ordinary reader

    def __call__(self, dialect: Any, value: Any, location: Location) -> Conversation | None:
        kind = type(dialect)
        if kind is OpenAIDialect:
            made = read_openai_row(dialect, value, location)
        elif kind is ShareGPTDialect:
            made = read_sharegpt_row(value, location)
        else:
            return None
        if made is None:
            self.left += 1
            return None
        self.taken += 1
        return made

    def note(self) -> str | None:
        """What ``-v`` says of the rows read."""
        if not self.taken and not self.left:
            return None
        said = []
        if self.taken:
            said.append(f"{self.taken:,} row{'s' * (self.taken != 1)} read without messages")
        if self.left:
            rows = f"{self.left:,} row{'s' * (self.left != 1)}"
            said.append(f"{rows} of other shapes read the ordinary way")
        return "row lane: " + ", ".join(said)


def read_sharegpt_row(value: Any, location: Location) -> Conversation | None:
    """The conversation of a ShareGPT row of ``{from, value}`` turns of text (a system
    field of text before them), its messages a ``RowMessages``; None for any other row
    (calls and results paired by order, pairs, a chosen answer, turns with fields)."""
    if type(value) is not dict or "chosen" in value:
        return None
    key = "conversations" if "conversations" in value else "conversation"
    turns = value.get(key)
    if type(turns) is not list:
        return None
    items: list[Any] = []
    system = value.get("system")
    if system:
        if type(system) is not str:
            return None
        items.append({"type": "system", "content": system})
    for turn in turns:
        if type(turn) is not dict or len(turn) != 2:
            return None
        speaker, text = turn.get("from"), turn.get("value")
        kind = _SPEAKERS.get(speaker) if type(speaker) is str else None
        if kind is None or type(text) is not str or not text:
            return None
        items.append({"type": kind, "content": text})
    meta = {k: (None if k == key else v) for k, v in value.items() if k != "system"}
    # (the turns are no OpenAI messages: every item is made, none written at a glance)
    messages = RowMessages([None] * len(items), dict(enumerate(items)))
    return Conversation(messages, meta, location, key)


# the canonical type of each ShareGPT speaker of text (formats/sharegpt.py's)
_SPEAKERS = {
    **{name: "human" for name in HUMAN},
    **{name: "ai" for name in AI},
    "system": "system",
}


def read_openai_row(dialect: Any, value: Any, location: Location) -> Conversation | None:
    """The conversation of an OpenAI ``{messages}`` row, its messages a ``RowMessages``;
    None for any other row (``read_row``)."""
    if type(value) is dict and "images" in value:  # (parts that stand for the row's images)
        value = with_row_images(value)
    found = read_row(dialect, value)
    if found is None:
        return None
    meta = {k: (None if k == "messages" else v) for k, v in value.items()}
    return Conversation(found, meta, location, "messages")


def read_row(dialect: Any, value: Any) -> RowMessages | None:
    """The items of an OpenAI ``{messages}`` row (not a response or a preference row),
    or None when the ordinary reader must read it: a message it refuses, a tool result or
    call whose id the row leaves to be linked by order."""
    if type(value) is not dict or "choices" in value:
        return None
    messages = value.get("messages")
    if type(messages) is not list:
        return None
    made: dict[int, Any] = {}
    for index in _texts(messages):
        message = messages[index]
        item = plain_canonical(message) or parts_canonical(message)
        if item is None:
            try:
                item = dialect.read_message(message)
                check_message(item)  # (the shapes the ordinary reader's conversations hold)
            except Exception:  # what is wrong is the ordinary reader's to say
                return None
            if needs_link(item):
                return None
        made[index] = item
    return RowMessages(messages, made)


# -- what fast/row_ops.py and its modules ask of a row ---------------------------------

# the OpenAI role of each canonical type of a plain dict
ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}


def untouched_row(conversation: Conversation) -> RowMessages | None:
    """The messages of a row the row lane read, when nothing has looked at them since
    (else None: what looked may have changed them)."""
    messages = conversation.messages
    if type(messages) is RowMessages and messages.untouched:
        return messages
    return None


def row_items(conversation: Conversation) -> list[Any] | None:
    """The items of a row the row lane read, while its messages are untouched."""
    row = untouched_row(conversation)
    return None if row is None else row.items


def message_of(item: Any) -> Any:
    """An item's message (a dict made one)."""
    return message_from_plain(item) if type(item) is dict else item


def text_dict(item: Any) -> bool:
    """Whether an item is a dict with text content (not a list of parts)."""
    return type(item) is dict and type(item["content"]) is str


def role_of(item: Any) -> str:
    """``facts.role`` of an item's message."""
    if text_dict(item):
        return ROLES[item["type"]]
    from ..ops.facts import role

    return role(message_of(item))
