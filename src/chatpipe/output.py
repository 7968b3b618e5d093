"""Output files: written beside their target and renamed over it only when a run ends well,
so a failed run leaves no half-written file."""

from __future__ import annotations

import contextlib
import errno
import os
from typing import IO

from .errors import Location, OutputError, UsageError

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


class AtomicOutput:
    """``-o FILE``: write a temporary file beside it, rename over it only on success."""

    def __init__(self, path: str, inputs: list[str]) -> None:
        target = os.path.realpath(path)
        for spec in inputs:
            if spec != "-" and os.path.exists(spec) and os.path.realpath(spec) == target:
                raise UsageError(f"-o {path} is also an input file; refusing to overwrite it")
        if os.path.isdir(path):
            raise UsageError(f"-o {path} is a directory, not a file")
        self.path = path
        directory = os.path.dirname(os.path.abspath(path))
        import tempfile  # only with -o: it costs 5 ms of start-up

        try:
            fd, self.tmp = tempfile.mkstemp(prefix=".chatpipe-", dir=directory)
        except OSError as exc:
            raise write_failed(exc, self.path) from None
        self.stream = os.fdopen(fd, "wb")

    def commit(self) -> None:
        """The file in place of its target; on failure, no temporary file is left."""
        try:
            self.stream.close()
            os.replace(self.tmp, self.path)
        except OSError as exc:
            self.abort()
            raise write_failed(exc, self.path) from None

    def abort(self) -> None:
        with contextlib.suppress(OSError):  # the data it could not write, again
            self.stream.close()
        with contextlib.suppress(OSError):
            os.unlink(self.tmp)
