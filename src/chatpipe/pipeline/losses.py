"""What a target dialect cannot hold, noticed as messages pass on their way to the writer,
and turns that were read empty although their record held text in a field the reader did
not know, so that nothing is left out silently: one warning per kind, each case with
``-v``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..formats.api import names
from ..formats.base import ONE, Dialect, Kept
from ..formats.registry import extras_keys, get_dialect
from ..model import AnyMessage, BaseMessage, Conversation
from .fast_hooks import read_in_batches, row_others

# a case of a kind: (conversation, message or None, what was left out, by name, or None)
Case = tuple[int, int | None, str | None]
# kinds that are kept, not left out, but said all the same: how they were written
_LIFTED = Kept(
    "system messages among the turns (a session's context, a generated summary)",
    "moved into the system prompt",
)
# what a dialect that holds no artifacts leaves out: a tool message's structured result
_ARTIFACTS = "structured tool results (a tool message's artifact)"
# the start of a kind that a reader left out on purpose (``Conversation.left_out``)
LEFT_OUT = "left out: "
# the start of a kind (followed by the fields' names) said of turns read empty
UNREAD_FIELDS = "text in fields the reader does not know"
UNTAKEN_FIELDS = "text in fields the reader does not take"
# fields of additional_kwargs that hold a turn's content in a form the writers know
_CONTENT_FIELDS = frozenset(
    (
        "refusal",
        "reasoning_content",
        "reasoning",
        "reasoning_details",
        "function_call",
        "audio",
        "thought_signatures",
    )
)
# keys under which a record holds text (not ids, times, urls or kinds)
_TEXT_KEYS = (
    frozenset(("text", "content", "value", "message", "output", "result", "reasoning", "thinking"))
    | frozenset(("input", "args", "arguments", "summary", "errorText", "error_text", "data"))
    | {"stringValue"}  # (Gemini's streamed argument pieces that fit no call)
)


def _holds_text(value: Any, key: str | None = None) -> bool:
    if isinstance(value, str):
        return key in _TEXT_KEYS and bool(value.strip())
    if isinstance(value, dict):
        return any(_holds_text(v, k) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_text(v, key) for v in value)
    return False


def unread(message: AnyMessage) -> list[str]:
    """What was left unread of a turn read with no content: the names of the fields that
    hold text none of its content, calls or known fields took (none for a turn that has
    content, or that held none). Parts a reader kept as ``non_standard`` blocks are
    content: kept, not emptied."""
    if not isinstance(message, BaseMessage):  # a fast path's plain dict (its own checks)
        return []
    if (
        message.content
        or getattr(message, "tool_calls", None)
        or getattr(message, "invalid_tool_calls", None)
        or _CONTENT_FIELDS & message.additional_kwargs.keys()
    ):
        return []
    fields = {**message.additional_kwargs, **message.extra}
    said = []
    for key, dialect in extras_keys().items():
        own = fields.get(key)
        if isinstance(own, dict):
            del fields[key]
            found = [k for k, v in own.items() if _holds_text(v, k)]
            if found:  # named as the input names them
                names = ", ".join(map(repr, found))
                said.append(f"{UNTAKEN_FIELDS} ({dialect}: {names})")
    found = [k for k, v in fields.items() if _holds_text(v, k)]
    if found:
        said.append(f"{UNREAD_FIELDS} ({', '.join(map(repr, found))})")
    return said


class LossReport:
    """Kinds of things left out, and where (conversation and message numbers; a message
    number of None for what a conversation holds beside its messages). ``dialect``: the
    dialect written, which says what its records cannot hold (``Dialect.losses``; a batch
    takes the checks of the dialect its requests are, ``checked_as``), or None when only
    turns read empty are watched for."""

    def __init__(self, dialect: Dialect | None) -> None:
        self.dialect = dialect
        self.target = dialect.name if dialect is not None else None
        checks = dialect
        if dialect is not None and dialect.checked_as is not None:
            checks = get_dialect(dialect.checked_as)
        self.checks = checks
        # whether messages are checked one by one (a log cut in parts cannot be, when so)
        self.check = checks.losses() if checks is not None else None
        # each kind's cases: (conversation, message or None, what was left out or None)
        self.cases: dict[str, list[Case]] = {}
        # the conversation being written, and its first message's number: where what the
        # writer says it leaves out (``note``) was left out
        self.number, self.first = 0, 0

    def note(self, kind: str, message: int | None = None, detail: str | None = None) -> None:
        """What the writer left out of the conversation it is writing (``message``: the
        index of the message among those it was given; None: of the conversation), said
        by the writer as it writes (``formats/api.py:Writing.left``)."""
        at = None if message is None else self.first + message
        cases = self.cases.setdefault(kind, [])
        if cases and cases[-1][:2] == (self.number, at) and detail is not None:
            said = (cases[-1][2] or "").split(", ")
            cases[-1] = (self.number, at, names(n for n in [*said, *detail.split(", ")] if n))
        else:
            cases.append((self.number, at, detail))

    def watch(
        self, conversations: Iterable[Conversation], start: int = 0
    ) -> Iterator[Conversation]:
        """The conversations, their messages checked as they pass; ``start`` is the first
        one's number."""
        if self.target is None:
            yield from conversations
            return
        for number, conversation in enumerate(conversations, start):
            self.number, self.first = number, conversation.start
            for kind in self._tools_left_out(conversation.meta):
                self.cases.setdefault(kind, []).append((number, None, None))
            if self.check is None:
                yield conversation
                continue
            messages = self._messages(number, conversation.messages, conversation.start)
            yield conversation.with_messages(messages)

    def watch_read(
        self, conversations: Iterable[Conversation], start: int = 0
    ) -> Iterator[Conversation]:
        """The conversations as read, each turn read empty noted; those read in batches
        by the fast lane pass as they are."""
        for number, conversation in enumerate(conversations, start):
            for kind in conversation.left_out or ():  # what its reader left out on purpose
                self.cases.setdefault(LEFT_OUT + kind, []).append((number, None, None))
            messages = conversation.messages
            if isinstance(messages, list):  # checked now, kept a list
                for _ in self._empties(number, messages, conversation.start):
                    pass
                yield conversation
            elif (others := row_others(conversation)) is not None:  # a plain row's messages
                for index, message in others:
                    for _ in self._empties(number, [message], index):
                        pass
                yield conversation
            elif read_in_batches(conversation):
                yield conversation
            else:
                yield conversation.with_messages(
                    self._empties(number, messages, conversation.start)
                )

    def _empties(
        self, number: int, messages: Iterable[AnyMessage], first: int
    ) -> Iterator[AnyMessage]:
        """The messages, those with no content checked by ``unread`` (most have some: a
        look at their content is all they cost)."""
        cases = self.cases
        for index, message in enumerate(messages, first):
            if not getattr(message, "content", True):
                for kind in unread(message):
                    cases.setdefault(kind, []).append((number, index, None))
            yield message

    def _tools_left_out(self, meta: dict[str, Any]) -> list[str]:
        """Tools of a conversation that the dialect written has no form for."""
        tools = meta.get("tools")
        if tools is None or self.checks is None:
            return []
        left = self.checks.tools_left_out(tools)
        return [f"tools that are not functions ({', '.join(left)})"] if left else []

    def _messages(
        self, number: int, messages: Iterable[AnyMessage], first: int
    ) -> Iterator[AnyMessage]:
        dialect = self.dialect
        assert dialect is not None and self.checks is not None
        check = self.checks.losses()  # (anew: a check may follow a conversation's turns)
        if check is None:
            yield from messages
            return
        artifacts = not dialect.holds_artifacts
        lifted = dialect.system_messages == ONE
        turns = False  # whether a turn came before: a system message after it is lifted
        for index, message in enumerate(messages, first):
            kinds = check(message)
            if artifacts and getattr(message, "artifact", None) is not None:
                kinds = [*kinds, _ARTIFACTS]
            if message.type == "system":
                if turns and lifted:
                    kinds = [*kinds, _LIFTED]
            else:
                turns = True
            for kind in kinds:
                self.cases.setdefault(kind, []).append((number, index, None))
            yield message

    def lines(self, verbose: bool) -> list[str]:
        out = []
        for kind, cases in self.cases.items():
            cases = sorted(cases, key=lambda c: (c[0], -1 if c[1] is None else c[1]))
            whole = all(m is None for _, m, _ in cases)
            noun = "conversation" if whole else "message"
            count = f"{len(cases)} {noun}{'s' * (len(cases) != 1)}"
            if isinstance(kind, Kept):
                said = f"warning: {kind} in {count}: {kind.how}"
            elif kind.startswith(LEFT_OUT):  # (a reader's choice, which an option undoes)
                said = f"warning: {kind[len(LEFT_OUT) :]}: {count}"
            elif kind.startswith(UNREAD_FIELDS):
                said = f"warning: {kind} in {count}: read as empty turns (--from names a dialect)"
            elif kind.startswith(UNTAKEN_FIELDS):  # (the dialect was found: no --from)
                said = f"warning: {kind} in {count}: read as empty turns"
            else:
                said = f"warning: {self.target} cannot hold {kind}: left out of {count}"
            named = _named(cases)
            if named and not verbose:
                said += f" ({named}; -v lists them)"
            out.append(said + ("" if verbose or named else " (-v lists them)"))
            if verbose:
                out.extend(
                    f"  conversation {c + 1}"
                    + ("" if m is None else f", message {m + 1}")
                    + ("" if d is None else f": {d}")
                    for c, m, d in cases
                )
        return out


_SHOWN = 6  # the names a warning shows of what was left out (-v lists every case)


def _named(cases: list[Case]) -> str:
    """The names of what was left out in these cases, the first few, once each."""
    found: dict[str, None] = {}
    for _, _, detail in cases:
        for name in (detail or "").split(", "):
            if name:  # (a name without what -v says of it, in brackets)
                found.setdefault(name.split(" (")[0])
    shown = list(found)[:_SHOWN]
    more = len(found) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")
