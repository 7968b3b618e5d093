"""Reading a source of Bedrock Converse records in order: ConverseStream events joined into
the response they spell (each ``messageStart`` begins one), requests and responses a
conversation each, message records (an agent's saved turns) one conversation. The dialect
is bedrock.py's."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location
from ..model import AnyMessage, Conversation
from .bedrock_read import event_of, is_request, is_response, read_turn

# the fields AWS's frames add to every payload (padding)
_PADDING = ("p",)


class _Blocks:
    """One streamed message's blocks, by their index, as deltas fill them."""

    def __init__(self) -> None:
        self.role = "assistant"
        self.blocks: dict[int, dict[str, Any]] = {}
        self.ending: dict[str, Any] = {}  # stopReason, usage, metrics...

    def start(self, index: int, start: Any) -> None:
        use = start.get("toolUse") if isinstance(start, dict) else None
        if isinstance(use, dict):
            self.blocks[index] = {"toolUse": {**use, "input": ""}}

    def delta(self, index: int, delta: Any) -> None:
        if not isinstance(delta, dict):
            return
        block = self.blocks.setdefault(index, {})
        if isinstance(delta.get("text"), str):
            block["text"] = block.get("text", "") + delta["text"]
        reasoning = delta.get("reasoningContent")
        if isinstance(reasoning, dict):
            held = block.setdefault("reasoningContent", {})
            if "redactedContent" in reasoning:
                held["redactedContent"] = reasoning["redactedContent"]
            else:
                text = held.setdefault("reasoningText", {"text": ""})
                text["text"] += reasoning.get("text") or ""
                if reasoning.get("signature"):
                    text["signature"] = reasoning["signature"]
        use = delta.get("toolUse")
        if isinstance(use, dict):
            held = block.setdefault("toolUse", {"input": ""})
            held["input"] += use.get("input") or ""
        if "citation" in delta:
            block.setdefault("citations", []).append(delta["citation"])

    def response(self) -> dict[str, Any]:
        content = []
        for _, block in sorted(self.blocks.items()):
            use = block.get("toolUse")
            if isinstance(use, dict):
                try:
                    args = json.loads(use["input"]) if use["input"].strip() else {}
                except ValueError:
                    args = use["input"]  # (read as a call whose arguments are not JSON)
                content.append({"toolUse": {**use, "input": args}})
            elif "reasoningContent" in block:
                content.append({"reasoningContent": block["reasoningContent"]})
            elif "citations" in block:
                cited = {"content": [{"text": block.get("text", "")}]}
                content.append({"citationsContent": {**cited, "citations": block["citations"]}})
            elif "text" in block:
                content.append({"text": block["text"]})
        message = {"role": self.role, "content": content}
        return {"output": {"message": message}, **self.ending}


def read_records(
    dialect: Any,
    records: Iterable[Any],
    location: Location,
    handle: Callable[[ChatpipeError], None] | None,
) -> Iterator[Conversation]:
    from ..io.records import BadRecord

    streamed: _Blocks | None = None
    turns: list[AnyMessage] = []
    first: Location | None = None

    def spelled() -> Iterator[Conversation]:
        nonlocal streamed, turns
        if streamed is not None:
            yield dialect.read_response(streamed.response(), first or location)
            streamed = None
        if turns:
            yield Conversation(list(dialect.finish(turns)), {}, first or location)
            turns = []

    for record in records:
        try:
            if isinstance(record, BadRecord):
                raise record.error
            value = record.value
            event = event_of(value)
            if event is not None:
                kind, payload = event
                payload = {k: v for k, v in payload.items() if k not in _PADDING}
                if kind == "messageStart" or streamed is None:
                    yield from spelled()
                    streamed, first = _Blocks(), record.location
                if kind == "messageStart":
                    streamed.role = payload.get("role") or "assistant"
                elif kind == "contentBlockStart":
                    streamed.start(payload.get("contentBlockIndex", 0), payload.get("start"))
                elif kind == "contentBlockDelta":
                    streamed.delta(payload.get("contentBlockIndex", 0), payload.get("delta"))
                elif kind in ("messageStop", "metadata"):
                    streamed.ending.update(payload)
            elif is_request(value) or is_response(value):
                yield from spelled()
                yield dialect.read_conversation(value, record.location)
            elif isinstance(value, dict) and "role" in value:
                if streamed is not None or not turns:
                    yield from spelled()
                    first = record.location
                turns.extend(read_turn(value))
            else:
                raise DataError(
                    "not a Bedrock Converse record",
                    hint="a request, a response, a ConverseStream event or a message",
                )
        except ChatpipeError as exc:
            if handle is None:
                raise exc.located(record.location) from None
            handle(exc.located(record.location))
    yield from spelled()
