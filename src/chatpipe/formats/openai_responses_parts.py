"""Content blocks as OpenAI Responses API content parts: ``input_text``, ``input_image``,
``input_file`` (and an assistant's ``output_text``), for openai_responses_writer.py. With
``strict`` (the writer's default) a part holds only its type's keys (``detail`` given
where the API asks for one); otherwise a reader's extras go back on it."""

from __future__ import annotations

from typing import Any

from .api import PART_FIELDS, names, text_fields

_MEDIA_TYPES = {"image": "input_image", "file": "input_file"}
# blocks no content part stands for: tool calls (written from the message's own), and what
# the Responses API cannot hold (losses.py says so): another model's redacted thinking,
# audio and video
NOT_PARTS = frozenset(
    ("tool_use", "function_call", "redacted_thinking", "audio", "video", "input_audio")
)
# each part's keys (the openai package's ResponseInput*Param, ResponseOutputTextParam)
PART_KEYS = {
    "input_text": frozenset(("type", "text")),
    "output_text": frozenset(("type", "text", "annotations", "logprobs")),
    "input_image": frozenset(("type", "image_url", "file_id", "detail")),
    "input_file": frozenset(("type", "file_id", "file_data", "file_url", "filename")),
    "refusal": frozenset(("type", "refusal")),
}


NO_PART = "content blocks with no Responses part"


# the built-in tools' items (the openai package's ResponseInputItemParam, 3.57.0): the keys
# each must have, and those it may have
BUILT_IN_ITEMS = {
    "file_search_call": ("id queries status type", "results"),
    "computer_call": ("call_id id pending_safety_checks status type", "action actions"),
    "computer_call_output": ("call_id output type", "acknowledged_safety_checks id status"),
    "web_search_call": ("action id status type", ""),
    "tool_search_call": ("arguments type", "call_id execution id status"),
    "tool_search_output": ("tools type", "call_id execution id status"),
    "compaction": ("encrypted_content type", "id"),
    "image_generation_call": (
        "id result status type",
        "action background error output_format quality revised_prompt size svg_usage",
    ),
    "code_interpreter_call": ("code container_id id outputs status type", ""),
    "local_shell_call": ("action call_id id status type", ""),
    "local_shell_call_output": ("id output type", "status"),
    "shell_call": ("action call_id type", "caller environment id status"),
    "shell_call_output": ("call_id output type", "caller id max_output_length status"),
    "apply_patch_call": ("call_id operation status type", "caller id"),
    "apply_patch_call_output": ("call_id status type", "caller id output"),
    "mcp_list_tools": ("id server_label tools type", "error"),
    "mcp_approval_request": ("arguments id name server_label type", ""),
    "mcp_approval_response": ("approval_request_id approve type", "id reason"),
    "mcp_call": (
        "arguments id name server_label type",
        "approval_request_id error output status",
    ),
    "item_reference": ("id", "type"),
}
ITEM_FIELDS = "built-in tool items' fields the API does not take"
UNSENDABLE = "built-in tool items without what the API needs to take them back"


def built_in_item(item: dict[str, Any], writing: Any, index: int | None) -> Any:
    """A built-in tool's item (a web search, a shell call) with the keys its type has;
    None, said, for one without a key its type needs (or of a type the API does not take
    back), as another program logged it."""
    kind = item.get("type", "item_reference" if "id" in item else None)
    found = BUILT_IN_ITEMS.get(kind)  # type: ignore[arg-type]
    if found is None:
        writing.left(UNSENDABLE, index, str(kind))
        return None
    needed, more = found[0].split(), found[1].split()
    left = [k for k in item if k not in needed and k not in more]
    if left:
        writing.left(ITEM_FIELDS, index, f"{kind}: {' '.join(left)}")
    missing = [k for k in needed if k not in item]
    if missing and missing != ["type"]:
        writing.left(UNSENDABLE, index, f"{kind} without {' '.join(missing)}")
        return None
    return {k: v for k, v in item.items() if k not in left}


def parts(blocks: list[Any], writing: Any = None, index: int | None = None) -> list[Any]:
    made = (
        part(b, "user", writing, index)
        for b in blocks
        if not (isinstance(b, dict) and b.get("type") in NOT_PARTS)
    )
    return [p for p in made if p is not None]


def is_item(value: Any) -> bool:
    """Whether a kept Responses value is an item of its own (a built-in tool's call, an
    item reference), not a part of the message's content."""
    kind = value.get("type") if isinstance(value, dict) else None
    return isinstance(kind, str) and (
        kind.endswith(("_call", "_output", "_reference")) or kind.startswith("mcp_")
    )


