"""Gemini streamed responses: chunks joined into one response (text parts joined, calls
and their ``partialArgs`` rebuilt), then read as a response."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import Location
from .base import Conversation, StreamDialect
from .gemini import _get, message_from_response


def assemble_stream(chunks: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """One response from streamed chunks: text joined, calls (and partial args) rebuilt."""
    parts: list[dict[str, Any]] = []
    last: dict[str, Any] = {}
    open_call: dict[str, Any] | None = None
    for chunk in chunks:
        last = chunk
        candidate = (chunk.get("candidates") or [{}])[0]
        for part in (candidate.get("content") or {}).get("parts") or []:
            call = _get(part, "functionCall")
            if call is not None:
                if "name" in call:
                    open_call = {"name": call["name"], "args": dict(call.get("args") or {})}
                    if call.get("id"):
                        open_call["id"] = call["id"]
                    new = {"functionCall": open_call}
                    if _get(part, "thoughtSignature"):
                        new["thoughtSignature"] = _get(part, "thoughtSignature")
                    parts.append(new)
                    if not call.get("willContinue"):
                        open_call = None
                elif open_call is not None:
                    for piece in call.get("partialArgs") or []:
                        _apply(open_call["args"], piece)
                    if not call.get("willContinue"):
                        open_call = None
                continue
            previous = parts[-1] if parts else None
            if (
                "text" in part
                and previous is not None
                and "text" in previous
                and bool(_get(previous, "thought")) == bool(_get(part, "thought"))
            ):
                previous["text"] += part["text"]
                if _get(part, "thoughtSignature"):
                    previous["thoughtSignature"] = _get(part, "thoughtSignature")
            else:
                parts.append(dict(part))
    response = dict(last)
    candidate = dict((last.get("candidates") or [{}])[0])
    candidate["content"] = {"role": "model", "parts": parts}
    response["candidates"] = [candidate]
    return response


def _apply(args: dict[str, Any], piece: dict[str, Any]) -> None:
    """Set one ``partialArgs`` value at its ``$.a.b`` path; strings may come in pieces."""
    path = [p for p in str(piece.get("jsonPath", "$")).lstrip("$").split(".") if p]
    if not path:
        return
    target = args
    for key in path[:-1]:
        target = target.setdefault(key, {})
    key = path[-1]
    for kind in ("stringValue", "numberValue", "boolValue", "nullValue"):
        if kind in piece:
            value = None if kind == "nullValue" else piece[kind]
            if kind == "stringValue" and isinstance(target.get(key), str):
                target[key] += value
            else:
                target[key] = value


class GeminiStreamDialect(StreamDialect):
    name = "gemini-stream"
    description = "Gemini streamed responses (several chunk objects), reassembled"
    stream = True

    def is_stream_event(self, value: Any) -> bool:
        return False  # chunks look like responses: detect() tells them apart by their number

    def read_stream(self, values: Iterable[Any], location: Location) -> Iterator[Conversation]:
        chunks = [v for v in values if _is_chunk(v)]
        if chunks:  # none: records of another kind, which the reader says (not silence)
            yield Conversation([message_from_response(assemble_stream(chunks))], {}, location)


def _is_chunk(value: Any) -> bool:
    """A Gemini response chunk: candidates or usage metadata (camelCase or snake_case)."""
    return isinstance(value, dict) and any(
        isinstance(value.get(key), (list, dict))
        for key in ("candidates", "usageMetadata", "usage_metadata", "promptFeedback")
    )
