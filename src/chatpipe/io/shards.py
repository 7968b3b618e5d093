"""``--output-dir DIR`` for records: one output file (a shard) per input part, written by
whichever process made it into a staging folder beside DIR, each shard complete or absent
(written under a temporary name, then renamed), and the folder's shards moved into DIR
only when the whole run succeeds. DIR may be an fsspec URL."""

from __future__ import annotations

import os
import uuid
from typing import Any

from ..errors import UsageError
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
        if len(set(names)) != len(names):
            raise UsageError(
                "two inputs would write shards of the same name",
                hint="give the inputs different file names, or write one file with -o",
            )
        if self.local is not None:
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
