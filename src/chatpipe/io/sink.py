"""Output files: written beside their target and renamed over it only when a run ends well,
so a failed run leaves no half-written file."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
from typing import IO

from ..errors import Location, OutputError, Terminated, UsageError

# the most one write() is handed: Linux writes at most 2 GiB - 4 KiB per call, and an
# unbuffered stream (PYTHONUNBUFFERED=1) returns what the call wrote, not all of it
WRITE_CHUNK = 1 << 30


def write_all(stream: IO[bytes], data: bytes | memoryview) -> None:
    """Write every byte of ``data``, looping on partial writes; a write that makes no
    progress is an error (OSError), never a silently shorter output."""
    view = memoryview(data)
    chunk = WRITE_CHUNK
    while view:
        written = stream.write(view[:chunk])
        if written is None:  # a non-blocking stream that would block
            raise OSError(errno.EAGAIN, "the output would block")
        if written <= 0:
            raise OSError(errno.EIO, "the output took no more bytes")
        view = view[written:]


def write_failed(exc: OSError, path: str | None = None) -> OutputError:
    """The error for an OSError met writing the output (stdout, or the ``-o`` file)."""
    reason = exc.strerror or str(exc)
    if path is None:
        return OutputError(f"cannot write the output: {reason}")
    return OutputError(f"cannot write: {reason}", Location(path))


class OutputFile:
    """``-o FILE``, written as ``> FILE`` would be, but atomically where it can be.

    A regular file (or a new path) is written beside its target and renamed over it only
    when the run succeeds: a failed or killed run (Ctrl-C, SIGTERM, SIGHUP) leaves the old
    file as it was and no temporary file. The new file gets the mode ``>`` would give it
    (the old file's, or the umask's) and reaches the disk before the rename. A symlink is
    written through, to its target. A character device or a FIFO (``/dev/null``,
    ``/dev/stdout``, a named pipe) is written into directly: it is never replaced.
    """

    def __init__(self, path: str, inputs: list[str]) -> None:
        self.path = path
        target = os.path.realpath(path)
        for spec in inputs:
            if spec != "-" and os.path.exists(spec) and os.path.realpath(spec) == target:
                raise UsageError(f"-o {path} is also an input file; refusing to overwrite it")
        if os.path.isdir(target):
            raise UsageError(f"-o {path} is a directory, not a file")
        try:
            mode = os.stat(path).st_mode  # through links (/dev/stdout: the pipe itself)
        except FileNotFoundError:
            mode = None
        except OSError as exc:
            raise write_failed(exc, path) from None
        self.tmp: str | None = None
        self.direct = mode is not None and not stat.S_ISREG(mode)
        try:
            if self.direct:
                self.stream = open(path, "wb")  # noqa: SIM115 - closed by commit/abort
                return
            import tempfile  # only with -o: it costs 5 ms of start-up

            fd, self.tmp = tempfile.mkstemp(prefix=".chatpipe-", dir=os.path.dirname(target))
        except OSError as exc:
            raise write_failed(exc, path) from None
        self.target = target
        self.stream = os.fdopen(fd, "wb")
        self._signals = _clean_up_on_signals()
        # (a file system without modes: the file is written all the same)
        with contextlib.suppress(OSError):
            os.fchmod(fd, stat.S_IMODE(mode) if mode is not None else 0o666 & ~_umask())

    def commit(self) -> None:
        """The file in place of its target; on failure, no temporary file is left."""
        try:
            if self.tmp is None:
                self.stream.close()
                return
            self.stream.flush()
            os.fsync(self.stream.fileno())
            self.stream.close()
            os.replace(self.tmp, self.target)
            self.tmp = None
        except OSError as exc:
            self.abort()
            raise write_failed(exc, self.path) from None
        finally:
            self._restore()

    def abort(self) -> None:
        with contextlib.suppress(OSError):  # the data it could not write, again
            self.stream.close()
        if self.tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.tmp)
            self.tmp = None
        self._restore()

    def _restore(self) -> None:
        for signum, handler in getattr(self, "_signals", {}).items():
            with contextlib.suppress(ValueError, OSError):
                signal.signal(signum, handler)
        self._signals = {}


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _terminate(signum: int, _frame: object) -> None:
    raise Terminated(signum)


def _clean_up_on_signals() -> dict[int, object]:
    """SIGTERM and SIGHUP raise Terminated while a temporary file exists, so that it is
    removed as on Ctrl-C; the handlers before are given back after."""
    saved: dict[int, object] = {}
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is None:
            continue
        # (not the main thread: the caller's own affair)
        with contextlib.suppress(ValueError, OSError):
            saved[signum] = signal.signal(signum, _terminate)
    return saved
