"""Standard content blocks (langchain-core's v1 blocks) and their factories.

Blocks are plain dicts with a ``type``; these TypedDicts document the keys and the
``create_*_block`` factories build well-formed ones (each with an ``lc_`` id unless one
is given). Provider fields with no standard home go under ``extras``.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from .tool_calls import NotRequired

KNOWN_BLOCK_TYPES = frozenset(
    (
        "text",
        "reasoning",
        "tool_call",
        "invalid_tool_call",
        "tool_call_chunk",
        "image",
        "audio",
        "file",
        "text-plain",
        "video",
        "server_tool_call",
        "server_tool_call_chunk",
        "server_tool_result",
        "non_standard",
    )
)
DATA_BLOCK_TYPES = ("image", "video", "audio", "text-plain", "file")


class URLContentBlock(TypedDict, total=False):
    """v0 (LangChain 0.3) data block by URL: ``source_type: "url"``."""

    type: Literal["image", "audio", "file"]
    source_type: Literal["url"]
    url: str
    mime_type: str
    id: str
    metadata: dict[str, Any]


class Base64ContentBlock(TypedDict, total=False):
    """v0 data block with inline data: ``source_type: "base64"``."""

    type: Literal["image", "audio", "file"]
    source_type: Literal["base64"]
    data: str
    mime_type: str
    id: str
    metadata: dict[str, Any]


class IDContentBlock(TypedDict, total=False):
    """v0 data block naming a provider file id: ``source_type: "id"``."""

    type: Literal["image", "audio", "file"]
    source_type: Literal["id"]
    id: str
    metadata: dict[str, Any]


class PlainTextV0ContentBlock(TypedDict, total=False):
    """v0 plain-text document: ``type: "file", source_type: "text"``."""

    type: Literal["file"]
    source_type: Literal["text"]
    url: str
    mime_type: str
    id: str
    metadata: dict[str, Any]


class Citation(TypedDict, total=False):
    type: Literal["citation"]
    id: str
    url: str
    title: str
    start_index: int
    end_index: int
    cited_text: str
    extras: dict[str, Any]


class NonStandardAnnotation(TypedDict, total=False):
    type: Literal["non_standard_annotation"]
    id: str
    value: dict[str, Any]


class TextContentBlock(TypedDict):
    type: Literal["text"]
    text: str
    id: NotRequired[str]
    annotations: NotRequired[list[Citation | NonStandardAnnotation]]
    index: NotRequired[int | str]
    extras: NotRequired[dict[str, Any]]


class ReasoningContentBlock(TypedDict):
    type: Literal["reasoning"]
    reasoning: NotRequired[str]
    id: NotRequired[str]
    index: NotRequired[int | str]
    extras: NotRequired[dict[str, Any]]


class DataContentBlock(TypedDict, total=False):
    """image / audio / video / file: exactly one of url, base64, file_id."""

    type: Literal["image", "audio", "video", "file"]
    id: str
    url: str
    base64: str
    file_id: str
    mime_type: str
    index: int | str
    extras: dict[str, Any]


class PlainTextContentBlock(TypedDict, total=False):
    type: Literal["text-plain"]
    mime_type: Literal["text/plain"]
    id: str
    text: str
    url: str
    base64: str
    file_id: str
    title: str
    context: str
    index: int | str
    extras: dict[str, Any]


class ServerToolCall(TypedDict):
    type: Literal["server_tool_call"]
    id: str
    name: str
    args: dict[str, Any]
    index: NotRequired[int | str]
    extras: NotRequired[dict[str, Any]]


class ServerToolCallChunk(TypedDict, total=False):
    type: Literal["server_tool_call_chunk"]
    name: str
    args: str
    id: str
    index: int | str
    extras: dict[str, Any]


class ServerToolResult(TypedDict):
    type: Literal["server_tool_result"]
    tool_call_id: str
    status: Literal["success", "error"]
    id: NotRequired[str]
    output: NotRequired[Any]
    index: NotRequired[int | str]
    extras: NotRequired[dict[str, Any]]


class NonStandardContentBlock(TypedDict):
    type: Literal["non_standard"]
    value: dict[str, Any]
    id: NotRequired[str]
    index: NotRequired[int | str]


def ensure_id(value: str | None) -> str:
    """The id itself when it is a non-empty string, else a fresh ``lc_<uuid4>``."""
    if value:
        return value
    import uuid  # only when an id is made up

    return f"lc_{uuid.uuid4()}"


def _finish(block: dict[str, Any], index: Any, extras: dict[str, Any]) -> Any:
    if index is not None:
        block["index"] = index
    extras = {k: v for k, v in extras.items() if v is not None}
    if extras:
        block["extras"] = extras
    return block


def create_text_block(
    text: str,
    *,
    id: str | None = None,
    annotations: list | None = None,
    index: Any = None,
    **extras: Any,
) -> TextContentBlock:
    block: dict[str, Any] = {"type": "text", "text": text, "id": ensure_id(id)}
    if annotations is not None:
        block["annotations"] = annotations
    return _finish(block, index, extras)


def _data_block(
    kind: str,
    mime_required: bool,
    url: str | None,
    base64: str | None,
    file_id: str | None,
    mime_type: str | None,
    id: str | None,
    index: Any,
    extras: dict[str, Any],
) -> Any:
    if not (url or base64 or file_id):
        raise ValueError("Must provide one of: url, base64, or file_id")
    if mime_required and base64 and not mime_type:
        raise ValueError("mime_type is required when using base64 data")
    block: dict[str, Any] = {"type": kind, "id": ensure_id(id)}
    for key, value in (
        ("url", url),
        ("base64", base64),
        ("file_id", file_id),
        ("mime_type", mime_type),
    ):
        if value is not None:
            block[key] = value
    return _finish(block, index, extras)


def create_image_block(
    *,
    url: str | None = None,
    base64: str | None = None,
    file_id: str | None = None,
    mime_type: str | None = None,
    id: str | None = None,
    index: Any = None,
    **extras: Any,
) -> DataContentBlock:
    return _data_block("image", False, url, base64, file_id, mime_type, id, index, extras)


def create_video_block(
    *,
    url: str | None = None,
    base64: str | None = None,
    file_id: str | None = None,
    mime_type: str | None = None,
    id: str | None = None,
    index: Any = None,
    **extras: Any,
) -> DataContentBlock:
    return _data_block("video", True, url, base64, file_id, mime_type, id, index, extras)


def create_audio_block(
    *,
    url: str | None = None,
    base64: str | None = None,
    file_id: str | None = None,
    mime_type: str | None = None,
    id: str | None = None,
    index: Any = None,
    **extras: Any,
) -> DataContentBlock:
    return _data_block("audio", True, url, base64, file_id, mime_type, id, index, extras)


def create_file_block(
    *,
    url: str | None = None,
    base64: str | None = None,
    file_id: str | None = None,
    mime_type: str | None = None,
    id: str | None = None,
    index: Any = None,
    **extras: Any,
) -> DataContentBlock:
    return _data_block("file", True, url, base64, file_id, mime_type, id, index, extras)


def create_plaintext_block(
    text: str | None = None,
    url: str | None = None,
    base64: str | None = None,
    file_id: str | None = None,
    title: str | None = None,
    context: str | None = None,
    id: str | None = None,
    index: Any = None,
    **extras: Any,
) -> PlainTextContentBlock:
    block: dict[str, Any] = {"type": "text-plain", "mime_type": "text/plain", "id": ensure_id(id)}
    for key, value in (
        ("text", text),
        ("url", url),
        ("base64", base64),
        ("file_id", file_id),
        ("title", title),
        ("context", context),
    ):
        if value is not None:
            block[key] = value
    return _finish(block, index, extras)


def create_tool_call(
    name: str, args: dict[str, Any], *, id: str | None = None, index: Any = None, **extras: Any
) -> dict[str, Any]:
    block = {"type": "tool_call", "name": name, "args": args, "id": ensure_id(id)}
    return _finish(block, index, extras)


def create_reasoning_block(
    reasoning: str | None = None, id: str | None = None, index: Any = None, **extras: Any
) -> ReasoningContentBlock:
    block = {"type": "reasoning", "reasoning": reasoning or "", "id": ensure_id(id)}
    return _finish(block, index, extras)


def create_citation(
    *,
    url: str | None = None,
    title: str | None = None,
    start_index: int | None = None,
    end_index: int | None = None,
    cited_text: str | None = None,
    id: str | None = None,
    **extras: Any,
) -> Citation:
    block: dict[str, Any] = {"type": "citation", "id": ensure_id(id)}
    for key, value in (
        ("url", url),
        ("title", title),
        ("start_index", start_index),
        ("end_index", end_index),
        ("cited_text", cited_text),
    ):
        if value is not None:
            block[key] = value
    return _finish(block, None, extras)


def create_non_standard_block(
    value: dict[str, Any], *, id: str | None = None, index: Any = None
) -> NonStandardContentBlock:
    return _finish({"type": "non_standard", "value": value, "id": ensure_id(id)}, index, {})


def is_data_content_block(block: dict[str, Any]) -> bool:
    """True for multimodal data blocks, v1 (url/base64/file_id) and v0 (source_type)."""
    if block.get("type") not in DATA_BLOCK_TYPES:
        return False
    if any(key in block for key in ("url", "base64", "file_id", "text")):
        return True
    source = block.get("source_type")
    return (
        (source == "url" and "url" in block)
        or (source == "base64" and "data" in block)
        or (source == "id" and "id" in block)
        or (source == "text" and "url" in block)
    )


def text_file(block: dict[str, Any]) -> tuple[str | None, str | None]:
    """(name, text) of a ``text-plain`` block, for dialects that hold no text files.

    The name is the block's ``title`` or the ``file_name``/``filename``/``name`` an
    export left in its extras; the text is ``text``, else its base64 data decoded as UTF-8,
    else None (a file only referenced by url or id).
    """
    extras = block.get("extras") if isinstance(block.get("extras"), dict) else {}
    name = block.get("title") or next(
        (extras[k] for k in ("file_name", "filename", "name") if extras.get(k)), None
    )
    text = block.get("text")
    if not isinstance(text, str) and isinstance(block.get("base64"), str):
        import base64
        import binascii

        try:
            text = base64.b64decode(block["base64"], validate=True).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            text = None
    return (str(name) if name else None), (text if isinstance(text, str) else None)
