"""Compressed files read as they stream and written as they are made: gzip, bzip2 and
xz from the standard library, zstd through the ``zstandard`` package (an optional extra,
``chatpipe[zstd]``). What a damaged or cut-short file makes the decompressor say becomes
one error naming the file."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import IO, Any

from ..errors import ChatpipeError, DataError, Location, UsageError, install_hint
from .magic import BZIP2, GZIP, XZ, ZSTD

READ_BUFFER = 1 << 16  # bytes of decompressed data asked for at a time
GZIP_LEVEL = 6  # gzip's own default: level 9 is three times as slow for 1 % less

# what to do when the data is damaged, by compression
_CHECK = {
    GZIP: "gzip -t FILE",
    BZIP2: "bzip2 -t FILE",
    XZ: "xz -t FILE",
    ZSTD: "zstd -t FILE",
}


def zstandard(name: str, writing: bool = False) -> Any:
    """The ``zstandard`` module, or one error saying how to install it."""
    try:
        import zstandard as zstd
    except ImportError:
        doing = "writing zstd" if writing else "zstd-compressed: reading it"
        raise UsageError(
            f"{doing} needs the zstandard package",
            Location(name),
            hint=install_hint("zstd"),
        ) from None
    return zstd


def decompressed(stream: IO[bytes], kind: str, name: str) -> IO[bytes]:
    """``stream``'s data decompressed as it is read, buffered (peek, readline, read1)."""

    def failed(exc: BaseException) -> DataError:
        why = (
            "it ends early (the file is cut short)"
            if isinstance(exc, EOFError)
            else f"it is damaged ({said_of(exc)})"
        )
        return DataError(
            f"cannot decompress this {kind} file: {why}",
            Location(name),
            f"download it again; {_CHECK[kind]} checks a file",
        )

    return checked(_reader(stream, kind, name), failed)


def _reader(stream: IO[bytes], kind: str, name: str) -> Any:
    if kind == GZIP:
        import gzip

        return gzip.GzipFile(fileobj=stream, mode="rb")
    if kind == BZIP2:
        import bz2

        return bz2.BZ2File(stream, "rb")
    if kind == XZ:
        import lzma

        return lzma.LZMAFile(stream, "rb")
    # (a zstd file written in several frames is read through to its end)
    return zstandard(name).ZstdDecompressor().stream_reader(stream, read_across_frames=True)


def checked(
    inner: Any, failed: Callable[[BaseException], DataError], on_close: Any = None
) -> IO[bytes]:
    """``inner`` read through a buffer (peek, readline, read1), what its reads raise
    made one DataError by ``failed``; ``on_close`` called once it is closed."""
    return io.BufferedReader(_Checked(inner, failed, on_close), READ_BUFFER)


class _Checked(io.RawIOBase):
    """A stream whose read errors (zlib.error, OSError, EOFError, LZMAError, ZstdError,
    BadZipFile: each library has its own) become one error naming the file. It has no
    file number: nothing maps the compressed file's bytes as if they were the text."""

    def __init__(
        self, inner: Any, failed: Callable[[BaseException], DataError], on_close: Any
    ) -> None:
        self.inner = inner
        self.failed = failed
        self.on_close = on_close

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self.inner.read(len(buffer))
        except (ChatpipeError, MemoryError):
            raise
        except Exception as exc:
            raise self.failed(exc) from None
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if self.closed:
            return
        try:
            self.inner.close()
        finally:
            super().close()
            if self.on_close is not None:
                self.on_close()


def said_of(exc: BaseException) -> str:
    """An exception's first line, or its class's name when it says nothing."""
    text = str(exc).splitlines()[0] if str(exc) else ""
    return text or type(exc).__name__


class Compressing(io.RawIOBase):
    """A stream that compresses what is written to it into ``raw``; ``close`` ends the
    compressed data (``raw`` stays open). ``flush`` does nothing: a gzip flush would end
    a block, and the output would depend on where its writer flushed."""

    def __init__(self, raw: IO[bytes], kind: str, name: str) -> None:
        self.kind = kind
        if kind == GZIP:
            import gzip

            # no name and no time in the header: the same input gives the same bytes
            self.inner: Any = gzip.GzipFile(
                filename="", mode="wb", fileobj=raw, compresslevel=GZIP_LEVEL, mtime=0
            )
        elif kind == BZIP2:
            import bz2

            self.inner = bz2.BZ2File(raw, "wb")
        elif kind == XZ:
            import lzma

            self.inner = lzma.LZMAFile(raw, "wb")  # noqa: SIM115 - closed by close()
        else:
            zstd = zstandard(name, writing=True)
            self.inner = zstd.ZstdCompressor().stream_writer(
                raw, closefd=False, write_return_read=True
            )

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self.inner.write(data)
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        if not self.closed:
            try:
                self.inner.close()
            finally:
                super().close()
