"""Zip archives read member by member (an export as downloaded, a zipped dataset): their
members listed in order, each opened as a stream whose errors name the member, and the
files they hold beside the conversations found by the ids a ChatGPT export gives them
(``file-service://file-ID``, ``sediment://file_ID``), for the pages that show images."""

from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Callable
from typing import IO, Any

from ..errors import DataError, Location
from .compression import checked, said_of
from .magic import image_mime

# a member's id, from its file name: ChatGPT names an uploaded or generated file
# ``file-<id>-<original name>`` or ``file_<hex>-<uuid>.<ext>`` (``.dat`` as often as not)
_FILE_ID = re.compile(r"(file[-_][A-Za-z0-9]+)(?:[-.].*)?", re.S)
LARGEST_IMAGE = 16 << 20  # bytes of an image a page shows inline, at most


class Archive:
    """A zip file, opened when a member is first read and closed by ``close``: ``name``
    is what errors call it, ``source`` gives it as a path or a seekable stream."""

    def __init__(self, name: str, source: Callable[[], Any]) -> None:
        self.name = name
        self.source = source
        self._zip: zipfile.ZipFile | None = None
        self._members: list[str] | None = None
        self._files: ArchiveFiles | None = None

    def zip(self) -> zipfile.ZipFile:
        if self._zip is None:
            where = self.source()
            try:
                self._zip = zipfile.ZipFile(where)
            except (zipfile.BadZipFile, OSError, EOFError) as exc:
                if hasattr(where, "close"):
                    where.close()
                raise DataError(
                    f"not a readable zip archive ({said_of(exc)})",
                    Location(self.name),
                    "download it again; unzip -t FILE checks a zip",
                ) from None
        return self._zip

    def members(self) -> list[str]:
        """The names of its files, in the archive's order (folders left out)."""
        if self._members is None:
            self._members = [i.filename for i in self.zip().infolist() if not i.is_dir()]
        return self._members

    def open(self, member: str, on_close: Any = None) -> IO[bytes]:
        """One member, decompressed as it is read; what goes wrong names it.
        ``on_close`` is called when the member is closed."""
        name = f"{self.name}:{member}"
        try:
            info = self.zip().getinfo(member)
        except KeyError:
            raise DataError(
                "no such member in this zip", Location(name), f"unzip -l {self.name} lists them"
            ) from None
        if info.flag_bits & 0x1:
            raise DataError(
                "an encrypted member: chatpipe reads no password-protected zip",
                Location(name),
                "extract it with unzip first",
            )
        try:
            stream = self.zip().open(info)
        except NotImplementedError as exc:  # a compression method zipfile cannot read
            raise DataError(
                f"cannot decompress this member ({said_of(exc)})",
                Location(name),
                "extract it with unzip or 7z first",
            ) from None
        except (zipfile.BadZipFile, OSError) as exc:
            raise _damaged(name, exc) from None
        return checked(stream, lambda exc: _damaged(name, exc), on_close)

    def files(self) -> ArchiveFiles | None:
        """The files it holds by their ids, when it holds any (an export's images)."""
        if self._files is None:
            ids: dict[str, str] = {}
            for member in self.members():
                found = _FILE_ID.fullmatch(member.rsplit("/", 1)[-1])
                if found is not None:
                    ids.setdefault(found.group(1), member)
            self._files = ArchiveFiles(self, ids)
        return self._files if self._files.ids else None

    def position(self) -> int:
        """Where the open zip's file is being read (the progress made); ValueError when
        it is not open."""
        opened = self._zip
        if opened is None or opened.fp is None:
            raise ValueError("not open")
        return int(opened.fp.tell())

    def close(self) -> None:
        if self._zip is not None:
            fp = self._zip.fp
            self._zip.close()
            self._zip = None
            if fp is not None and hasattr(fp, "close"):
                fp.close()


class ArchiveFiles:
    """The files of an archive by id: what a page needs to show an image the export
    names only by its pointer. Pickled (a Dask bag's conversations), it keeps the ids and
    the way to open the archive again, not the open file."""

    def __init__(self, archive: Archive, ids: dict[str, str]) -> None:
        self.archive = archive
        self.ids = ids

    def member(self, pointer: Any) -> str | None:
        """The member a pointer (``file-service://file-ID``, ``sediment://file_ID``, or
        the id) names, or None."""
        if not isinstance(pointer, str) or not pointer:
            return None
        return self.ids.get(pointer.rsplit("/", 1)[-1])

    def read(self, member: str, limit: int = LARGEST_IMAGE) -> bytes | None:
        """A member's bytes, None when it is larger than ``limit`` or cannot be read."""
        try:
            info = self.archive.zip().getinfo(member)
            if info.file_size > limit:
                return None
            with self.archive.open(member) as stream:
                return stream.read()
        except (DataError, KeyError):
            return None

    def image(self, pointer: Any) -> tuple[str, str, bytes] | None:
        """(member, MIME type, bytes) of the image a pointer names, when the archive holds
        it and it is a PNG, JPEG, GIF or WebP image of a size a page can show."""
        member = self.member(pointer)
        data = self.read(member) if member is not None else None
        mime = image_mime(data[:16]) if data else None
        return (member, mime, data) if member is not None and mime and data else None

    def data_url(self, pointer: Any) -> str | None:
        found = self.image(pointer)
        if found is None:
            return None
        import base64

        _, mime, data = found
        return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"

    def __getstate__(self) -> dict[str, Any]:
        archive = Archive(self.archive.name, self.archive.source)
        return {"archive": archive, "ids": self.ids}


def member_file_name(member: str) -> str:
    """A member's file name without its folders (``dalle-generations/file-x.webp``)."""
    return os.path.basename(member) or member


def _damaged(name: str, exc: BaseException) -> DataError:
    return DataError(
        f"cannot read this zip member: it is damaged ({said_of(exc)})",
        Location(name),
        "download the zip again; unzip -t FILE checks it",
    )
