"""ShareGPT / FastChat / LLaMA-Factory rows: ``conversations`` of ``{from, value}`` turns,
with ``function_call`` / ``observation`` turns, a ``system`` field,
``tools``, and preference rows (``chosen`` / ``rejected``); and the rows of the same family
that ms-swift and Firefly take, a ``conversation`` of ``{human, assistant}`` pairs.

A preference row reads as the prompt followed by the chosen answer; the rejected one stays
in the row's fields. The writer makes the same rows back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, Location, ValidationError, kind_of
from ..model import AIMessage, AnyMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage
from .base import Conversation, Dialect, dict_blocks
from .openai_messages import parse_arguments
from .tool_links import _UNLINKED, link_tool_results

HUMAN = ("human", "user")
AI = ("gpt", "assistant", "chatgpt", "bing", "bard", "model")
CALL = ("function_call", "function-call", "tool_call")
RESULT = ("observation", "function-response", "function_response", "tool")


def is_sharegpt_turn(value: Any) -> bool:
    return isinstance(value, dict) and "from" in value and "value" in value


def is_pair_turn(value: Any) -> bool:
    """A ``{human, assistant}`` exchange (ms-swift, Firefly): one user and one AI turn."""
    return (
        isinstance(value, dict)
        and "from" not in value
        and isinstance(value.get("human"), str)
        and isinstance(value.get("assistant", ""), str)
    )


def is_sharegpt_row(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    turns = value.get("conversations", value.get("conversation"))
    return isinstance(turns, list) and (
        not turns or is_sharegpt_turn(turns[0]) or is_pair_turn(turns[0])
    )


def _turns_of(turns: list[Any]) -> tuple[list[Any], list[int]]:
    """The turns, each ``{human, assistant}`` exchange made two ``{from, value}`` turns
    (its other keys on the answer), and the index in ``turns`` each came from."""
    out: list[Any] = []
    origin: list[int] = []
    for index, turn in enumerate(turns):
        if isinstance(turn, dict) and "from" not in turn and "human" in turn:
            if not is_pair_turn(turn):
                out.append(turn)  # refused below, at its place
                origin.append(index)
                continue
            out.append({"from": "human", "value": turn["human"]})
            origin.append(index)
            if "assistant" in turn:
                rest = {k: v for k, v in turn.items() if k not in ("human", "assistant")}
                out.append({"from": "gpt", "value": turn["assistant"], **rest})
                origin.append(index)
        else:
            out.append(turn)
            origin.append(index)
    return out, origin


def _calls(value: Any) -> list[dict[str, Any]]:
    parsed, error = parse_arguments(value)
    if error is not None and isinstance(value, str):
        try:
            parsed = json.loads(value)  # a list of parallel calls
        except ValueError:
            raise ValidationError(f"a function_call turn must be JSON: {error}") from None
    items = parsed if isinstance(parsed, list) else [parsed]
    calls = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ValidationError('a function_call turn needs {"name", "arguments"}')
        args, problem = parse_arguments(item.get("arguments", item.get("parameters")))
        if problem is not None:
            raise ValidationError(f"function_call {item['name']!r}: {problem}")
        calls.append({"name": item["name"], "args": args, "id": _UNLINKED})
    return calls


def message_from_turn(turn: Any) -> AnyMessage:
    if isinstance(turn, dict) and "human" in turn and "from" not in turn:
        raise ValidationError('a {"human", "assistant"} turn must hold text')
    if not is_sharegpt_turn(turn):
        raise ValidationError('a turn must be {"from", "value"}')
    speaker, value = turn["from"], turn["value"]
    extra = {k: v for k, v in turn.items() if k not in ("from", "value")}
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if speaker in HUMAN:
        return HumanMessage(text, additional_kwargs=extra)
    if speaker in AI:
        return AIMessage(text, additional_kwargs=extra)
    if speaker == "system":
        return SystemMessage(text, additional_kwargs=extra)
    if speaker in CALL:
        return AIMessage("", tool_calls=_calls(value), additional_kwargs=extra)
    if speaker in RESULT:
        return ToolMessage(text, tool_call_id=_UNLINKED, additional_kwargs=extra)
    return ChatMessage(text, role=str(speaker), additional_kwargs=extra)


def _cannot_hold(message: AnyMessage) -> list[str]:
    found = []
    if any(b.get("type") != "text" for b in dict_blocks(message)):
        found.append("content other than text (images, files, reasoning, ...)")
    if message.name:
        found.append("message names")
    if getattr(message, "tool_calls", None) and any(c["id"] for c in message.tool_calls):
        found.append("tool call ids (ShareGPT pairs calls and results by order)")
    if getattr(message, "invalid_tool_calls", None):
        found.append("invalid tool calls")
    return found


class ShareGPTDialect(Dialect):
    name = "sharegpt"
    writable = True
    conversation_records = True
    description = "ShareGPT rows {conversations: [{from, value}], system, tools}, preferences"
    example = "sharegpt__llamafactory_glaive_toolcall_first12.json"
    list_key = "conversations"
    holds_artifacts = False

    def losses(self) -> Any:
        return _cannot_hold

    def is_message(self, value: Any) -> bool:
        return is_sharegpt_turn(value)

    def is_conversation(self, value: Any) -> bool:
        return is_sharegpt_row(value)

    def read_message(self, value: Any) -> AnyMessage:
        return message_from_turn(value)

    def finish(
        self, messages: Iterable[AnyMessage], links: Any = None, start: int = 0
    ) -> Iterable[AnyMessage]:
        return link_tool_results(messages, links, start)

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        key = "conversations" if "conversations" in value else "conversation"
        messages: list[AnyMessage] = []
        if value.get("system"):
            messages.append(SystemMessage(value["system"]))
        given = value[key]
        if not isinstance(given, list):
            raise ValidationError(f'"{key}" must be a list of turns, got {kind_of(given)}')
        turns, origin = _turns_of(given)
        count = len(turns)
        chosen = value.get("chosen")
        if isinstance(chosen, str):  # the chosen answer as plain text: the assistant turn
            turns.append({"from": "gpt", "value": chosen})
        elif chosen is not None:
            turns += chosen if isinstance(chosen, list) else [chosen]
        for index, turn in enumerate(turns):
            try:
                messages.append(message_from_turn(turn))
            except ChatpipeError as exc:
                if index >= count:
                    exc = type(exc)(f'"chosen": {exc.message}', hint=exc.hint)
                at = origin[index] if index < count else index - count + len(given)
                raise exc.located(location.at_message(at)) from None
        meta = {
            k: (None if k == key else v) for k, v in value.items() if k not in ("system", "chosen")
        }
        if chosen is not None:  # how many turns the answer was, or "text" for a plain string
            meta["chosen_turns"] = (
                "text"
                if isinstance(chosen, str)
                else len(chosen)
                if isinstance(chosen, list)
                else 1
            )
        return Conversation(list(self.finish(messages)), meta, location, key)

    def write_messages(self, messages: Iterable[AnyMessage]) -> Iterator[Any]:
        for message in messages:
            yield from write_turns(message)

    def write_conversation(self, conversation: Conversation) -> dict[str, Any]:
        messages = list(conversation.messages)
        record: dict[str, Any] = {}
        if messages and isinstance(messages[0], SystemMessage):
            record["system"] = messages.pop(0).text
        turns = [t for m in messages for t in write_turns(m)]
        meta = dict(conversation.meta)
        chosen = meta.pop("chosen_turns", None)
        if isinstance(chosen, int):  # (an operation may have left fewer turns: trim)
            chosen = min(chosen, len(turns))
        if chosen == "text" and turns:  # read from a plain-text answer: written back so
            record["conversations"] = turns[:-1]
            record["chosen"] = turns[-1]["value"]
        elif isinstance(chosen, int) and chosen:
            record["conversations"] = turns[:-chosen]
            record["chosen"] = turns[-chosen:] if chosen > 1 else turns[-1]
        else:
            record["conversations"] = turns
        for key, value in meta.items():
            if key not in ("conversations", "conversation", "messages"):
                record[key] = value
        return record


def write_turns(message: AnyMessage) -> list[dict[str, Any]]:
    if isinstance(message, AIMessage) and message.tool_calls:
        turns = [{"from": "gpt", "value": message.text}] if message.text else []
        calls = [{"name": c["name"], "arguments": c["args"]} for c in message.tool_calls]
        value = calls[0] if len(calls) == 1 else calls
        return [*turns, {"from": "function_call", "value": json.dumps(value, ensure_ascii=False)}]
    speaker = {
        "human": "human",
        "ai": "gpt",
        "system": "system",
        "tool": "observation",
        "function": "observation",
    }.get(message.type, getattr(message, "role", message.type))
    return [{"from": speaker, "value": message.text}]
