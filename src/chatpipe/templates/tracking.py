"""A chat template's render followed as it is made: where each message's turn is in the
text, and where each ``{% generation %}`` block is.

The template is compiled a second time with marks in its loops: each iteration of a
``{% for %}`` over the messages says which message it renders, and the loop's end says
it is done, so each message gets the part of the text its iteration wrote (the template's
own rendering of that turn, in the whole conversation: a template that renders earlier
turns differently once later ones exist, as Qwen 3 drops old reasoning, is followed as it
is). The marks write nothing; the text is the template's, byte for byte.

A loop inside a macro, a call or filter block or a ``{% set %}`` block writes into a
buffer first, so its positions would be wrong: such loops are left unmarked (their
messages then have no part, and the caller says so or renders prefixes instead).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .environment import TRACKING, _environment, compile_template
from .render import render_context, run_template, with_reasoning_aliases

GENERATION_TAG = re.compile(r"\{%-?\s*generation\s*-?%\}")
_ITEM, _DONE = "_cp_item", "_cp_done"


@dataclass
class Tracker:
    """What one render wrote where: ``position`` is the length of the text so far."""

    position: int = 0
    generation: list[tuple[int, int]] = field(default_factory=list)
    # (id of the item, start, end) for each iteration of a marked loop
    ranges: list[tuple[int, int, int]] = field(default_factory=list)
    open: dict[int, tuple[int, int]] = field(default_factory=dict)  # loop -> (item, start)

    def generated(self, length: int) -> None:
        self.generation.append((self.position, self.position + length))

    def item(self, loop: int, item: Any) -> str:
        self.done(loop)
        if type(item) is dict:  # (messages are dicts; other loops' items are not kept)
            self.open[loop] = (id(item), self.position)
        return ""

    def done(self, loop: int) -> str:
        began = self.open.pop(loop, None)
        if began is not None:
            self.ranges.append((began[0], began[1], self.position))
        return ""


def _item(loop: int, item: Any) -> str:
    tracker = getattr(TRACKING, "current", None)
    return "" if tracker is None else tracker.item(loop, item)


def _done(loop: int) -> str:
    tracker = getattr(TRACKING, "current", None)
    return "" if tracker is None else tracker.done(loop)


@dataclass(frozen=True)
class Tracked:
    """A template compiled with marks: ``marked`` loops, ``generation`` blocks."""

    template: Any
    marked: int
    generation: bool


@lru_cache(maxsize=32)
def compile_tracked(text: str, origin: str = "chat template") -> Tracked:
    """``text`` compiled with marks in its loops (``compile_template`` checks it first)."""
    from jinja2 import nodes

    compile_template(text, origin)  # a syntax error is said as for any render
    environment = _environment()
    tree = environment.parse(text)
    generation = any(
        isinstance(block.call, nodes.Call)
        and isinstance(block.call.node, nodes.ExtensionAttribute)
        and block.call.node.name == "_body"
        for block in tree.find_all(nodes.CallBlock)
    )
    counter = itertools.count()
    tree.body = _marked(tree.body, False, counter, nodes)
    code = environment.compile(tree)
    globals_ = dict(environment.make_globals(None))
    globals_[_ITEM], globals_[_DONE] = _item, _done
    template = environment.template_class.from_code(environment, code, globals_, None)
    return Tracked(template, next(counter), generation)


# statements whose output is gathered into a buffer before it reaches the text
_BUFFERED = ("Macro", "CallBlock", "FilterBlock", "AssignBlock", "Block")


def _marked(statements: list, buffered: bool, counter: Any, nodes: Any) -> list:
    out = []
    for statement in statements:
        inner = buffered or type(statement).__name__ in _BUFFERED
        for name in statement.fields:
            value = getattr(statement, name)
            if isinstance(value, list) and value and all(isinstance(v, nodes.Stmt) for v in value):
                setattr(statement, name, _marked(value, inner, counter, nodes))
        out.append(statement)
        if (
            isinstance(statement, nodes.For)
            and not buffered
            and not statement.recursive
            and isinstance(statement.target, nodes.Name)
        ):
            loop = nodes.Const(next(counter))
            target = nodes.Name(statement.target.name, "load")
            start = nodes.Call(nodes.Name(_ITEM, "load"), [loop, target], [], None, None)
            statement.body = [nodes.Output([start]), *statement.body]
            end = nodes.Call(nodes.Name(_DONE, "load"), [loop], [], None, None)
            out.append(nodes.Output([end]))
    return out


@dataclass
class Followed:
    """A render followed: the text, each message's part ``(start, end)`` (None for a
    message no marked loop wrote), parts of other messages nested inside a message's,
    and the ``{% generation %}`` blocks' spans."""

    text: str
    parts: list[tuple[int, int] | None]
    generation: list[tuple[int, int]]
    nested: list[list[tuple[int, int]]]


def render_followed(
    tracked: Tracked,
    messages: list[dict],
    *,
    tools: list | None,
    documents: list | None,
    variables: dict[str, Any] | None,
    add_generation_prompt: bool = False,
) -> Followed:
    """One conversation rendered through ``tracked``, followed. ``messages`` are plain
    chat dicts (``chat_messages``)."""
    chat = with_reasoning_aliases(messages)
    index = {id(message): k for k, message in enumerate(chat)}
    context = render_context(chat, variables, tools, documents, add_generation_prompt)
    tracker = Tracker()
    pieces: list[str] = []

    def follow(made: Any) -> str:
        append = pieces.append
        for piece in made:
            append(piece)
            tracker.position += len(piece)
        return "".join(pieces)

    before = getattr(TRACKING, "current", None)
    TRACKING.current = tracker
    try:
        text = run_template(tracked.template, context, follow)
    finally:
        TRACKING.current = before
    # each message's part: the last non-empty range of an iteration that rendered it
    parts: list[tuple[int, int] | None] = [None] * len(chat)
    for item, start, end in tracker.ranges:
        k = index.get(item)
        if k is not None and end > start:
            parts[k] = (start, end)
    nested: list[list[tuple[int, int]]] = [[] for _ in chat]
    order = sorted((p[0], -p[1], k) for k, p in enumerate(parts) if p is not None)
    for at, (start, negative_end, k) in enumerate(order):
        for inner_start, inner_negative_end, _ in order[at + 1 :]:
            if inner_start >= -negative_end:
                break
            if -inner_negative_end <= -negative_end and (inner_start, inner_negative_end) != (
                start,
                negative_end,
            ):
                nested[k].append((inner_start, -inner_negative_end))
    return Followed(text, parts, tracker.generation, nested)
