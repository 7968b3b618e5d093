"""The executors that run a Job, all giving the same bytes: ``serial`` (one process,
streaming) and ``processes`` (``--jobs N``: conversation-per-line JSONL split into byte
ranges that forked workers read, operate on and write with the same code). ``execute``
chooses between them."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import UsageError
from ..model import Conversation
from . import hooks
from .job import Job, Run

Watch = Callable[[Iterator[Conversation], Run], Iterator[Conversation]]
Note = Callable[[str], None]


def serial(job: Job, sink: Any, watch: Watch | None = None, run: Run | None = None) -> Run:
    """The job in this process. ``watch`` sees the conversations as they are read (the
    CLI's progress bar and notes)."""
    run = run or Run(job)
    conversations = run.conversations()
    if watch is not None:
        conversations = watch(conversations, run)
    run.target.emit(run, run.operated(conversations), sink)
    return run


def processes(job: Job, sink: Any, workers: int) -> Run | str:
    """The job in ``workers`` forked processes, output in input order; or, when it
    cannot be split (nothing done then), the reason why."""
    run = Run(job)
    reason = _unsplittable(run)
    if reason:
        return reason
    found = [hooks.record_per_line_dialect(spec, run) for spec in job.inputs.files]
    if None in found:
        return "--jobs works on conversation-per-line JSONL files"
    for spec, dialect in zip(job.inputs.files, found, strict=True):
        hooks.run_in_processes(run, spec, dialect, sink, workers)
    return run


def _unsplittable(run: Run) -> str | None:
    if not hasattr(os, "fork"):
        return "--jobs needs a system that can fork processes"
    if run.target.lines is None or run.job.inputs.group_by:
        return "--jobs works on conversation-per-line JSONL files"
    return None


def execute(
    job: Job, sink: Any, jobs: int = 1, watch: Watch | None = None, note: Note | None = None
) -> Run:
    """The job on the executor that suits it: ``jobs`` worker processes when the inputs
    can be split (capped at the processors this process may use), one process otherwise.
    ``note`` hears why fewer workers, or one process, ran."""
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs}")
    if jobs > 1:
        usable = min(jobs, _cores())
        if usable < jobs and note is not None:
            note(f"--jobs {jobs}: this machine runs {usable} at once; using {usable} workers")
        done = processes(job, sink, usable)
        if isinstance(done, Run):
            return done
        if note is not None:
            note(f"{done}; running in one process")
    return serial(job, sink, watch)


def _cores() -> int:
    """The processors this process may run on (its affinity, where the system says)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
