"""``--output-dir DIR`` for records: one output file (a shard) per input part, written by
whichever process made it (Dask's workers), or per input file, put together from its
parts in order by the process that runs the job (one process, ``--jobs``), into a
staging folder (folders.py), each shard complete or absent (written under a temporary
name, then renamed), and the folder's shards moved into DIR only when the whole run
succeeds, all of them or none. DIR may be an fsspec URL."""

from __future__ import annotations

import os
import uuid
from typing import Any

from .folders import STAGING, OutputFolder, Stranded, check_targets, move_in
from .signals import Held, blocked, clean_up_on_signals, restore
from .sink import write_all, write_failed
from .sources import filesystem, is_url


class ShardFolder:
    """The staging folder of a run's shards (``staging`` is handed to the workers)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.remote = is_url(path)
        self.local: OutputFolder | None = None
        self._signals: dict[int, Any] = {}
        if self.remote:
            fs = filesystem(path, writing=True)[0]
            self.staging = path.rstrip("/") + f"/{STAGING}{uuid.uuid4().hex[:12]}"
            # the handlers before the folder, and a signal pending until it is made (its
            # name is known from the start: abort removes it)
            self._signals = clean_up_on_signals()
            try:
                with blocked():
                    fs.makedirs(filesystem(self.staging)[1], exist_ok=True)
            except BaseException:
                self.abort()
                raise
        else:
            self.local = OutputFolder(path)
            assert self.local.staging is not None
            self.staging = self.local.staging

    def check(self, names: list[str]) -> None:
        """An error now, before the run, when shards of ``names`` could not be moved in."""
        if self.local is not None:
            self.local.check(names)
            return
        fs, target = filesystem(self.path)
        if fs.isdir(target):
            check_targets(names, target.rstrip("/"), self.path, _Remote(fs))

    def commit(self, names: list[str]) -> None:
        """The shards ``names`` (different names: the caller sees to it) moved into place,
        all or none; a shard left half written by a worker that died (under its temporary
        name, the part run again elsewhere) is not."""
        if self.local is not None:
            assert self.local.staging is not None
            for entry in os.listdir(self.local.staging):
                if entry.startswith(".") and entry.endswith(".tmp") and entry not in names:
                    os.remove(os.path.join(self.local.staging, entry))
            self.local.files = list(names)
            self.local.commit()
            return
        fs, staging = filesystem(self.staging)
        target = filesystem(self.path)[1].rstrip("/")
        held, done = Held(), False
        try:
            move_in(names, staging, target, self.path, held, _Remote(fs))
            done = True
            fs.rm(staging, recursive=True)  # (the old files moved aside)
        except Stranded:
            raise  # (its staging folder holds the old files)
        except BaseException as exc:
            if not done:
                fs.rm(staging, recursive=True)
            if isinstance(exc, OSError):
                raise write_failed(exc, self.path) from None
            raise
        finally:
            held.release(self._signals, again=done)
            self._signals = {}

    def abort(self) -> None:
        """Remove the staging folder, shards being written into it as it goes (parts
        still running elsewhere when the run failed) included."""
        import time

        if self.local is not None:
            staging = self.local.staging
            for _ in range(100):
                self.local.staging = staging
                self.local.abort()
                if staging is None or not os.path.exists(staging):
                    return
                time.sleep(0.1)
            return
        restore(self._signals)
        self._signals = {}
        fs, staging = filesystem(self.staging)
        if fs.exists(staging):
            fs.rm(staging, recursive=True)


class _Remote:
    """``move_in``'s operations on an fsspec file system."""

    def __init__(self, fs: Any) -> None:
        self.fs = fs

    @staticmethod
    def join(*pieces: str) -> str:
        return "/".join(piece.rstrip("/") for piece in pieces)

    def kind(self, path: str) -> str | None:
        if self.fs.isdir(path):
            return "folder"
        return "file" if self.fs.exists(path) else None

    def move(self, source: str, target: str) -> None:
        self.fs.mv(source, target)

    def makedir(self, path: str) -> None:
        self.fs.makedirs(path, exist_ok=True)

    def rmdir(self, path: str) -> None:
        self.fs.rmdir(path)


def _temporary() -> str:
    """A name to write a shard under until it is complete: short, whatever the shard's
    name (which may be as long as a name can be)."""
    return f".{uuid.uuid4().hex[:12]}.tmp"


