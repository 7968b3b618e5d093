"""What a run says on stderr besides its errors: a progress bar for large inputs on a
terminal, with ``-v`` what was detected and each conversation's notes, and at the end the
branches left out, the batch requests unanswered, the records skipped and the losses."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

from ..formats.detect import MESSAGES, STREAM
from ..model import Conversation
from ..pipeline.job import Run
from ..pipeline.reading import Reading
from . import diagnostics
from .diagnostics import warn

_PROGRESS_FROM = 32 << 20  # bytes of input worth a progress bar


def _many(number: int, one: str, more: str = "") -> str:
    return f"{number} {one if number == 1 else more or one + 's'}"


class Report:
    """The stderr report of a run (``watch`` the conversations read, ``close`` at the end)."""

    def __init__(self, verbose: int = 0) -> None:
        self.verbose = verbose

    def watch(self, conversations: Iterator[Conversation], run: Run) -> Iterator[Conversation]:
        files = run.job.inputs.files
        sizes = {f: os.path.getsize(f) for f in files if f != "-" and os.path.isfile(f)}
        total = sum(sizes.values())
        noted = self._noted(conversations, run) if self.verbose else conversations
        if diagnostics.quiet or not sys.stderr.isatty() or total < _PROGRESS_FROM:
            return noted
        return _with_progress(noted, run.reading, sizes, total)

    def _noted(self, conversations: Iterator[Conversation], run: Run) -> Iterator[Conversation]:
        """``-v``: what each source was read as, and each conversation's notes."""
        reported = 0
        for conversation in conversations:
            branch = conversation.meta.get("branch")
            self._read_notes(run)
            for source, dialect, shape in run.reading.found[reported:]:
                per = {MESSAGES: "message per record", STREAM: "a stream of events"}.get(
                    shape, "conversation per record"
                )
                warn(f"read {source.name}: {dialect.name} ({source.container}, {per})")
            reported = len(run.reading.found)
            where = conversation.location or ""
            if isinstance(branch, dict) and branch.get("left_out"):
                which = "newest" if branch.get("chosen") == "newest" else "active"
                left = _many(branch["left_out"], "other branch", "other branches")
                warn(
                    f"{where}: wrote the {which} branch; {left} left out (--branch all writes them)"
                )
            if "batch_error" in conversation.meta:
                ident, why = conversation.meta.get("custom_id"), conversation.meta["batch_error"]
                warn(f"{where}: custom_id {ident!r} has no answer: {why}")
            elif not conversation.messages and conversation.meta:
                title = conversation.meta.get("title") or conversation.meta.get("name")
                named = f" {title!r}" if isinstance(title, str) and title else ""
                warn(f"{where}: conversation{named} has no messages (its record holds none)")
            yield conversation

    def _read_notes(self, run: Run) -> None:
        """-v: what reading said so far and was not said yet (a zip's members skipped)."""
        notes = run.reading.notes
        while notes:
            warn(notes.pop(0))

    def close(self, run: Run) -> None:
        if self.verbose:
            self._read_notes(run)
        for text in run.reading.warnings:
            warn(text)
        taken, others = run.newest
        if taken:
            subject, chosen = (
                ("s branch and name", "the newest branch of each")
                if taken != 1
                else (" branches and names", "its newest branch")
            )
            warn(
                f"{taken} conversation{subject} no current leaf: wrote {chosen}, "
                f"{_many(others, 'other branch', 'other branches')} left out (--branch all "
                "writes them)"
            )
        if run.unanswered:
            many = run.unanswered != 1
            warn(
                f"warning: {_many(run.unanswered, 'batch request')} ha{'ve' if many else 's'} "
                "no answer (failed, expired, canceled, or not in the output files): kept, "
                "the reason in 'batch_error' (-v names them)"
            )
        shown, count = run.errors.skipped, run.errors.count
        for error in shown:
            warn(f"skipped: {error}")
        if count > len(shown):
            warn(f"... and {count - len(shown)} more")
        if count:
            warn(f"warning: skipped {_many(count, 'bad record')}")
        if run.losses is not None:
            for line in run.losses.lines(bool(self.verbose)):
                warn(line)
        # an empty input: said, where a run wrote nothing and said nothing (validate reads
        # records, not conversations, and says what it found)
        if not run.read and not run.target.checks_records:
            warn(f"warning: no conversations read from {_inputs(run)}")


def _inputs(run: Run) -> str:
    names = [("<stdin>" if f == "-" else f) for f in run.job.inputs.files] or ["<stdin>"]
    return names[0] if len(names) == 1 else f"{len(names)} inputs"


def _with_progress(
    conversations: Iterator[Conversation], reading: Reading, sizes: dict[str, int], total: int
) -> Iterator[Conversation]:
    """Bytes read and MB/s on stderr, polled from the open file, never from the data path."""
    import threading

    from rich.progress import BarColumn, DownloadColumn, TransferSpeedColumn

    done_before = {"bytes": 0, "spec": None}
    stop = threading.Event()

    def position() -> int:
        source = reading.current
        if source is None or source.stream is None:
            return done_before["bytes"]
        if source.spec != done_before["spec"]:
            finished = [s for s, _, _ in reading.found if s is not source]
            done_before["bytes"] = sum(sizes.get(s.spec, 0) for s in finished)
            done_before["spec"] = source.spec
        try:
            return done_before["bytes"] + source.position()
        except (OSError, ValueError):
            return done_before["bytes"]

    columns = (BarColumn(), DownloadColumn(), TransferSpeedColumn())
    with _bar(columns) as progress:
        task = progress.add_task("reading", total=total)

        def poll() -> None:
            while not stop.wait(0.2):
                progress.update(task, completed=position())

        thread = threading.Thread(target=poll, daemon=True)
        thread.start()
        try:
            yield from conversations
        finally:
            stop.set()
            thread.join()


@contextlib.contextmanager
def parts_progress() -> Iterator[Any]:
    """A bar of the parts done on stderr (a terminal's, and not with -q): ``done(number,
    total)``, or None."""
    if diagnostics.quiet or not sys.stderr.isatty():
        yield None
        return
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, TimeElapsedColumn

    # redrawn here as parts finish, not by a thread of its own: --jobs forks no copy of a
    # thread that may hold the terminal's lock
    columns = (BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with _bar(columns, auto_refresh=False) as bar:
        task = bar.add_task("parts", total=None)
        drawn = [0.0]

        def done(number: int, total: int) -> None:
            now = time.monotonic()
            redraw = number == total or now - drawn[0] >= 0.1
            bar.update(task, completed=number, total=total, refresh=redraw)
            if redraw:
                drawn[0] = now

        yield done


def _bar(columns: tuple[Any, ...], auto_refresh: bool = True) -> Any:
    from rich.console import Console
    from rich.progress import Progress

    return Progress(
        *columns, console=Console(stderr=True), transient=True, auto_refresh=auto_refresh
    )
