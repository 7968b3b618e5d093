"""GitHub Copilot CLI session logs (``~/.copilot/session-state/<session>/events.jsonl``).

Each line is an event ``{type, data, id, timestamp, parentId}``, its ``type`` dotted
(``session.start``, ``user.message``, ``tool.execution_complete``, ...). The chat is in
``system.message`` (the system prompt), ``user.message`` (``content`` what was typed; what
was sent, ``transformedContent``, is kept beside it), ``assistant.reasoning`` and
``assistant.message`` (its ``reasoningText`` and ``reasoningOpaque`` signature a reasoning
block, its ``toolRequests`` the tool calls), and ``tool.execution_complete`` (a tool
message, paired with its call by ``toolCallId``; the ``tool.execution_start`` before it is
kept with it). ``session.start`` gives the conversation's fields, ``session.shutdown`` its
usage (``shutdown``); other session events, aborts, notifications, failed hooks and
subagents starting and ending are its ``notes``; turn starts and ends say nothing.

``parentId`` chains each event to the one before it (a parent not in the file, or an id
that several events have, is taken for the event before); the live conversation is the
chain from the last event back to the first, and ``--branch all`` gives any other branch.
A subagent's events (``data.parentToolCallId``, the ``task`` call that started it) never
join the main thread; ``--include-subagents`` gives each as a conversation of its own,
opening with the prompt its call gave it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location, kind_of
from ..model import AIMessage, AnyMessage, Conversation, HumanMessage, SystemMessage, ToolMessage
from .base import SessionDialect
from .exports import ReadOptions
from .openai_messages import parse_arguments
from .session_tree import Node, Tree, branches_from_last

_MESSAGES = frozenset(("system.message", "user.message", "assistant.message"))
_SILENT = frozenset(("assistant.turn_start", "assistant.turn_end", "hook.start"))
SUBAGENTS = "subagents' conversations left out (--include-subagents writes them)"


def is_copilot_event(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("type"), str)
        and isinstance(value.get("data"), dict)
        and isinstance(value.get("id"), str)
        and "parentId" in value
        and "timestamp" in value
    )


def _agent(event: dict[str, Any]) -> str | None:
    """The task call whose subagent wrote an event; None for the main thread's."""
    call = event["data"].get("parentToolCallId")
    if isinstance(call, str):
        return call
    agent = event.get("agentId")
    if isinstance(agent, str) and not event["type"].startswith("subagent."):
        return agent
    return None


class CopilotCliDialect(SessionDialect):
    name = "copilot-cli"
    description = "GitHub Copilot CLI session events (session-state/<session>/events.jsonl)"
    example = "copilot_cli__sessionviewer_subagent_session_events.jsonl"
    extras_key = "copilot_cli"  # (the rest of each event's data, under additional_kwargs)
    line_hint = "each line is an event {type, data, id, timestamp, parentId}"

    def is_stream_event(self, value: Any) -> bool:
        return is_copilot_event(value)

    def read_records(
        self,
        records: Iterable[Any],
        location: Location,
        options: Any = None,
        handle: Callable[[ChatpipeError], None] | None = None,
    ) -> Iterator[Conversation]:
        options = options if isinstance(options, ReadOptions) else ReadOptions()
        main: list[Node] = []
        seen: dict[str, int] = {}  # event id -> how many events have it
        side: dict[str, list[tuple[dict[str, Any], Location]]] = {}
        for number, (event, at) in enumerate(self.lines(records, handle)):
            with self.line_errors(at, handle):
                _check(event)
                agent = _agent(event)
                if agent is not None:
                    side.setdefault(agent, []).append((event, at))
                    continue
                parent, ident = event.get("parentId"), event["id"]
                if main and (parent not in seen or seen[parent] > 1 or ident in seen):
                    parent = main[-1].ident  # an event gone, or ids made alike: the one before
                seen[ident] = seen.get(ident, 0) + 1
                if seen[ident] > 1:
                    ident = f"{ident}#{number}"
                is_message = event["type"] in _MESSAGES or event["type"].startswith("tool.")
                main.append(
                    Node(
                        ident,
                        parent,
                        number,
                        (event, at),
                        is_message,
                        event.get("timestamp"),
                    )
                )
        tree = Tree(main)
        last = main[-1].ident if main else None
        found = list(branches_from_last(tree, last, _absorbable, options, location))
        if not found:
            found = [(list(tree.order), None)]
        conversations = []
        for nodes, branch in found:
            conversation = _Builder().build([n.value for n in nodes], location)
            if branch is not None:
                conversation.meta["branch"] = branch
            conversations.append(conversation)
        if side and not options.include_subagents:
            for conversation in conversations:
                conversation.left_out = [SUBAGENTS]
        yield from conversations
        if options.include_subagents:
            yield from _subagents(conversations[0], side, location)


