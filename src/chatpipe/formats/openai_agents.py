"""OpenAI Agents SDK trace exports: what its tracing processors send or write, traces
``{object: "trace", id, workflow_name, group_id, metadata}`` and spans ``{object:
"trace.span", id, trace_id, parent_id, started_at, ended_at, span_data, error}``, one a
line, in a JSON array, or in the exporter's batches ``{"data": [...]}``.

A conversation per trace (its ``workflow_name`` the title), its spans taken in the order
they started, each message named after the agent whose span holds it:

- ``generation`` spans (models called through Chat Completions) hold the model's input
  (chat messages, the agent's instructions first) and output: the first instructions as
  a system message, the input messages not yet in the conversation, the instructions
  again where they changed (a handoff: the next agent's), then the output (text, calls);
- ``function`` spans hold a tool's call and output (``input`` the arguments as JSON text):
  a tool message answering the oldest call of that tool still waiting, or, where no model
  output holds the call (a ``response`` span's), a call of its own (its id the span's)
  and its output; an ``error`` makes it a failed result;
- ``response`` spans (the Responses API, the SDK's default) name the model's answer by
  its ``response_id`` only: the model's text is not in the trace, which the run says;
- ``handoff`` spans (``from_agent`` to ``to_agent``), ``agent`` spans (an agent's turn,
  its tools and handoffs), guardrails, custom, MCP and speech spans are the
  conversation's ``notes``.

A span's other fields are kept in ``additional_kwargs["openai_agents"]`` on the messages
it gives.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location, kind_of
from ..model import AIMessage, AnyMessage, Conversation, SystemMessage, ToolMessage
from .base import SessionDialect
from .openai_messages import message_from_dict, parse_arguments

_INSTRUCTIONS = ("system", "developer")
REPLIES = "model replies (the trace's response spans name them by response_id only)"


def _is_item(value: Any) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("id"), str):
        return False
    if value.get("object") == "trace":
        return True
    return value.get("object") == "trace.span" and isinstance(value.get("span_data"), dict)


def is_trace_record(value: Any) -> bool:
    """A trace or span, or an exporter's batch of them."""
    if _is_item(value):
        return True
    data = value.get("data") if isinstance(value, dict) else None
    return isinstance(data, list) and bool(data) and _is_item(data[0]) and len(value) == 1


class OpenAIAgentsDialect(SessionDialect):
    name = "openai-agents"
    description = "OpenAI Agents SDK trace exports {object: trace | trace.span}: a chat per trace"
    example = "openai_agents__documented_chat_completions_handoff_trace.jsonl"
    extras_key = "openai_agents"  # (a span's fields, under additional_kwargs)
    line_hint = 'each line is a trace, a span ({"object": "trace.span"}) or {"data": [...]}'

    def is_stream_event(self, value: Any) -> bool:
        return is_trace_record(value)

    def read_records(
        self,
        records: Iterable[Any],
        location: Location,
        options: Any = None,
        handle: Callable[[ChatpipeError], None] | None = None,
    ) -> Iterator[Conversation]:
        traces: dict[str, dict[str, Any]] = {}
        spans: dict[str, list[tuple[int, dict[str, Any], Location]]] = {}
        places: dict[str, Location] = {}
        count = 0
        for value, at in self.lines(records, handle):
            for item in value.get("data", [value]):
                with self.line_errors(at, handle):
                    if not _is_item(item):
                        raise DataError(
                            f"an exported item must be a trace or a span, got {kind_of(item)}"
                        )
                    count += 1
                    trace = item["id"] if item["object"] == "trace" else item.get("trace_id")
                    if not isinstance(trace, str):
                        raise DataError("a span has no trace_id", hint="each span names its trace")
                    places.setdefault(trace, at)
                    if item["object"] == "trace":
                        traces[trace] = item
                    else:
                        spans.setdefault(trace, []).append((count, item, at))
        for trace, at in places.items():
            yield _conversation(traces.get(trace, {"id": trace}), spans.get(trace, []), at)


def _conversation(
    trace: dict[str, Any], spans: list[tuple[int, dict[str, Any], Location]], at: Location
) -> Conversation:
    meta: dict[str, Any] = {"id": trace["id"]}
    if isinstance(trace.get("workflow_name"), str):
        meta["title"] = trace["workflow_name"]
    meta.update({k: v for k, v in trace.items() if k not in ("object", "id", "workflow_name")})
    ordered = sorted(spans, key=lambda s: (str(s[1].get("started_at") or ""), s[0]))
    times = [s.get("started_at") for _, s, _ in ordered if isinstance(s.get("started_at"), str)]
    ends = [s.get("ended_at") for _, s, _ in ordered if isinstance(s.get("ended_at"), str)]
    if times:
        meta["created_at"], meta["updated_at"] = times[0], max(ends or times)
    builder = _Builder({s["id"]: s for _, s, _ in spans})
    for _, span, place in ordered:
        builder.add(span, place)
    if builder.notes:
        meta["notes"] = builder.notes
    conversation = Conversation(builder.messages, meta, at)
    conversation.places = builder.places
    if builder.replies_left:
        conversation.left_out = [REPLIES]
    return conversation


