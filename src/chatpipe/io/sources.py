"""Inputs: a path or stdin, opened for reading, named as people read it, and read as
UTF-8 whatever its encoding (UTF-16 and UTF-32 with a byte order mark are transcoded)."""

from __future__ import annotations

import io
import os
import sys
from typing import IO, Any

from ..errors import ChatpipeError, DataError, Location, OutputError, UsageError

# bytes a file is read in: the batch size; a long first line (a minified document) is
# read in half the time of the default 8 KiB
READ_BUFFER = 1 << 16
UTF8_BOM = b"\xef\xbb\xbf"  # which a reader drops from the start of a file


class Source:
    """An input: a path, or ``-`` for stdin. ``name`` is what errors call it."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.is_stdin = spec == "-"
        # a name that is not UTF-8 is shown with its bytes escaped (\xff), never as a crash
        self.name = "<stdin>" if self.is_stdin else display_path(spec)
        self.container: str | None = None  # set once read: jsonl, json, yaml
        self.stream: IO[bytes] | None = None  # while being read (for progress)
        self.jsonl: Any = None  # a JSONL source's reader, once known
        self.document: Any = None  # a JSON array's, likewise

    def open(self) -> IO[bytes]:
        stream = self._open()
        encoding = _wide_encoding(stream)
        if encoding is not None:  # UTF-16 or UTF-32 text: read as the UTF-8 it spells
            stream = io.BufferedReader(_Transcoded(stream, encoding, self.name))
        self.stream = stream
        return self.stream

    def _open(self) -> IO[bytes]:
        if self.is_stdin:
            return sys.stdin.buffer
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
        return "" if self.is_stdin else os.path.splitext(self.spec)[1].lower()


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


# fsspec's options for each protocol ("s3": {"anon": True}) this process opens URLs with:
# what chatpipe.dask was given (read_conversations(**storage_options)), set on its workers too
STORAGE_OPTIONS: dict[str, dict[str, Any]] = {}


def protocol_of(url: str) -> str:
    """An fsspec URL's protocol (``s3`` of ``s3://bucket/key``); ``file`` for a path."""
    return url.split("://", 1)[0] if "://" in url else "file"


def storage_options(url: str) -> dict[str, Any]:
    """The fsspec options of ``url``'s protocol (none for a local path)."""
    return STORAGE_OPTIONS.get(protocol_of(url), {}) if "://" in url else {}


def use_storage_options(by_protocol: dict[str, dict[str, Any]]) -> None:
    """Open URLs of these protocols with these fsspec options from now on, in this process."""
    STORAGE_OPTIONS.update(by_protocol)


def is_url(spec: str) -> bool:
    """An fsspec URL (``s3://bucket/key``, ``memory://x``), not a local path (a
    ``file://`` URL is one: ``local_path``)."""
    return "://" in spec and not spec.startswith("file://") and not os.path.exists(spec)


def local_path(spec: str) -> str:
    """The path a ``file://`` URL names (``file:///tmp/a%20b.json``: ``/tmp/a b.json``,
    its host empty or ``localhost``); any other name as it is."""
    if not isinstance(spec, str) or not spec.startswith("file://") or os.path.exists(spec):
        return spec
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(spec)
    if parts.netloc not in ("", "localhost"):
        raise UsageError(
            f"{display_path(spec)}: names a file on the machine {parts.netloc!r}, and "
            "chatpipe reads and writes this machine's files",
            hint="give file:///PATH, or the path",
        )
    return unquote(parts.path) or "/"


def open_input(spec: str) -> IO[bytes]:
    """A path or fsspec URL opened for reading bytes, seekable."""
    if not is_url(spec):
        path = local_path(spec)
        try:
            return open(path, "rb", buffering=READ_BUFFER)
        except FileNotFoundError:
            raise DataError("no such file", Location(display_path(spec))) from None
        except OSError as exc:
            raise DataError(exc.strerror or str(exc), Location(display_path(spec))) from None
    fsspec = _fsspec(spec)
    try:
        return fsspec.open(spec, "rb", **storage_options(spec)).open()
    except FileNotFoundError:
        raise DataError("no such file", Location(spec)) from None
    except ChatpipeError:
        raise
    except Exception as exc:  # an fsspec file system's own errors (a network's, too)
        raise url_failed(spec, exc) from None


def filesystem(url: str, writing: bool = False) -> tuple[Any, str]:
    """The fsspec file system of ``url`` (to read, or ``writing``) and the path on it, or
    one error line (a protocol that is not known, or whose package is not installed)."""
    fsspec = _fsspec(url)
    try:
        return fsspec.core.url_to_fs(url, **storage_options(url))
    except ChatpipeError:
        raise
    except Exception as exc:
        raise url_failed(url, exc, writing) from None


def _fsspec(url: str) -> Any:
    try:
        import fsspec
    except ImportError:
        raise UsageError(
            f"{url}: URLs are read and written with fsspec, which is not installed",
            hint="pip install 'chatpipe[dask]' (it brings fsspec)",
        ) from None
    return fsspec


def url_failed(url: str, exc: BaseException, writing: bool = False) -> ChatpipeError:
    """What an fsspec error met on ``url`` (read, or ``writing``) means, in one line: a
    package to install, a protocol that is not known, or the file system's own first line."""
    protocol = protocol_of(url).split("::")[-1]
    if isinstance(exc, ImportError):
        package = _package_of(protocol, exc)
        return UsageError(
            f"{url}: {protocol}:// URLs need the {package} package, which is not installed",
            hint=f"pip install {package}",
        )
    said = (str(exc).strip().splitlines() or [""])[0]
    if isinstance(exc, ValueError) and said.startswith("Protocol not known"):
        what = "" if writing else "no such file, and "
        return (OutputError if writing else DataError)(
            f"{what}{protocol}:// is not a protocol fsspec knows",
            Location(url),
            "give a local path, or a URL such as s3://, gs://, hf://, https:// or memory://",
        )
    said = said or "the file system gave no reason"
    if writing:
        return OutputError(f"cannot write: {said}", Location(url))
    return DataError(f"cannot open: {said}", Location(url))


def _package_of(protocol: str, exc: ImportError) -> str:
    """The package a protocol's file system needs (s3: s3fs; http: aiohttp)."""
    cause = exc.__cause__ or exc.__context__
    missing = getattr(cause, "name", None) or getattr(exc, "name", None)
    if missing:
        return missing.split(".")[0]
    try:
        from fsspec.registry import known_implementations
    except ImportError:  # (fsspec too old to say)
        return protocol
    where = known_implementations.get(protocol, {}).get("class", protocol)
    return where.split(".")[0]


def display_path(path: str) -> str:
    """A path as people read it: bytes that are not UTF-8 shown as ``\xff``."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
    return path
