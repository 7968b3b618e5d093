"""The dataset commands' decisions on rows read by the row lane (fast/rows.py), from their
items (plain canonical dicts, and messages where a message had no plain shape), with no
message made: the keys of sample and split and dedupe's digests (fast/row_keys.py),
select's checks, count's tokens and trim's budget (fast/row_select.py), grep's hits and
redact's replacements (fast/row_text.py).

Each decision is the operation's own, taken through its seam for a value computed
beforehand (``Deduper.keep(conversation, digest)``, ``Fraction.keeps``, ``sample(...,
keys=...)``, ``Grep.found``, ``GrepLines.lines``); the value is computed by the code the
messages' way uses, given the dict's fields (``digest.fields_bytes``, ``Redactor.value``),
or, for the few facts a dict with text content answers at a glance (its role, whether it
is a system turn or has calls, its approximate tokens: fast/budget.py's formula), there.
An item of any other shape is made a message and asked the ordinary way.
tests/test_row_lane.py checks every command both ways.

This module tells which operations the lane serves and hands each to its module, by the
classes of the ops/ modules already loaded (an operation of a module not loaded is none
of them), so that a run loads only what its own operation needs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

from ..model import Conversation
from .rows import RowMessages, row_items, untouched_row


def _is(value: Any, module: str, *names: str) -> bool:
    """Whether ``value`` is of one of these classes of ``chatpipe.ops.<module>`` (not
    loaded: it is none of them)."""
    loaded = sys.modules.get(f"chatpipe.ops.{module}")
    return loaded is not None and isinstance(value, tuple(getattr(loaded, n) for n in names))


def _by(operation: Any) -> str:
    """What a dedupe's operation (its own, or a pass's) compares by."""
    return operation.deduper.by if _is(operation, "dedupe", "KeepFirst") else operation.by


def takes(operation: Any) -> bool:
    """Whether a run with this operation may read its rows with the row lane: one that
    decides here, passes conversations on as they are, or none."""
    if operation is None or _is(operation, "sample", "Head", "Listed", "_Chosen"):
        return True
    if _is(operation, "sample", "Fraction", "SampleN", "_Keys"):
        return True
    if _is(operation, "dedupe", "Deduper", "Digests", "KeepFirst"):
        return _by(operation) != "messages"
    if _is(operation, "operation", "OnMessages"):  # (a change that says it takes them: trim's)
        return getattr(operation.change, "plain_rows", False)
    return _is(operation, "select", "Selector") or _is(operation, "redact", "Redactor")


def row_call(operation: Any) -> Callable[[Conversation], Conversation | None] | None:
    """The operation's call for every conversation, deciding about the rows the lane read
    from their items (the others go to the operation itself), or None where it has none."""
    if _is(operation, "sample", "Head", "Listed", "_Chosen"):
        return _passing(operation)
    if _is(operation, "sample", "Fraction", "_Keys") or (
        _is(operation, "dedupe", "Deduper", "Digests", "KeepFirst") and takes(operation)
    ):
        from .row_keys import row_call as by_key

        return by_key(operation)
    if _is(operation, "select", "Selector"):
        from .row_select import selecting

        return selecting(operation)
    if _is(operation, "redact", "Redactor"):
        from .row_text import redacting

        return redacting(operation)
    return None


def row_stream(operation: Any) -> Callable[[Iterator[Conversation]], Iterator[Any]] | None:
    """A streaming operation's stream, deciding about the rows from their items."""
    if _is(operation, "sample", "SampleN"):
        from .row_keys import row_keyed

        return lambda conversations: operation.stream(conversations, row_keyed)
    return None


def _passing(operation: Any) -> Callable[[Conversation], Conversation | None]:
    def call(conversation: Conversation) -> Conversation | None:
        return conversation if row_items(conversation) is not None else operation(conversation)

    return call


def row_line(line: Any) -> Callable[[Conversation], Any] | None:
    """A ``Lines`` target's line of a row the row lane read, from its items: grep's
    (without context), count's (of a counter that adds up); None for any other line."""
    if _is(line, "grep", "GrepLines"):
        from .row_text import grep_lines

        return grep_lines(line) if not line.search.context else None
    if _is(line, "count", "CountLine"):
        from .row_select import count_line

        return count_line(line)
    return None


def split_side(splitter: Any, conversation: Conversation) -> str | None:
    """``splitter.side`` of a row the lane read; None for any other conversation."""
    if untouched_row(conversation) is None:
        return None
    from .row_keys import row_keyed

    return splitter.side_of_key(row_keyed(conversation, splitter.seed, "split")[1])


def row_within(conversation: Conversation, counter: Any, budget: int) -> RowMessages | None:
    """The messages of a row the row lane read when they are all within ``budget`` by a
    counter that adds up (what trimming the newest keeps: all of them), else None."""
    from .row_select import within

    return within(conversation, counter, budget)