def part(block: Any, role: str, writing: Any = None, index: int | None = None) -> Any:
    """A content block as a Responses content part; with a strict ``writing`` (the
    writer's default) one the API takes, or None, said, for a block with no part."""
    made = _part(block, role)
    if writing is None or writing.keep_extras:
        return made
    kind = made.get("type") if isinstance(made, dict) else None
    keys = PART_KEYS.get(kind)  # type: ignore[arg-type]
    if keys is None or (kind == "input_image" and not made.keys() & {"image_url", "file_id"}):
        writing.left(NO_PART, index, str(kind or type(made).__name__))
        return None
    if kind == "input_file" and not made.keys() & {"file_id", "file_data", "file_url"}:
        writing.left(NO_PART, index, "a file with neither data, URL nor id")
        return None
    if isinstance(block, dict) and block.get("type") == "text":
        left = text_fields(block, ("source_type", *keys))
    else:
        left = [k for k, v in made.items() if k not in keys and v is not None]
    if left:
        writing.left(PART_FIELDS, index, names(left))
    made = {k: v for k, v in made.items() if k in keys}
    if made["type"] == "output_text":
        made.setdefault("annotations", [])
    if made["type"] == "input_image":
        made.setdefault("detail", "auto")  # (the API's own default, which its type asks for)
    if role != "assistant" and made["type"] == "output_text":
        made = {"type": "input_text", "text": made.get("text", "")}
    return made


def _part(block: Any, role: str) -> Any:
    if isinstance(block, str):
        return {"type": "output_text" if role == "assistant" else "input_text", "text": block}
    if not isinstance(block, dict):
        return block
    kind = block.get("type")
    extras = dict(block.get("extras") or {})
    if kind == "text":
        default = "output_text" if role == "assistant" else "input_text"
        part = {"type": extras.pop("source_type", default), "text": block.get("text", "")}
        part.update(extras)
        if part["type"] == "output_text":
            part.setdefault("annotations", [])
        return part
    if kind == "non_standard":
        return block.get("value")
    if kind == "image_url":
        image = block.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        part = {"type": "input_image", "image_url": url}
        if isinstance(image, dict) and "detail" in image:
            part["detail"] = image["detail"]
        return part
    if kind == "text-plain":
        from .openai_writer import file_as_text

        text = file_as_text(block)
        if text is not None:
            return {"type": "input_text", "text": text}
    if kind in _MEDIA_TYPES and isinstance(block.get("source"), dict):
        return _sourced(block["source"], _MEDIA_TYPES[kind], block)
    if kind == "document" and isinstance(block.get("source"), dict):  # Anthropic's
        source = block["source"]
        if source.get("type") == "text":
            return {"type": "input_text", "text": source.get("data", "")}
        return _sourced(source, "input_file", block)
    if kind in _MEDIA_TYPES:
        return _media(block, _MEDIA_TYPES[kind], extras)
    return block  # Responses parts already, and blocks of other kinds, as they are


def _sourced(source: dict[str, Any], kind: str, block: dict[str, Any]) -> dict[str, Any]:
    """An Anthropic image or document (its ``source``) as an input part."""
    part: dict[str, Any] = {"type": kind}
    at = "image_url" if kind == "input_image" else None
    if source.get("type") == "base64":
        part[at or "file_data"] = f"data:{source.get('media_type')};base64,{source.get('data')}"
    elif source.get("type") == "url":
        part[at or "file_url"] = source.get("url")
    elif source.get("type") == "file":
        part["file_id"] = source.get("file_id")
    if kind == "input_file" and isinstance(block.get("title"), str):
        part["filename"] = block["title"]
    return part


def _media(block: dict[str, Any], kind: str, extras: dict[str, Any]) -> dict[str, Any]:
    part: dict[str, Any] = {"type": kind}
    if block.get("file_id"):
        part["file_id"] = block["file_id"]
    elif block.get("base64"):
        data = f"data:{block.get('mime_type') or 'application/octet-stream'};base64,"
        data += block["base64"]
        part["image_url" if kind == "input_image" else "file_data"] = data
    elif block.get("url"):
        part["image_url" if kind == "input_image" else "file_url"] = block["url"]
    if kind == "input_file" and (block.get("filename") or extras.get("filename")):
        part["filename"] = block.get("filename") or extras.pop("filename")
    part.update(extras)
    return part
