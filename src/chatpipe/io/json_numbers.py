"""JSON parsed with orjson, with integers past 64 bits kept exact.

orjson reads an integer it cannot hold in 64 bits as a float, silently
(123456789012345678901234567890 becomes 1.2345678901234568e+29), and refuses one past a
double's range; langchain-core, on the standard library, keeps the exact int. Text with
a run of 19 or more digits is parsed again by the standard library, which keeps every
integer exact: only such records pay. Neither parser takes NaN, Infinity or a float
past a double's range: JSON has no such numbers, and no JSON writer can write them back.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from ..errors import DataError

# 19 digits: the shortest integer that may not fit (-9223372036854775809 does not).
# Found with digits turned into NULs, which JSON text cannot hold raw: ten times the
# speed of a regular expression
_DIGITS_TO_NUL = bytes.maketrans(b"0123456789", b"\0" * 10)
_LONG_RUN = b"\0" * 19


class NotJson(ValueError):
    """What JSON cannot hold: NaN, Infinity, a number past a double's range, half a
    character (a lone surrogate escape, ``\\ud800``)."""


def _not_json(text: str) -> Any:
    raise NotJson(f"{text} is not a JSON number")


def _finite(text: str) -> float:
    number = float(text)
    if number - number != 0:  # inf (NaN never reaches here: it is a constant)
        raise NotJson(f"{text} is past the range of a JSON number")
    return number


def stdlib_loads(text: str | bytes, strict: bool = True) -> Any:
    """``json.loads`` without the numbers JSON has not got (raises NotJson, or
    json.JSONDecodeError)."""
    value = json.loads(text, strict=strict, parse_constant=_not_json, parse_float=_finite)
    escaped = ("\\ud", "\\uD") if isinstance(text, str) else (b"\\ud", b"\\uD")
    if (escaped[0] in text or escaped[1] in text) and _half_character(value):
        raise NotJson("a \\u escape of half a character (a lone surrogate) is not text")
    return value


def _half_character(value: Any) -> bool:
    """Whether a string in the value holds a lone surrogate (which UTF-8 cannot write)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _long(data: bytes | str) -> bool:
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return _LONG_RUN in data.translate(_DIGITS_TO_NUL)


def loads(data: bytes | str) -> Any:
    """``orjson.loads`` with integers past 64 bits exact; raises orjson.JSONDecodeError
    as orjson does, or DataError for an integer Python will not read (4,300 digits)."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as refused:
        if not _long(data):
            raise
        try:  # an integer past a double's range, which the standard library reads
            return _exact(data)
        except (json.JSONDecodeError, NotJson):
            raise refused from None
    # (the look for long digit runs inline: this is called once a tool call)
    text = data.encode("utf-8", "surrogatepass") if type(data) is str else data
    return _exact(data) if _LONG_RUN in text.translate(_DIGITS_TO_NUL) else value


def again(value: Any, data: bytes | str) -> Any:
    """``value``, as orjson parsed it from ``data``, with its integers exact."""
    return _exact(data) if _long(data) else value


def _exact(data: bytes | str) -> Any:
    try:
        return stdlib_loads(data)
    except (json.JSONDecodeError, NotJson):
        raise
    except ValueError:  # more digits than Python converts to an int
        raise DataError(
            "an integer with more digits than can be read exactly (4,300 at most)",
            hint="write such a number as a string",
        ) from None