def _check(event: dict[str, Any]) -> None:
    data, kind = event["data"], event["type"]
    if kind in _MESSAGES and not isinstance(data.get("content", ""), str):
        raise DataError(
            f'a {kind} event\'s "data.content" must be text, got {kind_of(data["content"])}',
            hint="the message's text is its data's content",
        )


def _absorbable(node: Node, path: list[Node]) -> bool:
    """Any event but a prompt beside the path belongs to it (a tool's end, a note)."""
    return node.value[0]["type"] != "user.message"


def _subagents(
    main: Conversation, side: dict[str, list[tuple[dict[str, Any], Location]]], location: Location
) -> Iterator[Conversation]:
    calls = {c["id"]: c for m in main.messages if isinstance(m, AIMessage) for c in m.tool_calls}
    names = {
        n.get("toolCallId"): n.get("agentName")
        for n in main.meta.get("notes", ())
        if n.get("type") == "subagent.started"
    }
    for call, events in side.items():
        conversation = _Builder().build(events, location)
        prompt = calls.get(call, {}).get("args", {}).get("prompt")
        if isinstance(prompt, str):
            opening = HumanMessage(prompt, additional_kwargs={"copilot_cli": {"from_call": call}})
            conversation.messages.insert(0, opening)
            conversation.places.insert(0, conversation.places[0] if conversation.places else None)
        meta = conversation.meta
        meta.update({"id": f"agent-{call}", "agentId": names.get(call) or call})
        meta["parent_tool_call_id"] = call
        if "id" in main.meta:
            meta["parent_session_id"] = main.meta["id"]
        if names.get(call):
            meta["subagent_type"] = names[call]
        yield conversation


