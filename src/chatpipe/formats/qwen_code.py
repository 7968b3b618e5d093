"""Qwen Code session recordings (``~/.qwen/projects/<project>/chats/<session>.jsonl``).

Each line is a record ``{uuid, parentUuid, sessionId, timestamp, type, cwd, version,
gitBranch, ...}`` whose ``type`` is ``user``, ``assistant``, ``tool_result`` or ``system``;
the first three hold a Gemini ``Content`` in ``message`` (``{role: user | model, parts}``).
Model parts are read as the gemini dialect reads them: ``thought`` parts are reasoning,
``functionCall`` parts tool calls; a ``tool_result`` record's ``functionResponse`` parts are
tool messages (their ``output`` or ``error`` as text, as Gemini CLI's), its
``toolCallResult`` (what the terminal showed) their artifact. ``usageMetadata`` is the
usage, ``model`` the model.

- ``parentUuid`` makes a tree (``session_tree``), which Qwen Code follows from the last
  record of the file to its root: that path is the live conversation; ``--branch all``
  gives every branch (a rewind re-roots the chain on an earlier record, leaving the rewound
  turns on a branch of their own). Records written again under one uuid make one message,
  their parts joined in file order, the latest usage kept, as Qwen Code aggregates them.
- A user record Qwen Code wrote itself (``subtype`` notification, cron,
  background_task_completed, or a ``provenance`` other than ``real_user``) is a system
  message, as are the hook context parts it adds to a prompt
  (``<qwen:user-prompt-submit-context>``), after the prompt they came with.
- ``system`` records are not turns but the conversation's ``notes`` (``custom_title``
  gives the title too, the branch's last), but telemetry and snapshots, left out.
- ``isSidechain`` records (a subagent's) never join the main thread; ``--include-subagents``
  gives each agent's records as a conversation of its own.

Fields every record repeats (session id, cwd, version, branch) are the conversation's; a
record's own envelope is kept in ``additional_kwargs["qwen_code"]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location, kind_of
from ..model import AIMessage, AnyMessage, Conversation, HumanMessage, SystemMessage, ToolMessage
from .base import SessionDialect
from .exports import ReadOptions
from .gemini import _usage as gemini_usage
from .gemini import messages_from_contents
from .gemini_calls import Pairing
from .gemini_cli_messages import tool_result as tool_output
from .session_tree import Node, Tree, branches_from_last

_TYPES = frozenset(("user", "assistant", "tool_result", "system"))
_MESSAGES = frozenset(("user", "assistant", "tool_result"))
_SESSION_KEYS = ("sessionId", "cwd", "version", "gitBranch")
_GENERATED = frozenset(("notification", "cron", "background_task_completed"))
_NOT_NOTES = frozenset(("ui_telemetry", "attribution_snapshot", "file_history_snapshot"))
_CONTEXT_TAG = "<qwen:"
SUBAGENTS = "subagents' conversations left out (--include-subagents writes them)"


def is_qwen_code_record(value: Any) -> bool:
    if not (
        isinstance(value, dict)
        and isinstance(value.get("uuid"), str)
        and "parentUuid" in value
        and isinstance(value.get("sessionId"), str)
        and value.get("type") in _TYPES
    ):
        return False
    message = value.get("message")
    if value["type"] == "system":  # (Claude Code's system lines have neither)
        return "systemPayload" in value or "provenance" in value or _is_content(message)
    return _is_content(message)


def _is_content(message: Any) -> bool:
    return (
        isinstance(message, dict)
        and message.get("role") in ("user", "model", "system")
        and isinstance(message.get("parts"), list)
    )


class QwenCodeDialect(SessionDialect):
    name = "qwen-code"
    description = "Qwen Code session recordings (~/.qwen/projects/*/chats/<session>.jsonl)"
    example = "qwen_code__agentsessions_handmade_tool_call_session.jsonl"
    extras_key = "qwen_code"  # (the rest of each record, under additional_kwargs)
    line_hint = "each line is a record {uuid, parentUuid, sessionId, type, message}"

    def is_stream_event(self, value: Any) -> bool:
        return is_qwen_code_record(value)

    def read_records(
        self,
        records: Iterable[Any],
        location: Location,
        options: Any = None,
        handle: Callable[[ChatpipeError], None] | None = None,
    ) -> Iterator[Conversation]:
        options = options if isinstance(options, ReadOptions) else ReadOptions()
        main: dict[str, list[tuple[dict[str, Any], Location]]] = {}
        side: dict[str, dict[str, list[tuple[dict[str, Any], Location]]]] = {}
        last: str | None = None
        for value, at in self.lines(records, handle):
            with self.line_errors(at, handle):
                _check(value)
                if value.get("isSidechain"):
                    agent = str(value.get("agentId") or "")
                    side.setdefault(agent, {}).setdefault(value["uuid"], []).append((value, at))
                    continue
                main.setdefault(value["uuid"], []).append((value, at))
                last = value["uuid"]
        conversations = list(_conversations(main, last, options, location))
        if side and not options.include_subagents:
            for conversation in conversations:
                conversation.left_out = [SUBAGENTS]
        yield from conversations
        if options.include_subagents and conversations:
            yield from _subagents(conversations, side, options, location)


def _subagents(
    main: list[Conversation],
    side: dict[str, dict[str, list[tuple[dict[str, Any], Location]]]],
    options: ReadOptions,
    location: Location,
) -> Iterator[Conversation]:
    """Each subagent's records as conversations of their own, linked to the session and to
    the call whose prompt opened them."""
    calls = {
        c["args"].get("prompt"): c["id"]
        for conversation in main
        for m in conversation.messages
        if isinstance(m, AIMessage)
        for c in m.tool_calls
        if isinstance(c["args"].get("prompt"), str)
    }
    for agent, records_of in side.items():
        for conversation in _conversations(records_of, None, options, location):
            meta = conversation.meta
            if "id" in meta:
                meta["parent_session_id"] = meta["id"]
            meta["id"], meta["agentId"] = f"agent-{agent}", agent
            first = next((r for g in records_of.values() for r, _ in g), {})
            if isinstance(first.get("agentName"), str):
                meta["subagent_type"] = first["agentName"]
            opening = conversation.messages[0].content if conversation.messages else None
            if isinstance(opening, str) and opening in calls:
                meta["parent_tool_call_id"] = calls[opening]
            yield conversation


def _check(value: dict[str, Any]) -> None:
    message = value.get("message")
    if message is None:
        return
    for part in message["parts"]:
        if not isinstance(part, dict):
            raise DataError(
                f'a part of "message.parts" must be an object, got {kind_of(part)}',
                hint="each part is a Gemini part: {text}, {functionCall}, {functionResponse}",
            )


def _conversations(
    records: dict[str, list[tuple[dict[str, Any], Location]]],
    last: str | None,
    options: ReadOptions,
    location: Location,
) -> Iterator[Conversation]:
    nodes = []
    for number, (ident, group) in enumerate(records.items()):
        first = group[0][0]
        parent = first.get("parentUuid")
        nodes.append(
            Node(
                ident,
                parent if isinstance(parent, str) and parent != ident else None,
                number,
                group,
                first["type"] in _MESSAGES and first.get("message") is not None,
                first.get("timestamp"),
            )
        )
    tree = Tree(nodes)
    if not any(n.is_message for n in tree.order):
        yield _build(list(tree.order), location)
        return
    for branch, meta in branches_from_last(tree, last, _absorbable, options, location):
        conversation = _build(branch, location)
        if meta is not None:
            conversation.meta["branch"] = meta
        yield conversation


def _absorbable(node: Node, path: list[Node]) -> bool:
    """A tool result off the path belongs beside it (a result written after its call)."""
    return all(value["type"] == "tool_result" for value, _ in node.value)


def _build(branch: list[Node], location: Location) -> Conversation:
    first = next((n.value[0][0] for n in branch if n.is_message), None) or (
        branch[0].value[0][0] if branch else {}
    )
    consts = {k: first[k] for k in _SESSION_KEYS if k in first}
    builder = _Builder(consts)
    for node in branch:
        builder.add(node)
    meta: dict[str, Any] = {}
    if "sessionId" in consts:
        meta["id"] = consts["sessionId"]
    if builder.title is not None:
        meta["title"] = builder.title
    times = [n.time for n in branch if isinstance(n.time, str)]
    if times:
        meta["created_at"], meta["updated_at"] = times[0], times[-1]
    meta.update({k: v for k, v in consts.items() if k != "sessionId"})
    if builder.notes:
        meta["notes"] = builder.notes
    where = branch[0].value[0][1] if branch else location
    conversation = Conversation(builder.messages, meta, where)
    conversation.places = builder.places
    return conversation


class _Builder:
    """A branch's records made messages in order, tool results paired with their calls."""

    def __init__(self, consts: dict[str, Any]) -> None:
        self.consts = consts
        self.messages: list[AnyMessage] = []
        self.places: list[Location] = []
        self.notes: list[dict[str, Any]] = []
        self.title: str | None = None
        self.pairing = Pairing()
        self.names: dict[str, str] = {}  # call id -> tool name

    def envelope(self, value: dict[str, Any]) -> dict[str, Any]:
        return {
            k: v
            for k, v in value.items()
            if k not in ("type", "message", "uuid", "toolCallResult")
            and not (k in self.consts and self.consts[k] == v)
        }

    def emit(self, made: list[AnyMessage], at: Location) -> None:
        self.messages.extend(made)
        self.places.extend([at] * len(made))

    def add(self, node: Node) -> None:
        group: list[tuple[dict[str, Any], Location]] = node.value
        value, at = group[0]
        if not node.is_message:
            for record, _ in group:
                self.system(record)
            return
        parts = [p for record, _ in group for p in (record.get("message") or {}).get("parts", [])]
        envelope = self.envelope(value)
        if len(group) > 1:
            envelope["merged"] = [
                {k: v for k, v in self.envelope(r).items() if k in ("timestamp", "parentUuid")}
                for r, _ in group[1:]
            ]
        kind = value["type"]
        if kind == "assistant":
            self.emit([self.model(group, parts, node.ident, envelope)], at)
        elif kind == "tool_result":
            self.emit(self.results(group, parts, envelope), at)
        else:
            self.emit(self.user(value, parts, node.ident, envelope), at)

    def system(self, record: dict[str, Any]) -> None:
        subtype = record.get("subtype")
        payload = record.get("systemPayload")
        if isinstance(payload, dict) and isinstance(payload.get("customTitle"), str):
            self.title = payload["customTitle"]
        if subtype in _NOT_NOTES:
            return
        note = {"at": len(self.messages), "type": "system", "uuid": record["uuid"]}
        self.notes.append({**note, **self.envelope(record)})

    def user(
        self, value: dict[str, Any], parts: list[Any], ident: str, envelope: dict[str, Any]
    ) -> list[AnyMessage]:
        context = [p for p in parts if str(p.get("text", "")).lstrip().startswith(_CONTEXT_TAG)]
        prompt = [p for p in parts if not any(p is c for c in context)]
        out: list[AnyMessage] = []
        if prompt or not context:
            [made] = messages_from_contents([{"role": "user", "parts": prompt}], self.pairing)
            generated = value.get("subtype") in _GENERATED or value.get("provenance") not in (
                None,
                "real_user",
            )
            cls = SystemMessage if generated else HumanMessage
            out.append(cls(made.content, id=ident, additional_kwargs={"qwen_code": envelope}))
        if context:
            [made] = messages_from_contents([{"role": "user", "parts": context}], self.pairing)
            out.append(
                SystemMessage(made.content, additional_kwargs={"qwen_code": {"context": True}})
            )
        return out

    def model(
        self,
        group: list[tuple[dict[str, Any], Location]],
        parts: list[Any],
        ident: str,
        envelope: dict[str, Any],
    ) -> AIMessage:
        made = messages_from_contents([{"role": "model", "parts": parts}], self.pairing)
        message = made[0] if made else AIMessage("")
        if not isinstance(message, AIMessage):
            raise DataError("an assistant record's parts made no model turn")
        for call in message.tool_calls:
            self.names[call["id"] or ""] = call["name"]
        message.id = ident
        usage = [r["usageMetadata"] for r, _ in group if isinstance(r.get("usageMetadata"), dict)]
        if usage:
            message.usage_metadata = gemini_usage(usage[-1])
        model = next((r["model"] for r, _ in group if isinstance(r.get("model"), str)), None)
        message.response_metadata["model_provider"] = "qwen_code"
        if model:
            message.response_metadata["model_name"] = model
        envelope.pop("model", None)
        message.additional_kwargs["qwen_code"] = envelope
        return message

    def results(
        self, group: list[tuple[dict[str, Any], Location]], parts: list[Any], envelope: dict
    ) -> list[AnyMessage]:
        found = [r["toolCallResult"] for r, _ in group if "toolCallResult" in r]
        shown = found[-1] if found else None
        status = shown.get("status") if isinstance(shown, dict) else None
        out: list[AnyMessage] = []
        for part in parts:
            response = part.get("functionResponse")
            if not isinstance(response, dict):
                [made] = messages_from_contents([{"role": "user", "parts": [part]}], self.pairing)
                out.append(made)
                continue
            call = self.pairing.response_id(response)
            text, rest = tool_output([part])
            failed = status in ("error", "cancelled") or "error" in rest
            out.append(
                ToolMessage(
                    text,
                    tool_call_id=call,
                    name=response.get("name") or self.names.get(call) or None,
                    status="error" if failed else "success",
                    artifact=shown if len(parts) == 1 else None,
                    additional_kwargs={"qwen_code": {**envelope, **rest}},
                )
            )
        if len(out) > 1 and shown is not None:
            out[0].additional_kwargs["qwen_code"]["toolCallResult"] = shown
        return out
