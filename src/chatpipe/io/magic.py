"""What a file's first bytes say it is: a compression (gzip, bzip2, xz, zstd), a zip
archive, an image (and its MIME type), or another kind of binary file that is no text
chat log, named in words for the message that refuses it."""

from __future__ import annotations

GZIP, BZIP2, XZ, ZSTD = "gzip", "bzip2", "xz", "zstd"

# a compression's magic number, and the suffixes its files are named with
COMPRESSIONS: dict[str, tuple[bytes, tuple[str, ...]]] = {
    GZIP: (b"\x1f\x8b", (".gz", ".gzip")),
    BZIP2: (b"BZh", (".bz2",)),
    XZ: (b"\xfd7zXZ\x00", (".xz",)),
    ZSTD: (b"\x28\xb5\x2f\xfd", (".zst", ".zstd")),
}
# a local file header, an empty archive's end record, a spanned archive's marker
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")
HEAD = 4096  # bytes looked at to tell text from binary data

_IMAGES = (  # (magic, offset, MIME type, what it is called)
    (b"\x89PNG\r\n\x1a\n", 0, "image/png", "a PNG image"),
    (b"\xff\xd8\xff", 0, "image/jpeg", "a JPEG image"),
    (b"GIF87a", 0, "image/gif", "a GIF image"),
    (b"GIF89a", 0, "image/gif", "a GIF image"),
    (b"WEBP", 8, "image/webp", "a WebP image"),
)
_OTHERS = (  # (magic, offset, what it is called)
    (b"%PDF-", 0, "a PDF document"),
    (b"SQLite format 3\x00", 0, "an SQLite database"),
    (b"7z\xbc\xaf\x27\x1c", 0, "a 7-Zip archive"),
    (b"Rar!\x1a\x07", 0, "a RAR archive"),
    (b"ustar", 257, "a tar archive"),
    (b"WAVE", 8, "a WAV recording"),
    (b"ID3", 0, "an MP3 recording"),
    (b"OggS", 0, "an Ogg recording"),
    (b"ftyp", 4, "an MP4 or M4A file"),
    (b"\x1aE\xdf\xa3", 0, "a WebM or Matroska video"),
    (b"\x7fELF", 0, "a program (ELF)"),
    (b"MZ", 0, "a Windows program"),
    (b"\xd0\xcf\x11\xe0", 0, "an old Microsoft Office document"),
)
# control characters text holds (tab, line breaks, form feed, escape)
_TEXT_CONTROLS = frozenset(b"\t\n\r\f\v\x1b\x08")


def compression_of(head: bytes) -> str | None:
    """The compression a file's first bytes name (``gzip``...), or None."""
    for name, (magic, _) in COMPRESSIONS.items():
        if head.startswith(magic):
            return name
    return None


def compression_by_name(path: str) -> str | None:
    """The compression a file name's suffix names (``out.jsonl.gz``: gzip), or None."""
    lower = path.lower()
    for name, (_, suffixes) in COMPRESSIONS.items():
        if lower.endswith(suffixes):
            return name
    return None


def strip_compression(name: str) -> str:
    """A file name without its compression suffix (``a.jsonl.gz``: ``a.jsonl``)."""
    lower = name.lower()
    for _, suffixes in COMPRESSIONS.values():
        for suffix in suffixes:
            if lower.endswith(suffix):
                return name[: -len(suffix)]
    return name


def is_zip(head: bytes) -> bool:
    return head.startswith(ZIP_MAGIC)


def image_mime(head: bytes) -> str | None:
    """The MIME type of a PNG, JPEG, GIF or WebP image's first bytes, or None (ChatGPT
    exports name their images ``.dat`` as often as ``.png``)."""
    for magic, offset, mime, _ in _IMAGES:
        if head[offset : offset + len(magic)] == magic:
            return mime
    return None


def binary_kind(head: bytes) -> str | None:
    """What a file is, in words, when its first bytes are not text (``a PNG image``,
    ``binary data``); None for text. Text here is what a chat log may begin with: few
    control characters and no NUL (UTF-16 comes with its byte order mark)."""
    for magic, offset, _, called in _IMAGES:
        if head[offset : offset + len(magic)] == magic:
            return called
    for magic, offset, called in _OTHERS:
        if head[offset : offset + len(magic)] == magic:
            return called
    if is_zip(head):
        return "a zip archive"
    for name, (magic, _) in COMPRESSIONS.items():
        if head.startswith(magic):
            return f"{name}-compressed data"
    sample = head[:HEAD]
    if b"\x00" in sample:
        return "binary data"
    # control characters: text holds next to none (JSON and YAML escape them), while any
    # binary data holds one byte in ten; bytes that are not UTF-8 are left for the reader
    # to place (Latin-1 text is text in the wrong encoding, said at its first such byte)
    odd = sum(1 for byte in sample if byte < 0x20 and byte not in _TEXT_CONTROLS)
    return "binary data" if odd * 100 > len(sample) else None
