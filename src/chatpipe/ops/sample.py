"""``head``, ``sample`` and ``split``: conversations chosen by position or by a stable key.

Each conversation gets a key from a hash of the seed and its identity (its id, or its
content's digest: ``digest.identity``), never from the order it is read in or from a
random generator's state. So a sample or a split depends only on the seed and on what
the conversations are: the same on one process, on ``--jobs`` workers and on Dask,
whatever the shards. ``sample -n N`` keeps the N smallest keys (``SmallestKeys``: N
entries at most, and two of them, from two parts of the input, combine into the one of
the whole); ``sample --fraction F`` keeps the keys below F; ``split`` puts each
conversation on the side its key falls in. Equal keys (equal conversations, or one id
twice) are ordered by position: the first in the input comes first.
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import UsageError
from ..model import Conversation
from . import digest, facts
from .operation import PerPart, Stateless, Streaming, TwoPasses

_SPACE = float(1 << 64)


def key(conversation: Conversation, seed: int | str = 0, purpose: str = "sample") -> int:
    """The conversation's 64-bit key for ``purpose`` (``sample`` or ``split``, so that a
    sample and a split with one seed are independent) under ``seed``."""
    return keyed(conversation, seed, purpose)[1]


def keyed(
    conversation: Conversation, seed: int | str = 0, purpose: str = "sample"
) -> tuple[Conversation, int]:
    """The conversation (its messages listed if they were a log's) and its ``key``."""
    conversation, messages = facts.listed(conversation)
    return conversation, key_of(digest.identity(conversation, messages), seed, purpose)


Keyed = Callable[[Conversation, "int | str", str], "tuple[Conversation, int]"]


def key_of(identity: bytes, seed: int | str, purpose: str) -> int:
    salt = f"{purpose}\x00{seed}\x00".encode()
    return int.from_bytes(hashlib.blake2b(salt + identity, digest_size=8).digest(), "big")


def unit(value: int) -> float:
    """A key as a number in [0, 1)."""
    return value / _SPACE


# -- head -----------------------------------------------------------------------------


def head(conversations: Iterable[Conversation], n: int) -> Iterator[Conversation]:
    """The first ``n`` conversations (reading stops there)."""
    if n < 0:
        raise UsageError(f"-n must be 0 or more, got {n}")
    return itertools.islice(conversations, n)


class Head(Streaming):
    """``head -n``, as a job's operation: the first ``n`` conversations of the run, as
    they come (reading stops there)."""

    def __init__(self, n: int) -> None:
        head((), n)  # (checks n)
        self.n = n

    def stream(self, conversations: Iterator[Conversation]) -> Iterator[Conversation]:
        return head(conversations, self.n)


# -- sample ---------------------------------------------------------------------------


class SmallestKeys:
    """The ``n`` entries of smallest ``(key, position)`` seen, each with a value (a
    conversation, or nothing in a first pass that only finds positions). Memory: ``n``
    entries. ``merge`` adds another's entries: the smallest of two parts' are among the
    smallest of each."""

    def __init__(self, n: int) -> None:
        if n < 0:
            raise UsageError(f"-n must be 0 or more, got {n}")
        self.n = n
        self.heap: list[tuple[int, Any, Any]] = []  # (-key, reversed position, value)

    def add(self, key: int, position: Any, value: Any = None) -> None:
        entry = (-key, _Reversed(position), value)
        if len(self.heap) < self.n:
            heapq.heappush(self.heap, entry)
        elif self.n and entry > self.heap[0]:
            heapq.heapreplace(self.heap, entry)

    def merge(self, other: SmallestKeys) -> SmallestKeys:
        for negated, position, value in other.heap:
            self.add(-negated, position.value, value)
        return self

    def chosen(self) -> list[tuple[Any, int, Any]]:
        """``(position, key, value)`` of the entries kept, in input order."""
        return sorted((p.value, -k, v) for k, p, v in self.heap)

    def positions(self) -> frozenset[Any]:
        return frozenset(p.value for _, p, _ in self.heap)


class _Reversed:
    """A position ordered backwards, so that the heap of the largest keeps the earliest
    of equal keys."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __lt__(self, other: _Reversed) -> bool:
        return other.value < self.value

    def __gt__(self, other: _Reversed) -> bool:
        return other.value > self.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Reversed) and other.value == self.value


def check_fraction(fraction: float) -> float:
    if not 0.0 <= fraction <= 1.0:
        raise UsageError(f"--fraction must be from 0 to 1, got {fraction}")
    return fraction


class Fraction(Stateless):
    """The operation that keeps a conversation when its key is below ``fraction`` (a
    function of the conversation alone: it runs anywhere)."""

    def __init__(self, fraction: float, seed: int | str = 0) -> None:
        self.fraction = check_fraction(fraction)
        self.seed = seed

    def __call__(self, conversation: Conversation) -> Conversation | None:
        return self.keeps(*keyed(conversation, self.seed))

    def keeps(self, conversation: Conversation, found: int) -> Conversation | None:
        """The conversation when its key, ``found``, is below the fraction."""
        return conversation if unit(found) < self.fraction else None


def sample(
    conversations: Iterable[Conversation],
    *,
    n: int | None = None,
    fraction: float | None = None,
    seed: int | str = 0,
    keys: Keyed = keyed,
) -> Iterator[Conversation]:
    """``n`` conversations (all of them when there are fewer), or about ``fraction`` of
    them, chosen by their keys under ``seed``, in input order. With ``n``, the chosen
    ones are held until the input ends (``n`` conversations in memory). ``keys`` gives a
    conversation's key (``keyed``: fast/row_ops.py has another way to the same)."""
    if (n is None) == (fraction is None):
        raise UsageError("give sample one of -n N and --fraction F")
    if fraction is not None:
        keep = Fraction(fraction, seed)
        for conversation in conversations:
            kept = keep.keeps(*keys(conversation, seed, "sample"))
            if kept is not None:
                yield kept
        return
    assert n is not None
    smallest = SmallestKeys(n)
    for position, conversation in enumerate(conversations):
        conversation, found = keys(conversation, seed, "sample")
        smallest.add(found, position, conversation)
    for _, _, conversation in smallest.chosen():
        yield conversation


class SampleN(Streaming, TwoPasses):
    """``sample -n``, as a job's operation: on one process, over the whole stream
    (``stream``: the chosen held until the input ends); on parts, two passes over the same
    parts (``first_pass``: each part's ``n`` smallest keys, merged here; ``second_pass``:
    the chosen positions kept), which choose the same conversations."""

    def __init__(self, n: int, seed: int | str = 0) -> None:
        SmallestKeys(n)  # (checks n)
        self.n, self.seed = n, seed

    def stream(
        self, conversations: Iterable[Conversation], keys: Keyed = keyed
    ) -> Iterator[Conversation]:
        return sample(conversations, n=self.n, seed=self.seed, keys=keys)

    def first_pass(self) -> _Keys:
        return _Keys(self.n, self.seed)

    def second_pass(self, gathered: _Keys) -> _Chosen:
        return _Chosen(gathered.smallest.positions())


class _Keys(PerPart[SmallestKeys]):
    """Pass one on parts: a part's ``n`` smallest keys at their positions ``(part,
    index)``; it writes nothing."""

    def __init__(self, n: int, seed: int | str, part: int = 0) -> None:
        self.n, self.seed, self.part = n, seed, part
        self.smallest = SmallestKeys(n)
        self.index = 0

    def for_part(self, part: int) -> _Keys:
        return _Keys(self.n, self.seed, part)

    def __call__(self, conversation: Conversation) -> None:
        return self.add(key(conversation, self.seed))

    def add(self, found: int) -> None:
        """The next conversation's key, ``found``, taken in."""
        self.smallest.add(found, (self.part, self.index))
        self.index += 1
        return None

    def part_state(self) -> SmallestKeys:
        return self.smallest

    def absorb(self, other: SmallestKeys, placed: Any) -> None:
        self.smallest.merge(other)


class _Chosen(PerPart[None]):
    """Pass two on parts: the conversations at the chosen positions (a part's own
    counts its positions; it gathers nothing)."""

    def __init__(self, positions: frozenset[Any], part: int = 0) -> None:
        self.positions, self.part = positions, part
        self.index = 0

    def for_part(self, part: int) -> _Chosen:
        return _Chosen(self.positions, part)

    def __call__(self, conversation: Conversation) -> Conversation | None:
        position = (self.part, self.index)
        self.index += 1
        return conversation if position in self.positions else None

    def part_state(self) -> None:
        return None

    def absorb(self, state: None, placed: Any) -> None:
        pass


# -- split ----------------------------------------------------------------------------

_SIDE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def parse_ratio(text: str) -> list[tuple[str, float]]:
    """``train=0.9,test=0.1`` as ``[("train", 0.9), ("test", 0.1)]``: names fit for a
    file name, each once, shares from 0 to 1 that add up to 1."""
    sides: list[tuple[str, float]] = []
    for item in text.split(","):
        name, equals, share = item.strip().partition("=")
        name = name.strip()
        if not equals or not _SIDE.fullmatch(name):
            raise UsageError(
                f"--ratio {text!r}: {item.strip()!r} is not NAME=SHARE",
                hint="for example --ratio train=0.9,test=0.1",
            )
        try:
            value = float(share)
        except ValueError:
            raise UsageError(f"--ratio {text!r}: {share.strip()!r} is not a number") from None
        if not 0.0 <= value <= 1.0:
            raise UsageError(f"--ratio {text!r}: the share of {name} is not from 0 to 1")
        if name in (s for s, _ in sides):
            raise UsageError(f"--ratio {text!r}: {name} is named twice")
        sides.append((name, value))
    total = sum(share for _, share in sides)
    if abs(total - 1.0) > 1e-9:
        raise UsageError(f"--ratio {text!r}: the shares add up to {total:g}, not 1")
    return sides


class Splitter:
    """Which side each conversation goes to: the side whose share of [0, 1) its key
    falls in."""

    def __init__(self, ratio: str | list[tuple[str, float]], seed: int | str = 0) -> None:
        self.sides = parse_ratio(ratio) if isinstance(ratio, str) else list(ratio)
        self.names = [name for name, _ in self.sides]
        self.seed = seed
        bounds, running = [], 0.0
        for _, share in self.sides:
            running += share
            bounds.append(running)
        bounds[-1] = 1.0  # (a float sum may end a hair under 1)
        self.bounds = bounds

    def side(self, conversation: Conversation) -> str:
        """The side of a conversation whose messages are a list (``placed`` takes any)."""
        return self.placed(conversation)[0]

    def placed(self, conversation: Conversation) -> tuple[str, Conversation]:
        """The side of a conversation, and the conversation with its messages in a list
        (messages that pass once, a log's or a checked stream's, read here: what is
        written is this conversation, not the one given)."""
        conversation, messages = facts.listed(conversation)
        return self.side_of(digest.identity(conversation, messages)), conversation

    def side_of_key(self, found: int) -> str:
        """The side of a conversation whose ``split`` key is ``found``."""
        where = unit(found)
        for (name, share), bound in zip(self.sides, self.bounds, strict=True):
            if where < bound and share > 0:
                return name
        return next(name for name, share in reversed(self.sides) if share > 0)

    def side_of(self, identity: bytes) -> str:
        return self.side_of_key(key_of(identity, self.seed, "split"))


def split(
    conversations: Iterable[Conversation], ratio: str, seed: int | str = 0
) -> dict[str, list[Conversation]]:
    """The conversations by side (in input order on each side), held in memory: the
    library's way for a list; ``chatpipe split`` streams each side into its own file."""
    splitter = Splitter(ratio, seed)
    out: dict[str, list[Conversation]] = {name: [] for name in splitter.names}
    for conversation in conversations:
        side, conversation = splitter.placed(conversation)
        out[side].append(conversation)
    return out


class Listed(Stateless):
    """The operation of a split: the conversation with its messages in a list (a log's
    are read once), for its side's key and its records."""

    def __call__(self, conversation: Conversation) -> Conversation:
        return facts.listed(conversation)[0]


listed = Listed()
