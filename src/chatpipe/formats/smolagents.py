"""Hugging Face smolagents: an agent's memory as messages, the benchmark rows that hold
it, and multi-agent message-bus logs.

An agent's memory (``agent.write_memory_to_messages()``, each ``ChatMessage.dict()``) is
a list of ``{role, content, tool_calls, raw, token_usage}`` whose roles are ``system``,
``user``, ``assistant``, ``tool-call`` and ``tool-response`` (or the enum's own text,
``MessageRole.TOOL_CALL``, where a dataset stored it so); content is text or
``[{type: text, text}]`` parts. smolagents writes the calls as text: a ``tool-call``
message's ``Calling tools:\\n[{'id': ..., 'function': {'name': ..., 'arguments': ...}}]``
(a Python repr) is read as its tool calls (a code agent's ``python_interpreter`` call, whose
arguments are its code, as ``{"code": ...}``, the tool's input), joined to the assistant
message before it (the text as written kept in its ``additional_kwargs["smolagents"]
["tool_call_message"]``), and a ``tool-response``
as the tool message answering them: the call its ``Call id:`` line names, or, where it
names none, the oldest call still waiting (smolagents answers all of a step's calls in
one observation). ``token_usage`` is the usage; ``raw`` (the provider's answer) is kept in
``additional_kwargs["smolagents"]``.

Benchmark rows (``examples/smolagents_benchmark/run.py``, ``open_deep_research``) hold the
memory in ``intermediate_steps`` beside the question, the answer and the timing: a
conversation each, the other columns its fields. A vanilla model's row holds its answer
there as text: the question and that answer are the conversation.

Message-bus logs (``smolagents-bus``) are lines ``{sender, type, content, recipients,
thread_id, reply_to}``: a conversation per ``thread_id``, each message its sender's
turn (a human turn for ``user``), named by the sender.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location, ValidationError, kind_of
from ..model import AIMessage, AnyMessage, Conversation, HumanMessage, SystemMessage, ToolMessage
from .base import CONVERSATIONS, LIKELY, STREAM, VARIANT, Dialect, Guess, Sample, SessionDialect
from .openai import variant_score
from .openai_messages import parse_arguments

_ROLES = {
    "system": "system",
    "user": "user",
    "assistant": "assistant",
    "tool-call": "tool-call",
    "tool-response": "tool-response",
    "MessageRole.SYSTEM": "system",
    "MessageRole.USER": "user",
    "MessageRole.ASSISTANT": "assistant",
    "MessageRole.TOOL_CALL": "tool-call",
    "MessageRole.TOOL_RESPONSE": "tool-response",
}
# roles only smolagents has (the others are OpenAI's too)
_OWN_ROLES = frozenset(r for r in _ROLES if r not in ("system", "user", "assistant"))
_CALLING = "Calling tools:"
_CALL_ID = re.compile(r"Call id: ?(\S+)\n")
_CODE_TOOL = "python_interpreter"


def _is_memory_message(value: Any) -> bool:
    return isinstance(value, dict) and value.get("role") in _OWN_ROLES and "content" in value


def _is_row(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("intermediate_steps"), (list, str))
        and any(k in value for k in ("question", "task", "augmented_question"))
    )


class SmolagentsDialect(Dialect):
    name = "smolagents"
    description = "smolagents memory messages (tool-call, tool-response) and benchmark rows"
    example = "smolagents__documented_benchmark_rows_code_and_tool_calling.jsonl"
    extras_key = "smolagents"  # (a message's fields beside role and content)
    evidence = VARIANT  # {role, content} messages with roles of its own among them

    def is_message(self, value: Any) -> bool:
        return _is_memory_message(value)

    def is_conversation(self, value: Any) -> bool:
        return _is_row(value)

    def score(self, sample: Sample) -> Guess | None:
        """A benchmark row (``intermediate_steps`` beside its question) is smolagents' own;
        a memory is OpenAI-shaped messages with a ``tool-call`` or ``tool-response`` role
        among them."""
        if _is_row(sample.first):
            return Guess(LIKELY, CONVERSATIONS)
        return variant_score(self, sample)

    def read_message(self, value: Any) -> AnyMessage:
        if not isinstance(value, dict) or value.get("role") not in _ROLES:
            raise ValidationError(
                "not a smolagents message",
                hint="a message has a role (system, user, assistant, tool-call, "
                "tool-response) and its content",
            )
        return _message(value)

    def finish(
        self, messages: Iterable[AnyMessage], links: Any = None, start: int = 0
    ) -> Iterable[AnyMessage]:
        return _paired(messages)

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        if not _is_row(value):
            return super().read_conversation(value, location)
        steps = value["intermediate_steps"]
        meta = {k: v for k, v in value.items() if k != "intermediate_steps"}
        if isinstance(steps, str):  # a vanilla model's row: its answer as text
            question = value.get("question") or value.get("augmented_question") or ""
            messages: list[AnyMessage] = [HumanMessage(str(question)), AIMessage(steps)]
            meta["intermediate_steps"] = "the answer"
            return Conversation(messages, meta, location)
        read = []
        for index, item in enumerate(steps):
            try:
                read.append(self.read_message(item))
            except ChatpipeError as exc:
                raise exc.located(location.at_message(index)) from None
        return Conversation(list(_paired(read)), meta, location)


def _message(value: dict[str, Any]) -> AnyMessage:
    role = _ROLES[value["role"]]
    content = _content(value.get("content"))
    rest = {k: v for k, v in value.items() if k not in ("role", "content", "tool_calls")}
    usage = _usage(rest.pop("token_usage", None))
    rest = {k: v for k, v in rest.items() if v is not None}
    if role != value["role"]:
        rest["role"] = value["role"]
    kept = {"additional_kwargs": {"smolagents": rest}} if rest else {}
    if role == "system":
        return SystemMessage(content, **kept)
    if role == "user":
        return HumanMessage(content, **kept)
    if role == "tool-response":
        text = content if isinstance(content, str) else _joined(content)
        found = _CALL_ID.match(text) if text is not None else None
        if found is None:
            return ToolMessage(content, tool_call_id="", **kept)
        return ToolMessage(content, tool_call_id=found.group(1), **kept)
    calls = _calls(value.get("tool_calls"))
    text = content if isinstance(content, str) else _joined(content)
    if role == "tool-call" and text is not None and text.startswith(_CALLING):
        written = _written_calls(text[len(_CALLING) :])
        if written is not None:  # the calls, and their text as written beside them
            calls, content = calls + written, ""
            extras = kept.setdefault("additional_kwargs", {"smolagents": {}})["smolagents"]
            extras.update({"role": value["role"], "content": text})
    valid = [c for c in calls if "error" not in c]
    invalid = [c for c in calls if "error" in c]
    return AIMessage(
        content, tool_calls=valid, invalid_tool_calls=invalid, usage_metadata=usage, **kept
    )


def _content(content: Any) -> Any:
    if content is None or isinstance(content, str):
        return content or ""
    if not isinstance(content, list):
        raise DataError(f"a message's content must be text or parts, got {kind_of(content)}")
    if len(content) == 1 and isinstance(content[0], dict) and set(content[0]) == {"type", "text"}:
        return content[0]["text"]
    return [p if isinstance(p, dict) else {"type": "text", "text": str(p)} for p in content]


def _joined(content: Any) -> str | None:
    """The text of parts that are all text; None when any is not."""
    if not isinstance(content, list) or not all(
        isinstance(p, dict) and p.get("type") == "text" for p in content
    ):
        return None
    return "".join(str(p.get("text") or "") for p in content)


def _written_calls(text: str) -> list[dict[str, Any]] | None:
    """The calls a ``tool-call`` message writes out (a repr of their dicts); None when
    the text is not that."""
    try:
        listed = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if not isinstance(listed, list) or not all(isinstance(c, dict) for c in listed):
        return None
    return _calls(listed)


def _calls(listed: Any) -> list[dict[str, Any]]:
    calls = []
    for call in listed if isinstance(listed, list) else ():
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            continue
        name, ident = str(function.get("name") or ""), str(call.get("id") or "")
        arguments = function.get("arguments")
        args, error = parse_arguments(arguments)
        if error is not None and name == _CODE_TOOL and isinstance(arguments, str):
            args, error = {"code": arguments}, None
        if error is None:
            calls.append({"name": name, "args": args, "id": ident})
        else:
            bad = {"type": "invalid_tool_call", "name": name, "args": arguments, "id": ident}
            calls.append({**bad, "error": error})
    return calls


def _paired(messages: Iterable[AnyMessage]) -> Iterator[AnyMessage]:
    """A step's turn made whole: the ``tool-call`` message joins the assistant message
    before it (its text), and a tool message naming no call answers the first call of
    the latest step still waiting (each takes its call's name)."""
    waiting: list[str] = []
    names: dict[str, str] = {}
    held: AIMessage | None = None  # an assistant message its step's calls may join
    for message in messages:
        if isinstance(message, AIMessage) and _is_calls(message):
            waiting = [c["id"] or "" for c in [*message.tool_calls, *message.invalid_tool_calls]]
            names.update({c["id"] or "": c["name"] or "" for c in message.tool_calls})
            names.update({c["id"] or "": c["name"] or "" for c in message.invalid_tool_calls})
            if held is not None:
                message = _joined_turn(held, message)
                held = None
        if held is not None:
            yield held
            held = None
        if isinstance(message, ToolMessage):
            if not message.tool_call_id and waiting:
                message.tool_call_id = waiting[0]
            waiting = [w for w in waiting if w != message.tool_call_id]
            message.name = message.name or names.get(message.tool_call_id) or None
        if isinstance(message, AIMessage) and not message.tool_calls and not _is_calls(message):
            held = message
            continue
        yield message
    if held is not None:
        yield held


def _is_calls(message: AIMessage) -> bool:
    return message.additional_kwargs.get("smolagents", {}).get("role") in (
        "tool-call",
        "MessageRole.TOOL_CALL",
    )


def _joined_turn(turn: AIMessage, calls: AIMessage) -> AIMessage:
    """An assistant message with the calls of the ``tool-call`` message after it."""
    turn.tool_calls = [*turn.tool_calls, *calls.tool_calls]
    turn.invalid_tool_calls = [*turn.invalid_tool_calls, *calls.invalid_tool_calls]
    extras = turn.additional_kwargs.setdefault("smolagents", {})
    extras["tool_call_message"] = calls.additional_kwargs.get("smolagents", {})
    return turn


def _usage(usage: Any) -> dict[str, Any] | None:
    if not isinstance(usage, dict):
        return None
    given, output = usage.get("input_tokens"), usage.get("output_tokens")
    if not isinstance(given, int) or not isinstance(output, int):
        return None
    total = usage.get("total_tokens")
    return {
        "input_tokens": given,
        "output_tokens": output,
        "total_tokens": total if isinstance(total, int) else given + output,
    }


# -- the message bus ----------------------------------------------------------------------


def is_bus_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("sender"), str)
        and isinstance(value.get("recipients"), list)
        and "content" in value
        and "thread_id" in value
    )


