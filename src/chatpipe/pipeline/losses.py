"""What a target dialect cannot hold, noticed as messages pass on their way to the writer,
and turns that were read empty although their record held text in a field the reader did
not know, so that nothing is left out silently: one warning per kind, each case with
``-v``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..model import AnyMessage, BaseMessage, Conversation
from .fast_hooks import read_in_batches

_MEDIA = ("image", "image_url", "audio", "video", "file", "input_audio", "document", "text-plain")


def _blocks(message: AnyMessage) -> list[dict]:
    content = message.content
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _sharegpt(message: AnyMessage) -> list[str]:
    found = []
    if any(b.get("type") != "text" for b in _blocks(message)):
        found.append("content other than text (images, files, reasoning, ...)")
    if message.name:
        found.append("message names")
    if getattr(message, "tool_calls", None) and any(c["id"] for c in message.tool_calls):
        found.append("tool call ids (ShareGPT pairs calls and results by order)")
    if getattr(message, "invalid_tool_calls", None):
        found.append("invalid tool calls")
    return found


def _anthropic(message: AnyMessage) -> list[str]:
    found = []
    if message.type in ("chat", "function"):
        found.append("chat and function roles (written as user turns)")
    if message.name:
        found.append("message names")
    if getattr(message, "invalid_tool_calls", None):
        found.append("invalid tool calls")
    return found


def _gemini(message: AnyMessage) -> list[str]:
    known = {"text", "reasoning", "image", "audio", "video", "file", "image_url", "non_standard"}
    found = []
    if any(b.get("type") not in known for b in _blocks(message)):
        found.append("blocks with no Gemini part (written as JSON text)")
    if message.type in ("chat", "function"):
        found.append("chat and function roles (written as user turns)")
    if getattr(message, "invalid_tool_calls", None):
        found.append("invalid tool calls")
    return found


def _markdown(message: AnyMessage) -> list[str]:
    inline = [
        b
        for b in _blocks(message)
        if isinstance(b.get("type"), str)
        and b["type"] in _MEDIA
        and (b.get("base64") or str(b.get("url", "")).startswith("data:"))
    ]
    return ["inline media data (shown as a placeholder)"] if inline else []


def _openai(message: AnyMessage) -> list[str]:
    found = []
    if getattr(message, "invalid_tool_calls", None):
        found.append(_UNPARSED)
    files = [b for b in _blocks(message) if b.get("type") == "text-plain"]
    if not files:
        return found
    from ..model.blocks import text_file  # (its TypedDicts: loaded when a file is met)

    if any(text_file(b)[1] is not None for b in files):
        found.append(_TEXT_FILES)
    if any(text_file(b)[1] is None for b in files):
        found.append("text files known only by url or id")
    return found


def _responses(message: AnyMessage) -> list[str]:
    found = []
    kinds = {b.get("type") for b in _blocks(message)}
    if kinds & {"audio", "video", "input_audio"}:
        found.append("audio and video (it takes text, images and files)")
    if "redacted_thinking" in kinds:
        found.append("another model's redacted thinking")
    if "thinking" in kinds or any(
        b.get("type") == "reasoning" and "id" not in (b.get("extras") or {})
        for b in _blocks(message)
    ):
        found.append(_FOREIGN_REASONING)
    if message.type in ("chat", "function"):
        found.append("chat and function roles (written as user turns)")
    if message.name:
        found.append("message names")
    return found


def _pydantic_ai(message: AnyMessage) -> list[str]:
    found = []
    if message.type in ("chat", "function"):
        found.append("chat and function roles (written as user prompts)")
    if message.name and message.type != "tool":
        found.append("message names")
    return found


# kinds that are kept, not left out, but said all the same: how they were written
_UNPARSED = "tool-call arguments that are not valid JSON"
_TEXT_FILES = "text files (OpenAI has no text-file part)"
_LIFTED = "system messages among the turns (a session's context, a generated summary)"
_FOREIGN_REASONING = "reasoning that is not a Responses reasoning item"
KEPT = {
    _FOREIGN_REASONING: "written as reasoning items of summary text, without the id and "
    "encrypted content the API needs to take them back",
    _UNPARSED: "written as they came",
    _TEXT_FILES: "written as text parts headed by the file's name",
    _LIFTED: "moved into the system prompt",
}
# what no record of these targets holds: a tool message's structured result (Claude Code's
# toolUseResult, LangChain's artifact), kept only by chatpipe's own formats
_ARTIFACTS = "structured tool results (a tool message's artifact)"
_NO_ARTIFACT = ("openai", "anthropic", "gemini", "sharegpt")
# targets with one system prompt, before the turns
_ONE_SYSTEM = ("anthropic", "gemini")
# the start of a kind that a reader left out on purpose (``Conversation.left_out``)
LEFT_OUT = "left out: "
# the start of a kind (followed by the fields' names) said of turns read empty
UNREAD_FIELDS = "text in fields the reader does not know"
# the keys of additional_kwargs under which an export's or a session's reader keeps the
# rest of its record, as the record names its fields, and the reader's dialect: text
# there is in a field of a record the reader knows (its dialect found: --from is no fix)
_OWN_FIELDS = {
    "claude": "claude-export",
    "chatgpt": "chatgpt-export",
    "codex": "codex",
    "claude_code": "claude-code",
    "gemini_cli": "gemini-cli",
}
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
    for key, dialect in _OWN_FIELDS.items():
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


CHECKS: dict[str, Callable[[AnyMessage], list[str]]] = {
    "openai": _openai,
    "sharegpt": _sharegpt,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "markdown": _markdown,
    "openai-responses": _responses,
    "pydantic-ai": _pydantic_ai,
}


def _alpaca() -> Callable[[AnyMessage], list[str]]:
    from ..formats.alpaca import AlpacaTurns

    return AlpacaTurns()


# checks that follow a conversation's turns (what a row holds depends on the turns before):
# one walk per report, begun anew at each conversation
WALKS: dict[str, Callable[[], Callable[[AnyMessage], list[str]]]] = {"alpaca": _alpaca}


def _tools_left_out(target: str, meta: dict[str, Any]) -> list[str]:
    """Tools of a conversation that ``target`` has no form for (not functions)."""
    if target not in ("openai", "anthropic", "gemini") or "tools" not in meta:
        return []
    from ..formats.tool_specs import for_target

    left = for_target(meta["tools"], target)[1]
    return [f"tools that are not functions ({', '.join(left)})"] if left else []


class LossReport:
    """Kinds of things left out, and where (conversation and message numbers; a message
    number of None for what a conversation holds beside its messages). ``target``: the
    dialect written (``checked_as``: the dialect whose checks it takes), or None when only
    turns read empty are watched for."""

    def __init__(self, target: str | None, checked_as: str | None = None) -> None:
        walk = WALKS.get(checked_as or target) if target is not None else None
        self.check = walk() if walk is not None else CHECKS.get(checked_as or target)
        self.target = target
        self.cases: dict[str, list[tuple[int, int | None]]] = {}

    def watch(
        self, conversations: Iterable[Conversation], start: int = 0
    ) -> Iterator[Conversation]:
        """The conversations, their messages checked as they pass; ``start`` is the first
        one's number."""
        if self.target is None:
            yield from conversations
            return
        for number, conversation in enumerate(conversations, start):
            for kind in _tools_left_out(self.target, conversation.meta):
                self.cases.setdefault(kind, []).append((number, None))
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
                self.cases.setdefault(LEFT_OUT + kind, []).append((number, None))
            messages = conversation.messages
            if isinstance(messages, list):  # checked now, kept a list
                for _ in self._empties(number, messages, conversation.start):
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
                    cases.setdefault(kind, []).append((number, index))
            yield message

    def _messages(
        self, number: int, messages: Iterable[AnyMessage], first: int
    ) -> Iterator[AnyMessage]:
        begin = getattr(self.check, "begin", None)
        if begin is not None:
            begin()
        turns = False  # whether a turn came before: a system message after it is lifted
        for index, message in enumerate(messages, first):
            kinds = self.check(message)
            if self.target in _NO_ARTIFACT and getattr(message, "artifact", None) is not None:
                kinds = [*kinds, _ARTIFACTS]
            if message.type == "system":
                if turns and self.target in _ONE_SYSTEM:
                    kinds = [*kinds, _LIFTED]
            else:
                turns = True
            for kind in kinds:
                self.cases.setdefault(kind, []).append((number, index))
            yield message

    def lines(self, verbose: bool) -> list[str]:
        out = []
        for kind, cases in self.cases.items():
            whole = all(m is None for _, m in cases)
            noun = "conversation" if whole else "message"
            count = f"{len(cases)} {noun}{'s' * (len(cases) != 1)}"
            if kind in KEPT:
                said = f"warning: {kind} in {count}: {KEPT[kind]}"
            elif kind.startswith(LEFT_OUT):  # (a reader's choice, which an option undoes)
                said = f"warning: {kind[len(LEFT_OUT) :]}: {count}"
            elif kind.startswith(UNREAD_FIELDS):
                said = f"warning: {kind} in {count}: read as empty turns (--from names a dialect)"
            elif kind.startswith(UNTAKEN_FIELDS):  # (the dialect was found: no --from)
                said = f"warning: {kind} in {count}: read as empty turns"
            else:
                said = f"warning: {self.target} cannot hold {kind}: left out of {count}"
            out.append(said + ("" if verbose else " (-v lists them)"))
            if verbose:
                out.extend(
                    f"  conversation {c + 1}" + ("" if m is None else f", message {m + 1}")
                    for c, m in cases
                )
        return out