class _Builder:
    """Events made messages in order: reasoning joined to the reply after it, a tool's
    start kept for its end, the rest fields or notes."""

    def __init__(self) -> None:
        self.messages: list[AnyMessage] = []
        self.places: list[Location] = []
        self.meta: dict[str, Any] = {}
        self.notes: list[dict[str, Any]] = []
        self.reasoning: list[dict[str, Any]] = []  # assistant.reasoning before its reply
        self.started: dict[str, dict[str, Any]] = {}  # call id -> its execution_start data
        self.names: dict[str, str] = {}  # call id -> tool name
        self.model: str | None = None

    def build(self, events: list[tuple[dict[str, Any], Location]], location: Location) -> Any:
        for event, at in events:
            self.add(event, at)
        times = [e.get("timestamp") for e, _ in events if isinstance(e.get("timestamp"), str)]
        if times:
            self.meta.setdefault("created_at", times[0])
            self.meta["updated_at"] = times[-1]
        for data in self.started.values():  # a tool that never ended (an abort)
            self.notes.append({"at": len(self.messages), "type": "tool.execution_start", **data})
        if self.notes:
            self.meta["notes"] = self.notes
        conversation = Conversation(self.messages, self.meta, events[0][1] if events else location)
        conversation.places = self.places
        return conversation

    def emit(self, message: AnyMessage, at: Location) -> None:
        self.messages.append(message)
        self.places.append(at)

    def add(self, event: dict[str, Any], at: Location) -> None:
        kind, data = event["type"], event["data"]
        rest = {k: v for k, v in data.items() if k not in ("content", "parentToolCallId")}
        envelope = {**_place(event), **rest}
        if kind == "session.start":
            self.session(data)
            self.meta["start_event"] = _place(event)
        elif kind == "session.shutdown":
            self.meta["shutdown"] = {**data, **_place(event)}
        elif kind == "system.message":
            self.emit(SystemMessage(data.get("content", ""), **_kept(envelope)), at)
        elif kind == "user.message":
            self.emit(HumanMessage(data.get("content", ""), **_kept(envelope)), at)
        elif kind == "assistant.reasoning":
            block = {"type": "reasoning", "reasoning": str(data.get("content") or "")}
            extras = {k: v for k, v in data.items() if k not in ("content", "parentToolCallId")}
            block.update({"extras": extras} if extras else {})
            self.reasoning.append(block)
        elif kind == "assistant.message":
            self.emit(self.reply(event, data), at)
        elif kind == "tool.execution_start":
            if isinstance(data.get("toolCallId"), str):
                self.started[data["toolCallId"]] = {**data, **_place(event)}
        elif kind == "tool.execution_complete":
            self.emit(self.result(event, data), at)
        elif kind == "session.model_change" and isinstance(data.get("newModel"), str):
            self.model = data["newModel"]
            self.note(event)
        elif kind not in _SILENT and not (kind == "hook.end" and data.get("success") is True):
            self.note(event)

    def session(self, data: dict[str, Any]) -> None:
        if isinstance(data.get("sessionId"), str):
            self.meta["id"] = data["sessionId"]
        if isinstance(data.get("startTime"), str):
            self.meta["created_at"] = data["startTime"]
        self.meta.update({k: v for k, v in data.items() if k not in ("sessionId", "startTime")})
        if isinstance(data.get("selectedModel"), str):
            self.model = data["selectedModel"]

    def note(self, event: dict[str, Any]) -> None:
        fields = {k: v for k, v in event.items() if k not in ("type", "data")}
        self.notes.append(
            {"at": len(self.messages), "type": event["type"], **event["data"], **fields}
        )

    def reply(self, event: dict[str, Any], data: dict[str, Any]) -> AIMessage:
        blocks, self.reasoning = self.reasoning, []
        thought = data.get("reasoningText")
        signature = data.get("reasoningOpaque") or data.get("encryptedContent")
        if (isinstance(thought, str) and thought) or signature:
            block: dict[str, Any] = {"type": "reasoning", "reasoning": thought or ""}
            if signature:
                block["extras"] = {"signature": signature}
            blocks.append(block)
        text = data.get("content") or ""
        if blocks and text:
            blocks.append({"type": "text", "text": text})
        calls, invalid, requests = [], [], []
        for request in data.get("toolRequests") or ():
            if not isinstance(request, dict):
                continue
            ident, name = str(request.get("toolCallId") or ""), str(request.get("name") or "")
            self.names[ident] = name
            args, error = parse_arguments(request.get("arguments"))
            if error is None:
                calls.append({"name": name, "args": args, "id": ident})
            else:
                bad = {"name": name, "args": request.get("arguments"), "id": ident}
                invalid.append({"type": "invalid_tool_call", **bad, "error": error})
            kept = {
                k: v for k, v in request.items() if k not in ("toolCallId", "name", "arguments")
            }
            requests.append({"toolCallId": ident, **kept})
        used = ("content", "toolRequests", "reasoningText", "reasoningOpaque", "encryptedContent")
        extras = {k: v for k, v in data.items() if k not in (*used, "messageId", "model")}
        extras.update(_place(event))
        if requests:
            extras["toolRequests"] = requests
        metadata: dict[str, Any] = {"model_provider": "github_copilot"}
        model = data.get("model") if isinstance(data.get("model"), str) else self.model
        if model:
            metadata["model_name"] = model
        return AIMessage(
            blocks if blocks else text,
            id=data.get("messageId") if isinstance(data.get("messageId"), str) else event["id"],
            tool_calls=calls,
            invalid_tool_calls=invalid,
            response_metadata=metadata,
            additional_kwargs={"copilot_cli": extras},
        )

    def result(self, event: dict[str, Any], data: dict[str, Any]) -> ToolMessage:
        ident = str(data.get("toolCallId") or "")
        result = data.get("result") if isinstance(data.get("result"), dict) else {}
        content = result.get("content")
        error = data.get("error")
        if not isinstance(content, str):
            content = error.get("message") if isinstance(error, dict) else error
        extras = {k: v for k, v in data.items() if k not in ("toolCallId", "result")}
        start = self.started.pop(ident, {})
        name = start.get("toolName") or self.names.get(ident)
        start = {k: v for k, v in start.items() if k not in ("toolCallId", "toolName", "turnId")}
        if start:
            extras["start"] = start
        extras.update(_place(event))
        rest = {k: v for k, v in result.items() if k != "content"}
        return ToolMessage(
            content if isinstance(content, str) else "",
            tool_call_id=ident,
            name=name if isinstance(name, str) and name else None,
            status="error" if data.get("success") is False else "success",
            artifact=rest or None,
            additional_kwargs={"copilot_cli": extras},
        )


def _place(event: dict[str, Any]) -> dict[str, Any]:
    """Where an event stands: its id, time and parent (kept with what it gives)."""
    return {
        "event": event["id"],
        "timestamp": event.get("timestamp"),
        "parentId": event["parentId"],
    }


def _kept(envelope: dict[str, Any]) -> dict[str, Any]:
    return {"id": envelope["event"], "additional_kwargs": {"copilot_cli": envelope}}
