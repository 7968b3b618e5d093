"""Media in a message's content, whatever form a reader kept it in, as the writers of the
provider APIs that take media by their own rules (Bedrock Converse, Ollama) need it: its
kind, media type, and its data, URL or file id (``of``); and media types told from the
bytes themselves (``sniff``), for formats that give none (Ollama's images, an Anthropic
base64 source without ``media_type``).

The forms known: standard blocks (``{"type": "image", "base64" | "url" | "file_id",
"mime_type"}``, ``file``, ``audio``, ``video``, ``text-plain``), OpenAI parts
(``image_url``, ``input_audio``, ``file``) and Anthropic blocks (``image`` and
``document`` with a ``source``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

# the first bytes of each kind of media a chat holds, and its media type
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
    (b"ID3", "audio/mpeg"),
    (b"OggS", "audio/ogg"),
    (b"fLaC", "audio/flac"),
)


def sniff(data: Any) -> str | None:
    """The media type of base64 ``data`` told from its first bytes, or None."""
    if not isinstance(data, str) or not data:
        return None
    import base64  # (loaded when media bytes are met: not at start-up)
    import binascii

    head = data[:32]
    try:
        raw = base64.b64decode(head + "=" * (-len(head) % 4), validate=False)
    except (binascii.Error, ValueError):
        return None
    for magic, mime in _MAGIC:
        if raw.startswith(magic):
            return mime
    if raw[:4] == b"RIFF" and raw[8:12] in (b"WEBP", b"WAVE"):
        return "image/webp" if raw[8:12] == b"WEBP" else "audio/wav"
    if raw[4:8] == b"ftyp":
        return "video/mp4"
    return None


class Media(NamedTuple):
    """One piece of media: ``kind`` image, audio, video or file (a document); its media
    type (None when not known); its base64 ``data``, ``url`` (a web or storage URL, or a
    dataset's path) or ``file_id``; ``name`` (a file's name) and ``text`` (a plain-text
    document's text)."""

    kind: str
    mime: str | None = None
    data: str | None = None
    url: str | None = None
    file_id: str | None = None
    name: str | None = None
    text: str | None = None


_KINDS = {"image": "image", "audio": "audio", "video": "video", "file": "file"}


def data_url(url: str) -> tuple[str | None, str] | None:
    """(media type, base64 data) of a ``data:`` URL, or None for any other URL."""
    if not url.startswith("data:") or ";base64," not in url:
        return None
    head, data = url[5:].split(";base64,", 1)
    return head or None, data


def of(block: Any) -> Media | None:
    """The media a content block holds, or None for a block that is no media."""
    if not isinstance(block, dict):
        return None
    kind = block.get("type")
    if kind == "image_url":
        image = block.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        return _from_url("image", url, None) if isinstance(url, str) else None
    if kind == "input_audio" and isinstance(block.get("input_audio"), dict):
        audio = block["input_audio"]
        mime = f"audio/{audio['format']}" if isinstance(audio.get("format"), str) else None
        return Media("audio", mime, data=audio.get("data"))
    if kind == "text-plain":
        name = block.get("title") or name_of(block)
        return Media(
            "file",
            "text/plain",
            block.get("base64"),
            block.get("url"),
            None,
            name,
            block.get("text"),
        )
    if kind in ("image", "document") and isinstance(block.get("source"), dict):
        return _anthropic(kind, block["source"], block)
    if kind == "file" and isinstance(block.get("file"), dict):  # OpenAI's file part
        file = block["file"]
        name = file.get("filename")
        found = data_url(file["file_data"]) if isinstance(file.get("file_data"), str) else None
        if found is not None:
            return Media("file", found[0], found[1], name=name)
        return Media("file", None, file_id=file.get("file_id"), name=name)
    if kind not in _KINDS:
        return None
    mime = block.get("mime_type") if isinstance(block.get("mime_type"), str) else None
    name = name_of(block)
    data = block.get("base64") if block.get("base64") is not None else None
    if data is None and block.get("source_type") == "base64":  # langchain's v0 data blocks
        data = block.get("data")
    if isinstance(data, str):
        return Media(_KINDS[kind], mime or sniff(data), data, name=name)
    url = block.get("url")
    if isinstance(url, str):
        return _from_url(_KINDS[kind], url, mime, name)
    ident = block.get("file_id", block.get("id") if block.get("source_type") == "id" else None)
    return Media(_KINDS[kind], mime, file_id=ident if isinstance(ident, str) else None, name=name)


# the keys a block, its extras or its metadata name a file by
NAME_KEYS = ("filename", "file_name", "name", "title")


def name_of(block: dict[str, Any]) -> str | None:
    """A media block's file name, wherever its reader kept it."""
    for holder in (block, block.get("extras"), block.get("metadata")):
        if isinstance(holder, dict):
            for key in NAME_KEYS:
                if isinstance(holder.get(key), str) and holder[key]:
                    return holder[key]
    return None


def _from_url(kind: str, url: str, mime: str | None, name: str | None = None) -> Media:
    found = data_url(url)
    if found is not None:
        return Media(kind, found[0] or mime or sniff(found[1]), found[1], name=name)
    return Media(kind, mime, url=url, name=name)


def _anthropic(kind: str, source: dict[str, Any], block: dict[str, Any]) -> Media:
    what = "image" if kind == "image" else "file"
    name = block.get("title") if isinstance(block.get("title"), str) else None
    mime = source.get("media_type") if isinstance(source.get("media_type"), str) else None
    if source.get("type") == "base64":
        return Media(what, mime or sniff(source.get("data")), source.get("data"), name=name)
    if source.get("type") == "text":
        return Media("file", mime or "text/plain", name=name, text=source.get("data"))
    if source.get("type") == "file":
        return Media(what, mime, file_id=source.get("file_id"), name=name)
    url = source.get("url")
    return Media(what, mime, url=url if isinstance(url, str) else None, name=name)


def fill_media_type(block: Any) -> Any:
    """An Anthropic image or document whose base64 source gives no ``media_type``, with
    the one its bytes show (others as they are)."""
    if not isinstance(block, dict) or block.get("type") not in ("image", "document"):
        return block
    source = block.get("source")
    if not isinstance(source, dict) or source.get("type") != "base64":
        return block
    if isinstance(source.get("media_type"), str):
        return block
    found = sniff(source.get("data"))
    if found is None:
        return block
    return {**block, "source": {**source, "media_type": found}}
