"""OpenAI Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``).

Each line is ``{timestamp, type, payload}``. The messages come from ``response_item``
lines only, Responses API items read as the openai-responses dialect reads them: an
assistant turn's reasoning (its summary text; the encrypted content kept opaque in the
block's extras), text and calls make one AI message, each output a tool message paired
with its call by ``call_id`` (an aborted turn leaves a call with no output). ``event_msg``
lines repeat the items for the terminal and are not read, but for errors and aborted
turns, kept as the conversation's ``notes`` (each with ``at``, the number of messages
before it).

``developer`` messages and the context Codex adds as user messages (AGENTS.md
instructions, ``<environment_context>``, ``<turn_aborted>``, ...) are system messages
(``additional_kwargs["codex"]["context"]``), not human turns. A ``compacted`` line is the
summary that replaced the history before it: a system message, ``["codex"]["compacted"]``.
The model is the one the latest ``turn_context`` names; ``session_meta`` (id, cwd, git,
version, ...) is the conversation's fields. Read as the lines come: one assistant turn is
held at a time.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location, kind_of
from ..model import AIMessage, AnyMessage, Conversation, SystemMessage, ToolMessage
from .base import SessionDialect
from .openai_responses_items import messages_from_items
from .record_errors import SHAPE_ERRORS

_LINE_TYPES = frozenset(("session_meta", "response_item", "event_msg", "turn_context", "compacted"))
# items of the assistant's turn (the rest close it)
_ASSISTANT_ITEMS = frozenset(
    (
        "reasoning",
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "web_search_call",
        "tool_search_call",
        "image_generation_call",
    )
)
_OUTPUTS = frozenset(("function_call_output", "custom_tool_call_output", "local_shell_call_output"))
# the starts of the user-role texts Codex writes itself (its own list of them)
_CONTEXT_PREFIXES = (
    "# agents.md instructions",
    "<user_instructions>",
    "<environment_context",
    "<skills_instructions>",
    "<skill>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<subagent_notification>",
    "<context_update>",
    "<hook_prompt",
    "<codex_internal_context",
)
# event_msg kinds worth keeping as notes: what went wrong, and turns cut short
_NOTED_EVENTS = frozenset(("error", "stream_error", "turn_aborted", "warning"))


def is_codex_line(value: Any) -> bool:
    return _is_line(value) and value["type"] in _LINE_TYPES


def _is_line(value: Any) -> bool:
    """A rollout line's shape, of any type: a type Codex added since is kept, as a note."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("type"), str)
        and isinstance(value.get("payload"), dict)
    )


def is_context(item: dict[str, Any]) -> bool:
    """Whether a user-role message is context Codex added, not something the user wrote."""
    content = item.get("content")
    texts = (
        [content]
        if isinstance(content, str)
        else [p.get("text") for p in content or () if isinstance(p, dict)]
        if isinstance(content, list)
        else []
    )
    return any(
        isinstance(t, str) and t.lstrip().lower().startswith(_CONTEXT_PREFIXES) for t in texts
    )


class CodexDialect(SessionDialect):
    name = "codex"
    description = "OpenAI Codex CLI rollouts (~/.codex/sessions/**/rollout-*.jsonl)"
    example = "codex__idaho_vault_2026_developer_parallel_calls_error.jsonl"
    extras_key = "codex"  # (the rest of each record, under additional_kwargs)

    def is_stream_event(self, value: Any) -> bool:
        return is_codex_line(value)

    def read_records(
        self,
        records: Iterable[Any],
        location: Location,
        options: Any = None,
        handle: Callable[[ChatpipeError], None] | None = None,
    ) -> Iterator[Conversation]:
        note = getattr(options, "note", None)
        rollout = _Rollout(iter(records), handle, note)
        meta = rollout.start()
        conversation = Conversation(rollout.messages(), meta, rollout.first or location)
        conversation.places = rollout.places
        yield conversation


