"""The output: stdout, or an ``-o`` file written beside its target and renamed over it only
when a run ends well (a failed run leaves no half-written file), in large blocks, and
compressed when its name says so (``out.jsonl.gz``, ``.bz2``, ``.xz``, ``.zst``)."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Iterator
from typing import IO, Any

from ..errors import Location, OutputError, UsageError
from .compression import Compressing, zstandard
from .magic import ZSTD, compression_by_name
from .signals import blocked, clean_up_on_signals, restore
from .sources import is_url, local_path

# the most one write() is handed: Linux writes at most 2 GiB - 4 KiB per call, and an
# unbuffered stream (PYTHONUNBUFFERED=1) returns what the call wrote, not all of it
WRITE_CHUNK = 1 << 30
_BLOCK = 1 << 16  # output gathered into blocks of about this size
_DIRECT = 1 << 14  # a block this large is written as it is, not copied into a larger one


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

    def __init__(self, path: str, inputs: list[str], compress: bool = True) -> None:
        self.path = path
        if is_url(path):
            raise UsageError(
                f"-o {path}: -o writes a file on this machine",
                hint="give a local path, or write records to a URL with --output-dir",
            )
        path = local_path(path)
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
        # -o out.jsonl.gz (.bz2, .xz, .zst): compressed as it is written
        self.compression = compression_by_name(path) if compress else None
        if self.compression == ZSTD:
            zstandard(path, writing=True)  # (said before anything is written)
        if self.direct:
            try:
                self.file = open(path, "wb")  # noqa: SIM115 - closed by commit/abort
            except OSError as exc:
                raise write_failed(exc, path) from None
            self.stream = self._compressed(self.file)
            return
        import tempfile  # only with -o: it costs 5 ms of start-up

        # from the file's making on, a signal removes it: the handlers come first, and a
        # signal is kept pending until the file has its name here
        self._signals = clean_up_on_signals()
        try:
            with blocked():
                fd, self.tmp = tempfile.mkstemp(prefix=".chatpipe-", dir=os.path.dirname(target))
                self.file = self.stream = os.fdopen(fd, "wb")
            self.target = target
            self.stream = self._compressed(self.file)
            # (a file system without modes: the file is written all the same)
            with contextlib.suppress(OSError):
                os.fchmod(fd, stat.S_IMODE(mode) if mode is not None else 0o666 & ~umask())
        except BaseException as exc:  # (a signal that came as the file was made, say)
            if self.tmp is None:
                self._restore()
            else:
                self.abort()
            if isinstance(exc, OSError):
                raise write_failed(exc, path) from None
            raise

    def _compressed(self, file: IO[bytes]) -> IO[bytes]:
        if self.compression is None:
            return file
        return Compressing(file, self.compression, self.path)  # type: ignore[return-value]

    def commit(self) -> None:
        """The file in place of its target; on failure (a signal while it reaches the
        disk, too), no temporary file is left."""
        try:
            if self.stream is not self.file:  # the compressed data ended
                self.stream.close()
            if self.tmp is None:
                self.file.close()
                return
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()
            os.replace(self.tmp, self.target)
            self.tmp = None
        except OSError as exc:
            self.abort()
            raise write_failed(exc, self.path) from None
        except BaseException:
            self.abort()
            raise
        finally:
            self._restore()

    def abort(self) -> None:
        if self.stream is not self.file:  # ended into the file that goes (never later)
            with contextlib.suppress(Exception):
                self.stream.close()
        with contextlib.suppress(OSError):  # the data it could not write, again
            self.file.close()
        if self.tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.tmp)
            self.tmp = None
        self._restore()

    def _restore(self) -> None:
        restore(getattr(self, "_signals", {}))
        self._signals = {}


def umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


class Sink:
    """stdout or an atomic ``-o`` file, written in blocks of lines."""

    def __init__(self, output: str | None, inputs: list[str]) -> None:
        self.atomic = OutputFile(output, inputs) if output and output != "-" else None
        self.stream: IO[bytes] = self.atomic.stream if self.atomic else _stdout()
        self.parts: list[bytes] = []
        self.size = 0

    def line(self, data: bytes) -> None:
        if len(data) >= _BLOCK:  # a block of lines already: written without a copy
            self._write(data)
            self.parts.append(b"\n")
            self.size += 1
            return
        self.parts.append(data)
        self.parts.append(b"\n")
        self.size += len(data) + 1
        if self.size >= _BLOCK:
            self.flush()

    def raw(self, data: bytes) -> None:
        if len(data) >= _DIRECT:
            self._write(data)
            return
        self.parts.append(data)
        self.size += len(data)
        if self.size >= _BLOCK:
            self.flush()

    def borrowed(self, data: memoryview) -> None:
        """Bytes valid only during this call (shared memory): written now, or copied."""
        if len(data) >= _DIRECT:
            self._write(data)
        else:
            self.raw(bytes(data))

    def _write(self, data: bytes | memoryview) -> None:
        with self._writing():
            self._drain()
            write_all(self.stream, data)

    def flush(self) -> None:
        with self._writing():
            self._drain()
            self.stream.flush()

    def _drain(self) -> None:
        if self.parts:
            write_all(self.stream, b"".join(self.parts))
            self.parts.clear()
            self.size = 0

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        try:
            yield
        except BrokenPipeError:
            raise  # the reader went away: quiet (cli.execute)
        except OSError as exc:
            raise self._failed(exc) from None

    def _failed(self, exc: OSError) -> OutputError:
        """A write that failed (a full disk, say): one error line, and nothing more
        written; what stdout still holds goes nowhere, so the last flush is quiet."""
        self.parts.clear()
        self.size = 0
        if self.atomic is not None:
            return write_failed(exc, self.atomic.path)
        quiet_stdout(self.stream)
        return write_failed(exc)

    def close(self, ok: bool) -> None:
        """Finish the output: a failed run leaves no ``-o`` file, but stdout keeps what
        was converted before the error (as jq does), so nothing readable is lost."""
        if self.atomic is None:
            self.flush()
        elif ok:
            self.flush()
            self.atomic.commit()
        else:
            self.atomic.abort()


def quiet_stdout(stream: Any = None) -> None:
    """stdout (or ``stream``) to /dev/null: what it still holds, and the last flush, go
    nowhere."""
    with contextlib.suppress(OSError, ValueError):  # (a stream with no file: tests)
        fileno = (stream or sys.stdout).fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fileno)
        os.close(devnull)


class ParquetSink:
    """An atomic ``-o FILE`` written as Parquet rows (io/parquet_writer.py), one per JSON line."""

    def __init__(self, output: str | None, inputs: list[str]) -> None:
        from .parquet_writer import ParquetOutput

        if not output or output == "-":
            raise UsageError(
                "Parquet is written to a file, not to stdout",
                hint="add -o FILE.parquet, or write --to-format jsonl",
            )
        self.atomic = OutputFile(output, inputs, compress=False)
        if self.atomic.tmp is None:
            self.atomic.abort()
            raise UsageError(f"-o {output} is not a regular file; Parquet is written to a file")
        try:
            self.rows = ParquetOutput(self.atomic.tmp)
        except BaseException:  # (pyarrow missing: its temporary file not left behind)
            self.atomic.abort()
            raise
        self.line, self.raw, self.borrowed = self.rows.line, self.rows.raw, self.rows.borrowed

    def flush(self) -> None:
        pass

    def close(self, ok: bool) -> None:
        if ok:
            try:
                self.rows.close()
            except OSError as exc:
                self.atomic.abort()
                raise write_failed(exc, self.atomic.path) from None
            self.atomic.commit()
        else:
            self.rows.abort()
            self.atomic.abort()


def parquet_wanted(output: str | None, to_format: str) -> bool:
    """Whether the output is Parquet: asked for, or ``auto`` and ``-o`` names a .parquet."""
    if to_format not in ("auto", "jsonl", "parquet"):
        raise UsageError(f"--to-format must be jsonl or parquet, got {to_format!r}")
    if to_format == "auto":
        return bool(output) and str(output).lower().endswith(".parquet")
    return to_format == "parquet"


@contextlib.contextmanager
def output_sink(
    output: str | None, inputs: list[str], to_format: str = "auto"
) -> Iterator[Sink | ParquetSink]:
    """stdout or an atomic ``-o`` file for one run: kept only when the run succeeds."""
    parquet = parquet_wanted(output, to_format)
    sink = ParquetSink(output, inputs) if parquet else Sink(output, inputs)
    ok = False
    try:
        yield sink
        ok = True
    finally:
        sink.close(ok)


def _stdout() -> IO[bytes]:
    return getattr(sys.stdout, "buffer", sys.stdout)
