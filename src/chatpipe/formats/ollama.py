"""The ``ollama`` dialect: Ollama's native chat API, read (ollama_read.py: requests,
responses, NDJSON streams) and written (ollama_writer.py: the requests ``/api/chat``
takes)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location
from ..model import AnyMessage
from .api_request import RequestDialect
from .base import (
    CERTAIN,
    CONVERSATIONS,
    LIKELY,
    MESSAGES,
    STREAM,
    VARIANT,
    Conversation,
    Guess,
    RecordsDialect,
    Sample,
    holds_messages,
)
from .ollama_read import (
    EXTRAS_KEY,
    REQUEST_KEYS,
    Stream,
    is_chunk,
    is_request,
    read_message,
    read_request,
    read_response,
)
from .record_errors import keys_hint
from .tool_links import link_tool_results


def _own_images(message: Any) -> bool:
    images = message.get("images") if isinstance(message, dict) else None
    return isinstance(images, list) and bool(images) and all(isinstance(i, str) for i in images)


def _bare_calls(message: Any) -> bool:
    """Tool calls as Ollama gives them: a function with object arguments, no id or type."""
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    return (
        isinstance(calls, list)
        and bool(calls)
        and all(
            isinstance(c, dict)
            and set(c) == {"function"}
            and isinstance(c["function"], dict)
            and isinstance(c["function"].get("arguments", {}), dict)
            for c in calls
        )
    )


def _messages(sample: Sample) -> list[Any]:
    return [m for m in sample.messages() if isinstance(m, dict) and isinstance(m.get("role"), str)]


class OllamaDialect(RequestDialect, RecordsDialect):
    name = "ollama"
    description = (
        "Ollama /api/chat requests {model, messages, options}, responses and NDJSON "
        "streams {message, done}"
    )
    example = "ollama__ollama-bash-lib_thinking_tool_call_response.json"
    extras_key = EXTRAS_KEY
    api = "Ollama /api/chat"
    holds_artifacts = False

    def score(self, sample: Sample) -> Guess | None:
        """A stream's chunks (a whole response alone is a conversation); a request or a
        message log told by keys (``options``, ``keep_alive``, ``think``, ``format``) and
        shapes (images as base64 text; tool calls with no id, type, or text arguments)
        only Ollama's have."""
        first = sample.first
        if is_chunk(first):
            alone = first["done"] and not sample.more
            return Guess(CERTAIN, CONVERSATIONS if alone else STREAM)
        if not isinstance(first, dict):
            return None
        shape = CONVERSATIONS if is_request(first) else MESSAGES
        if holds_messages(first, lambda m: isinstance(m.get("role"), str)) is False:
            return None  # (another dialect's messages, its conversation's fields beside them)
        messages = _messages(sample)
        own_keys = shape == CONVERSATIONS and any(k in first for k in REQUEST_KEYS)
        if own_keys or any(_own_images(m) for m in messages):
            return Guess(LIKELY, shape)
        if any(_bare_calls(m) for m in messages):
            return Guess(VARIANT, shape)
        return None

    def is_stream_event(self, value: Any) -> bool:
        return is_chunk(value)

    def is_conversation(self, value: Any) -> bool:
        return is_request(value) or is_chunk(value)

    def read_message(self, value: Any) -> AnyMessage:
        return read_message(value)

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        if is_chunk(value):
            return read_response(value, location)
        if not is_request(value):
            raise DataError("not an Ollama request or response", location, hint=keys_hint(value))
        return read_request(value, location)

    def finish(
        self, messages: Iterable[AnyMessage], links: Any = None, start: int = 0
    ) -> Iterable[AnyMessage]:
        return link_tool_results(messages, links, start)

    def read_records(
        self,
        records: Iterable[Any],
        location: Location,
        options: Any = None,
        handle: Callable[[ChatpipeError], None] | None = None,
    ) -> Iterator[Conversation]:
        """Its records in order: requests a conversation each, a stream's chunks one (a
        whole response is a stream of one chunk), message records one."""
        from ..io.records import BadRecord

        stream: Stream | None = None
        turns: list[AnyMessage] = []
        first = location
        for record in records:
            try:
                if isinstance(record, BadRecord):
                    raise record.error
                value = record.value
                if is_chunk(value):
                    if turns:
                        yield Conversation(list(self.finish(turns)), {}, first)
                        turns = []
                    stream = stream or Stream(record.location)
                    stream.add(value)
                    if value["done"]:
                        yield stream.response()
                        stream = None
                    continue
                if stream is not None:  # a stream cut short: what it spelled
                    yield stream.response()
                    stream = None
                if is_request(value):
                    yield read_request(value, record.location)
                elif isinstance(value, dict) and isinstance(value.get("role"), str):
                    if not turns:
                        first = record.location
                    turns.append(read_message(value))
                else:
                    raise DataError(
                        "not an Ollama chat record",
                        hint="a request, a response or stream chunk {message, done}, a message",
                    )
            except ChatpipeError as exc:
                if handle is None:
                    raise exc.located(record.location) from None
                handle(exc.located(record.location))
        if stream is not None:
            yield stream.response()
        if turns:
            yield Conversation(list(self.finish(turns)), {}, first)

    # -- writing ----------------------------------------------------------------------

    def losses(self) -> Any:
        from .ollama_writer import cannot_hold

        return cannot_hold

    def tools_left_out(self, tools: Any) -> list[str]:
        from .ollama_writer import tools_left_out

        return tools_left_out(tools)

    def write_conversation(self, conversation: Conversation) -> dict[str, Any]:
        from .ollama_writer import write

        return write(self, conversation)
