"""Inputs: a path, stdin or a zip's member, opened for reading, named as people read it,
decompressed when it is compressed (gzip, bzip2, xz, zstd: told by its first bytes) and
read as UTF-8 whatever its encoding (UTF-16 and UTF-32 with a byte order mark are
transcoded)."""

from __future__ import annotations

import functools
import io
import os
import stat
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any

from ..errors import ChatpipeError, DataError, Location
from .compression import decompressed
from .magic import compression_of, is_zip, strip_compression

# (URLs and paths have a module of their own; their names are read from here too)
from .urls import (  # noqa: F401
    READ_BUFFER,
    STORAGE_OPTIONS,
    display_path,
    filesystem,
    is_url,
    local_path,
    open_input,
    protocol_of,
    storage_options,
    url_failed,
    use_storage_options,
)

if TYPE_CHECKING:  # (zipfile is loaded when a zip is met: a start-up kept lean)
    from .archives import Archive

UTF8_BOM = b"\xef\xbb\xbf"  # which a reader drops from the start of a file


class Source:
    """An input: a path, ``-`` for stdin, or a member of a zip (``export.zip:member``,
    or one of the members of a zip read whole: ``archive``). ``name`` is what errors
    call it (``export.zip:conversations.json``)."""

    def __init__(self, spec: str, archive: Archive | None = None, member: str | None = None):
        self.spec = spec
        self.is_stdin = spec == "-"
        self.archive = archive  # the zip read whole that this is a member of
        self.zip_spec: str | None = None  # a member named alone: the zip it is in
        if member is None and archive is None:
            split = split_member(spec)
            if split is not None:
                self.zip_spec, member = split
        self.member = member
        # a name that is not UTF-8 is shown with its bytes escaped (\xff), never as a crash
        if archive is not None:
            self.name = f"{archive.name}:{member}"
        elif self.zip_spec is not None:
            self.name = f"{display_path(self.zip_spec)}:{member}"
        else:
            self.name = "<stdin>" if self.is_stdin else display_path(spec)
        self.last = False  # the last member of its archive (which is closed after it)
        self.compression: str | None = None  # set once opened: gzip, bzip2, xz, zstd
        self.container: str | None = None  # set once read: jsonl, json, yaml
        self.stream: IO[bytes] | None = None  # while being read (for progress)
        self.raw: Any = None  # the file under it (its position: the progress made)
        self.jsonl: Any = None  # a JSONL source's reader, once known
        self.document: Any = None  # a JSON array's, likewise

    def open(self) -> IO[bytes]:
        """The source's text as UTF-8 bytes: decompressed when its first bytes say it
        is compressed, transcoded when a byte order mark says it is UTF-16 or UTF-32."""
        stream = self.raw = _peekable(self._open(), owned=not self.is_stdin)
        kind = compression_of(stream.peek(8)[:8])
        if kind is not None:
            self.compression = kind
            stream = decompressed(stream, kind, self.name)
        encoding = _wide_encoding(stream)
        if encoding is not None:  # UTF-16 or UTF-32 text: read as the UTF-8 it spells
            stream = io.BufferedReader(_Transcoded(stream, encoding, self.name))
        self.stream = stream
        return self.stream

    def _open(self) -> IO[bytes]:
        if self.member is not None:
            if self.archive is not None:
                return self.archive.open(self.member)
            assert self.zip_spec is not None
            kept = kept_archive(self.zip_spec)
            if kept is not None:
                return kept.open(self.member)
            alone = _archive(display_path(self.zip_spec), zip_opener(self.zip_spec))
            return alone.open(self.member, on_close=alone.close)
        if self.is_stdin:
            return stdin()
        if self.spec in _PIPES:  # a pipe looked at already (for a zip)
            return _PIPES.pop(self.spec)
        if is_url(self.spec):
            return open_input(self.spec)
        path = local_path(self.spec)
        try:
            if os.path.isdir(path):
                raise DataError("is a directory, not a chat log", Location(self.name))
            return open(path, "rb", buffering=READ_BUFFER)
        except FileNotFoundError:
            raise DataError("no such file", Location(self.name)) from None
        except PermissionError:
            raise DataError("permission denied", Location(self.name)) from None
        except OSError as exc:
            raise DataError(exc.strerror or str(exc), Location(self.name)) from None

    def suffix(self) -> str:
        """The format its name says (``.jsonl`` of ``a.jsonl.gz``, of a member's name)."""
        named = self.member if self.member is not None else "" if self.is_stdin else self.spec
        return os.path.splitext(strip_compression(named))[1].lower()

    def files(self) -> Any:
        """For a zip's member: the files the zip holds by their ids (an export's images,
        ``ArchiveFiles``), or None; None for any other source."""
        if self.archive is not None:
            return self.archive.files()
        if self.zip_spec is None:
            return None
        try:
            kept = kept_archive(self.zip_spec)
            if kept is not None:
                return kept.files()
            return _archive(display_path(self.zip_spec), zip_opener(self.zip_spec)).files()
        except DataError:  # (the member was read: the zip is readable, or said so)
            return None

    def position(self) -> int:
        """How far the file under it has been read, in its own bytes (a compressed
        file's, a zip's): the progress made. OSError or ValueError when it cannot say."""
        if self.member is not None and self.archive is not None:
            return self.archive.position()
        if self.raw is None:
            raise ValueError("not opened")
        return int(self.raw.tell())


