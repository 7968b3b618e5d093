"""aider's chat history (``.aider.chat.history.md``): Markdown that aider appends to as
it runs, a conversation per session.

``# aider chat started at YYYY-MM-DD HH:MM:SS`` (local time; ``# Aider`` in 2023) opens a
session. ``#### `` lines are what the user typed (a prompt of several lines is a run of
them; ``/add``, ``/ask`` and the like are commands). ``> `` lines are aider's own output:
its banner, questions and answers, token counts, edits applied, commits, lint and test
output (``_italic_`` lines in 2023); a multi-line output prefixes its first line only, and
aider ends each output with a Markdown hard break (two spaces), which tells its lines from
a reply's. Everything else is the model's reply, edit blocks included; a reply cut short
(``^C``) may leave a code fence open. aider's output is kept as the conversation's
``notes`` (each with ``at``, the number of messages before it), not as turns; the model
aider ran, from its banner, is the conversation's ``model``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..errors import DataError, Location
from ..model import AIMessage, AnyMessage, HumanMessage
from .base import CERTAIN, CONVERSATIONS, Conversation, Dialect, Guess, Sample

_SESSION = re.compile(r"^# [Aa]ider chat started at (.+?)\s*$")
_MODEL = re.compile(r"^(?:Main model|Models?): (\S+)")
USER, OUTPUT, REPLY = "user", "output", "reply"


def _document(value: Any) -> Any:
    from ..io.markdown import TextDocument

    return value if isinstance(value, TextDocument) else None


def is_history(value: Any) -> bool:
    """An aider chat history: Markdown with a session's opening line."""
    document = _document(value)
    return document is not None and any(_SESSION.match(line) for _, line in document.lines())


def _kind(line: str, early: bool) -> str:
    if line.startswith("####") and line[4:5] in ("", " "):
        return USER
    if line == ">" or line.startswith("> ") or line.rstrip() == ">":
        return OUTPUT
    if early and re.fullmatch(r"_.+_ *", line):
        return OUTPUT  # (2023: aider's output in italics)
    return REPLY


def _hard_break(line: str) -> bool:
    return line.endswith("  ")


def segments(lines: list[tuple[int, str]], early: bool) -> list[tuple[str, list[tuple[int, str]]]]:
    """A session's lines in runs of one kind: the user's input, aider's output, replies
    (a reply's fenced code holds what would otherwise start another kind)."""
    runs: list[tuple[str, list[tuple[int, str]]]] = []
    fenced = False
    for number, line in lines:
        kind = _kind(line, early)
        if runs and runs[-1][0] == REPLY and fenced and kind != REPLY and not _hard_break(line):
            kind = REPLY  # (inside a reply's code fence)
        if kind == REPLY and line.lstrip().startswith("```"):
            fenced = not fenced if runs and runs[-1][0] == REPLY else True
        elif kind != REPLY:
            fenced = False
        if not line.strip() and runs:
            kind = runs[-1][0]  # (a blank line goes with what it follows)
        # (inputs a blank line parts are two: ``/ask q``, then the prompt it sends)
        parted = kind == USER and line.strip() and not runs[-1][1][-1][1].strip() if runs else False
        if runs and runs[-1][0] == kind and not parted:
            runs[-1][1].append((number, line))
        else:
            runs.append((kind, [(number, line)]))
    return _continued_output(runs)


def _continued_output(runs: list[tuple[str, list[Any]]]) -> list[tuple[str, list[Any]]]:
    """Unprefixed lines after aider's output that end in its hard break are the rest of
    that output (a commit message's body), not a reply."""
    out: list[tuple[str, list[Any]]] = []
    for kind, lines in runs:
        written = [line for _, line in lines if line.strip()]
        if kind == REPLY and out and out[-1][0] == OUTPUT and written and _hard_break(written[-1]):
            out[-1][1].extend(lines)
        else:
            out.append((kind, lines))
    return out


def _text(lines: list[tuple[int, str]], kind: str) -> str:
    texts = []
    for _, line in lines:
        line = line.removesuffix("  ") if kind != REPLY else line  # (aider's hard break)
        if kind == USER:
            line = line[5:] if line.startswith("#### ") else line[4:]
        elif kind == OUTPUT:
            line = line[2:] if line.startswith("> ") else "" if line.rstrip() == ">" else line
        texts.append(line)
    return "\n".join(texts).strip("\n")


class Session:
    """One session's messages and notes, as its runs are read."""

    def __init__(self, started: str, early: bool) -> None:
        self.messages: list[AnyMessage] = []
        self.notes: list[dict[str, Any]] = []
        self.meta: dict[str, Any] = {"started_at": started}
        self.early = early
        when = started.replace(" ", "T", 1)
        if re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", when):
            self.meta["created_at"] = when

    def add(self, kind: str, lines: list[tuple[int, str]]) -> None:
        text = _text(lines, kind)
        if kind == USER:
            if self.early:
                text = re.sub(r"^>\s+", "", text)  # (2023: ``#### > prompt``)
            own = {"line": lines[0][0]}
            if text.startswith("/"):
                own["command"] = text.split(maxsplit=1)[0]
            self.messages.append(HumanMessage(text, additional_kwargs={"aider": own}))
        elif kind == OUTPUT:
            if not text.strip():
                return
            for line in text.split("\n"):
                found = _MODEL.match(line)
                if found and "model" not in self.meta:
                    self.meta["model"] = found[1]
            self.notes.append(
                {
                    "at": len(self.messages),
                    "type": "aider_output",
                    "text": text,
                    "line": lines[0][0],
                }
            )
        elif text.strip() and not (self.early and text.strip() == "---"):
            own = {"line": lines[0][0]}
            self.messages.append(AIMessage(text.strip("\n"), additional_kwargs={"aider": own}))

    def conversation(self, location: Location) -> Conversation:
        meta = dict(self.meta)
        if self.notes:
            meta["notes"] = self.notes
        return Conversation(self.messages, meta, location)


def sessions(document: Any) -> Iterator[Conversation]:
    """Each session of an aider history (text before the first one is not aider's)."""
    lines = list(document.lines())
    starts = [i for i, (_, line) in enumerate(lines) if _SESSION.match(line)]
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(lines)
        number, header = lines[start]
        early = header.startswith("# Aider")
        found = _SESSION.match(header)
        assert found is not None
        session = Session(found[1], early)
        for kind, run in segments(lines[start + 1 : end], early):
            session.add(kind, run)
        yield session.conversation(Location(document.name, number, 1))


class AiderDialect(Dialect):
    name = "aider"
    description = "aider chat histories (.aider.chat.history.md): a conversation per session"
    example = "aider__aider-tests-fixture_5_sessions_diff_whole_interrupted.md"
    extras_key = "aider"  # (where a message's line is kept)

    def score(self, sample: Sample) -> Guess | None:
        # Markdown whose sessions open with aider's line is aider's alone
        return Guess(CERTAIN, CONVERSATIONS) if is_history(sample.first) else None

    def is_conversation(self, value: Any) -> bool:
        return is_history(value)

    def read_message(self, value: Any) -> AnyMessage:
        raise DataError("an aider history is read a session at a time")

    def read_conversations(
        self, value: Any, location: Location, options: Any = None
    ) -> Iterator[Conversation]:
        document = _document(value)
        if document is None or not is_history(document):
            raise DataError(
                "not an aider chat history",
                location,
                hint="its sessions open with '# aider chat started at ...'",
            )
        yield from sessions(document)

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        return next(self.read_conversations(value, location))
