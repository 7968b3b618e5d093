"""JSON text exactly as ``json.dumps`` writes it, without its per-call set-up.

langchain-core writes tool-call arguments and JSON shown in buffer strings with
``json.dumps`` (", " and ": " separators), so chatpipe writes the same text. Each
``json.dumps`` call with a non-default option builds an encoder and each call builds
its C encoder again, which costs more than encoding a small object; here both are
built once. Values read from JSON cannot be circular, so no cycle check is made (a
circular value built in Python raises RecursionError, not ValueError).
"""

from __future__ import annotations

import json
from typing import Any

try:
    from json.encoder import c_make_encoder
except ImportError:  # pragma: no cover - CPython has it
    c_make_encoder = None


def _encoder(ascii: bool) -> Any:
    if c_make_encoder is None:  # pragma: no cover
        return lambda value, _level: json.dumps(value, ensure_ascii=ascii)
    strings = json.encoder.encode_basestring_ascii if ascii else json.encoder.encode_basestring
    return c_make_encoder(
        None,  # markers: no cycle check
        json.JSONEncoder().default,  # raises TypeError for what JSON cannot hold
        strings,
        None,  # indent
        ": ",
        ", ",
        False,  # sort_keys
        False,  # skipkeys
        True,  # allow_nan
    )


_UNICODE = _encoder(False)
_ASCII = _encoder(True)


def json_text(value: Any, ascii: bool = False) -> str:
    """``json.dumps(value, ensure_ascii=ascii)``."""
    return "".join((_ASCII if ascii else _UNICODE)(value, 0))
