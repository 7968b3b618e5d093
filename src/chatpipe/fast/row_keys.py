"""The keys of sample and split and dedupe's digests, of rows read by the row lane
(fast/row_ops.py says how they are used)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..model import AIMessage, Conversation
from ..ops import digest
from ..ops.digest import normalise
from ..ops.sample import key_of, keyed
from .rows import ROLES, RowMessages, untouched_row

# what ``digest.fields_bytes`` starts the bytes of a dict with text and no name or calls with
_HEADS = {kind: role.encode() + b"\x1f\x1f" for kind, role in ROLES.items()}


def item_bytes(item: Any) -> bytes:
    """``digest.message_bytes`` of an item's message."""
    if type(item) is not dict:
        return digest.message_bytes(item)
    content = item["content"]
    if type(content) is str and len(item) == 2:  # {type, content}: most messages
        return _HEADS[item["type"]] + normalise(content).encode("utf-8", "surrogatepass")
    return digest.fields_bytes(
        ROLES[item["type"]], item.get("name"), content, item.get("tool_calls", ())
    )


def _is_ai(item: Any) -> bool:
    return item["type"] == "ai" if type(item) is dict else isinstance(item, AIMessage)


def row_digest(conversation: Conversation, row: RowMessages, by: str) -> bytes:
    return digest.digest(conversation, row.items, by, item_bytes, _is_ai)


def row_keyed(conversation: Conversation, seed: Any, purpose: str) -> tuple[Conversation, int]:
    """``sample.keyed``, a row's identity digested from its items."""
    row = untouched_row(conversation)
    if row is None:
        return keyed(conversation, seed, purpose)
    found = digest.identity(conversation, row.items, item_bytes)
    return conversation, key_of(found, seed, purpose)


def row_call(operation: Any) -> Callable[[Conversation], Conversation | None]:
    """The call of ``sample --fraction``, of pass one of ``sample -n`` on parts, or of
    dedupe (its one pass, or either of its two)."""
    kind = type(operation).__name__
    if kind == "Fraction":
        seed = operation.seed

        def fraction(conversation: Conversation) -> Conversation | None:
            return operation.keeps(*row_keyed(conversation, seed, "sample"))

        return fraction
    if kind == "_Keys":

        def keys(conversation: Conversation) -> None:
            return operation.add(row_keyed(conversation, operation.seed, "sample")[1])

        return keys
    by = operation.deduper.by if kind == "KeepFirst" else operation.by
    take = operation.add if kind == "Digests" else operation.keep

    def deduped(conversation: Conversation) -> Conversation | None:
        row = untouched_row(conversation)
        if row is None:
            return operation(conversation)
        return take(conversation, row_digest(conversation, row, by))

    return deduped