class _Rollout:
    """A rollout read line by line: its fields first, then its messages as they come."""

    def __init__(
        self,
        records: Iterator[Any],
        handle: Callable[[ChatpipeError], None] | None,
        say: Callable[[str], None] | None = None,
    ):
        self.records = records
        self.handle = handle
        self.say = say  # what -v says (a line of a type this reader does not know)
        self.unknown: set[str] = set()
        self.meta: dict[str, Any] = {}
        self.places: list[Location] = []
        self.first: Location | None = None
        self.model: str | None = None
        self.calls: dict[str, str] = {}  # call id -> tool name
        self.turn: list[dict[str, Any]] = []  # the assistant turn's items
        self.turn_at: Location | None = None
        self.turn_time: Any = None
        self.ahead: list[tuple[dict[str, Any], Location]] = []
        self.count = 0  # messages given

    def lines(self) -> Iterator[tuple[dict[str, Any], Location]]:
        from ..io.records import BadRecord

        while self.ahead:
            yield self.ahead.pop(0)
        for record in self.records:
            error = record.error if isinstance(record, BadRecord) else None
            if error is None and not _is_line(record.value):
                error = DataError(
                    "not a Codex rollout line",
                    record.location,
                    hint="each line is {timestamp, type, payload}",
                )
            if error is not None:
                if self.handle is None:
                    raise error
                self.handle(error)
                continue
            yield record.value, record.location

    def start(self) -> dict[str, Any]:
        """The conversation's fields: the lines before the first item are read for them
        (and kept to be read again)."""
        for line, at in self.lines():
            self.ahead.append((line, at))
            self.first = self.first or at
            if line["type"] == "session_meta" and not self.meta:
                self._session(line)
            elif line["type"] == "turn_context" and "model" not in self.meta:
                if isinstance(line["payload"].get("model"), str):
                    self.meta["model"] = line["payload"]["model"]
            elif line["type"] in ("response_item", "compacted"):
                break
        return self.meta

    def _session(self, line: dict[str, Any]) -> None:
        payload = line["payload"]
        if isinstance(payload.get("id"), str):
            self.meta["id"] = payload["id"]
        if isinstance(payload.get("timestamp"), str):
            self.meta["created_at"] = payload["timestamp"]
        self.meta.update({k: v for k, v in payload.items() if k not in ("id", "timestamp")})

    def messages(self) -> Iterator[AnyMessage]:
        seen_meta = False
        for line, at in self.lines():
            kind, payload = line["type"], line["payload"]
            try:
                if kind == "turn_context":
                    model = payload.get("model")
                    self.model = model if isinstance(model, str) else self.model
                elif kind == "session_meta":
                    if seen_meta:  # a fork's parent, recorded again
                        self.note({"type": "session_meta", **payload})
                    seen_meta = True
                elif kind == "event_msg":
                    if payload.get("type") in _NOTED_EVENTS:
                        self.note({"timestamp": line.get("timestamp"), **payload})
                elif kind == "compacted":
                    yield from self.close()
                    yield self.emit(self.compacted(line), at)
                elif kind == "response_item":
                    yield from self.item(payload, line.get("timestamp"), at)
                else:
                    self.new_kind(line, at)
            except (ChatpipeError, *SHAPE_ERRORS) as exc:
                error = exc if isinstance(exc, ChatpipeError) else _shape_error()
                if self.handle is None:
                    raise error.located(at) from None
                self.handle(error.located(at))
        yield from self.close()

    def new_kind(self, line: dict[str, Any], at: Location) -> None:
        """A line of a type Codex added after this reader: kept whole as a note (the
        session read on), said once a type under -v."""
        kind = line["type"]
        self.note({"type": kind, "timestamp": line.get("timestamp"), "payload": line["payload"]})
        if kind not in self.unknown and self.say is not None:
            self.say(
                f"{at}: Codex lines of type {kind!r}, a type this reader does not know: kept "
                "as notes"
            )
        self.unknown.add(kind)

    def note(self, note: dict[str, Any]) -> None:
        note = {"at": self.count + (1 if self.turn else 0), **note}
        self.meta.setdefault("notes", []).append(note)

    def emit(self, message: AnyMessage, at: Location) -> AnyMessage:
        self.places.append(at)
        self.count += 1
        return message

    def item(self, item: dict[str, Any], time: Any, at: Location) -> Iterator[AnyMessage]:
        kind = item.get("type", "message")  # as the Responses API reads an item
        role = item.get("role")
        if kind == "ghost_snapshot":  # Codex's undo point: not a turn
            self.note({"timestamp": time, **item})
            return
        if (
            kind in _ASSISTANT_ITEMS
            or (kind == "message" and role == "assistant")
            or (kind not in _OUTPUTS and kind != "message")
        ):
            if kind != "local_shell_call":
                messages_from_items([item])  # a line that cannot be read fails here, in place
            if not self.turn:
                self.turn_at, self.turn_time = at, time
            self.turn.append(item)
            return
        yield from self.close()
        if kind in _OUTPUTS:
            message = self.output(item)
            self._stamp(message, time)
            yield self.emit(message, at)
            return
        content = item.get("content")
        if not isinstance(content, (str, list)):
            raise DataError(
                f'a message\'s "content" must be a list of parts, got {kind_of(content)}'
            )
        [message] = messages_from_items([item])
        if role == "user" and is_context(item):
            message = SystemMessage(
                message.content,
                additional_kwargs={**message.additional_kwargs, "codex": {"context": True}},
            )
        self._stamp(message, time)
        yield self.emit(message, at)

    def output(self, item: dict[str, Any]) -> ToolMessage:
        if item.get("type") == "local_shell_call_output":
            item = {**item, "type": "function_call_output"}
        [message] = messages_from_items([item])
        message.name = self.calls.get(message.tool_call_id) or None
        return message

    def close(self) -> Iterator[AnyMessage]:
        if not self.turn:
            return
        items, self.turn = self.turn, []
        shells = [i for i in items if i.get("type") == "local_shell_call"]
        made = messages_from_items([i for i in items if i.get("type") != "local_shell_call"])
        message = next((m for m in made if isinstance(m, AIMessage)), None) or AIMessage([])
        for shell in shells:  # a call of Codex's built-in shell: its action is the arguments
            action = shell.get("action")
            message.tool_calls.append(
                {
                    "name": "local_shell",
                    "args": action if isinstance(action, dict) else {"action": action},
                    "id": shell.get("call_id") or shell.get("id"),
                    "type": "tool_call",
                }
            )
            message.additional_kwargs.setdefault("items", []).append(
                {k: v for k, v in shell.items() if k != "action"}
            )
        _keep_unparsed(message, items)
        for call in [*message.tool_calls, *message.invalid_tool_calls]:
            if call["id"]:
                self.calls[call["id"]] = call["name"]
        if self.model:
            message.response_metadata["model_name"] = self.model
            message.response_metadata["model_provider"] = "openai"
        self._stamp(message, self.turn_time)
        yield self.emit(message, self.turn_at or self.first)

    def compacted(self, line: dict[str, Any]) -> SystemMessage:
        payload = line["payload"]
        summary = payload.get("message")
        rest = {k: v for k, v in payload.items() if k != "message"}
        kept = {"compacted": True, "timestamp": line.get("timestamp"), **rest}
        text = summary if isinstance(summary, str) else json.dumps(summary, ensure_ascii=False)
        return SystemMessage(text, additional_kwargs={"codex": kept})

    @staticmethod
    def _stamp(message: AnyMessage, time: Any) -> None:
        if isinstance(time, str):
            message.additional_kwargs.setdefault("codex", {})["timestamp"] = time


def _shape_error() -> DataError:
    return DataError(
        "cannot read this line as codex: a field holds a value of another kind than Codex writes",
        hint="check the line against the rollout format, or name another dialect with --from",
    )


def _keep_unparsed(message: AIMessage, items: list[dict[str, Any]]) -> None:
    """Calls whose arguments are not a JSON object become invalid tool calls holding the
    arguments as they were written (the openai writer writes them back so)."""
    from .openai_messages import parse_arguments

    for item in items:
        if item.get("type") != "function_call":
            continue
        args, error = parse_arguments(item.get("arguments"))
        if error is None and isinstance(args, dict):
            continue
        ident = item.get("call_id")
        message.tool_calls[:] = [c for c in message.tool_calls if c["id"] != ident]
        message.invalid_tool_calls.append(
            {
                "type": "invalid_tool_call",
                "name": item.get("name") or "",
                "args": item.get("arguments"),
                "id": ident,
                "error": error or "the arguments are not a JSON object",
            }
        )
