"""A user's regular expression (grep's PATTERN, select's ``--grep``, ``--title``,
``--model``): Python's syntax, compiled with one clear error, and each search bounded in
time.

Python's engine backtracks: a repetition inside a repetition (``(a+)+$``, ``(a|aa)*b``)
takes exponential time on a text that almost matches, and one 35-character message never
finishes. A search that runs past ``LIMIT`` seconds of processor time (more for a long
text: ``PER_MILLION`` a million characters) is stopped, and the run ends with one line
naming the pattern, the message and the way out.

The bound is io/alarm.py's processor-time alarm, which interrupts the search in the main
thread (the engine looks at signals as it runs) at the cost of a few assignments a
search. Where a signal cannot reach the search (a thread other than the main one: Dask's
workers, a library caller's thread; a process whose ``SIGVTALRM`` is another's), the
search runs unbounded, as Python's own.

Why not a linear-time engine (RE2, google-re2 on PyPI): its ``\\w``, ``\\d``, ``\\s`` and
``\\b`` are ASCII-only where Python's are Unicode, its ``$`` does not match before a final
line feed, and it has no backreferences or look-arounds, so the same pattern would find
other things depending on what is installed; docs/conversations.md has the measurements.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import UsageError
from ..io import alarm

LIMIT = 1.0  # seconds of processor time one search of a short text may take
PER_MILLION = 1.0  # and more for each million characters of the text
_T = TypeVar("_T")


class _TooLong(Exception):
    """Raised from the alarm inside a search that ran past its bound."""


class PatternTooSlow(UsageError):
    """A search ran past its bound (the caller adds where: ``located``)."""


class _Search:
    """The search under way: the alarms it may hear, and those it heard."""

    __slots__ = ("allowed", "heard")

    def __init__(self) -> None:
        self.allowed = self.heard = 0

    def check(self) -> None:
        self.heard += 1
        if self.heard > self.allowed:  # (the first alarm may come at once)
            raise _TooLong


def _periods(size: int) -> int:
    """The alarms a search of a text of ``size`` characters may hear."""
    return int((LIMIT + PER_MILLION * size / 1e6) / alarm.PERIOD)


_SHORT = _periods(0)
_SEARCH = _Search()


class UserPattern:
    """A compiled pattern whose searches are bounded in time (``search``, ``spans``);
    ``flag`` names it in errors (``PATTERN``, ``--grep``)."""

    def __init__(self, pattern: str, flag: str, ignore_case: bool = False) -> None:
        try:
            self.compiled = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
        except re.error as exc:
            raise UsageError(f"{flag} {pattern!r} is not a regular expression: {exc}") from None
        except RecursionError:
            raise UsageError(f"{flag} is nested too deeply to compile") from None
        self.pattern, self.flag = pattern, flag
        self.literal = _literal(pattern, ignore_case)

    def __getstate__(self) -> dict[str, Any]:  # (sent to --jobs and Dask workers)
        return {"pattern": self.pattern, "flag": self.flag, "flags": self.compiled.flags}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.pattern, self.flag = state["pattern"], state["flag"]
        self.compiled = re.compile(self.pattern, state["flags"])
        self.literal = _literal(self.pattern, bool(state["flags"] & re.IGNORECASE))

    def search(self, text: str) -> re.Match[str] | None:
        """The first match in ``text``, or None."""
        return self._bounded(self.compiled.search, text)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The ``(start, end)`` of every match in ``text``."""
        literal = self.literal
        if literal is None:
            return self._bounded(self._spans, text)
        # a plain string: where it is, left to right, none overlapping (what the engine
        # finds, in time linear in the text: nothing to bound)
        found, size = [], len(literal)
        at = text.find(literal)
        while at >= 0:
            found.append((at, at + size))
            at = text.find(literal, at + size)
        return found

    def _spans(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for m in self.compiled.finditer(text)]

    def _bounded(self, find: Callable[[str], _T], text: str) -> _T:
        """``find(text)``, stopped past its bound where the alarm can reach it."""
        search = _SEARCH
        search.heard = 0
        search.allowed = _SHORT if len(text) < 100_000 else _periods(len(text))
        previous = alarm.watch(search.check)
        try:
            return find(text)
        except _TooLong:
            raise self._too_long() from None
        finally:
            alarm.unwatch(previous)

    def _too_long(self) -> PatternTooSlow:
        return PatternTooSlow(
            f"{self.flag} {self.pattern!r} ran for more than {LIMIT:g} s on one text and was "
            "stopped: Python's regular expressions backtrack, and a repetition inside a "
            "repetition (such as (a+)+ or (a|aa)*) can take exponential time",
            hint="write it so that each character can match one way only: a+$ for (a+)+$",
        )


# what makes a pattern more than a plain string to Python's engine
_SPECIAL = frozenset(".^$*+?{}[]\\|()")


def _literal(pattern: str, ignore_case: bool) -> str | None:
    """The pattern when it is a plain string matched case and all (no character the
    engine reads as syntax), else None."""
    if not pattern or ignore_case or any(c in _SPECIAL for c in pattern):
        return None
    return pattern


def compile_regex(pattern: str, flag: str, ignore_case: bool = False) -> UserPattern:
    """A user's regular expression, or a UsageError naming the flag and the mistake."""
    return UserPattern(pattern, flag, ignore_case)
