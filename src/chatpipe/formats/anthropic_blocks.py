"""Content blocks of any provider's form as Anthropic's (images, documents, plain-text
files, another model's reasoning), and whether an image or document has the source the
Messages API asks for: the block conversions of anthropic_writer.py."""

from __future__ import annotations

from typing import Any

from .media import name_of

# the media types of a base64 image the API takes
_IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")


def faithful(block: Any) -> Any:
    """A block as ``keep_extras`` writes it: images of other forms and reasoning made
    Anthropic's, every other block as it is."""
    if isinstance(block, str):
        return {"type": "text", "text": block}
    kind = block.get("type")
    if kind == "image" and "source" not in block and ("url" in block or "base64" in block):
        return _media(block)
    if kind in ("image_url", "text-plain", "reasoning"):
        return anthropic_block(block)
    return block


def complete(block: dict[str, Any]) -> bool:
    """Whether an image or document has the source the API asks for."""
    if block.get("type") not in ("image", "document"):
        return True
    source = block.get("source")
    if not isinstance(source, dict):
        return False
    if block["type"] == "image" and source.get("type") == "base64":
        return source.get("media_type") in _IMAGE_TYPES and isinstance(source.get("data"), str)
    if block["type"] == "document" and source.get("type") in ("base64", "text"):
        media = "application/pdf" if source["type"] == "base64" else "text/plain"
        return source.get("media_type") == media and isinstance(source.get("data"), str)
    needs = {"base64": "data", "url": "url", "file": "file_id", "text": "data"}.get(
        source.get("type")  # type: ignore[arg-type]
    )
    return needs is not None and isinstance(source.get(needs), str)


def anthropic_block(block: Any) -> Any:
    """A block of any provider's form as Anthropic's (other kinds as they are)."""
    if isinstance(block, str):
        return {"type": "text", "text": block}
    kind = block.get("type")
    if kind == "image_url":
        image = block.get("image_url")
        return _image(image.get("url") if isinstance(image, dict) else image)
    if kind == "file" and isinstance(block.get("file"), dict):  # Chat Completions' file part
        file = block["file"]
        made = _source_of(file.get("file_data"), file.get("file_id"), "document")
        if isinstance(file.get("filename"), str):
            made["title"] = file["filename"]
        return made
    if kind in ("image", "file") and "source" not in block:
        made = _media(block)
        name = name_of(block)
        if made.get("type") == "document" and name:
            made["title"] = name  # (a document's title: the file's name)
        return made
    if kind == "text-plain":
        from ..model.blocks import text_file  # (its TypedDicts: loaded when a file is met)

        name, text = text_file(block)
        if text is not None:  # Anthropic's plain-text document
            document: dict[str, Any] = {
                "type": "document",
                "source": {"type": "text", "media_type": "text/plain", "data": text},
            }
            if name:
                document["title"] = name
            return document
    if kind == "reasoning":
        return {
            "type": "thinking",
            "thinking": block.get("reasoning", ""),
            "signature": (block.get("extras") or {}).get("signature", ""),
        }
    if kind in ("json",) and "json" in block:
        from ..io.jsontext import json_text

        return {"type": "text", "text": json_text(block["json"])}
    return block


def _media(block: dict[str, Any]) -> dict[str, Any]:
    """A standard image or file block (url, base64 or file id) as an image or document."""
    kind = "image" if block["type"] == "image" else "document"
    if "url" in block:
        return {"type": kind, "source": {"type": "url", "url": block["url"]}}
    if "base64" in block:
        mime = block.get("mime_type")
        if kind == "document" and mime == "text/plain":
            import base64

            data = base64.b64decode(block["base64"] or "").decode("utf-8", "replace")
            return {"type": kind, "source": {"type": "text", "media_type": mime, "data": data}}
        source = {"type": "base64", "media_type": mime, "data": block["base64"]}
        return {"type": kind, "source": source}
    if "file_id" in block:
        return {"type": kind, "source": {"type": "file", "file_id": block["file_id"]}}
    return block


def _source_of(data: Any, file_id: Any, kind: str) -> dict[str, Any]:
    if isinstance(data, str) and data.startswith("data:") and ";base64," in data:
        head, payload = data[5:].split(";base64,", 1)
        return {"type": kind, "source": {"type": "base64", "media_type": head, "data": payload}}
    if isinstance(file_id, str):
        return {"type": kind, "source": {"type": "file", "file_id": file_id}}
    return {"type": kind}


def _image(url: Any) -> dict[str, Any]:
    if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
        head, data = url[5:].split(";base64,", 1)
        return {"type": "image", "source": {"type": "base64", "media_type": head, "data": data}}
    return {"type": "image", "source": {"type": "url", "url": url}}
