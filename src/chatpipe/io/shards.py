"""``--output-dir DIR`` for records: one output file (a shard) per input part, written by
whichever process made it (Dask's workers), or per input file, put together from its
parts in order by the process that runs the job (one process, ``--jobs``), into a
staging folder beside DIR, each shard complete or absent (written under a temporary
name, then renamed), and the folder's shards moved into DIR only when the whole run
succeeds. DIR may be an fsspec URL."""

from __future__ import annotations

import os
import uuid
from typing import Any

from .sink import OutputFolder, write_all, write_failed
from .sources import is_url


class ShardFolder:
    """The staging folder of a run's shards (``staging`` is handed to the workers)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.remote = is_url(path)
        self.local: OutputFolder | None = None
        if self.remote:
            fs = _fs(path)[0]
            self.staging = path.rstrip("/") + f"/.chatpipe-{uuid.uuid4().hex[:12]}"
            fs.makedirs(_fs(self.staging)[1], exist_ok=True)
        else:
            self.local = OutputFolder(path)
            assert self.local.staging is not None
            self.staging = self.local.staging

    def commit(self, names: list[str]) -> None:
        """The shards ``names`` (different names: the caller sees to it) moved into place;
        a shard left half written by a worker that died (under its temporary name, the
        part run again elsewhere) is not."""
        if self.local is not None:
            assert self.local.staging is not None
            for entry in os.listdir(self.local.staging):
                if entry.startswith(".") and entry.endswith(".tmp") and entry not in names:
                    os.remove(os.path.join(self.local.staging, entry))
            self.local.files = list(names)
            self.local.commit()
            return
        fs, staging = _fs(self.staging)
        target = _fs(self.path)[1].rstrip("/")
        for name in names:
            fs.mv(f"{staging}/{name}", f"{target}/{name}")
        fs.rm(staging, recursive=True)

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
        fs, staging = _fs(self.staging)
        if fs.exists(staging):
            fs.rm(staging, recursive=True)


def _fs(url: str) -> tuple[Any, str]:
    import fsspec

    from .sources import storage_options

    return fsspec.core.url_to_fs(url, **storage_options(url))


def write_shard(staging: str, name: str, data: bytes, parquet: bool) -> None:
    """One shard into the staging folder: written under a temporary name and renamed, so
    that a shard is complete or absent (a task run twice writes it twice, the same)."""
    temporary = f".{name}.{uuid.uuid4().hex[:8]}.tmp"
    if not is_url(staging):
        where = os.path.join(staging, temporary)
        try:
            _write_local(where, data, parquet)
            os.replace(where, os.path.join(staging, name))
        except OSError as exc:
            raise write_failed(exc, os.path.join(staging, name)) from None
        return
    import tempfile

    fs, folder = _fs(staging)
    with tempfile.TemporaryDirectory() as local:
        where = os.path.join(local, name)
        _write_local(where, data, parquet)
        fs.put_file(where, f"{folder}/{temporary}")
    fs.mv(f"{folder}/{temporary}", f"{folder}/{name}")


class ShardStream:
    """One shard written as its parts come, in order (a file one process puts together
    from its parts): under a temporary name in the staging folder (for an fsspec folder,
    in a local one first), renamed when ``close`` says it is complete."""

    def __init__(self, staging: str, name: str, parquet: bool) -> None:
        import tempfile

        self.staging, self.name = staging, name
        self.local = None if not is_url(staging) else tempfile.mkdtemp(prefix=".chatpipe-")
        folder = staging if self.local is None else self.local
        self.where = os.path.join(folder, f".{name}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            if parquet:
                from .parquet import ParquetOutput

                self.rows: Any = ParquetOutput(self.where)
                self.stream: Any = None
            else:
                self.rows, self.stream = None, open(self.where, "wb")  # noqa: SIM115 (open across parts)
        except OSError as exc:
            raise write_failed(exc, os.path.join(staging, name)) from None

    def borrowed(self, data: Any) -> None:
        try:
            if self.rows is not None:
                self.rows.borrowed(data)
            else:
                write_all(self.stream, data)
        except OSError as exc:
            raise write_failed(exc, os.path.join(self.staging, self.name)) from None

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
            raise write_failed(exc, os.path.join(self.staging, self.name)) from None
        import shutil

        fs, folder = _fs(self.staging)
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

    def __init__(self, staging: str, parquet: bool) -> None:
        self.staging, self.parquet = staging, parquet
        self.spec: str | None = None
        self.open: ShardStream | None = None

    def of(self, spec: str, name: str) -> ShardStream:
        """The shard of the file ``spec`` (named ``name``), the previous file's complete."""
        if spec != self.spec or self.open is None:
            self.close()
            self.spec, self.open = spec, ShardStream(self.staging, name, self.parquet)
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
        from .parquet import ParquetOutput

        rows = ParquetOutput(where)
        rows.borrowed(data)
        rows.close()
        return
    with open(where, "wb") as stream:
        write_all(stream, data)
        stream.flush()
        os.fsync(stream.fileno())
