"""The encoder: compact JSON lines as chatpipe writes them (docs/architecture.md,
"Canonical JSONL"): orjson's bytes, U+2028, U+2029 and U+0085 escaped, with the standard
library for what orjson refuses."""

from __future__ import annotations

import json
from typing import Any

import orjson

from ..errors import ConversionError

# Characters some readers take as line breaks: written escaped, never raw. Each with its
# last byte, which a quick scan for one byte finds first when it is there at all.
_LINE_BREAKS = (
    (b"\xa8", b"\xe2\x80\xa8", b"\\u2028"),
    (b"\xa9", b"\xe2\x80\xa9", b"\\u2029"),
    (b"\x85", b"\xc2\x85", b"\\u0085"),
)


def _escape_line_breaks(data: bytes) -> bytes:
    for last, raw, escaped in _LINE_BREAKS:
        if last in data and raw in data:
            data = data.replace(raw, escaped)
    return data


def dumps(value: Any) -> bytes:
    """Compact JSON as chatpipe writes it: UTF-8, no spaces, U+2028/2029/0085 escaped."""
    try:
        data = orjson.dumps(value)
    except TypeError:
        # integers past 64 bits: the standard library writes them exactly; a byte a
        # command line gave that is not UTF-8 (\udcff) is written back as it came
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        try:
            data = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            raise ConversionError(
                "text with half a character (a lone surrogate) cannot be written as UTF-8"
            ) from None
    return _escape_line_breaks(data)


# orjson takes no str near 2 GiB (it crashed the process at 2.2 GB): longer texts, rare,
# are written by the standard library, which gives the same bytes
LONGEST_FOR_ORJSON = 1 << 30


def dumps_text(text: str) -> bytes:
    """A str as a JSON string, as orjson writes it, whatever its size; bytes escaped from a
    command line (``\udcff``, a separator that is not UTF-8) are written as they were."""
    if len(text) < LONGEST_FOR_ORJSON:
        try:
            return orjson.dumps(text)
        except TypeError:  # a lone surrogate
            pass
    return json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogateescape")


def dumps_lines(records: list[Any], joiner: bytes = b"\n") -> bytes:
    """Records as JSON lines, each as ``dumps`` writes it, joined by newlines (or by
    ``joiner``: commas, inside an array)."""
    try:
        data = joiner.join(map(orjson.dumps, records))
    except TypeError:
        return joiner.join(map(dumps, records))
    return _escape_line_breaks(data)
