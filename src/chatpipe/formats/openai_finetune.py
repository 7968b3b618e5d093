"""OpenAI's fine-tuning format checks (the cookbook's kinds), on raw records: the rule set
``openai-finetune`` of the OpenAI dialect."""

from __future__ import annotations

from typing import Any

from ..errors import Location, kind_of
from .rules import Problem

KINDS = (
    "data_type",
    "missing_messages_list",
    "message_missing_key",
    "message_unrecognized_key",
    "unrecognized_role",
    "missing_content",
    "example_missing_assistant_message",
)
_ROLES = ("system", "developer", "user", "assistant", "tool", "function")
_KEYS = (
    "role",
    "content",
    "name",
    "function_call",
    "weight",
    "tool_calls",
    "tool_call_id",
    "refusal",
)


def finetune_message_problems(message: Any, location: Location) -> list[Problem]:
    """The cookbook's per-message checks, for a raw OpenAI message dict."""
    if not isinstance(message, dict):
        return [
            Problem(
                "data_type",
                f"a message must be an object, got {kind_of(message)}",
                location,
                'write each message as {"role": ..., "content": ...}',
            )
        ]
    problems = []
    calls = message.get("tool_calls") or message.get("function_call")
    if "role" not in message or ("content" not in message and not calls):
        missing = [k for k in ("role", "content") if k not in message]
        problems.append(
            Problem(
                "message_missing_key",
                f"missing {', '.join(missing)}",
                location,
                "every message needs a role and content",
            )
        )
    unknown = [k for k in message if k not in _KEYS]
    if unknown:
        problems.append(
            Problem(
                "message_unrecognized_key",
                f"unrecognized key(s) {', '.join(map(str, unknown))}",
                location,
                "the fine-tuning API rejects keys it does not know",
            )
        )
    role = message.get("role")
    if role not in _ROLES:
        problems.append(
            Problem(
                "unrecognized_role", f"role {role!r}", location, "use one of " + ", ".join(_ROLES)
            )
        )
    content = message.get("content")
    if (
        (not content and not calls)
        or not isinstance(content, (str, list, type(None)))
        or (content is None and not calls)
    ):
        problems.append(
            Problem(
                "missing_content",
                "no content",
                location,
                "give the message text, or tool calls for an assistant turn",
            )
        )
    return problems


def finetune_row_problems(row: Any, location: Location) -> list[Problem]:
    """The cookbook's checks for one example ``{"messages": [...]}``."""
    if not isinstance(row, dict):
        return [
            Problem(
                "data_type",
                f"an example must be an object, got {kind_of(row)}",
                location,
                "one JSON object per line",
            )
        ]
    messages = row.get("messages")
    if not messages or not isinstance(messages, list):
        return [
            Problem(
                "missing_messages_list",
                "no messages list",
                location,
                'put the conversation under "messages"',
            )
        ]
    problems = []
    for index, message in enumerate(messages):
        problems += finetune_message_problems(message, location.at_message(index))
    if not any(isinstance(m, dict) and m.get("role") == "assistant" for m in messages):
        problems.append(_no_assistant(location))
    return problems


def _no_assistant(location: Location) -> Problem:
    return Problem(
        "example_missing_assistant_message",
        "no assistant message",
        location,
        "an example teaches the assistant's reply: add one",
    )


class FinetuneRules:
    """The rule set: rows and message logs."""

    name = "openai-finetune"

    def row_problems(self, row: Any, location: Location) -> list[Problem]:
        return finetune_row_problems(row, location)

    def log(self) -> _LogCheck:
        return _LogCheck()


class _LogCheck:
    def __init__(self) -> None:
        self.assistant_seen = False

    def message_problems(self, message: Any, location: Location) -> list[Problem]:
        self.assistant_seen |= isinstance(message, dict) and message.get("role") == "assistant"
        return finetune_message_problems(message, location)

    def end_problems(self, location: Location) -> list[Problem]:
        return [] if self.assistant_seen else [_no_assistant(location)]


RULES = FinetuneRules()