class SmolagentsBusDialect(SessionDialect):
    name = "smolagents-bus"
    description = "multi-agent message-bus logs {sender, recipients, thread_id, reply_to}"
    example = "smolagents__handmade_message_bus_two_threads.jsonl"
    extras_key = "smolagents"  # (a bus message's fields beside sender and content)
    line_hint = "each line is a bus message {sender, type, content, recipients, thread_id}"

    def is_stream_event(self, value: Any) -> bool:
        return is_bus_message(value)

    def score(self, sample: Sample) -> Guess | None:
        """A sender beside its recipients and thread: keys of the bus's own."""
        return Guess(LIKELY, STREAM) if is_bus_message(sample.first) else None

    def read_records(
        self,
        records: Iterable[Any],
        location: Location,
        options: Any = None,
        handle: Callable[[ChatpipeError], None] | None = None,
    ) -> Iterator[Conversation]:
        threads: dict[Any, Conversation] = {}
        for value, at in self.lines(records, handle):
            with self.line_errors(at, handle):
                message = _bus_message(value)
                thread = value.get("thread_id")
                key = thread if isinstance(thread, (str, int)) else None
                if key not in threads:
                    threads[key] = Conversation([], {"thread_id": key}, at)
                    threads[key].places = []
                threads[key].messages.append(message)
                threads[key].places.append(at)
        yield from threads.values()


def _bus_message(value: dict[str, Any]) -> AnyMessage:
    content = value["content"]
    if not isinstance(content, (str, list)) and content is not None:
        raise DataError(f'a bus message\'s "content" must be text, got {kind_of(content)}')
    sender = value["sender"]
    rest = {k: v for k, v in value.items() if k not in ("sender", "content")}
    ident = rest.pop("id", None)
    fields = {"name": sender, "id": ident, "additional_kwargs": {"smolagents": rest}}
    if sender.lower() in ("user", "human"):
        return HumanMessage(content or "", **fields)
    return AIMessage(content or "", **fields)
