"""Limits that keep hostile or broken input from exhausting memory or the stack.

Each has a clear error and a root option to raise it (``chatpipe --max-depth 500 ...``).
"""

from __future__ import annotations

from typing import Any

# the most each limit may be raised to: orjson parses no deeper than 1,024 levels, a
# record near 2 GiB is more than orjson can encode, and a value count past a billion is
# more memory than any machine has
MAX_DEPTH = 1000
MAX_RECORD_BYTES = 1 << 30
MAX_YAML_VALUES = 1_000_000_000


class Limits:
    def __init__(self) -> None:
        self.record_bytes = 256 << 20  # one JSONL line or SSE event
        self.depth = 200  # nesting of objects and arrays in one record
        self.yaml_values = 2_000_000  # values a YAML document expands to (aliases included)


LIMITS = Limits()


def too_deep(value: Any, limit: int | None = None) -> bool:
    """Whether a JSON value nests deeper than the limit (walked without recursion)."""
    limit = LIMITS.depth if limit is None else limit
    if not isinstance(value, (dict, list)):
        return False
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        for child in children:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return False


def bytes_may_be_too_deep(data: bytes, limit: int | None = None) -> bool:
    """A cheap first look: text with no more brackets than the limit cannot nest past it."""
    limit = LIMITS.depth if limit is None else limit
    return data.count(b"{") + data.count(b"[") > limit
