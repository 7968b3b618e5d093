"""Cohere's first chat API (``/v1/chat``), which the ``cohere`` dialect reads beside v2.

A request is ``{message, chat_history, preamble, model, tools, tool_results, documents,
...}``; a response ``{response_id, text, generation_id, chat_history, finish_reason,
tool_calls, citations, documents, meta}``, whose ``chat_history`` holds the turns with the
answer last; a stream's events are ``{is_finished, event_type}`` (``stream-start``,
``text-generation``, ``tool-calls-generation``, ``stream-end`` with the whole response).
History entries are ``{role: USER | CHATBOT | SYSTEM | TOOL, message}``: a ``CHATBOT``
turn's ``tool_calls`` (``{name, parameters}``, no ids) are its calls, a ``TOOL`` turn's
``tool_results`` (``{call, outputs}``) a tool message each, paired with the calls by order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location, ValidationError
from ..model import AIMessage, AnyMessage, Conversation, ToolMessage
from .openai_messages import message_from_dict
from .tool_links import link_tool_results

_ROLES = {"USER": "user", "CHATBOT": "assistant", "SYSTEM": "system"}
EVENTS = frozenset(
    ("stream-start", "text-generation", "tool-calls-generation", "tool-calls-chunk")
) | frozenset(("search-queries-generation", "search-results", "citation-generation", "stream-end"))


def _history(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(
            isinstance(t, dict) and str(t.get("role")).upper() in (*_ROLES, "TOOL") for t in value
        )
    )


def is_response(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("text"), str)
        and any(k in value for k in ("generation_id", "response_id"))
        and ("chat_history" in value or "finish_reason" in value)
    )


def is_request(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("message"), str)
        and (_history(value.get("chat_history")) or isinstance(value.get("preamble"), str))
        and "messages" not in value
    )


def is_event(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("event_type") in EVENTS
        and isinstance(value.get("is_finished"), bool)
    )


def _calls(calls: Any) -> list[dict[str, Any]]:
    made = []
    for call in calls or ():
        if not isinstance(call, dict):
            raise ValidationError("a Cohere tool call must be an object {name, parameters}")
        function = {"name": call.get("name"), "arguments": call.get("parameters") or {}}
        made.append({"type": "function", "function": function})
    return made


def _turns(entry: Any) -> list[AnyMessage]:
    """The messages of one history entry (a tool turn: a message per result)."""
    if not isinstance(entry, dict):
        raise ValidationError("a Cohere history entry must be an object {role, message}")
    role = str(entry.get("role")).upper()
    rest = {
        k: v for k, v in entry.items() if k not in ("role", "message", "tool_calls", "tool_results")
    }
    if role == "TOOL":
        results = entry.get("tool_results") or []
        return [_result(r) for r in results]
    if role not in _ROLES:
        raise ValidationError(
            f"Cohere roles are USER, CHATBOT, SYSTEM and TOOL, got {entry.get('role')!r}"
        )
    fields: dict[str, Any] = {"role": _ROLES[role], "content": entry.get("message") or ""}
    if entry.get("tool_calls"):
        fields["tool_calls"] = _calls(entry["tool_calls"])
    if rest:
        fields["additional_kwargs"] = {"cohere": rest}
    return [message_from_dict(fields)]


def _result(result: Any) -> ToolMessage:
    if not isinstance(result, dict):
        raise ValidationError("a Cohere tool result must be an object {call, outputs}")
    outputs = result.get("outputs")
    text = json.dumps(outputs, ensure_ascii=False) if not isinstance(outputs, str) else outputs
    call = result.get("call") if isinstance(result.get("call"), dict) else {}
    return message_from_dict({"role": "tool", "content": text, "name": call.get("name")})


def _history_messages(history: Any, location: Location) -> list[AnyMessage]:
    messages: list[AnyMessage] = []
    for index, entry in enumerate(history or ()):
        try:
            messages.extend(_turns(entry))
        except ChatpipeError as exc:
            raise exc.located(location.at_message(index)) from None
    return messages


def read_request(value: dict[str, Any], location: Location) -> Conversation:
    messages: list[AnyMessage] = []
    if isinstance(value.get("preamble"), str) and value["preamble"]:
        messages.append(message_from_dict({"role": "system", "content": value["preamble"]}))
    messages += _history_messages(value.get("chat_history"), location)
    if value["message"]:
        messages.append(message_from_dict({"role": "user", "content": value["message"]}))
    messages += [_result(r) for r in value.get("tool_results") or ()]
    meta = {
        k: v
        for k, v in value.items()
        if k not in ("preamble", "chat_history", "message", "tool_results")
    }
    if isinstance(meta.get("tools"), list):
        meta["tools"] = [_tool(t) for t in meta["tools"]]
    return Conversation(list(link_tool_results(messages)), meta, location)


# v1's parameter types (Python's names) as JSON Schema's
_TYPES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}
_TYPES |= {"list": "array", "dict": "object", "List": "array", "Dict": "object"}


def _tool(tool: Any) -> Any:
    """A v1 tool ``{name, description, parameter_definitions}`` as an OpenAI function
    tool (every writer knows those); any other item as it is."""
    if not isinstance(tool, dict) or not isinstance(tool.get("parameter_definitions"), dict):
        return tool
    properties, required = {}, []
    for name, given in tool["parameter_definitions"].items():
        given = given if isinstance(given, dict) else {}
        kind = given.get("type")
        prop = {"type": _TYPES.get(kind, kind)} if isinstance(kind, str) else {}
        if isinstance(given.get("description"), str):
            prop["description"] = given["description"]
        properties[name] = prop
        if given.get("required"):
            required.append(name)
    schema = {"type": "object", "properties": properties, "required": required}
    function = {k: v for k, v in tool.items() if k != "parameter_definitions"}
    return {"type": "function", "function": {**function, "parameters": schema}}


def read_response(value: dict[str, Any], location: Location) -> Conversation:
    messages = _history_messages(value.get("chat_history"), location)
    last = messages[-1] if messages else None
    if not (isinstance(last, AIMessage) and last.content == value["text"]):
        fields = {"role": "assistant", "content": value["text"]}
        if value.get("tool_calls"):
            fields["tool_calls"] = _calls(value["tool_calls"])
        last = message_from_dict(fields)
        messages.append(last)
    metadata = {k: v for k, v in value.items() if k not in ("text", "chat_history", "tool_calls")}
    metadata["model_provider"] = "cohere"
    last.response_metadata = metadata
    if isinstance(value.get("generation_id"), str):
        last.id = value["generation_id"]
    tokens = (
        (value.get("meta") or {}).get("tokens") if isinstance(value.get("meta"), dict) else None
    )
    if isinstance(tokens, dict) and isinstance(last, AIMessage):
        given, produced = tokens.get("input_tokens") or 0, tokens.get("output_tokens") or 0
        if isinstance(given, (int, float)) and isinstance(produced, (int, float)):
            last.usage_metadata = {
                "input_tokens": int(given),
                "output_tokens": int(produced),
                "total_tokens": int(given + produced),
            }
    meta = {k: v for k, v in value.items() if k not in ("text", "chat_history")}
    return Conversation(list(link_tool_results(messages)), meta, location)


def read_events(values: Iterable[Any], location: Location) -> Iterator[Conversation]:
    """A stream's events: each ``stream-end``'s response, or (a stream cut short) the
    text its ``text-generation`` events spelled."""
    text = ""
    started = False
    for value in values:
        kind = value.get("event_type") if isinstance(value, dict) else None
        if kind not in EVENTS:
            raise DataError(
                "not a Cohere chat event", location, hint="an event_type such as text-generation"
            )
        started = True
        if kind == "text-generation" and isinstance(value.get("text"), str):
            text += value["text"]
        elif kind == "stream-end" and is_response(value.get("response")):
            yield read_response(value["response"], location)
            text, started = "", False
    if started and text:
        yield Conversation([AIMessage(text)], {}, location)