def input_sources(specs: Iterable[str]) -> Iterator[Source]:
    """The sources of some inputs, in order: a zip's members in its place (a zip is told
    by its first bytes, whatever its name; an empty one is an error)."""
    for spec in specs:
        archive = None if split_member(spec) is not None else _archive_of(spec)
        if archive is None:
            yield Source(spec)
            continue
        members = archive.members()
        if not members:
            archive.close()
            raise DataError("an empty zip archive: no chat log in it", Location(archive.name))
        for number, member in enumerate(members, 1):
            source = Source(f"{spec}:{member}", archive, member)
            source.last = number == len(members)
            yield source


def _archive_of(spec: str) -> Archive | None:
    """The zip archive ``spec`` is, or None (not a zip, or not readable: the run says
    so in its turn): a file told by its first bytes, a URL by its name (``.zip``). A zip
    on stdin is spooled to a temporary file first (a zip's index is at its end)."""
    if spec == "-":
        return _spooled("<stdin>", stdin())
    if is_url(spec):  # by its name: a request a file for its first bytes costs too much
        return _archive(spec, zip_opener(spec)) if spec.lower().endswith(".zip") else None
    try:
        mode = os.stat(spec).st_mode
        if stat.S_ISDIR(mode):
            return None
        if not stat.S_ISREG(mode):  # a pipe (a FIFO, /dev/stdin, <(...)): read once,
            if spec not in _PIPES:  # so what is looked at is kept for its Source to read
                _PIPES[spec] = open(spec, "rb", buffering=READ_BUFFER)  # noqa: SIM115
            archive = _spooled(display_path(spec), _PIPES[spec])
            if archive is not None:
                _PIPES.pop(spec).close()
            return archive
        with open_input(spec) as stream:
            head = stream.read(4)
    except (ChatpipeError, OSError):
        return None
    return _archive(display_path(spec), zip_opener(spec)) if is_zip(head) else None


# pipes named as paths, opened to see whether they hold a zip: read by their Source
_PIPES: dict[str, IO[bytes]] = {}


def _spooled(name: str, stream: IO[bytes]) -> Archive | None:
    """The zip a stream that can be read once holds (stdin, a pipe), copied to a temporary
    file first (a zip's listing is at its end); None when it holds no zip (nothing read)."""
    if not is_zip(stream.peek(4)[:4]):
        return None
    import shutil
    import tempfile

    spooled = tempfile.TemporaryFile()  # noqa: SIM115 - closed with the archive
    shutil.copyfileobj(stream, spooled, 1 << 20)
    spooled.seek(0)
    return _archive(name, lambda: spooled)


def _archive(name: str, source: Callable[[], Any]) -> Archive:
    from .archives import Archive  # (zipfile loaded only when a zip is met)

    return Archive(name, source)


# zips whose members are named one at a time (ZIP:MEMBER: a part's input, on a --jobs or
# Dask worker), kept open with their listing read, so that each member does not read the
# zip's listing again (quadratic: 3,000 members took 27 s on --jobs 2, 0.4 s serially).
# Keyed by the file's identity (a zip written again is read again), the process's own (a
# forked worker shares no open file with its parent), at most KEPT_ZIPS of them.
KEPT_ZIPS = 4
_KEPT: dict[Any, Archive] = {}
_KEPT_LOCK = threading.Lock()


def kept_archive(spec: str) -> Archive | None:
    """The zip ``spec`` names, kept open for this process's next member of it; None for
    a URL (opened for each member) or a file that cannot be looked at (said when read)."""
    if is_url(spec):
        return None
    path = local_path(spec)
    try:
        found = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(found.st_mode):
        return None
    key = (os.getpid(), found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns)
    with _KEPT_LOCK:
        if any(old[0] != key[0] for old in _KEPT):  # (a forked process: not its parent's)
            _KEPT.clear()
        archive = _KEPT.get(key)
        if archive is None:
            archive = _archive(display_path(spec), zip_opener(spec))
            archive.zip()  # (opened here, once: a worker's threads may share it)
            while len(_KEPT) >= KEPT_ZIPS:
                _KEPT.pop(next(iter(_KEPT))).close()
            _KEPT[key] = archive
        return archive