class _Builder:
    """A trace's spans made messages: instructions, new input, output, tool results."""

    def __init__(self, spans: dict[str, dict[str, Any]]) -> None:
        self.spans = spans
        self.messages: list[AnyMessage] = []
        self.places: list[Location] = []
        self.notes: list[dict[str, Any]] = []
        self.instructions: str | None = None
        self.consumed = 0  # the input messages (beside instructions) already read
        self.waiting: list[tuple[str, str]] = []  # calls with no result yet: (id, name)
        self.answered: set[str] = set()
        self.replies_left = False

    def agent(self, span: dict[str, Any]) -> str | None:
        """The name of the agent whose span holds this one."""
        seen: set[str] = set()
        node: dict[str, Any] | None = span
        while node is not None and node["id"] not in seen:
            seen.add(node["id"])
            data = node["span_data"]
            if data.get("type") == "agent" and isinstance(data.get("name"), str):
                return data["name"]
            parent = node.get("parent_id")
            node = self.spans.get(parent) if isinstance(parent, str) else None
        return None

    def emit(self, message: AnyMessage, at: Location) -> None:
        self.messages.append(message)
        self.places.append(at)

    def add(self, span: dict[str, Any], at: Location) -> None:
        data = span["span_data"]
        kind = data.get("type")
        envelope = {k: v for k, v in span.items() if k not in ("object", "span_data", "trace_id")}
        if kind == "generation":
            self.generation(span, data, envelope, at)
        elif kind == "function":
            self.function(span, data, envelope, at)
        else:
            if kind == "response":
                self.replies_left = True
            note = {"at": len(self.messages), **data, **envelope}
            self.notes.append(note)

    def generation(
        self, span: dict[str, Any], data: dict[str, Any], envelope: dict[str, Any], at: Location
    ) -> None:
        name = self.agent(span)
        given = data.get("input") if isinstance(data.get("input"), list) else []
        system = [
            m for m in given if isinstance(m, dict) and m.get("role") in ("system", "developer")
        ]
        rest = [m for m in given if not any(m is s for s in system)]
        instructions = "\n\n".join(str(m.get("content") or "") for m in system) or None
        changed = instructions is not None and instructions != self.instructions
        if changed and self.instructions is None:  # the first: before the whole input
            self.emit(SystemMessage(instructions, name=name), at)
        for item in rest[self.consumed :]:
            message = _read(item)
            if isinstance(message, ToolMessage) and message.tool_call_id in self.answered:
                continue  # a function span gave it already
            self.take(message, at)
        if changed and self.instructions is not None:  # a handoff's: before this call's output
            self.emit(SystemMessage(instructions, name=name), at)
        self.instructions = instructions if changed else self.instructions
        outputs = data.get("output") if isinstance(data.get("output"), list) else []
        self.consumed = len(rest) + len(outputs)
        kept = {k: v for k, v in data.items() if k not in ("type", "input", "output")}
        for item in outputs:
            message = _read(item)
            if isinstance(message, AIMessage):
                message.name = message.name or name
                message.usage_metadata = message.usage_metadata or _usage(data.get("usage"))
                message.additional_kwargs["openai_agents"] = {**kept, **envelope}
                if isinstance(data.get("model"), str):
                    message.response_metadata["model_name"] = data["model"]
            self.take(message, at)

    def take(self, message: AnyMessage, at: Location) -> None:
        if isinstance(message, AIMessage):
            self.waiting += [(c["id"] or "", c["name"]) for c in message.tool_calls]
        elif isinstance(message, ToolMessage):
            called = next((n for i, n in self.waiting if i == message.tool_call_id), None)
            message.name = message.name or called
            self.answered.add(message.tool_call_id)
            self.waiting = [w for w in self.waiting if w[0] != message.tool_call_id]
        self.emit(message, at)

    def function(
        self, span: dict[str, Any], data: dict[str, Any], envelope: dict[str, Any], at: Location
    ) -> None:
        name = str(data.get("name") or "")
        found = next((w for w in self.waiting if w[1] == name), None)
        if found is not None:
            self.waiting.remove(found)
            ident = found[0]
        else:  # no model output holds the call: the span is the call
            ident = span["id"]
            args, error = parse_arguments(data.get("input"))
            call = {"name": name, "args": args, "id": ident}
            made = (
                AIMessage("", tool_calls=[call], name=self.agent(span))
                if error is None
                else AIMessage(
                    "",
                    invalid_tool_calls=[{**call, "args": data.get("input"), "error": error}],
                    name=self.agent(span),
                )
            )
            made.additional_kwargs["openai_agents"] = {"from_function_span": True}
            self.emit(made, at)
        self.answered.add(ident)
        error = span.get("error")
        output = data.get("output")
        if output is None and isinstance(error, dict):  # the tool's own words, or the SDK's
            detail = error.get("data") if isinstance(error.get("data"), dict) else {}
            output = detail.get("error") if isinstance(detail.get("error"), str) else None
            output = output or error.get("message")
        kept = {k: v for k, v in data.items() if k not in ("type", "name", "output")}
        self.emit(
            ToolMessage(
                output if isinstance(output, str) else "",
                tool_call_id=ident,
                name=name or None,
                status="error" if error else "success",
                additional_kwargs={"openai_agents": {**kept, **envelope}},
            ),
            at,
        )


def _read(item: Any) -> AnyMessage:
    if not isinstance(item, dict):
        raise DataError(f"a generation's message must be an object, got {kind_of(item)}")
    return message_from_dict({k: v for k, v in item.items() if v is not None or k == "content"})


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
