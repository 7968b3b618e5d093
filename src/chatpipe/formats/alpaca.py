"""Alpaca rows: ``instruction``, ``input`` and ``output``, with an optional ``system`` and a
``history`` of ``[user, assistant]`` pairs, as LLaMA-Factory, ms-swift and most SFT
toolkits take them; preference rows give ``chosen`` / ``rejected`` answers instead of an
``output``.

The user turn is the instruction and the input joined by a line break, as LLaMA-Factory
joins them, after the history's turns. A preference row reads as the prompt and the
chosen answer, ``rejected`` staying among the row's fields. The writer makes one row of a
conversation of alternating user and assistant turns (the last pair the instruction and
output, the ones before it the history); what a row cannot hold (tool calls and results,
content other than text, turns out of order) is left out, and the run says so.
"""

from __future__ import annotations

from typing import Any

from ..errors import ChatpipeError, Location, ValidationError, kind_of
from ..model import AIMessage, AnyMessage, HumanMessage, SystemMessage
from .base import Conversation, Dialect
from .record_errors import keys_hint

# the fields a row's turns are made of (and the answer's, output or chosen); the others
# travel with the conversation
_TURN_FIELDS = ("instruction", "input", "system", "history")


def is_alpaca_row(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("instruction"), str)
        and (
            "output" in value
            or (isinstance(value.get("chosen"), str) and isinstance(value.get("rejected"), str))
        )
        and "messages" not in value
        and "conversations" not in value
    )


def _text(value: Any, field: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValidationError(f'"{field}" must be text, got {kind_of(value)}')
    return value


def _history(value: Any) -> list[tuple[str, str]]:
    if value is None:
        return []
    pairs = value if isinstance(value, list) else None
    if pairs is None or not all(
        isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(t, str) for t in p)
        for p in pairs
    ):
        raise ValidationError(
            '"history" must be a list of [user, assistant] text pairs',
            hint=f"got {kind_of(value)}" if pairs is None else "a pair is not two strings",
        )
    return [(p[0], p[1]) for p in pairs]


def _answer_field(value: dict[str, Any]) -> str | None:
    """Where a row's answer is: ``chosen`` in a preference row, else ``output``."""
    if isinstance(value.get("chosen"), str):
        return "chosen"
    return "output" if value.get("output") is not None else None


def messages_from_row(value: dict[str, Any]) -> list[AnyMessage]:
    messages: list[AnyMessage] = []
    system = _text(value.get("system"), "system")
    if system:
        messages.append(SystemMessage(system))
    for prompt, answer in _history(value.get("history")):
        messages += [HumanMessage(prompt), AIMessage(answer)]
    parts = [_text(value.get("instruction"), "instruction"), _text(value.get("input"), "input")]
    messages.append(HumanMessage("\n".join(p for p in parts if p)))
    field = _answer_field(value)
    if field is not None:  # no output: an unsupervised row, its prompt alone
        messages.append(AIMessage(_text(value[field], field)))
    return messages


class AlpacaDialect(Dialect):
    name = "alpaca"
    writable = True
    conversation_records = True
    description = "Alpaca rows {instruction, input, output, system, history}, preferences"
    example = "alpaca__llamafactory_en_demo_first6.json"

    def losses(self) -> Any:
        return AlpacaTurns()  # (a row depends on the turns before: a walk a conversation)

    def is_conversation(self, value: Any) -> bool:
        return is_alpaca_row(value)

    def read_message(self, value: Any) -> AnyMessage:
        raise ValidationError(
            'an alpaca row needs "instruction" and "output" (or "chosen" and "rejected")',
            hint=keys_hint(value),
        )

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        if not isinstance(value, dict):
            raise ValidationError(f"an alpaca row must be an object, got {kind_of(value)}")
        try:
            messages = messages_from_row(value)
        except ChatpipeError as exc:
            raise exc.located(location) from None
        # the messages stand where the instruction stood; the other fields travel on
        used = (*_TURN_FIELDS, _answer_field(value) or "output")
        meta = {
            k: (None if k == "instruction" else v)
            for k, v in value.items()
            if k == "instruction" or k not in used
        }
        return Conversation(messages, meta, location, "instruction")

    def write_conversation(self, conversation: Conversation) -> dict[str, Any]:
        turns = AlpacaTurns()
        for message in conversation.messages:
            turns.step(message)
        return turns.row(conversation.meta)


