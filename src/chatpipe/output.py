"""Output files: written beside their target and renamed over it only when a run ends well,
so a failed run leaves no half-written file."""

from __future__ import annotations

import contextlib
import os

from .errors import UsageError


class AtomicOutput:
    """``-o FILE``: write a temporary file beside it, rename over it only on success."""

    def __init__(self, path: str, inputs: list[str]) -> None:
        target = os.path.realpath(path)
        for spec in inputs:
            if spec != "-" and os.path.exists(spec) and os.path.realpath(spec) == target:
                raise UsageError(f"-o {path} is also an input file; refusing to overwrite it")
        self.path = path
        directory = os.path.dirname(os.path.abspath(path))
        import tempfile  # only with -o: it costs 5 ms of start-up

        fd, self.tmp = tempfile.mkstemp(prefix=".chatpipe-", dir=directory)
        self.stream = os.fdopen(fd, "wb")

    def commit(self) -> None:
        self.stream.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        self.stream.close()
        with contextlib.suppress(OSError):
            os.unlink(self.tmp)
