"""Long output paged on a terminal as git pages its own: the pager git would pick, with
git's defaults for less, Ctrl-C left to the pager while it runs."""

from __future__ import annotations

import os
import sys

from .diagnostics import warn


def pager_command() -> str | None:
    """The pager to run, as git picks its own: ``CHATPIPE_PAGER``, else ``PAGER``, else
    ``less``; None for no pager (an empty value, ``cat``, or no ``less`` to run)."""
    import shutil

    for name in ("CHATPIPE_PAGER", "PAGER"):
        command = os.environ.get(name)
        if command is not None:
            command = command.strip()
            return command if command and command != "cat" else None
    return "less" if shutil.which("less") else None


def pager_environment() -> dict[str, str]:
    """The pager's environment: ours, with git's defaults for less and lv where the user
    set none (``LESS=FRX``: colours passed through, one screen printed and left, the
    screen not cleared)."""
    environment = dict(os.environ)
    environment.setdefault("LESS", "FRX")
    environment.setdefault("LV", "-c")
    return environment


class Pager:
    """Rich's pager protocol (``show(content)``) over a shell command, as git runs one."""

    def __init__(self, command: str) -> None:
        self.command = command

    def show(self, content: str) -> None:
        import signal
        import subprocess
        import threading

        encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
        data = content.encode(encoding, errors="replace")
        sys.stdout.flush()
        pager = subprocess.Popen(
            self.command, shell=True, stdin=subprocess.PIPE, env=pager_environment()
        )
        # Ctrl-C is the pager's while it runs (less stops a search with it), as in git
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
        try:
            try:
                pager.stdin.write(data)
                pager.stdin.close()
            except BrokenPipeError:  # the pager was left before it read everything
                pass
            code = pager.wait()
        finally:
            if main:
                signal.signal(signal.SIGINT, previous)
        if code in (126, 127):  # the shell could not run it: the transcript unshown
            warn(f"the pager {self.command!r} could not be run; printing without it")
            sys.stdout.buffer.write(data)
