"""``grep``: the messages whose text, tool-call arguments or tool results match a pattern,
with where each match is, a few messages of context and counts per conversation, and
grep's lines of them (``GrepLines``).

A message is searched field by field: ``text`` (its text: strings and text blocks),
``reasoning`` (reasoning and thinking blocks, a ``reasoning_content`` field),
``arguments`` (each tool call's arguments as compact JSON) and ``result`` (a tool
message's text). ``where`` picks them: ``text`` (text and reasoning), ``tools``
(arguments and results) or ``all``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..errors import UsageError
from ..model import AIMessage, AnyMessage, Conversation, ToolMessage
from . import facts
from .user_regex import PatternTooSlow, compile_regex

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
        return self.found(conversation, messages, fields, facts.role)

    def found(
        self,
        conversation: Conversation,
        messages: Sequence[Any],
        fields_of: Callable[[Any, Iterable[str]], Iterator[tuple[str, str, str | None]]],
        role_of: Callable[[Any], str],
    ) -> Found | None:
        """The hits in ``messages`` (messages, or what stands for them: fast/row_ops.py),
        each read by ``fields_of`` and ``role_of``; None when there is none."""
        hits = []
        # (a plain string, case and all: a field without it is passed by at the cost of
        # a look for the string)
        find, literal = self.pattern.spans, self.pattern.literal
        for index, message in enumerate(messages):
            role = role_of(message)
            if self.roles and not any(
                role == r or (r == "system" and role == "developer") for r in self.roles
            ):
                continue
            for name, text, tool in fields_of(message, self.fields):
                if literal is not None and literal not in text:
                    continue
                try:
                    matches = find(text)
                except PatternTooSlow as exc:
                    where = conversation.location
                    raise exc.located(where and where.at_message(index)) from None
                # empty matches (a pattern like ``x*``) say the field matches, once
                spans = [s for s in matches if s[1] > s[0]] or matches[:1]
                if spans:
                    hits.append(Hit(index, role, name, text, spans, tool))
        if not hits:
            return None
        return Found(conversation, messages, hits, self._shown(hits, len(messages)))

    def _shown(self, hits: list[Hit], total: int) -> list[int]:
        shown: set[int] = set()
        for hit in hits:
            low, high = max(0, hit.index - self.context), min(total, hit.index + self.context + 1)
            shown.update(range(low, high))
        return sorted(shown)


class GrepLines:
    """grep's lines for a conversation (a function of it): per hit ``FILE:LINE: title › #N
    role: …text…`` (a message shown around the hits with ``-`` after its place, ``--``
    between groups shown with context), or a JSON object; with ``count``, one line per
    conversation. ``mark`` (a terminal's colours) goes around the matches. ``hits``
    counts the conversations that match; places and groups are the run's, in order.

    A line stays one line, and prints nothing a terminal acts on: the text's whitespace
    runs are one space, and control characters of texts, titles, names and file names
    are written out as ``show`` writes them (``\\x1b``); JSON gives them as they are."""

    WIDTH = 100  # characters of text shown around the matches

    def __init__(
        self,
        search: Grep,
        *,
        as_json: bool = False,
        count: bool = False,
        mark: tuple[str, str] | None = None,
    ) -> None:
        self.search, self.as_json, self.count, self.mark = search, as_json, count, mark
        self.hits = 0

    def __call__(self, conversation: Conversation) -> Iterator[bytes]:
        return self.lines(self.search.search(conversation))

    def lines(self, found: Found | None) -> Iterator[bytes]:
        """The lines of a conversation's hits (None: it has none)."""
        if found is None:
            return
        self.hits += 1
        if self.count:
            yield self._count_line(found)
        elif self.as_json:
            yield from (self._json_line(found, hit) for hit in found.hits)
        else:
            if self.search.context and self.hits > 1:
                yield b"--"
            yield from self._text_lines(found)

    def _count_line(self, found: Found) -> bytes:
        title = facts.title(found.conversation)
        if self.as_json:
            conversation = facts.conversation_id(found.conversation)
            record = {"file": _where(found), "conversation": conversation, "title": title}
            return orjson.dumps({**record, "count": found.count})
        shown = _shown(title) if title else ""
        text = f"{_shown(_where(found))}: {shown + ': ' if shown else ''}{found.count}"
        return text.encode("utf-8", "surrogateescape")

    def _json_line(self, found: Found, hit: Hit) -> bytes:
        location = found.conversation.location
        record = {
            "file": None if location is None else location.file,
            "line": None if location is None else location.line,
            "conversation": facts.conversation_id(found.conversation),
            "title": facts.title(found.conversation),
            "message": hit.index,
            "role": hit.role,
            "field": hit.field,
            "tool": hit.tool,
            "matches": [hit.text[s:e] for s, e in hit.spans],
            "spans": hit.spans,
            "text": hit.text,
        }
        return orjson.dumps(record)

    def _text_lines(self, found: Found) -> Iterator[bytes]:
        head = _shown(_where(found))
        title = facts.title(found.conversation)
        title = _shown(title) if title else ""
        prefix = f"{title} › " if title else ""
        by_index: dict[int, list[Hit]] = {}
        for hit in found.hits:
            by_index.setdefault(hit.index, []).append(hit)
        for index in found.shown:
            hits = by_index.get(index)
            if hits is None:  # context: the message's text, as the search sees it
                message = found.messages[index]
                text = next((t for _, t, _ in fields(message, ("text", "result"))), "")
                role = _shown(facts.role(message))
                line = f"{head}- {prefix}#{index + 1} {role}: {self._snippet(text)}"
                yield line.encode("utf-8", "surrogateescape")
                continue
            for hit in hits:
                who = _shown(hit.role)
                if hit.field == "arguments":
                    who += f" {_shown(str(hit.tool))}()"
                elif hit.tool:
                    who += f" {_shown(hit.tool)}"
                elif hit.field == "reasoning":
                    who += " (reasoning)"
                shown = self._snippet(hit.text, hit.spans)
                yield f"{head}: {prefix}#{index + 1} {who}: {shown}".encode(
                    "utf-8", "surrogateescape"
                )

    def _snippet(self, text: str, spans: list[tuple[int, int]] | None = None) -> str:
        """The text around the matches on one line: whitespace runs as one space, at most
        ``WIDTH`` characters either side of them, the matches marked."""
        width = self.WIDTH
        if not spans:
            flat = _flat(text).strip()
            return _shown(flat if len(flat) <= 2 * width else flat[: 2 * width] + "…")
        low, high = max(0, spans[0][0] - width), min(len(text), spans[-1][1] + width)
        if self.mark is None and all(_edges_shown(text, s, e) for s, e in spans):
            # no marks, and no match starts or ends with whitespace: the window shown at
            # once is its pieces shown one by one
            shown = _shown(text[low:high])
            return (("…" if low else "") + shown + ("…" if high < len(text) else "")).strip()
        pieces = ["…" if low else ""]
        at = low
        for start, end in spans:
            pieces.append(_shown(text[at:start]))
            match = _shown(text[start:end])
            pieces.append(f"{self.mark[0]}{match}{self.mark[1]}" if self.mark else match)
            at = end
        pieces.append(_shown(text[at:high]))
        pieces.append("…" if high < len(text) else "")
        return "".join(pieces).strip()


def _where(found: Found) -> str:
    location = found.conversation.location
    if location is None:
        return "-"
    return location.file if location.line is None else f"{location.file}:{location.line}"


_SPACE = re.compile(r"\s+")


def _flat(text: str) -> str:
    return _SPACE.sub(" ", text)


def _edges_shown(text: str, start: int, end: int) -> bool:
    """Whether a match is not empty and neither starts nor ends with whitespace (so that
    no whitespace run that ``_shown`` makes one space crosses its edges)."""
    return end > start and not text[start].isspace() and not text[end - 1].isspace()


def _shown(text: str) -> str:
    """Text of the data on one line as a terminal may show it: whitespace runs as one
    space, control characters written out (render/markup.py's ``terminal_safe``)."""
    # a printable text holds no control and no whitespace but the space, and one whose
    # only other character is the line feed is the same with it made a space: runs of
    # spaces made one are all that is left to do
    if not text.isprintable() and "\n" in text:
        spaced = text.replace("\n", " ")
        if spaced.isprintable():
            text = spaced
    if text.isprintable():
        while "  " in text:
            text = text.replace("  ", " ")
        return text
    from ..render.markup import terminal_safe  # (loaded when a line is printed)

    return terminal_safe(_flat(text), one_line=True)


def grep(conversations: Iterable[Conversation], pattern: str, **options: object) -> Iterator[Found]:
    """The conversations with hits for ``pattern`` (``Grep``'s options as keywords)."""
    search = Grep(pattern, **options)  # type: ignore[arg-type]
    for conversation in conversations:
        found = search.search(conversation)
        if found is not None:
            yield found
