"""Every output of a run checked before the run starts: no two on one path, none over an
input, each one writable.

A command may write several things: records to ``-o`` (stdout without it), a report to
``--report``, files into ``--output-dir`` (a shard per input, split's side files). Each is
written beside its target and moved into place when the run ends well, one after the
other, so two of them on one path would leave only the last (``dedupe --report X -o X``
lost the conversations), and one that cannot be written would be found only after the
others were in place. ``check_outputs`` says so, as a usage error, before anything is
read.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import Location, OutputError, UsageError
from .sources import display_path, is_url, local_path

STDOUT = "-"


@dataclass(frozen=True)
class Output:
    """One output: the option that names it and its path (``-`` or None: stdout)."""

    flag: str
    path: str | None


@dataclass(frozen=True)
class Folder:
    """An output folder (``--output-dir``) and the names of the files the run will put in
    it (those known before the run: split's sides, an input's own shard)."""

    flag: str
    path: str
    names: Sequence[str] = ()


def check_outputs(
    outputs: Iterable[Output], folders: Iterable[Folder] = (), inputs: Iterable[str] = ()
) -> None:
    """A UsageError when two outputs are one file (or both stdout), when an output would
    replace an input, or when a file output cannot be made where it is named (its folder
    missing, a folder in its place)."""
    seen: dict[object, Output] = {}
    files = list(outputs)
    for folder in folders:
        if is_url(folder.path):
            continue
        for name in folder.names:
            path = os.path.join(local_path(folder.path), name)
            files.append(Output(f"{folder.flag} {display_path(folder.path)}", path))
    read = {_identity(spec) for spec in inputs if spec != STDOUT and not is_url(spec)}
    for output in files:
        if output.path is not None and output.path != STDOUT and is_url(output.path):
            continue
        identity = _identity(output.path)
        if identity is None:  # a character device (/dev/null, a terminal): never replaced
            continue
        earlier = seen.get(identity)
        if earlier is not None:
            if _on_stdout(identity):
                what = "one stream: their lines would be mixed"
            else:
                what = "one file: the last written would replace the other"
            raise UsageError(
                f"{_named(earlier)} and {_named(output)} are {what}",
                hint="give each output a path of its own",
            )
        seen[identity] = output
        if identity in read:
            raise UsageError(
                f"{_named(output)} is also an input file; refusing to overwrite it",
                hint="write the output elsewhere",
            )
    for output in files:
        _check_writable(output)


def _named(output: Output) -> str:
    if output.path is None or output.path == STDOUT:
        return f"{output.flag} (stdout)" if output.flag != "-o" else "the output (stdout)"
    if " " in output.flag:  # a folder's file: the folder named, then the file
        return f"{output.flag}'s {os.path.basename(output.path)}"
    return f"{output.flag} {display_path(output.path)}"


def _on_stdout(identity: object) -> bool:
    return isinstance(identity, tuple) and identity[:1] == ("stdout",)


def _identity(path: str | None) -> object:
    """What tells two outputs apart: the file they reach (device and inode, stdout's
    own for ``-``), or where a new file would be made; None for a character device."""
    try:
        if path is None or path == STDOUT:
            status = os.fstat(1)
            if stat.S_ISREG(status.st_mode):
                return (status.st_dev, status.st_ino)
            return None if stat.S_ISCHR(status.st_mode) else ("stdout", status.st_ino)
        status = os.stat(local_path(path))
    except (FileNotFoundError, NotADirectoryError):
        return os.path.realpath(local_path(path)) if path not in (None, STDOUT) else "stdout"
    except OSError:  # (stdout closed; a path that cannot be looked at: said when opened)
        return path if path is not None else "stdout"
    if stat.S_ISCHR(status.st_mode):
        return None
    if not (stat.S_ISREG(status.st_mode) or stat.S_ISDIR(status.st_mode)):
        # a FIFO or a socket: what stdout is when it is a pipe
        return ("stdout", status.st_ino) if _is_stdout(status) else (status.st_dev, status.st_ino)
    return (status.st_dev, status.st_ino)


def _is_stdout(status: os.stat_result) -> bool:
    try:
        own = os.fstat(1)
    except OSError:
        return False
    return (own.st_dev, own.st_ino) == (status.st_dev, status.st_ino)


def _check_writable(output: Output) -> None:
    """A file output whose folder is missing, or which is a folder: said now."""
    if output.path is None or output.path == STDOUT or is_url(output.path):
        return
    if " " in output.flag:  # a folder's file: the folder's own checks say more
        return
    path = local_path(output.path)
    if os.path.isdir(path):
        raise UsageError(f"{_named(output)} is a directory, not a file")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise _cannot(output, errno.ENOENT)
    if not os.access(folder, os.W_OK):
        raise _cannot(output, errno.EACCES)


def _cannot(output: Output, code: int) -> OutputError:
    """What opening the file would have said (as the ``-o`` file's own error says it)."""
    return OutputError(f"cannot write: {os.strerror(code)}", Location(display_path(output.path)))
