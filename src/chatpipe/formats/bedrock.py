"""The ``bedrock-converse`` dialect: Amazon Bedrock's Converse API, read (bedrock_read.py,
bedrock_stream.py: requests, responses, ConverseStream events, message lists) and written
(bedrock_writer.py: the requests Converse takes)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location, ValidationError
from ..model import AIMessage, AnyMessage
from .api_request import RequestDialect
from .base import CERTAIN, CONVERSATIONS, LIKELY, MESSAGES, ONE, STREAM, Conversation, Guess, Sample
from .bedrock_read import (
    EXTRAS_KEY,
    event_of,
    is_message,
    is_request,
    is_response,
    read_turn,
    system_message,
)
from .record_errors import keys_hint


def usage(value: Any) -> dict[str, Any] | None:
    """langchain's usage from Converse's: input counts include the cache's reads and writes."""
    if not isinstance(value, dict):
        return None
    counts = [value.get(k) or 0 for k in ("inputTokens", "outputTokens")]
    read = value.get("cacheReadInputTokens") or 0
    written = value.get("cacheWriteInputTokens") or 0
    if not all(isinstance(n, int) for n in (*counts, read, written)):
        return None
    given, output = counts
    total_in = given + read + written
    found: dict[str, Any] = {
        "input_tokens": total_in,
        "output_tokens": output,
        "total_tokens": total_in + output,
    }
    details = {k: v for k, v in (("cache_read", read), ("cache_creation", written)) if v}
    if details:
        found["input_token_details"] = details
    return found


def read_response(value: dict[str, Any], location: Location) -> Conversation:
    """A Converse response: the answer, its stop reason, usage and metrics."""
    try:
        (message,) = read_turn(value["output"]["message"])
    except ChatpipeError as exc:
        raise exc.located(location.at_message(0)) from None
    except ValueError:
        raise DataError("a Bedrock response's message must be the assistant's", location) from None
    metadata = {k: v for k, v in value.items() if k not in ("output", "usage")}
    metadata["model_provider"] = "bedrock_converse"
    message.response_metadata = metadata
    if isinstance(message, AIMessage):
        message.usage_metadata = usage(value.get("usage"))
    meta = {k: v for k, v in value.items() if k != "output"}
    return Conversation([message], meta, location)


def tools_from_config(config: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """(the tools as OpenAI function tools, the rest of ``toolConfig``)."""
    tools = []
    kept = []
    for tool in config.get("tools") or ():
        spec = tool.get("toolSpec") if isinstance(tool, dict) else None
        if not isinstance(spec, dict):
            kept.append(tool)
            continue
        function = {k: v for k, v in spec.items() if k != "inputSchema"}
        schema = spec.get("inputSchema")
        if isinstance(schema, dict) and "json" in schema:
            function["parameters"] = schema["json"]
        tools.append({"type": "function", "function": function})
    rest = {k: v for k, v in config.items() if k != "tools"}
    if kept:  # (a system tool or a cache point among the tools: kept where they stood)
        rest["tools"] = kept
    return tools, rest


def read_request(value: dict[str, Any], location: Location) -> Conversation:
    messages: list[AnyMessage] = []
    system = system_message(value.get("system"))
    if system is not None:
        messages.append(system)
    for index, item in enumerate(value.get("messages") or ()):
        try:
            messages.extend(read_turn(item))
        except ChatpipeError as exc:
            raise exc.located(location.at_message(index)) from None
    meta = {k: (None if k == "messages" else v) for k, v in value.items() if k != "system"}
    config = value.get("toolConfig")
    if isinstance(config, dict):
        tools, rest = tools_from_config(config)
        del meta["toolConfig"]
        if tools:
            meta["tools"] = tools
        if rest:
            meta["toolConfig"] = rest
    return Conversation(messages, meta, location, "messages")


class BedrockConverseDialect(RequestDialect):
    name = "bedrock-converse"
    description = (
        "Amazon Bedrock Converse requests {messages, system, toolConfig}, responses "
        "{output, stopReason}, ConverseStream events, message lists"
    )
    example = "bedrock_converse__pydanticai_req_reasoning_tool_use_tool_result.json"
    turn_records = True
    extras_key = EXTRAS_KEY
    api = "Amazon Bedrock Converse"
    holds_artifacts = False
    system_messages = ONE

    def score(self, sample: Sample) -> Guess | None:
        first = sample.first
        if event_of(first) is not None:
            return Guess(CERTAIN, STREAM)
        if is_response(first) or is_request(first):
            return Guess(LIKELY, CONVERSATIONS)
        if is_message(first) or (
            isinstance(first, dict)
            and "role" in first
            and any(is_message(m) for m in sample.records)
        ):
            return Guess(LIKELY, MESSAGES)
        return None

    def is_stream_event(self, value: Any) -> bool:
        return event_of(value) is not None

    def is_message(self, value: Any) -> bool:
        return is_message(value)

    def is_conversation(self, value: Any) -> bool:
        return is_request(value) or is_response(value)

    def read_turn(self, value: Any) -> list[AnyMessage]:
        return read_turn(value)

    def read_message(self, value: Any) -> AnyMessage:
        turn = read_turn(value)
        if len(turn) != 1:
            raise ValidationError(
                "a user turn with tool results is several messages, one a line cannot hold",
                hint='give the turns as one conversation record, {"messages": [...]}',
            )
        return turn[0]

    def read_response(self, value: dict[str, Any], location: Location) -> Conversation:
        """A response (a stream's too, one cut short before its stop reason and usage)."""
        return read_response(value, location)

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        if is_response(value):
            return read_response(value, location)
        if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
            raise DataError(
                "not a Bedrock Converse request or response", location, hint=keys_hint(value)
            )
        return read_request(value, location)

    def read_records(
        self,
        records: Iterable[Any],
        location: Location,
        options: Any = None,
        handle: Callable[[ChatpipeError], None] | None = None,
    ) -> Iterator[Conversation]:
        """Any of its records in order (``--from bedrock-converse`` reads them all as
        events): a stream's events joined into its response, a request or response a
        conversation each, message records one conversation."""
        from .bedrock_stream import read_records

        return read_records(self, records, location, handle)

    # -- writing ----------------------------------------------------------------------

    def losses(self) -> Any:
        from .bedrock_writer import cannot_hold

        return cannot_hold

    def tools_left_out(self, tools: Any) -> list[str]:
        from .bedrock_settings import tools_left_out

        return tools_left_out(tools)

    def write_conversation(self, conversation: Conversation) -> dict[str, Any]:
        from .bedrock_writer import write

        return write(self, conversation)
