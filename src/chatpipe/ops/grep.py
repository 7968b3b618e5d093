"""``grep``: the messages whose text, tool-call arguments or tool results match a pattern,
with where each match is, a few messages of context and counts per conversation.

A message is searched field by field: ``text`` (its text: strings and text blocks),
``reasoning`` (reasoning and thinking blocks, a ``reasoning_content`` field),
``arguments`` (each tool call's arguments as compact JSON) and ``result`` (a tool
message's text). ``where`` picks them: ``text`` (text and reasoning), ``tools``
(arguments and results) or ``all``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import orjson

from ..errors import UsageError
from ..model import AIMessage, AnyMessage, Conversation, ToolMessage
from . import facts
from .select import compile_regex

WHERE = ("text", "tools", "all")
_FIELDS = {
    "text": ("text", "reasoning"),
    "tools": ("arguments", "result"),
    "all": ("text", "reasoning", "arguments", "result"),
}


@dataclass
class Hit:
    """One field of one message that matches: the message's index in its conversation,
    its role, the field (``text``, ``reasoning``, ``arguments``, ``result``), the tool
    call's name for arguments, the field's text and the ``(start, end)`` of each match."""

    index: int
    role: str
    field: str
    text: str
    spans: list[tuple[int, int]]
    tool: str | None = None


@dataclass
class Found:
    """A conversation with hits: the conversation, its messages, the hits in message
    order, and the indexes of the messages shown around them (``context`` each side)."""

    conversation: Conversation
    messages: list[AnyMessage]
    hits: list[Hit]
    shown: list[int] = field(default_factory=list)

    @property
    def count(self) -> int:
        """Matches in the conversation (several in one field count each)."""
        return sum(len(hit.spans) for hit in self.hits)


def reasoning_text(message: AnyMessage) -> str:
    """The message's reasoning: reasoning and thinking blocks, a reasoning field."""
    parts = []
    content = message.content
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict):
                for key in ("reasoning", "thinking"):
                    if isinstance(block.get(key), str):
                        parts.append(block[key])
    extra = message.additional_kwargs.get("reasoning_content")
    if isinstance(extra, str):
        parts.append(extra)
    return "\n".join(parts)


def fields(message: AnyMessage, wanted: Iterable[str]) -> Iterator[tuple[str, str, str | None]]:
    """``(field, text, tool name)`` for each field of the message asked for."""
    wanted = tuple(wanted)
    tool = isinstance(message, ToolMessage)
    if tool and "result" in wanted:
        yield "result", message.text, message.name
    if not tool and "text" in wanted:
        yield "text", message.text, None
    if "reasoning" in wanted:
        reasoning = reasoning_text(message)
        if reasoning:
            yield "reasoning", reasoning, None
    if "arguments" in wanted and isinstance(message, AIMessage):
        for call in message.tool_calls:
            yield "arguments", arguments_text(call["args"]), call["name"]
        for call in message.invalid_tool_calls:
            if isinstance(call.get("args"), str):
                yield "arguments", call["args"], call.get("name")


def arguments_text(args: object) -> str:
    """A tool call's arguments as the JSON a model wrote them in (compact, non-ASCII as
    it is)."""
    try:
        return orjson.dumps(args).decode()
    except TypeError:  # a value JSON has no word for: as Python shows it
        return repr(args)


class Grep:
    """A pattern compiled once, searched in the fields ``where`` names."""

    def __init__(
        self,
        pattern: str,
        *,
        ignore_case: bool = False,
        where: str = "text",
        roles: Iterable[str] = (),
        context: int = 0,
    ) -> None:
        if where not in WHERE:
            raise UsageError(f"--in must be text, tools or all, got {where!r}")
        if context < 0:
            raise UsageError(f"-C must be 0 or more, got {context}")
        self.pattern = compile_regex(pattern, "PATTERN", ignore_case)
        self.fields = _FIELDS[where]
        self.roles = [facts.user_role(r) for r in roles]
        self.context = context

    def search(self, conversation: Conversation) -> Found | None:
        """The conversation's hits, or None when it has none."""
        conversation, messages = facts.listed(conversation)
        hits = []
        finditer = self.pattern.finditer
        for index, message in enumerate(messages):
            if self.roles and not any(facts.has_role(message, r) for r in self.roles):
                continue
            for name, text, tool in fields(message, self.fields):
                matches = [m.span() for m in finditer(text)]
                # empty matches (a pattern like ``x*``) say the field matches, once
                spans = [s for s in matches if s[1] > s[0]] or matches[:1]
                if spans:
                    hits.append(Hit(index, facts.role(message), name, text, spans, tool))
        if not hits:
            return None
        return Found(conversation, messages, hits, self._shown(hits, len(messages)))

    def _shown(self, hits: list[Hit], total: int) -> list[int]:
        shown: set[int] = set()
        for hit in hits:
            low, high = max(0, hit.index - self.context), min(total, hit.index + self.context + 1)
            shown.update(range(low, high))
        return sorted(shown)


def grep(conversations: Iterable[Conversation], pattern: str, **options: object) -> Iterator[Found]:
    """The conversations with hits for ``pattern`` (``Grep``'s options as keywords)."""
    search = Grep(pattern, **options)  # type: ignore[arg-type]
    for conversation in conversations:
        found = search.search(conversation)
        if found is not None:
            yield found
