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
from .reading import joins_batches

Watch = Callable[[Iterator[Conversation], Run], Iterator[Conversation]]
_PER_LINE = "--jobs works on conversation-per-line JSONL files"
_OTHER_INPUTS = (
    ", on inputs of several parts, and on one message log for buffer, openai, convert and filter"
)
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
    from .parts import Assembly

    run = Run(job)
    reason = _unsplittable(run)
    if reason:
        return reason
    found = [hooks.record_per_line_dialect(spec, run) for spec in job.inputs.files]
    if None in found:
        return _PER_LINE
    run = Run(settled(job))
    # a target that puts its lines together at the end (stats) collects them in order
    collect = getattr(run.target, "collect", None)
    into = sink if collect is None else collect(run, sink)
    assembly = Assembly(run)
    for spec, dialect in zip(job.inputs.files, found, strict=True):
        hooks.run_in_processes(run, spec, dialect, into, workers, assembly)
    if collect is not None:
        into.close()
    return run


def _unsplittable(run: Run) -> str | None:
    from .parts import part_writer

    if not hasattr(os, "fork"):
        return "--jobs needs a system that can fork processes"
    if part_writer(run.target) is None or run.job.inputs.group_by:
        return _PER_LINE
    return None


def execute(
    job: Job, sink: Any, jobs: int = 1, watch: Watch | None = None, note: Note | None = None
) -> Run:
    """The job on the executor that suits it: ``jobs`` worker processes when the inputs
    can be split (capped at the processors this process may use): conversation-per-line
    files by line ranges, other inputs of several parts (files whole, Parquet row groups)
    by part; one process otherwise. ``note`` hears why fewer workers, or one process,
    ran."""
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs}")
    if jobs > 1 and joins_batches(job.inputs.files, job.inputs.dialect):
        if note is not None:
            note(f"--jobs {jobs}: a batch's input and output files are joined in one process")
        jobs = 1
    if jobs > 1:
        usable = min(jobs, _cores())
        if usable < jobs and note is not None:
            note(f"--jobs {jobs}: this machine runs {usable} at once; using {usable} workers")
        done = processes(job, sink, usable)
        if isinstance(done, Run):
            return done
        if _in_parts(job):  # files whole, or row groups: the parts on the workers
            from .parts import JOB_BLOCKSIZE

            return partitioned(job, sink, part_mapper(usable, note), blocksize=JOB_BLOCKSIZE)
        log = _one_log(job) if usable > 1 else None
        if log is not None:  # one message log written message by message: its lines
            from .log_ranges import run_log

            ran = run_log(job, log, sink, usable)
            if ran is not None:
                return ran
            done = f"--jobs {jobs}: a message log of a megabyte or less is one part"
        if note is not None:
            also = _OTHER_INPUTS if done == _PER_LINE else ""
            note(f"{done}{also}; running in one process")
    return serial(job, sink, watch)


def _one_log(job: Job) -> Any:
    if not hasattr(os, "fork"):
        return None
    from .log_ranges import one_log

    return one_log(job)


def _in_parts(job: Job) -> bool:
    """True when the inputs make two parts or more (files of several kinds, message logs
    a conversation each, Parquet row groups) whose output can be made apart."""
    from .parts import JOB_BLOCKSIZE, part_writer, plan

    inputs = job.inputs
    if "-" in inputs.files or inputs.group_by or part_writer(Run(job).target) is None:
        return False
    return len(plan(job, JOB_BLOCKSIZE)) > 1


def partitioned(
    job: Job,
    sink: Any,
    mapper: Callable[..., Iterator[Any]] | None = None,
    *,
    output_dir: str | None = None,
    parquet: bool = False,
    blocksize: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    shard_per_part: bool = True,
) -> Run:
    """The job cut into parts (pipeline/parts.py) that ``mapper(job, parts, staging,
    names, parquet)`` runs, giving their results in part order (None: one after the
    other, here); put back together in input order into ``sink``, or with
    ``output_dir`` into shards there, all moved into place when the run ends well: one
    a part, which the mapper writes (``shard_per_part``), or one a file, which this
    process puts together from the file's parts. ``progress(done, parts)`` hears each
    part put back."""
    from dataclasses import replace

    from ..io.shards import ShardFolder, ShardStreams
    from .parts import Assembly, expand, part_writer, plan, shard_name

    job = Job(replace(job.inputs, files=tuple(expand(job.inputs.files))), *_rest(job))
    if output_dir is None:  # one output: in one dialect (a shard each is in its file's)
        job = settled(job)
    run = Run(job)
    if part_writer(run.target) is None:
        raise UsageError(
            "this output is one document or a folder of pages, written by one process",
            hint="leave --engine dask and --output-dir out, or write records (--to canonical)",
        )
    parts = plan(job, blocksize)
    extension = ".parquet" if parquet else ".jsonl"
    shards: list[str] = []
    if output_dir is None:  # (a name says the part's output is a file of its own)
        names = [""] * len(parts)
    else:  # a shard a part, or one a file (its parts handed back here)
        one = (lambda part: part) if shard_per_part else (lambda part: replace(part, parts=1))
        names = [shard_name(one(part), extension) for part in parts]
        specs = [part.spec for part in parts]
        shards = [name for _, name in dict.fromkeys(zip(specs, names, strict=True))]
        if len(set(shards)) != len(shards):
            raise UsageError(
                "two inputs would write shards of the same name",
                hint="give the inputs different file names, or write one file with -o",
            )
    folder = ShardFolder(output_dir) if output_dir is not None else None
    staging = None if folder is None or not shard_per_part else folder.staging
    streams = None if folder is None or shard_per_part else ShardStreams(folder.staging, parquet)
    results = (mapper or run_parts)(job, parts, staging, names, parquet)
    collect = getattr(run.target, "collect", None)
    into = sink if collect is None else collect(run, sink)
    try:
        assembly = Assembly(run)
        for number, (part, done, name) in enumerate(zip(parts, results, names, strict=True), 1):
            assembly.add(part, done, into if streams is None else streams.of(part.spec, name))
            if progress is not None:
                progress(number, len(parts))
        if collect is not None:
            into.close()
        if streams is not None:
            streams.close()
        if folder is not None:
            folder.commit(shards)
    except BaseException:
        _close(results)  # no part started after this
        if streams is not None:
            streams.abort()
        if folder is not None:
            folder.abort()
        raise
    _close(results)
    return run


