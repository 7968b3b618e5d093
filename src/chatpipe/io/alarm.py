"""A processor-time alarm that stops a long call from inside: a regular expression that
backtracks for ever (ops/user_regex.py), a chat template's filter on a huge text
(templates/bounds.py).

Python looks at signals between the steps of its interpreter and inside its regular
expression engine, so a signal's handler can raise in the middle of one call. While a
bounded piece of work runs, ``watch(check)`` makes ``check`` what the alarm calls every
``PERIOD`` seconds of the process's processor time (``SIGVTALRM``); ``check`` raises to
stop the work. The timer is set when work starts and none is pending, and set again by
its own handler only while work goes on: a run makes a system call every ``PERIOD``
seconds of its processor time, not one per piece of work.

Only the main thread hears signals: elsewhere (a Dask worker's thread, a library caller's
thread), and where ``SIGVTALRM`` has a handler of another's, ``watch`` says it cannot, and
the work runs unwatched.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from threading import get_ident
from typing import Any

PERIOD = 0.25  # seconds of processor time between two alarms while work goes on
_TIMER = getattr(signal, "ITIMER_VIRTUAL", None)
_SIGNAL = getattr(signal, "SIGVTALRM", None)

Check = Callable[[], None]


class _Alarm:
    """The process's one timer: what it calls (None between pieces of work)."""

    def __init__(self) -> None:
        self.main = get_ident()  # the main thread (a forked child's: its own)
        self.check: Check | None = None
        self.armed = False
        self.usable: bool | None = None  # None: not yet looked at

    def install(self) -> bool:
        """Whether the alarm can run here (its handler set the first time, in the main
        thread; not where ``SIGVTALRM`` has a handler of another's)."""
        if self.usable is None:
            self.usable = False
            if _TIMER is not None and _SIGNAL is not None:
                try:
                    if signal.getsignal(_SIGNAL) in (signal.SIG_DFL, None):
                        signal.signal(_SIGNAL, _ring)
                        self.usable = True
                except (ValueError, OSError):  # (not the main thread after all)
                    self.usable = None
        return bool(self.usable)

    def forked(self) -> None:
        """In a forked child: no timer runs there (the handler is inherited), and the
        thread that forked is its main one."""
        self.main = get_ident()
        self.check = None
        self.armed = False


_ALARM = _Alarm()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_ALARM.forked)


def _ring(signum: int, frame: Any) -> None:
    alarm = _ALARM
    check = alarm.check
    if check is None:  # between pieces of work: the timer rests until the next one
        alarm.armed = False
        return
    signal.setitimer(_TIMER, PERIOD)  # type: ignore[arg-type]
    check()


def watch(check: Check) -> Check | bool | None:
    """``check`` called at each alarm from now until ``unwatch``; what to give
    ``unwatch`` (the check it replaces), or False where no alarm can reach this thread."""
    alarm = _ALARM
    if get_ident() != alarm.main or (not alarm.usable and not alarm.install()):
        return False
    previous = alarm.check
    alarm.check = check
    if not alarm.armed:
        alarm.armed = True
        signal.setitimer(_TIMER, PERIOD)  # type: ignore[arg-type]
    return previous


def unwatch(previous: Check | bool | None) -> None:
    """The work ``watch`` was called for has ended: the check before it back."""
    if previous is not False:
        _ALARM.check = previous  # type: ignore[assignment]