def zip_opener(spec: str) -> Callable[[], Any]:
    """What opens a zip file again, anywhere (a path, or a URL's stream)."""
    return (
        functools.partial(os.fspath, spec)
        if not is_url(spec)
        else functools.partial(open_input, spec)
    )


def split_member(spec: str) -> tuple[str, str] | None:
    """(zip, member) of a spec naming a zip's member (``export.zip:conversations.json``,
    the zip an existing file; ``s3://bucket/x.zip:member``), or None for any other."""
    if ":" not in spec or spec == "-":
        return None
    if is_url(spec):
        at = spec.lower().find(".zip:")
        return (spec[: at + 4], spec[at + 5 :]) if at >= 0 else None
    if os.path.exists(spec):
        return None
    at = spec.find(":")
    while at >= 0:
        if at and os.path.isfile(spec[:at]):
            return spec[:at], spec[at + 1 :]
        at = spec.find(":", at + 1)
    return None


_STDIN: list[Any] = [None, None]  # (stdin's buffer, the peekable stream read from it)


def stdin() -> IO[bytes]:
    """stdin's bytes, with ``peek`` (a test's stdin may have none), one stream a run."""
    buffer = getattr(sys.stdin, "buffer", sys.stdin)
    if _STDIN[0] is not buffer:
        _STDIN[0], _STDIN[1] = buffer, _peekable(buffer, owned=False)
    return _STDIN[1]


def _peekable(stream: IO[bytes], owned: bool = True) -> IO[bytes]:
    """``stream``, or a buffer over it that can ``peek``; ``owned``: closing the buffer
    closes the stream (not stdin's)."""
    if hasattr(stream, "peek"):
        return stream
    return io.BufferedReader(_Raw(stream, owned), READ_BUFFER)


class _Raw(io.RawIOBase):
    """Any stream's ``read`` as a raw stream, for a buffer to be put over it."""

    def __init__(self, inner: Any, owned: bool) -> None:
        self.inner, self.owned = inner, owned

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.inner.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def seekable(self) -> bool:  # (an fsspec file: Parquet reads it by seeking)
        return bool(getattr(self.inner, "seekable", lambda: False)())

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return int(self.inner.seek(offset, whence))

    def tell(self) -> int:
        return int(self.inner.tell())

    def close(self) -> None:
        if self.owned and not self.closed:
            self.inner.close()
        super().close()


# byte order marks of the wide encodings; UTF-32's first, as it begins with UTF-16's
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


def _wide_encoding(stream: IO[bytes]) -> str | None:
    """The encoding a byte order mark names, for text that is not UTF-8 (Windows tools
    write UTF-16); None for anything else, which is read as UTF-8."""
    peek = getattr(stream, "peek", None)
    if peek is None:
        return None
    head = peek(4)[:4]
    for bom, encoding in _WIDE_BOMS:
        if head.startswith(bom):
            return encoding
    return None


def text_start(head: bytes) -> int | None:
    """Where a file's lines start in its bytes, from its first four (``head``): after a
    UTF-8 byte order mark, else at 0; None for UTF-16 or UTF-32 text, which is read
    transcoded, so that ranges of its bytes are not ranges of its lines."""
    if any(head.startswith(bom) for bom, _ in _WIDE_BOMS):
        return None
    return len(UTF8_BOM) if head.startswith(UTF8_BOM) else 0


class _Transcoded(io.RawIOBase):
    """A UTF-16 or UTF-32 stream read as UTF-8 bytes, a block at a time: every container
    (JSONL, JSON, YAML, SSE) then reads it as it reads UTF-8."""

    def __init__(self, raw: IO[bytes], encoding: str, name: str) -> None:
        import codecs

        self.raw = raw
        self.name = name
        self.encoding = encoding
        self.decoder = codecs.getincrementaldecoder(encoding)()
        self.pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self.pending:
            block = self.raw.read(1 << 16)
            try:
                text = self.decoder.decode(block, final=not block)
            except UnicodeDecodeError:
                raise DataError(
                    f"invalid {self.encoding.upper()} text",
                    Location(self.name),
                    "convert it to UTF-8, e.g. with iconv -t UTF-8",
                ) from None
            self.pending = text.encode()
            if not block:
                break
        taken = self.pending[: len(buffer)]
        buffer[: len(taken)] = taken
        self.pending = self.pending[len(taken) :]
        return len(taken)

    def close(self) -> None:
        self.raw.close()
        super().close()
