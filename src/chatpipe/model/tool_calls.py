"""Tool calls, tool-call chunks, invalid tool calls and token usage.

They are plain dicts with langchain-core's keys, in langchain-core's key order, so that
they compare, print (``repr``) and serialise exactly as LangChain users expect. The
functions here build and check them; ``parse_partial_json`` reads the unfinished JSON
that streamed tool-call arguments are made of.
"""

from __future__ import annotations

import json
from typing import Any, Literal, TypedDict

from ..errors import ValidationError, kind_name, kind_of

try:  # NotRequired is in typing from 3.11
    from typing import NotRequired
except ImportError:  # pragma: no cover - python 3.10
    from typing_extensions import NotRequired

# additional_kwargs key for tool-call arguments that came as JSON text of JSON text: read
# decoded, they are kept as they came (``{"index": position in tool_calls, "arguments":
# text}``) for ``validate`` to report and the OpenAI writer's keep_fields to write back
DOUBLE_ENCODED = "double_encoded_arguments"


class ToolCall(TypedDict):
    name: str
    args: dict[str, Any]
    id: str | None
    type: NotRequired[Literal["tool_call"]]


class ToolCallChunk(TypedDict):
    name: str | None
    args: str | None
    id: str | None
    index: int | None
    type: NotRequired[Literal["tool_call_chunk"]]


class InvalidToolCall(TypedDict):
    type: Literal["invalid_tool_call"]
    id: str | None
    name: str | None
    args: str | None
    error: str | None


class InputTokenDetails(TypedDict, total=False):
    audio: int
    cache_creation: int
    cache_read: int


class OutputTokenDetails(TypedDict, total=False):
    audio: int
    reasoning: int


class UsageMetadata(TypedDict):
    input_tokens: int
    output_tokens: int
    total_tokens: int
    input_token_details: NotRequired[InputTokenDetails]
    output_token_details: NotRequired[OutputTokenDetails]


def tool_call(*, name: str, args: dict[str, Any], id: str | None) -> ToolCall:
    return {"name": name, "args": args, "id": id, "type": "tool_call"}


def tool_call_chunk(
    *,
    name: str | None = None,
    args: str | None = None,
    id: str | None = None,
    index: int | None = None,
) -> ToolCallChunk:
    return {"name": name, "args": args, "id": id, "index": index, "type": "tool_call_chunk"}


def invalid_tool_call(
    *,
    name: str | None = None,
    args: str | None = None,
    id: str | None = None,
    error: str | None = None,
) -> InvalidToolCall:
    return {"type": "invalid_tool_call", "id": id, "name": name, "args": args, "error": error}


# -- checking -------------------------------------------------------------------------


def _expect(value: Any, kinds: tuple[type, ...], what: str) -> Any:
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        names = " or ".join(kind_name(k) for k in kinds)
        raise ValidationError(f"{what} must be {names}, got {kind_of(value)}")
    return value


_STR = (str,)
_OPT_STR = (str, type(None))
_OPT_INT = (int, type(None))


def _keyword_check(entry: Any, allowed: tuple[str, ...], required: tuple[str, ...], what: str):
    if not isinstance(entry, dict):
        raise ValidationError(f"{what} must be an object, got {kind_of(entry)}")
    for key in entry:
        if key not in allowed:
            raise ValidationError(f"{what} has an unexpected key {key!r}")
    for key in required:
        if key not in entry:
            raise ValidationError(f"{what} is missing the key {key!r}")


def normalize_tool_call(entry: Any) -> ToolCall:
    """A tool call as AIMessage stores it: keys name, args, id, type (``extras`` dropped)."""
    what = "a tool call"
    _keyword_check(entry, ("name", "args", "id", "type", "extras"), ("name", "args", "id"), what)
    return {
        "name": _expect(entry["name"], _STR, f"{what}'s name"),
        "args": _expect(entry["args"], (dict,), f"{what}'s args"),
        "id": _expect(entry["id"], _OPT_STR, f"{what}'s id"),
        "type": "tool_call",
    }


def normalize_invalid_tool_call(entry: Any) -> InvalidToolCall:
    what = "an invalid tool call"
    _keyword_check(entry, ("type", "id", "name", "args", "error"), (), what)
    return {
        "type": "invalid_tool_call",
        "id": _expect(entry.get("id"), _OPT_STR, f"{what}'s id"),
        "name": _expect(entry.get("name"), _OPT_STR, f"{what}'s name"),
        "args": _expect(entry.get("args"), _OPT_STR, f"{what}'s args"),
        "error": _expect(entry.get("error"), _OPT_STR, f"{what}'s error"),
    }


def normalize_tool_call_chunk(entry: Any) -> ToolCallChunk:
    what = "a tool call chunk"
    _keyword_check(entry, ("type", "name", "args", "id", "index"), (), what)
    return {
        "name": _expect(entry.get("name"), _OPT_STR, f"{what}'s name"),
        "args": _expect(entry.get("args"), _OPT_STR, f"{what}'s args"),
        "id": _expect(entry.get("id"), _OPT_STR, f"{what}'s id"),
        "index": _expect(entry.get("index"), _OPT_INT, f"{what}'s index"),
        "type": "tool_call_chunk",
    }


