"""A user's regular expression (grep's PATTERN, select's ``--grep``, ``--title``,
``--model``): Python's syntax, compiled with one clear error, and each search bounded in
time.

Python's engine backtracks: a repetition inside a repetition (``(a+)+$``, ``(a|aa)*b``)
takes exponential time on a text that almost matches, and one 35-character message never
finishes. A search that runs past ``LIMIT`` seconds of processor time (more for a long
text: ``PER_MILLION`` a million characters) is stopped, and the run ends with one line
naming the pattern, the message and the way out.

The bound is a timer of the process's processor time (``SIGVTALRM``) whose handler, in the
main thread, interrupts the search (the engine looks at signals as it runs). It costs a
counter per search: the timer is set when a search starts and none is pending, and set
again by its own handler only while searches go on, so a run makes a system call every
``_PERIOD`` seconds of its processor time, not one per search. Where a signal cannot reach
the search (a thread other than the main one: Dask's workers, a library caller's thread;
a process whose ``SIGVTALRM`` is another's), the search runs unbounded, as Python's own.

Why not a linear-time engine (RE2, google-re2 on PyPI): its ``\\w``, ``\\d``, ``\\s`` and
``\\b`` are ASCII-only where Python's are Unicode, its ``$`` does not match before a final
line feed, and it has no backreferences or look-arounds, so the same pattern would find
other things depending on what is installed; docs/conversations.md has the measurements.
"""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Callable
from threading import get_ident
from typing import Any, TypeVar

from ..errors import UsageError

LIMIT = 1.0  # seconds of processor time one search of a short text may take
PER_MILLION = 1.0  # and more for each million characters of the text
_PERIOD = 0.25  # the timer's period, while searches go on
_TIMER = getattr(signal, "ITIMER_VIRTUAL", None)
_SIGNAL = getattr(signal, "SIGVTALRM", None)
_T = TypeVar("_T")


def _periods(size: int) -> int:
    """The timer's periods a search of a text of ``size`` characters may run."""
    return int((LIMIT + PER_MILLION * size / 1e6) / _PERIOD)


_ALLOWED = _periods(0)


class _TooLong(Exception):
    """Raised by the timer's handler inside a search that ran past its bound."""


class PatternTooSlow(UsageError):
    """A search ran past its bound (the caller adds where: ``located``)."""


class _Watch:
    """The process's one timer: the search under way (its number, 0 for none), how long
    it may run (in periods), and what the last alarm saw."""

    def __init__(self) -> None:
        self.main = get_ident()  # the main thread (a forked child's: its own)
        self.current = 0  # the number of the search under way, 0 when none
        self.count = 0  # searches started
        self.allowed = 1  # periods the search under way may run
        self.seen = 0  # the search under way at the last alarm
        self.periods = 0  # alarms that saw it
        self.armed = False
        self.usable: bool | None = None  # None: not yet looked at

    def install(self) -> bool:
        """Whether the timer can bound searches (the handler set the first time, in the
        main thread; not where ``SIGVTALRM`` has a handler of another's)."""
        if self.usable is None:
            self.usable = False
            if _TIMER is not None and _SIGNAL is not None:
                try:
                    if signal.getsignal(_SIGNAL) in (signal.SIG_DFL, None):
                        signal.signal(_SIGNAL, _alarm)
                        self.usable = True
                except (ValueError, OSError):  # (not the main thread after all)
                    self.usable = None
        return bool(self.usable)

    def reset(self) -> None:
        """In a forked child: no timer runs there (the handler is inherited), and the
        thread that forked is its main one."""
        self.main = get_ident()
        self.current = self.seen = self.periods = 0
        self.armed = False


_WATCH = _Watch()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_WATCH.reset)


def _alarm(signum: int, frame: Any) -> None:
    watch = _WATCH
    if not watch.current:  # between searches: the timer rests until the next one
        watch.armed = False
        return
    if watch.current == watch.seen:
        watch.periods += 1
        if watch.periods >= watch.allowed:
            watch.seen = watch.periods = 0
            watch.armed = False
            raise _TooLong
    else:
        watch.seen, watch.periods = watch.current, 0
    signal.setitimer(_TIMER, _PERIOD)  # type: ignore[arg-type]


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

    def __getstate__(self) -> dict[str, Any]:  # (sent to --jobs and Dask workers)
        return {"pattern": self.pattern, "flag": self.flag, "flags": self.compiled.flags}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.pattern, self.flag = state["pattern"], state["flag"]
        self.compiled = re.compile(self.pattern, state["flags"])

    def search(self, text: str) -> re.Match[str] | None:
        """The first match in ``text``, or None."""
        if get_ident() != _WATCH.main:
            return self.compiled.search(text)
        return self._bounded(self.compiled.search, text)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The ``(start, end)`` of every match in ``text``."""
        if get_ident() != _WATCH.main:
            return [m.span() for m in self.compiled.finditer(text)]
        return self._bounded(self._spans, text)

    def _spans(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for m in self.compiled.finditer(text)]

    def _bounded(self, find: Callable[[str], _T], text: str) -> _T:
        """``find(text)`` in the main thread, stopped past its bound."""
        watch = _WATCH
        if not watch.usable and not watch.install():
            return find(text)
        watch.count += 1
        watch.current = watch.count
        size = len(text)
        watch.allowed = _ALLOWED if size < 100_000 else _periods(size)
        try:
            if not watch.armed:
                watch.armed = True
                signal.setitimer(_TIMER, _PERIOD)  # type: ignore[arg-type]
            return find(text)
        except _TooLong:
            raise self._too_long() from None
        finally:
            watch.current = 0

    def _too_long(self) -> PatternTooSlow:
        return PatternTooSlow(
            f"{self.flag} {self.pattern!r} ran for more than {LIMIT:g} s on one text and was "
            "stopped: Python's regular expressions backtrack, and a repetition inside a "
            "repetition (such as (a+)+ or (a|aa)*) can take exponential time",
            hint="write it so that each character can match one way only: a+$ for (a+)+$",
        )


def compile_regex(pattern: str, flag: str, ignore_case: bool = False) -> UserPattern:
    """A user's regular expression, or a UsageError naming the flag and the mistake."""
    return UserPattern(pattern, flag, ignore_case)
