"""Signals while an output is being written: SIGTERM and SIGHUP end the run as Ctrl-C
does, unwinding it so that what it staged is removed (``clean_up_on_signals``); the
signals that come while a finished output is moved into place are held until it is in
place, or put back as it was (``Held``); and ``blocked`` keeps them pending for the few
lines that make a file or a process and note it (a signal between the two would leave
the file, or the process, unknown to what cleans up)."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from typing import Any

from ..errors import Terminated

_ENDING = ("SIGTERM", "SIGHUP")


def _terminate(signum: int, _frame: object) -> None:
    raise Terminated(signum)


def _numbers(names: tuple[str, ...]) -> list[int]:
    return [getattr(signal, name) for name in names if hasattr(signal, name)]


def clean_up_on_signals() -> dict[int, Any]:
    """SIGTERM and SIGHUP raise Terminated from now on (until ``restore``), so that a run
    unwinds and removes what it wrote, as on Ctrl-C; the handlers before, to give back."""
    saved: dict[int, Any] = {}
    for signum in _numbers(_ENDING):
        # (not the main thread: the caller's own affair)
        with contextlib.suppress(ValueError, OSError):
            saved[signum] = signal.signal(signum, _terminate)
    return saved


@contextlib.contextmanager
def blocked() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP kept pending while the block runs (in this thread), then
    delivered: to the handlers there are then, at the first line after the block."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - not POSIX
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _numbers(("SIGINT", *_ENDING)))
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def restore(saved: dict[int, Any]) -> None:
    """The handlers ``saved`` by ``clean_up_on_signals`` (or ``Held``) given back."""
    for signum, handler in saved.items():
        with contextlib.suppress(ValueError, OSError, TypeError):
            signal.signal(signum, handler)


class Held:
    """SIGINT, SIGTERM and SIGHUP noted, not acted on, from now until ``release``: the
    moves that put a finished output in place run to their end, and ``check`` then says
    whether to put them back (raising as the signal would have)."""

    def __init__(self) -> None:
        self.came: int | None = None
        self.saved: dict[int, Any] = {}
        for signum in _numbers(("SIGINT", *_ENDING)):
            with contextlib.suppress(ValueError, OSError):
                self.saved[signum] = signal.signal(signum, self._note)

    def _note(self, signum: int, _frame: object) -> None:
        if self.came is None:
            self.came = signum

    def check(self) -> None:
        """Raise what a signal that came would have raised: KeyboardInterrupt for Ctrl-C,
        Terminated for the others."""
        if self.came is None:
            return
        if self.came == getattr(signal, "SIGINT", None):
            raise KeyboardInterrupt
        raise Terminated(self.came)

    def release(self, before: dict[int, Any] | None = None, again: bool = False) -> None:
        """The handlers back: those ``before`` names (the ones before the output was
        begun), else those there were when holding began; with ``again``, a signal that
        came is sent again, to be acted on by them (else it is dropped)."""
        before = before or {}
        restore({signum: before.get(signum, handler) for signum, handler in self.saved.items()})
        self.saved = {}
        if again and self.came is not None:
            import os

            os.kill(os.getpid(), self.came)