def write_shard(staging: str, name: str, data: bytes, parquet: bool) -> None:
    """One shard into the staging folder: written under a temporary name and renamed, so
    that a shard is complete or absent (a task run twice writes it twice, the same)."""
    temporary = _temporary()
    if not is_url(staging):
        where = os.path.join(staging, temporary)
        try:
            _write_local(where, data, parquet)
            os.replace(where, os.path.join(staging, name))
        except OSError as exc:
            raise write_failed(exc, os.path.join(staging, name)) from None
        return
    import tempfile

    fs, folder = filesystem(staging)
    with tempfile.TemporaryDirectory() as local:
        where = os.path.join(local, name)
        _write_local(where, data, parquet)
        fs.put_file(where, f"{folder}/{temporary}")
    fs.mv(f"{folder}/{temporary}", f"{folder}/{name}")


class ShardStream:
    """One shard written as its parts come, in order (a file one process puts together
    from its parts): under a temporary name in the staging folder (for an fsspec folder,
    in a local one first), renamed when ``close`` says it is complete. ``shown``: the
    folder as the command line named it (errors name the shard there)."""

    def __init__(self, staging: str, name: str, parquet: bool, shown: str | None = None) -> None:
        import tempfile

        self.staging, self.name = staging, name
        self.shown = os.path.join(shown or staging, name)
        self.local = None if not is_url(staging) else tempfile.mkdtemp(prefix=STAGING)
        folder = staging if self.local is None else self.local
        self.where = os.path.join(folder, _temporary())
        try:
            if parquet:
                from .parquet_writer import ParquetOutput

                self.rows: Any = ParquetOutput(self.where)
                self.stream: Any = None
            else:
                self.rows, self.stream = None, open(self.where, "wb")  # noqa: SIM115 (open across parts)
        except OSError as exc:
            raise write_failed(exc, self.shown) from None

    def borrowed(self, data: Any) -> None:
        try:
            if self.rows is not None:
                self.rows.borrowed(data)
            else:
                write_all(self.stream, data)
        except OSError as exc:
            raise write_failed(exc, self.shown) from None

    def close(self) -> None:
        """The shard complete: put in its place."""
        try:
            if self.rows is not None:
                self.rows.close()
            else:
                self.stream.flush()
                os.fsync(self.stream.fileno())
                self.stream.close()
            if self.local is None:
                os.replace(self.where, os.path.join(self.staging, self.name))
                return
        except OSError as exc:
            raise write_failed(exc, self.shown) from None
        import shutil

        fs, folder = filesystem(self.staging)
        temporary = os.path.basename(self.where)
        fs.put_file(self.where, f"{folder}/{temporary}")
        fs.mv(f"{folder}/{temporary}", f"{folder}/{self.name}")
        shutil.rmtree(self.local, ignore_errors=True)

    def abort(self) -> None:
        """The shard given up: nothing of it left (the staging folder goes too)."""
        import contextlib
        import shutil

        with contextlib.suppress(Exception):
            if self.stream is not None:
                self.stream.close()
            else:
                self.rows.abort()
        with contextlib.suppress(OSError):
            os.remove(self.where)
        if self.local is not None:
            shutil.rmtree(self.local, ignore_errors=True)


class ShardStreams:
    """The shards of a run's input files, each put together from the file's parts as
    they come in order: one open at a time."""

    def __init__(self, staging: str, parquet: bool, shown: str | None = None) -> None:
        self.staging, self.parquet, self.shown = staging, parquet, shown
        self.spec: str | None = None
        self.open: ShardStream | None = None

    def of(self, spec: str, name: str) -> ShardStream:
        """The shard of the file ``spec`` (named ``name``), the previous file's complete."""
        if spec != self.spec or self.open is None:
            self.close()
            self.spec, self.open = spec, ShardStream(self.staging, name, self.parquet, self.shown)
        return self.open

    def close(self) -> None:
        if self.open is not None:
            self.open.close()
            self.open = None

    def abort(self) -> None:
        if self.open is not None:
            self.open.abort()
            self.open = None


def _write_local(where: str, data: bytes, parquet: bool) -> None:
    if parquet:
        from .parquet_writer import ParquetOutput

        rows = ParquetOutput(where)
        rows.borrowed(data)
        rows.close()
        return
    with open(where, "wb") as stream:
        write_all(stream, data)
        stream.flush()
        os.fsync(stream.fileno())