def settled(job: Job) -> Job:
    """The job as its parts must run it to give one process's output: what its target
    settles at the first conversation (the dialect of ``to=None``), settled now."""
    from .targets import ToDialect

    if "-" in job.inputs.files:  # read once, by the run itself
        return job
    target = job.target if job.target is not None else ToDialect()
    settle = getattr(target, "settled", None)
    return job if settle is None else Job(job.inputs, job.operation, settle(job))


def _close(results: Any) -> None:
    close = getattr(results, "close", None)
    if close is not None:
        close()


def _rest(job: Job) -> tuple[Any, Any]:
    return job.operation, job.target


def run_parts(
    job: Job, parts: list[Any], staging: str | None, names: list[str], parquet: bool
) -> Iterator[Any]:
    """Each part in this process, in order."""
    for part, name in zip(parts, names, strict=True):
        yield work(job, part, staging, name, parquet)


def work(job: Job, part: Any, staging: str | None, name: str, parquet: bool) -> Any:
    """One part, its output handed back or (``staging``) written as a shard there as it
    is made; ``name``, the shard's, says the output is a file of its own."""
    from ..io.shards import ShardStream
    from .parts import run_part

    if staging is None:
        return run_part(job, part, alone=bool(name))
    shard = ShardStream(staging, name, parquet)
    try:
        done = run_part(job, part, shard)
    except BaseException:
        shard.abort()
        raise
    shard.close()
    return done


def parallel_mapper(jobs: int, note: Note | None = None) -> Callable[..., Iterator[Any]] | None:
    """A mapper for ``validate_in_parts``: ``jobs`` forked workers (capped at the
    processors this process may use; ``note`` hears so), or None for one process."""
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs}")
    usable = min(jobs, _cores())
    if usable < jobs and note is not None:
        note(f"--jobs {jobs}: this machine runs {usable} at once; using {usable} workers")
    if usable < 2 or not hasattr(os, "fork"):
        return None

    def mapper(function: Any, parts: list[Any], arguments: tuple) -> Iterator[Any]:
        from ..fast.pool import map_in_processes

        return map_in_processes(function, parts, arguments, usable)

    return mapper


def part_mapper(jobs: int, note: Note | None = None) -> Callable[..., Iterator[Any]]:
    """A mapper for ``partitioned``: the parts on ``jobs`` forked workers, no more than
    the processors this process may use nor than the parts (``note`` hears so); their
    outputs come back through shared memory."""
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs}")

    def mapper(job: Job, parts: list[Any], staging: str | None, names: list[str], parquet: bool):
        usable = min(jobs, _cores())
        if usable < jobs and note is not None:
            note(f"--jobs {jobs}: this machine runs {usable} at once; using {usable} workers")
        if len(parts) < usable and note is not None:
            n = len(parts)
            note(
                f"--jobs {jobs}: {n} part{'s' * (n != 1)} of the inputs, "
                f"{n or 1} process{'es' * (n > 1)}"
            )
        workers = min(usable, len(parts))
        if workers < 2 or not hasattr(os, "fork"):
            return run_parts(job, parts, staging, names, parquet)
        from ..fast.pool import map_parts_in_processes

        items = list(zip(parts, names, strict=True))
        return map_parts_in_processes(_work_on, items, (job, staging, parquet), workers)

    return mapper


def _work_on(item: tuple[Any, str], job: Job, staging: str | None, parquet: bool) -> Any:
    return work(job, item[0], staging, item[1], parquet)


def _cores() -> int:
    """The processors this process may run on (its affinity, where the system says)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