def _token_count(value: Any, what: str) -> int:
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise ValidationError(f"{what} must be an integer, got {value!r}")


_DETAIL_KEYS = {
    "input_token_details": ("audio", "cache_creation", "cache_read"),
    "output_token_details": ("audio", "reasoning"),
}


def normalize_usage(usage: Any) -> UsageMetadata | None:
    """Check a usage record; numeric strings become ints, unknown keys are kept."""
    if usage is None:
        return None
    if not isinstance(usage, dict):
        raise ValidationError(f"usage_metadata must be an object, got {kind_of(usage)}")
    out = dict(usage)
    for key in ("input_tokens", "output_tokens", "total_tokens"):
        if key not in out:
            raise ValidationError(f"usage_metadata is missing {key!r}")
        out[key] = _token_count(out[key], f"usage_metadata.{key}")
    for key, known in _DETAIL_KEYS.items():
        if key in out:
            details = out[key]
            if not isinstance(details, dict):
                raise ValidationError(f"usage_metadata.{key} must be an object")
            out[key] = {
                k: _token_count(v, f"usage_metadata.{key}.{k}") if k in known else v
                for k, v in details.items()
            }
    return out  # type: ignore[return-value]


def _sum_ints(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    """Key by key, in a fixed order: the left's keys, then the right's new ones
    (langchain-core walks a set, whose order changes from run to run with the hash seed)."""
    out: dict[str, Any] = {}
    for key in [*left, *(k for k in right if k not in left)]:
        a, b = left.get(key, 0), right.get(key, 0)
        out[key] = _sum_ints(a or {}, b or {}) if isinstance(a or b, dict) else a + b
    return out


def add_usage(left: UsageMetadata | None, right: UsageMetadata | None) -> UsageMetadata:
    """Sum two usage records key by key; a missing side counts as nothing."""
    if not (left or right):
        return {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    if not (left and right):
        return left or right  # type: ignore[return-value]
    return _sum_ints(left, right)  # type: ignore[arg-type, return-value]


# -- parsing ----------------------------------------------------------------------------


def parse_partial_json(text: str) -> Any:
    """Parse JSON that may stop early, closing what is open (strings, arrays, objects).

    Raw control characters inside strings are accepted. Returns None when a closing
    bracket does not match; raises ``json.JSONDecodeError`` when nothing parses.
    """
    try:
        return json.loads(text, strict=False)
    except json.JSONDecodeError:
        pass
    kept: list[str] = []
    closers: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string:
            if char == '"' and not escaped:
                in_string = False
            elif char == "\n" and not escaped:
                char = "\\n"
            elif char == "\\":
                escaped = not escaped
            else:
                escaped = False
        elif char == '"':
            in_string, escaped = True, False
        elif char in "{[":
            closers.append("}" if char == "{" else "]")
        elif char in "}]":
            if not closers or closers[-1] != char:
                return None
            closers.pop()
        kept.append(char)
    if in_string:
        if escaped:
            kept.pop()
        kept.append('"')
    tail = "".join(reversed(closers))
    while kept:
        try:
            return json.loads("".join(kept) + tail, strict=False)
        except json.JSONDecodeError:
            kept.pop()
    return json.loads(text, strict=False)


def tool_calls_from_chunks(
    chunks: list[ToolCallChunk],
) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """Finished tool calls from (merged) chunks: dict arguments are calls, the rest invalid."""
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for chunk in chunks:
        raw = chunk["args"]
        try:
            args = parse_partial_json(raw) if raw else {}
        except Exception:  # RecursionError included: too deep is not a valid call
            args = None
        if isinstance(args, dict):
            calls.append(tool_call(name=chunk["name"] or "", args=args, id=chunk["id"]))
        else:
            invalid.append(invalid_tool_call(name=chunk["name"], args=raw, id=chunk["id"]))
    return calls, invalid


def tool_calls_from_openai(raw_calls: list[Any]) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """Tool calls from OpenAI-style ``additional_kwargs["tool_calls"]`` (strict JSON).

    Entries without ``function`` are ignored, as langchain-core does.
    """
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for raw in raw_calls:
        if "function" not in raw:
            continue
        function = raw["function"]
        try:
            args = json.loads(function["arguments"])
        except json.JSONDecodeError:
            invalid.append(
                invalid_tool_call(
                    name=function["name"], args=function["arguments"], id=raw.get("id")
                )
            )
            continue
        calls.append(tool_call(name=function["name"] or "", args=args or {}, id=raw.get("id")))
    return calls, invalid


def chunks_from_openai(raw_calls: list[Any]) -> list[ToolCallChunk]:
    """Tool-call chunks from OpenAI-style streamed ``tool_calls`` deltas."""
    chunks = []
    for raw in raw_calls:
        function = raw.get("function")
        chunks.append(
            tool_call_chunk(
                name=function.get("name") if function is not None else None,
                args=function.get("arguments") if function is not None else None,
                id=raw.get("id"),
                index=raw.get("index"),
            )
        )
    return chunks
