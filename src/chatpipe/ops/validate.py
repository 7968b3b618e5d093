"""Checks users can gate on: conversation structure checks on the messages read from
records (the raw records' own rule sets are their dialects': ``Dialect.record_rules``).

Every problem has a kind, a location (file:line:col and message index) and a hint.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, Location
from ..formats.rules import Problem
from ..model import AIMessage, AnyMessage, SystemMessage, ToolMessage
from ..model.tool_calls import DOUBLE_ENCODED

STRUCTURE_KINDS = (
    "unreadable_record",
    "orphan_tool_result",
    "unanswered_tool_call",
    "duplicate_tool_result",
    "invalid_tool_arguments",
    "empty_assistant_message",
    "misplaced_system_message",
    "too_many_tokens",
    "failed_batch_request",
)
RULES = ("all", "openai-finetune", "structure")

# -- conversation structure ----------------------------------------------------------------


class StructureCheck:
    """Checks one conversation's messages as they stream past."""

    def __init__(
        self, max_tokens: int | None = None, counter: Any = None, system_anywhere: bool = False
    ) -> None:
        self.max_tokens = max_tokens
        self.system_anywhere = system_anywhere
        self.counter = counter
        self.calls: dict[str, tuple[int, Location | None]] = {}  # id -> message index, place
        self.answered: set[str] = set()
        self.index = 0
        self.tokens = 0
        self.kept: list[AnyMessage] = []
        self.first: Location | None = None
        self.spoken = False  # a message other than a system one came

    def add(self, message: AnyMessage, location: Location | None) -> list[Problem]:
        problems = []
        if self.first is None:
            self.first = location
        index = self.index
        self.index += 1
        if not isinstance(message, SystemMessage):
            self.spoken = True
        # system messages at the start (instructions and a system prompt) are in place
        if isinstance(message, SystemMessage) and self.spoken and not self.system_anywhere:
            problems.append(
                Problem(
                    "misplaced_system_message",
                    "a system message after the first",
                    location,
                    "move it to the start, or make it a user message",
                )
            )
        if isinstance(message, AIMessage):
            for call in message.invalid_tool_calls:
                problems.append(
                    Problem(
                        "invalid_tool_arguments",
                        f"tool call {call['name']!r} ({call['id']}): "
                        + (call.get("error") or "arguments are not a JSON object"),
                        location,
                        "write arguments as a JSON object in JSON text",
                    )
                )
            for item in message.additional_kwargs.get(DOUBLE_ENCODED) or ():
                at = item.get("index") if isinstance(item, dict) else None
                if isinstance(at, int) and 0 <= at < len(message.tool_calls):
                    call = message.tool_calls[at]
                    problems.append(
                        Problem(
                            "double_encoded_arguments",
                            f"tool call {call['name']!r} ({call['id']}): the arguments are JSON"
                            " text of JSON text (read decoded)",
                            location,
                            "write arguments once as JSON text of an object",
                        )
                    )
            for call in message.tool_calls:
                self.calls[call["id"]] = (index, location)
            if not (
                message.text.strip()
                or message.tool_calls
                or message.invalid_tool_calls
                or "function_call" in message.additional_kwargs
                or _has_blocks(message.content)
            ):
                problems.append(
                    Problem(
                        "empty_assistant_message",
                        "an assistant turn with nothing in it",
                        location,
                        "remove it, or give it content or tool calls",
                    )
                )
        elif isinstance(message, ToolMessage):
            call_id = message.tool_call_id
            if call_id not in self.calls:
                problems.append(
                    Problem(
                        "orphan_tool_result",
                        f"a tool result for {call_id!r} with no tool call before it",
                        location,
                        "providers reject this: add the call or drop the result",
                    )
                )
            elif call_id in self.answered:
                problems.append(
                    Problem(
                        "duplicate_tool_result",
                        f"a second result for {call_id!r}",
                        location,
                        "keep one result per tool call",
                    )
                )
            self.answered.add(call_id)
        if self.max_tokens is not None:
            if getattr(self.counter, "additive", False):
                self.tokens += self.counter.cost(message)
            else:
                self.kept.append(message)
        return problems

    def finish(self, location: Location | None) -> list[Problem]:
        problems = []
        for call_id, (index, where) in self.calls.items():
            # a call in the very last message is a fine-tuning target, not a cut-off history
            if call_id not in self.answered and index != self.index - 1:
                problems.append(
                    Problem(
                        "unanswered_tool_call",
                        f"tool call {call_id!r} has no result",
                        where,
                        "add the tool result, or drop the call",
                    )
                )
        if self.max_tokens is not None:
            total = (
                self.counter.base + self.tokens
                if getattr(self.counter, "additive", False)
                else self.counter(self.kept)
            )
            if total > self.max_tokens:
                problems.append(
                    Problem(
                        "too_many_tokens",
                        f"{total} tokens, over {self.max_tokens}",
                        location or self.first,
                        "trim it with chatpipe trim",
                    )
                )
        return problems


def _has_blocks(content: Any) -> bool:
    return isinstance(content, list) and any(isinstance(b, dict) for b in content)


def check_messages(
    located: Iterable[tuple[AnyMessage, Location | None]],
    conversation_location: Location | None,
    max_tokens: int | None = None,
    counter: Any = None,
    system_anywhere: bool = False,
) -> Iterator[Problem]:
    """Structure problems of one conversation, given its messages and their locations;
    ``system_anywhere``: system messages are not misplaced after the first (session logs,
    where an agent adds context as it goes)."""
    check = StructureCheck(max_tokens, counter, system_anywhere)
    for message, location in located:
        yield from check.add(message, location)
    yield from check.finish(conversation_location)


def conversation_problems(meta: dict[str, Any], location: Location | None) -> list[Problem]:
    """What a conversation's fields say is wrong: a batch request with no answer (a
    failed, expired or canceled result)."""
    if "batch_error" not in meta:
        return []
    ident = meta.get("custom_id")
    return [
        Problem(
            "failed_batch_request",
            f"custom_id {ident!r} has no answer: {meta['batch_error']}",
            location,
            "mend what the error says, then send the request again in a new batch",
        )
    ]


def unreadable(error: ChatpipeError) -> Problem:
    return Problem("unreadable_record", error.message, error.location, error.hint or "")