# what a row cannot hold, in the words of the run's warning
TOOLS = "tool calls and tool results"
NOT_TEXT = "content other than text (images, files, reasoning, ...)"
NAMES = "message names"
LATE_SYSTEM = "system messages after the first message"
OUT_OF_ORDER = "turns out of user/assistant order (a row alternates them)"
OTHER_ROLES = "messages of other roles"


class AlpacaTurns:
    """A conversation walked into an alpaca row, message by message: ``step`` places a
    message and gives the kinds of what it leaves out of it. The writer and the report
    of losses walk the same way (``begin`` starts a conversation)."""

    def __init__(self) -> None:
        self.begin()

    def begin(self) -> None:
        self.index = 0
        self.system: str | None = None
        self.pairs: list[list[str]] = []
        self.prompt: str | None = None  # a user turn not yet answered

    def __call__(self, message: AnyMessage) -> list[str]:
        return self.step(message)

    def step(self, message: AnyMessage) -> list[str]:
        first, self.index = self.index == 0, self.index + 1
        left = []
        if message.name:
            left.append(NAMES)
        if isinstance(message.content, list) and any(
            not isinstance(b, str) and b.get("type") != "text" for b in message.content
        ):
            left.append(NOT_TEXT)
        text = message.text
        if isinstance(message, SystemMessage):
            if first:
                self.system = text
            else:
                left.append(LATE_SYSTEM)
        elif isinstance(message, HumanMessage):
            if self.prompt is None:
                self.prompt = text
            else:
                left.append(OUT_OF_ORDER)
        elif isinstance(message, AIMessage):
            if message.tool_calls or message.invalid_tool_calls:
                left.append(TOOLS)
            if not text and (message.tool_calls or message.invalid_tool_calls):
                pass  # a turn of calls alone: nothing of it goes in the row
            elif self.prompt is None:
                left.append(OUT_OF_ORDER)
            else:
                self.pairs.append([self.prompt, text])
                self.prompt = None
        elif message.type in ("tool", "function"):
            left.append(TOOLS)
        else:
            left.append(OTHER_ROLES)
        return left

    def row(self, meta: dict[str, Any]) -> dict[str, Any]:
        pairs = list(self.pairs)
        if self.prompt is not None:  # the last prompt, unanswered: a row with no output
            pairs.append([self.prompt, ""])
        last = pairs.pop() if pairs else ["", ""]
        record: dict[str, Any] = {"instruction": last[0], "input": ""}
        rejected = _rejected(meta.get("rejected"))
        if rejected is not None:
            record["chosen"] = last[1]
            record["rejected"] = rejected
        else:
            record["output"] = last[1]
        if self.system is not None:
            record["system"] = self.system
        if pairs:
            record["history"] = pairs
        for key, value in meta.items():
            if key not in record and key not in _NOT_ROW_FIELDS:
                record[key] = value
        return record


# a conversation's fields that are other dialects' bookkeeping, not a row's
_NOT_ROW_FIELDS = frozenset(
    ("messages", "conversations", "conversation", "contents", "chosen_turns", "instruction")
)


def _rejected(value: Any) -> str | None:
    """A rejected answer as text: a string, or the text of a turn or message another
    dialect's preference row gives (the last of a list)."""
    if isinstance(value, list) and value:
        value = value[-1]
    if isinstance(value, dict):
        value = value.get("value", value.get("content"))
    return value if isinstance(value, str) else None
