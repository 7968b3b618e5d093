"""``--output-dir DIR``: a run's files written into a staging folder (``.chatpipe-XXXX``,
inside DIR when it exists, beside it when it does not) and moved into place only when
the run ends well, all of them or none.

A new DIR is the staging folder renamed. Into an existing one, every target is checked
before the first move (a folder where a file goes, a file where a folder goes); the old
files the run replaces are moved aside, the new ones moved in, and the old ones put back
if any move fails, or if a signal came (SIGINT, SIGTERM, SIGHUP are held while the files
move, then acted on). So a failed, interrupted or terminated run leaves DIR as it was,
and no staging folder. ``move_in`` does it on any file system (``LocalFiles`` here, an
fsspec one in shards.py)."""

from __future__ import annotations

import contextlib
import os
import stat
from typing import Any

from ..errors import Location, OutputError, UsageError
from .signals import Held, blocked, clean_up_on_signals, restore
from .sink import umask, write_all, write_failed
from .sources import display_path, is_url, local_path

STAGING = ".chatpipe-"  # the staging folder's name starts so (and a file's while written)
_ASIDE = ".chatpipe-old"  # the old files a commit replaces, inside the staging folder
FILE, FOLDER = "file", "folder"


class LocalFiles:
    """The operations ``move_in`` needs, on this machine's files."""

    join = staticmethod(os.path.join)
    parent = staticmethod(os.path.dirname)

    @staticmethod
    def kind(path: str) -> str | None:
        try:
            mode = os.lstat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):
            return None
        return FOLDER if stat.S_ISDIR(mode) else FILE

    @staticmethod
    def move(source: str, target: str) -> None:
        os.rename(source, target)

    @staticmethod
    def makedir(path: str) -> None:
        os.mkdir(path)

    @staticmethod
    def rmdir(path: str) -> None:
        os.rmdir(path)


def check_targets(names: list[str], target: str, shown: str, files: Any = LocalFiles) -> None:
    """An error, before anything is moved, when a file of ``names`` cannot go into the
    folder ``target`` (``shown``: as the command line named it): a folder has its name, or
    a file has the name of a folder it goes in."""
    for name in names:
        pieces = name.split("/")
        for depth in range(1, len(pieces)):
            inner = "/".join(pieces[:depth])
            if files.kind(files.join(target, inner)) == FILE:
                raise _taken(shown, inner, "a file has the name of a folder this run writes")
        if files.kind(files.join(target, name)) == FOLDER:
            raise _taken(shown, name, "a folder has the name of a file this run writes")


def _taken(shown: str, name: str, why: str) -> OutputError:
    return OutputError(
        f"cannot write: {why}; {display_path(shown)} is left as it was",
        Location(display_path(os.path.join(shown, name))),
        "move it away, or write into another --output-dir",
    )


def move_in(
    names: list[str], staging: str, target: str, shown: str, held: Held, files: Any = LocalFiles
) -> None:
    """The files ``names`` moved from ``staging`` into the existing folder ``target``, the
    old files of those names moved aside into the staging folder first: all of them moved,
    or (a move failed, a signal came) none, the old files back in their places."""
    check_targets(names, target, shown, files)
    aside = files.join(staging, _ASIDE)
    moved_aside: list[str] = []
    moved_in: list[str] = []
    made: list[str] = []  # folders made in ``target`` for the new files, outer first
    try:
        for name in names:
            where = files.join(target, name)
            if files.kind(where) is not None:
                if not moved_aside:
                    files.makedir(aside)
                _make_parents(files, aside, name, [])
                files.move(where, files.join(aside, name))
                moved_aside.append(name)
            held.check()
        for name in names:
            _make_parents(files, target, name, made)
            files.move(files.join(staging, name), files.join(target, name))
            moved_in.append(name)
            held.check()
    except BaseException as exc:
        stranded = 0
        for name in reversed(moved_in):
            with contextlib.suppress(Exception):
                files.move(files.join(target, name), files.join(staging, name))
        for folder in reversed(made):
            with contextlib.suppress(Exception):
                files.rmdir(folder)
        for name in reversed(moved_aside):
            try:
                files.move(files.join(aside, name), files.join(target, name))
            except Exception:
                stranded += 1
        if stranded:  # (the disk failing under the run): said, and the old files kept
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "stopped"
            raise Stranded(
                f"cannot write ({why}), and {stranded} old file{'s' * (stranded != 1)} "
                "could not be put back",
                Location(display_path(shown)),
                f"they are in {aside}",
            ) from None
        raise


