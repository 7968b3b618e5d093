"""Gemini streamed responses: chunks joined into one response (text parts joined, calls
and their ``partialArgs`` rebuilt), then read as a response."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import Location
from .base import CERTAIN, STREAM, Conversation, Guess, Sample, StreamDialect
from .gemini import _get, is_gemini_response, message_from_response
from .gemini_calls import CallPieces


def assemble_stream(chunks: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """One response from streamed chunks: text joined, calls (and partial args) rebuilt."""
    parts: list[dict[str, Any]] = []
    last: dict[str, Any] = {}
    pieces = CallPieces()
    for chunk in chunks:
        last = chunk
        candidate = (chunk.get("candidates") or [{}])[0]
        for part in (candidate.get("content") or {}).get("parts") or []:
            call = _get(part, "functionCall")
            if isinstance(call, dict):
                if pieces.starts(call):
                    new = {
                        k: v for k, v in part.items() if k not in ("functionCall", "function_call")
                    }
                    new["functionCall"] = _whole_call(call, pieces.start(call))
                    parts.append(new)
                else:
                    pieces.add(call)
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
    if pieces.unread:  # kept with the response's other fields, not dropped
        candidate["unreadPartialArgs"] = pieces.unread
    response["candidates"] = [candidate]
    return response


def _whole_call(call: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """A call as a whole response holds it: its fields with ``args`` (filled in place by
    the pieces after it), without the streaming ones."""
    whole = {
        k: v
        for k, v in call.items()
        if k not in ("partialArgs", "partial_args", "willContinue", "will_continue", "args")
        and v is not None
    }
    whole["args"] = args
    return whole


class GeminiStreamDialect(StreamDialect):
    name = "gemini-stream"
    description = "Gemini streamed responses (several chunk objects), reassembled"
    example = "gemini__vercel_stream_text_thoughts_tokens.jsonl"
    stream = True

    def is_stream_event(self, value: Any) -> bool:
        return False  # chunks look like responses: told apart by their number (``score``)

    def score(self, sample: Sample) -> Guess | None:
        """Chunks are responses: several of them (or one framed as a stream's element, an
        SSE event or an array's) are a stream; one alone is a response (``gemini``)."""
        first, more = sample.first, sample.more
        if (
            is_gemini_response(first)
            and "candidates" in first
            and (more or sample.framed)
            and all(is_gemini_response(v) for v in more)
        ):
            return Guess(CERTAIN, STREAM)
        return None

    def read_stream(self, values: Iterable[Any], location: Location) -> Iterator[Conversation]:
        # (read as they come: a fault is said at its chunk's place)
        chunks = (v for v in values if _is_chunk(v))
        first = next(chunks, None)
        if first is not None:  # none: records of another kind, which the reader says
            response = assemble_stream(itertools.chain([first], chunks))
            message = message_from_response(response)
            if isinstance(response.get("createTime"), str):  # when it answered: its date
                message.response_metadata["createTime"] = response["createTime"]
            yield Conversation([message], {}, location)


def _is_chunk(value: Any) -> bool:
    """A Gemini response chunk: candidates or usage metadata (camelCase or snake_case)."""
    return isinstance(value, dict) and any(
        isinstance(value.get(key), (list, dict))
        for key in ("candidates", "usageMetadata", "usage_metadata", "promptFeedback")
    )
