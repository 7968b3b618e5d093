"""Where inputs and outputs are: fsspec URLs (``s3://bucket/key``, ``memory://x``) with
the options of their protocols, local paths (``file://`` URLs too) and how a path is
shown; what an fsspec error means, in one line."""

from __future__ import annotations

import os
from typing import IO, Any

from ..errors import ChatpipeError, DataError, Location, OutputError, UsageError, install_hint

# bytes a file is read in: the batch size; a long first line (a minified document) is
# read in half the time of the default 8 KiB
READ_BUFFER = 1 << 16


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
            f"{url}: URLs are read and written with fsspec, which is not installed; "
            "the dask extra brings it",
            hint=install_hint("dask"),
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
