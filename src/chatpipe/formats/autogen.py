"""Microsoft AutoGen's messages: autogen-core ``LLMMessage`` lists and AgentChat messages,
as the framework dumps them (``model_dump``), one a record (a JSON array, JSONL) or inside
what holds them.

Each message names its kind in ``type`` and its speaker in ``source`` (the message's
name here: a team's agents are many speakers):

- ``SystemMessage``, ``UserMessage`` (text, or a list of texts and images ``{data}``),
  ``AssistantMessage`` (text, or a list of ``FunctionCall`` ``{id, name, arguments}``: its
  tool calls; ``thought`` its reasoning) and ``FunctionExecutionResultMessage`` (a tool
  message per ``FunctionExecutionResult``, paired with its call by ``call_id``);
- AgentChat's chat messages (``TextMessage``, ``MultiModalMessage``, ``HandoffMessage``,
  ``ToolCallSummaryMessage``, ``StopMessage``, ``StructuredMessage``: a human turn when
  the source is ``user``, the agent's turn otherwise, ``models_usage`` its usage),
  ``ToolCallRequestEvent`` (calls) and ``ToolCallExecutionEvent`` (results), and
  ``ThoughtEvent`` (reasoning, joined to the source's next turn). Its other events
  (memory queries, speaker selection, streamed chunks, code runs, input requests) are the
  conversation's ``notes``.

What holds them: ``{"messages": [...]}``; a recorded model client's calls (``{mode,
messages, response}``: the prompt and the model's answer, a conversation each); saved
state (``save_state()``): an agent's ``llm_messages``, a team's threads (a group chat
manager's ``message_thread``) and each of its agents' ``llm_messages``, a conversation
each. A message's other fields (``id``, ``created_at``, ``metadata``, ...) are kept in
``additional_kwargs["autogen"]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location, ValidationError, kind_of
from ..model import AIMessage, AnyMessage, Conversation, HumanMessage, SystemMessage, ToolMessage
from .base import CONVERSATIONS, LIKELY, STREAM, Guess, Sample, SessionDialect, holds_messages
from .openai_messages import parse_arguments

_LLM = frozenset(
    ("SystemMessage", "UserMessage", "AssistantMessage", "FunctionExecutionResultMessage")
)
_CHAT = frozenset(
    (
        "TextMessage",
        "MultiModalMessage",
        "HandoffMessage",
        "ToolCallSummaryMessage",
        "StopMessage",
        "StructuredMessage",
    )
)
_EVENTS = frozenset(
    (
        "ToolCallRequestEvent",
        "ToolCallExecutionEvent",
        "ThoughtEvent",
        "MemoryQueryEvent",
        "UserInputRequestedEvent",
        "SelectSpeakerEvent",
        "SelectorEvent",
        "ModelClientStreamingChunkEvent",
        "CodeGenerationEvent",
        "CodeExecutionEvent",
    )
)
_STATES = ("AssistantAgentState", "ChatAgentContainerState", "TeamState")


def is_autogen_message(value: Any) -> bool:
    if not isinstance(value, dict) or "content" not in value or "role" in value:
        return False
    kind = value.get("type")
    if kind in _LLM:
        return True
    return kind in _CHAT | _EVENTS and isinstance(value.get("source"), str)


def _is_holder(value: Any) -> bool:
    """A record holding messages: ``{messages}``, a recorded call, or saved state."""
    if not isinstance(value, dict):
        return False
    own = holds_messages(value, is_autogen_message)
    if own is not None:  # (another dialect's messages, its conversation's fields beside them)
        return own
    # saved state, with what holds its messages (the state's fields alone, kept beside
    # another dialect's messages as chatpipe writes them, hold none)
    holders = ("llm_messages", "message_thread", "agent_states", "agent_state")
    if value.get("type") in _STATES and any(k in value for k in holders):
        return True
    return isinstance(value.get("message_thread"), list) or isinstance(
        value.get("llm_messages"), list
    )


class AutoGenDialect(SessionDialect):
    name = "autogen"
    description = "AutoGen LLMMessage lists, AgentChat messages and saved agent or team state"
    example = "autogen__autogen_handoffs_sample_llm_messages.json"
    extras_key = "autogen"  # (a message's fields beside type, source and content)
    line_hint = "each record is an AutoGen message {type, source, content}"

    def is_stream_event(self, value: Any) -> bool:
        return is_autogen_message(value)

    def is_conversation(self, value: Any) -> bool:
        return _is_holder(value)

    def score(self, sample: Sample) -> Guess | None:
        """AutoGen's own message kinds (``UserMessage``, ``TextMessage``, ...) with their
        ``source``: keys of its own."""
        if is_autogen_message(sample.first):
            return Guess(LIKELY, STREAM)
        if _is_holder(sample.first):
            return Guess(LIKELY, CONVERSATIONS)
        return None

    def read_records(
        self,
        records: Iterable[Any],
        location: Location,
        options: Any = None,
        handle: Callable[[ChatpipeError], None] | None = None,
    ) -> Iterator[Conversation]:
        builder = _Builder()
        first: Location | None = None
        for value, at in self.lines(records, handle):
            first = first or at
            with self.line_errors(at, handle):
                builder.add(value, at)
        yield builder.conversation({}, first or location)

    def read_conversations(
        self, value: Any, location: Location, options: Any = None
    ) -> Iterator[Conversation]:
        if isinstance(value, list):
            value = {"messages": value}
        found = False
        for messages, meta in _threads(value):
            found = True
            yield _conversation(messages, meta, location)
        if not found:
            raise DataError(
                "no AutoGen messages in this record",
                location,
                hint="a record holds messages, llm_messages, a message_thread or agent_states",
            )


def _threads(value: dict[str, Any]) -> Iterator[tuple[list[Any], dict[str, Any]]]:
    """The message lists a record holds, each with the fields of what holds it."""
    if value.get("type") == "TeamState" and isinstance(value.get("agent_states"), dict):
        team = {k: v for k, v in value.items() if k != "agent_states"}
        for agent, state in value["agent_states"].items():
            for messages, meta in _threads(state) if isinstance(state, dict) else ():
                yield messages, {"agent": agent, **meta, "team": team}
        return
    if isinstance(value.get("agent_state"), dict):  # a team's container of one agent
        outer = {k: v for k, v in value.items() if k != "agent_state"}
        for messages, meta in _threads(value["agent_state"]):
            yield messages, {**meta, "container": outer}
        return
    for key in ("messages", "llm_messages", "message_thread"):
        if isinstance(value.get(key), list):
            meta = {k: v for k, v in value.items() if k != key}
            messages = list(value[key])
            if isinstance(meta.get("response"), dict):  # a recorded model call
                messages.append({"type": "CreateResult", **meta.pop("response")})
            yield messages, meta
            return


def _conversation(messages: list[Any], meta: dict[str, Any], location: Location) -> Conversation:
    builder = _Builder()
    for index, item in enumerate(messages):
        try:
            builder.add(item, location.at_message(index))
        except ChatpipeError as exc:
            raise exc.located(location.at_message(index)) from None
    return builder.conversation(meta, location)


class _Builder:
    """Messages in order: a thought joined to its source's next turn, results named
    after their calls, events noted."""

    def __init__(self) -> None:
        self.messages: list[AnyMessage] = []
        self.places: list[Location] = []
        self.notes: list[dict[str, Any]] = []
        self.thoughts: dict[str, list[dict[str, Any]]] = {}  # source -> its pending reasoning
        self.names: dict[str, str] = {}  # call id -> function name

    def conversation(self, meta: dict[str, Any], location: Location) -> Conversation:
        for source, blocks in self.thoughts.items():  # thoughts no turn came after
            self.messages.append(AIMessage(blocks, name=source or None))
            self.places.append(location)
        if self.notes:
            meta = {**meta, "notes": self.notes}
        conversation = Conversation(self.messages, meta, location)
        conversation.places = self.places
        return conversation

    def add(self, value: Any, at: Location) -> None:
        if not isinstance(value, dict) or not (
            is_autogen_message(value) or value.get("type") == "CreateResult"
        ):
            raise ValidationError("not an AutoGen message", hint="a message has a type and content")
        kind, source = value["type"], value.get("source")
        rest = {k: v for k, v in value.items() if k not in ("type", "source", "content")}
        if kind == "ThoughtEvent":
            block = {"type": "reasoning", "reasoning": _text(value["content"])}
            block.update({"extras": rest} if rest else {})
            self.thoughts.setdefault(source or "", []).append(block)
            return
        if kind in _EVENTS - {"ToolCallRequestEvent", "ToolCallExecutionEvent"}:
            self.notes.append({"at": len(self.messages), "type": kind, **value})
            return
        made = self.messages_of(value, kind, source, rest)
        self.messages.extend(made)
        self.places.extend([at] * len(made))

    def messages_of(
        self, value: dict[str, Any], kind: str, source: Any, rest: dict[str, Any]
    ) -> list[AnyMessage]:
        content = value["content"]
        name = source if isinstance(source, str) else None
        kept = {"additional_kwargs": {"autogen": {"type": kind, **rest}}}
        if kind == "SystemMessage":
            return [SystemMessage(_text(content), **kept)]
        if kind in ("FunctionExecutionResultMessage", "ToolCallExecutionEvent"):
            return self.results(content, name, kind, rest)
        is_call = kind in ("ToolCallRequestEvent", "AssistantMessage", "CreateResult")
        if kind == "UserMessage" or (kind in _CHAT and source == "user"):
            return [HumanMessage(_blocks(content), name=name, **kept)]
        return [self.turn(value, content, name, kept, calls=is_call)]

    def turn(
        self, value: dict[str, Any], content: Any, name: str | None, kept: dict, calls: bool
    ) -> AIMessage:
        extras = kept["additional_kwargs"]["autogen"]
        blocks = self.thoughts.pop(name or "", [])
        thought = extras.pop("thought", None)
        if isinstance(thought, str) and thought:
            blocks.append({"type": "reasoning", "reasoning": thought})
        tool_calls, invalid = [], []
        if calls and isinstance(content, list):
            for call in content:
                made, error = _call(call)
                (tool_calls if error is None else invalid).append(made)
                self.names[made["id"] or ""] = made["name"]
            content = ""
        body = _blocks(content)
        if blocks:
            body = blocks + (body if isinstance(body, list) else [{"type": "text", "text": body}])
            body = [b for b in body if b.get("type") != "text" or b.get("text")]
        usage = extras.pop("models_usage", None) or extras.pop("usage", None)
        metadata = {}
        if value["type"] == "CreateResult" and "finish_reason" in extras:
            metadata["finish_reason"] = extras.pop("finish_reason")
        return AIMessage(
            body,
            name=name,
            tool_calls=tool_calls,
            invalid_tool_calls=invalid,
            usage_metadata=_usage(usage),
            response_metadata=metadata,
            **kept,
        )

    def results(
        self, content: Any, name: str | None, kind: str, rest: dict[str, Any]
    ) -> list[AnyMessage]:
        if not isinstance(content, list):
            raise DataError(f"a {kind}'s content must be a list of results, got {kind_of(content)}")
        out: list[AnyMessage] = []
        for result in content:
            if not isinstance(result, dict):
                raise DataError(f"a function result must be an object, got {kind_of(result)}")
            call = str(result.get("call_id") or "")
            extra = {k: v for k, v in result.items() if k not in ("content", "call_id", "name")}
            out.append(
                ToolMessage(
                    _blocks(result.get("content", "")),
                    tool_call_id=call,
                    name=result.get("name") or self.names.get(call) or None,
                    status="error" if result.get("is_error") else "success",
                    additional_kwargs={"autogen": {"type": kind, "source": name, **rest, **extra}},
                )
            )
        return out


def _call(call: Any) -> tuple[dict[str, Any], str | None]:
    """A FunctionCall as a tool call (or an invalid one, its arguments kept as written)."""
    if not isinstance(call, dict):
        raise DataError(f"a FunctionCall must be an object, got {kind_of(call)}")
    name, ident = str(call.get("name") or ""), str(call.get("id") or "")
    args, error = parse_arguments(call.get("arguments"))
    if error is None:
        return {"name": name, "args": args, "id": ident}, None
    bad = {"type": "invalid_tool_call", "name": name, "args": call.get("arguments")}
    return {**bad, "id": ident, "error": error}, error


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(c for c in content if isinstance(c, str))
    raise DataError(f"a message's content must be text, got {kind_of(content)}")


def _blocks(content: Any) -> Any:
    """Text, or a list of texts and images ``{data}`` (base64 PNG) as blocks."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise DataError(f"a message's content must be text or a list, got {kind_of(content)}")
    blocks: list[dict[str, Any]] = []
    for item in content:
        if isinstance(item, str):
            blocks.append({"type": "text", "text": item})
        elif isinstance(item, dict) and isinstance(item.get("data"), str):
            blocks.append({"type": "image", "base64": item["data"], "mime_type": "image/png"})
        else:
            blocks.append({"type": "non_standard", "value": item})
    return blocks


def _usage(usage: Any) -> dict[str, Any] | None:
    if not isinstance(usage, dict):
        return None
    given, output = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if not isinstance(given, int) or not isinstance(output, int):
        return None
    return {"input_tokens": given, "output_tokens": output, "total_tokens": given + output}