class Stranded(OutputError):
    """A commit that failed and could not put every old file back: the staging folder,
    which holds them, is kept."""


def _make_parents(files: Any, root: str, name: str, made: list[str]) -> None:
    """The folders ``name`` goes in, under ``root``, made where missing (noted in ``made``)."""
    pieces = name.split("/")[:-1]
    for depth in range(1, len(pieces) + 1):
        folder = files.join(root, *pieces[:depth])
        if files.kind(folder) is None:
            files.makedir(folder)
            made.append(folder)


class OutputFolder:
    """``--output-dir DIR`` on this machine (a path, or a ``file://`` URL): files written
    with ``write`` into the staging folder, moved into DIR by ``commit``, removed by
    ``abort``. From creation to commit or abort, SIGTERM and SIGHUP unwind the run as
    Ctrl-C does, so that the caller's abort removes the staging folder."""

    def __init__(self, path: str) -> None:
        import tempfile

        self.path = path
        if is_url(path):
            raise UsageError(
                f"--output-dir {path}: this output goes to a folder on this machine, not a URL",
                hint="give a local path; records, as convert --to canonical or openai writes them, "
                "can go to a URL",
            )
        self.target = os.path.realpath(local_path(path))
        if os.path.exists(self.target) and not os.path.isdir(self.target):
            raise UsageError(f"--output-dir {path} is a file, not a folder")
        exists = os.path.isdir(self.target)
        # inside an existing DIR: its files are replaced by renames on one file system
        where = self.target if exists else os.path.dirname(self.target)
        self.files: list[str] = []
        self.staging: str | None = None
        # from the staging folder's making on, a signal removes it: the handlers come
        # first, and a signal is kept pending until the folder has its name here
        self._signals = clean_up_on_signals()
        try:
            with blocked():
                if not exists:
                    os.makedirs(where, exist_ok=True)
                self.staging = tempfile.mkdtemp(prefix=STAGING, dir=where)
        except BaseException as exc:
            self._remove()
            restore(self._signals)
            if isinstance(exc, OSError):
                raise write_failed(exc, path) from None
            raise

    def write(self, name: str, data: bytes) -> None:
        """One file of the folder; ``name`` is relative (``c/00001.html``)."""
        assert self.staging is not None and not os.path.isabs(name) and ".." not in name
        where = os.path.join(self.staging, name)
        try:
            os.makedirs(os.path.dirname(where), exist_ok=True)
            with open(where, "wb") as stream:
                write_all(stream, data)
        except OSError as exc:
            raise write_failed(exc, os.path.join(self.path, name)) from None
        self.files.append(name)

    def check(self, names: list[str]) -> None:
        """An error now, before the run, when files of ``names`` could not be moved in."""
        if os.path.isdir(self.target):
            check_targets(names, self.target, self.path)

    def commit(self) -> None:
        """The files in DIR, all of them, or none (an error, or the signal that came while
        they moved, raised); no staging folder is left either way."""
        assert self.staging is not None
        held, done = Held(), False
        try:
            if os.path.isdir(self.target):
                move_in(self.files, self.staging, self.target, self.path, held)
            else:
                os.chmod(self.staging, 0o777 & ~umask())
                held.check()
                os.rename(self.staging, self.target)
                self.staging = None
                try:
                    held.check()
                except BaseException:
                    self.staging = _renamed_back(self.target)
                    raise
            done = True
            self._remove()  # (the old files moved aside)
        except Stranded:
            self.staging = None  # (it holds the old files)
            raise
        except OSError as exc:
            self._remove()
            raise write_failed(exc, self.path) from None
        except BaseException:
            self._remove()
            raise
        finally:
            # a signal that came once every file was in place: acted on as it would
            # have been without a run (the output stays, complete)
            held.release(self._signals, again=done)
            self._signals = {}

    def abort(self) -> None:
        """The staging folder removed; a signal meanwhile is held, then dropped (the run
        is ending already, with the error that aborted it)."""
        held = Held()
        try:
            self._remove()
        finally:
            held.release(self._signals)
            self._signals = {}

    def _remove(self) -> None:
        import shutil

        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)
            self.staging = None


def _renamed_back(target: str) -> str | None:
    """A new DIR, renamed into place when a signal came, back to a staging name (removed
    after); None when it cannot be."""
    import tempfile

    parent = os.path.dirname(target)
    try:
        back = tempfile.mkdtemp(prefix=STAGING, dir=parent)
        os.rename(target, os.path.join(back, "new"))
    except OSError:
        return None
    return back
