"""The ``bedrock-converse`` dialect: Amazon Bedrock's Converse API, read (bedrock_read.py,
bedrock_stream.py: requests, responses, ConverseStream events, message lists) and written
(bedrock_writer.py: the requests Converse takes)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location, ValidationError
from ..model import AnyMessage
from .api_request import RequestDialect
from .base import (
    CERTAIN,
    CONVERSATIONS,
    LIKELY,
    MESSAGES,
    ONE,
    STREAM,
    Conversation,
    Guess,
    Sample,
    _keys_hint,
)
from .bedrock_read import (
    EXTRAS_KEY,
    event_of,
    is_message,
    is_request,
    is_response,
    read_request,
    read_response,
    read_turn,
)


class BedrockConverseDialect(RequestDialect):
    name = "bedrock-converse"
    description = (
        "Amazon Bedrock Converse requests {messages, system, toolConfig}, responses "
        "{output, stopReason}, ConverseStream events, message lists"
    )
    example = "bedrock_converse__pydanticai_req_reasoning_tool_use_tool_result.json"
    turn_records = True
    extras_key = EXTRAS_KEY
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

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        if is_response(value):
            return read_response(value, location)
        if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
            raise DataError(
                "not a Bedrock Converse request or response", location, hint=_keys_hint(value)
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
        from .bedrock_writer import tools_left_out

        return tools_left_out(tools)

    def write_request(self, conversation: Conversation) -> dict[str, Any]:
        from .bedrock_writer import write

        return write(self, conversation)
