"""The writer the lane's batches go to (fast/lane.py): what the record writers
(fast/writers.py) and the buffer writer (fast/lane_buffer.py) each give."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..model import AnyMessage

Fast = Callable[[list[Any], Callable[[Any], Any]], list[Any]]


class LaneWriter:
    """A writer for the lane's batches, in three parts, each giving records.

    ``fast(values, other)`` writes a batch of parsed lines: the lines it knows at a
    glance (a subset of the plain ones), ``other(value)`` for the rest, which gives
    ``plain`` of the line's canonical dict, or None for a line that is not plain.
    ``plain`` writes a plain canonical dict; ``one`` the message at an index, as a list.
    """

    __slots__ = ("fast", "one", "plain")

    def __init__(
        self,
        plain: Callable[[dict[str, Any]], Any],
        one: Callable[[int, AnyMessage], list[Any]],
        fast: Fast | None = None,
    ) -> None:
        self.plain = plain
        self.one = one
        self.fast = fast or _each


def _each(values: list[Any], other: Callable[[Any], Any]) -> list[Any]:
    return list(map(other, values))
