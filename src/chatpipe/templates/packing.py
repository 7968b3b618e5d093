"""Token rows packed into sequences of at most N tokens, in input order.

Each pack is the rows that follow one another in the input, as many as fit whole (a
new pack starts when the next row does not fit): no row is split, reordered or
dropped, so the packs hold every token once. ``position_ids`` count from 0 again at
each row's start, which is how trainers with packing-aware attention (flash attention's
variable-length kernels, TRL's and axolotl's collators) see where rows begin;
``seq_lengths`` gives the same boundaries as lengths.

Packing is sequential by nature. On parts of the input run apart, the rows of each
part are made there and packed here, in input order, as one process packs them (the
target's ``collect``, pipeline/training_rows.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import UsageError

PACK_FIELDS = ("input_ids", "assistant_masks", "labels")


class Packer:
    """Rows in, packs out: ``add(row)`` gives the pack it completes, if any; ``close()``
    the last one. A row is a dict with ``input_ids`` (and ``assistant_masks``,
    ``labels`` when they are there) and maybe an ``id``; a row longer than ``size``
    cannot be packed (cut it first: ``--max-length``)."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise UsageError(f"--pack must be at least 1, got {size}")
        self.size = size
        self.rows: list[dict[str, Any]] = []
        self.tokens = 0

    def add(self, row: dict[str, Any]) -> dict[str, Any] | None:
        length = len(row["input_ids"])
        if length > self.size:
            raise UsageError(
                f"a row of {length} tokens does not fit in a pack of {self.size}",
                hint="add --max-length (at most the pack size) to cut such rows",
            )
        done = None
        if self.tokens + length > self.size:
            done = self.close()
        self.rows.append(row)
        self.tokens += length
        return done

    def close(self) -> dict[str, Any] | None:
        """The pack of the rows held (None when there are none)."""
        if not self.rows:
            return None
        rows, self.rows, self.tokens = self.rows, [], 0
        return pack(rows)

    def packs(self, rows: Any) -> Iterator[dict[str, Any]]:
        for row in rows:
            done = self.add(row)
            if done is not None:
                yield done
        last = self.close()
        if last is not None:
            yield last


def pack(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One pack of ``rows``: their fields joined, ``position_ids`` restarting at each."""
    out: dict[str, Any] = {}
    ids = [row["id"] for row in rows if row.get("id") is not None]
    if ids:
        out["ids"] = ids
    for name in PACK_FIELDS:
        if name in rows[0]:
            joined: list[int] = []
            for row in rows:
                joined.extend(row[name])
            out[name] = joined
    positions: list[int] = []
    for row in rows:
        positions.extend(range(len(row["input_ids"])))
    out["position_ids"] = positions
    out["seq_lengths"] = [len(row["input_ids"]) for row in rows]
    out["length"] = len(positions)
    return out
