"""What every reader's messages and conversation fields are, checked once, at reading.

The model takes what langchain-core takes (a block is any object), but the code past the
readers (the writers, counters, templates, redact and dedupe) assumes more of what a file
gives: a block's ``type`` is a string, a text block's ``text`` is text, a media block's
URL or data is a string (its ``source`` an object), a message's id is a string, a tool list
holds objects whose ``type`` is a string. A value of another kind there is bad input, said at
its record (``FILE:LINE``, and the message), never a crash further on (issue #51). Every
way of reading goes through here: a message record (``record_errors.message_of``/``turn_of``), a
conversation record and a stream's conversations (pipeline/reading.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, Location, ValidationError, kind_of
from ..model import AnyMessage, BaseMessage, Conversation

_BLOCK_HINT = (
    'a block names its kind with a string ("text", "image", ...) and holds its text as one'
)
_ID_HINT = "a message's id is a string; fix the record, or --on-error skip leaves it out"
_STR, _DICT = (str,), (dict,)
# the fields of a block of each kind that the writers read, and the kinds each may hold
_TEXT = {"text": _STR}
_MEDIA = {
    "url": _STR,
    "base64": _STR,
    "file_id": _STR,
    "mime_type": _STR,
    "source_type": _STR,
    "source": _DICT,  # (Anthropic's)
    "image": (str, dict),  # (a Hugging Face processor's path or URL, Bedrock's object)
    "image_url": (str, dict),
}
_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "text": _TEXT,
    "reasoning": {"reasoning": _STR},
    "thinking": {"thinking": _STR},
    **{kind: _MEDIA for kind in ("image", "audio", "video", "file", "image_url", "document")},
}
_KINDS = {str: "a string", dict: "an object"}
_ABSENT = object()


def block_problem(block: dict[str, Any]) -> str | None:
    """What is wrong with a content block's shape, in words; None when nothing is."""
    kind = block.get("type")
    if kind is None:
        return None
    if type(kind) is not str:
        return f"a content block's type must be a string, got {kind_of(kind)}"
    for field, kinds in _FIELDS.get(kind, {}).items():
        value = block.get(field, _ABSENT)  # (absent is well: null is no text, no URL)
        if value is not _ABSENT and type(value) not in kinds:
            want = " or ".join(_KINDS[k] for k in kinds)
            return f"the {kind} block's {field!r} must be {want}, got {kind_of(value)}"
    inner = block.get("image_url")
    if type(inner) is dict and type(inner.get("url")) is not str:  # (OpenAI's {url, detail})
        return f"the {kind} block's image_url object must hold a 'url' string"
    return None


def message_problem(message: Any) -> str | None:
    """What is wrong with a read message's shape; None when nothing is (or for a fast
    path's plain dict, whose reader made it of checked values)."""
    if not isinstance(message, BaseMessage):
        return None
    if message.id is not None and type(message.id) is not str:
        return f"a message's id must be a string, got {kind_of(message.id)}"
    content = message.content
    if type(content) is str:
        return None
    for index, block in enumerate(content):
        if type(block) is dict:
            problem = block_problem(block)
            if problem is not None:
                return f"content[{index}]: {problem}"
    return None


def check_message(message: AnyMessage) -> AnyMessage:
    """The message, or a ValidationError (placed by the caller) saying what is wrong."""
    problem = message_problem(message)
    if problem is not None:
        hint = _BLOCK_HINT if problem.startswith("content[") else _ID_HINT
        raise ValidationError(problem, hint=hint)
    return message


def meta_problem(meta: dict[str, Any]) -> str | None:
    """What is wrong with a conversation's fields where the code reads them: a ``tools``
    list holds objects, each of a string ``type`` where it names one."""
    tools = meta.get("tools")
    # none, or a list as a JSON string (LlamaFactory's rows)
    if tools is None or isinstance(tools, str):
        return None
    if isinstance(tools, dict):  # Gemini's one tool object
        return _tool_problem(tools, "tools")
    if type(tools) is not list:
        return f"tools must be a list of tools, got {kind_of(tools)}"
    for index, tool in enumerate(tools):
        if not isinstance(tool, dict):
            return f"tools[{index}] must be an object, got {kind_of(tool)}"
        problem = _tool_problem(tool, f"tools[{index}]")
        if problem is not None:
            return problem
    return None


def _tool_problem(tool: dict[str, Any], where: str) -> str | None:
    kind = tool.get("type")
    if kind is not None and type(kind) is not str:
        return f"{where}'s type must be a string, got {kind_of(kind)}"
    for key in ("functionDeclarations", "function_declarations"):  # (Gemini's)
        declared = tool.get(key)
        if declared is not None and type(declared) is not list:
            return f"{where}'s {key} must be a list, got {kind_of(declared)}"
    return None


class CheckedMessages:
    """Messages whose maker checked their shapes as it made them (the row lane's, which
    leaves a row with a message of any other shape to the ordinary reader): taken as they
    are, not looked at again (which would make every message of them)."""

    __slots__ = ()


def checked(
    conversation: Conversation, handle: Callable[[ChatpipeError], None] | None = None
) -> Conversation:
    """A read conversation whose fields and messages are of the shapes assumed past
    reading; a ValidationError at its place (the message's line where the reader knows
    it) when one is not. A list of messages is checked now; messages read as they come
    (a session log) are checked as they pass, a bad one given to ``handle`` (which raises,
    or counts it and the message is left out) as a bad line of a log is."""
    if "tools" in conversation.meta:
        problem = meta_problem(conversation.meta)
        if problem is not None:
            raise ValidationError(
                problem, conversation.location, 'a tool is an object naming its kind ("function")'
            )
    messages = conversation.messages
    if isinstance(messages, CheckedMessages):
        return conversation
    if isinstance(messages, list):
        for index, message in enumerate(messages):
            # (most content is text, most ids too: a look at their kinds is all it costs)
            if type(getattr(message, "content", "")) is not str or type(
                getattr(message, "id", None)
            ) not in (str, type(None)):
                _check_at(message, index, conversation)
        return conversation
    checked_conversation = conversation.with_messages(_passing(messages, conversation, handle))
    checked_conversation.places = conversation.places
    return checked_conversation


def _check_at(message: AnyMessage, index: int, conversation: Conversation) -> None:
    try:
        check_message(message)
    except ChatpipeError as exc:
        raise exc.located(_place(conversation, index)) from None


def _passing(
    messages: Iterable[AnyMessage],
    conversation: Conversation,
    handle: Callable[[ChatpipeError], None] | None,
) -> Iterator[AnyMessage]:
    for index, message in enumerate(messages, conversation.start):
        try:
            _check_at(message, index - conversation.start, conversation)
        except ChatpipeError as exc:
            if handle is None:
                raise
            handle(exc)
            continue
        yield message


def _place(conversation: Conversation, index: int) -> Location | None:
    places = conversation.places
    if places is not None and index < len(places):
        return places[index]
    where = conversation.location
    return where.at_message(index + conversation.start) if where is not None else None
