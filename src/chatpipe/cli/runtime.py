"""Where the command line meets the core: a command's Job run to stdout, ``-o`` or
``--output-dir`` on the engine the options name (``execute``; the pipeline chooses how),
and reported; stdout only ever carries data."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from ..errors import UsageError
from ..io.outputs import Folder, Output, check_outputs
from ..io.sink import output_sink
from ..model import Conversation
from ..pipeline import executors
from ..pipeline.job import Job, Run
from .command import ReadingOptions
from .diagnostics import run as run  # (where tests and callers have found it)
from .diagnostics import warn
from .report import Report, parts_progress


def rich_console(**options: Any) -> Any:
    """A rich Console whose closed pipe ends the run as every command's does (quietly,
    exit 0), not with rich's own exit 1."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    return _Console(**options)


def check(reading: ReadingOptions, job: Job, also: Sequence[Output] = ()) -> None:
    """Every output of the run (``-o`` or stdout, the files the target puts in a folder,
    and ``also``: a report) checked before it starts: none on another's path or an
    input's, each one writable (io/outputs.py)."""
    outputs = [] if reading.output_dir is not None else [Output("-o", reading.output)]
    folder = getattr(job.target, "folder", None)
    folders = [folder] if isinstance(folder, Folder) else []
    if reading.output_dir is not None and getattr(job.target, "output_dir", None) is None:
        from ..io.sink import parquet_wanted
        from ..pipeline.plan import Part, shard_name

        # the shard named after each input (one cut into parts numbers its shards)
        extension = ".parquet" if parquet_wanted(None, reading.to_format) else ".jsonl"
        names = [shard_name(Part(spec, ""), extension) for spec in job.inputs.files]
        folders.append(Folder("--output-dir", reading.output_dir, names))
    check_outputs([*outputs, *also], folders, job.inputs.files)


def execute(reading: ReadingOptions, job: Job) -> Run:
    """Run a job to stdout or ``-o``, or into ``--output-dir`` shards, on the engine the
    options name (the pipeline chooses how), then report on stderr."""
    import gc

    from ..io.sink import parquet_wanted

    # what is built before the first record (modules, the command line, a compiled
    # template) lives to the end: kept out of the collector's full passes, which a run
    # over a large file makes many of (once a process: a process that runs commands one
    # after another, as the tests do, would keep each one's uncollected garbage for good)
    if not gc.get_freeze_count():
        gc.freeze()
    report = Report(reading.verbose)
    engine = engine_of(reading)
    # a target that makes a folder of pages (html) writes --output-dir itself
    shards = reading.output_dir if getattr(job.target, "output_dir", None) is None else None
    if reading.output_dir is not None and reading.output is not None:
        raise UsageError("-o writes one file and --output-dir a folder; pick one")
    check(reading, job)
    parquet = parquet_wanted(None if shards else reading.output, reading.to_format)
    if parquet and not getattr(job.target, "rows", True):
        from ..io.parquet import not_rows

        raise not_rows()
    if shards is not None:
        out: Any = contextlib.nullcontext(None)
    else:
        out = output_sink(reading.output, list(job.inputs.files), reading.to_format)
    with out as sink, parts_progress() as progress:
        done = executors.execute(
            job,
            sink,
            engine,
            output_dir=shards,
            parquet=parquet,
            watch=report.watch,
            note=warn,
            progress=progress,
            verbose=bool(reading.verbose),
        )
    report.close(done)
    return done


def engine_of(reading: ReadingOptions) -> executors.Engine:
    """The engine the options ask for: ``--jobs N`` workers (``--workers N`` is the same),
    processes here or, with ``--engine dask``, Dask's (a local cluster, or the running one
    at ``--scheduler``)."""
    jobs = reading.jobs
    if reading.engine not in ("serial", "dask"):
        raise UsageError(f"--engine must be serial or dask, got {reading.engine!r}")
    if reading.workers is not None:
        if jobs not in (1, reading.workers):
            raise UsageError("--workers is another name for --jobs; give one of them")
        jobs = reading.workers
    if reading.engine == "serial" and reading.scheduler:
        raise UsageError("--scheduler goes with --engine dask")
    if reading.engine == "dask":
        from ..pipeline.dask_mapper import needs_dask

        needs_dask()
    return executors.Engine(jobs, reading.engine == "dask", reading.scheduler)


class Conversations:
    """The conversations of a command that takes them one by one (show), seen by the
    report as a job's are: iterate, then ``close()``."""

    def __init__(self, reading: ReadingOptions) -> None:
        self.run = Run(Job(reading.inputs()))
        self.report = Report(reading.verbose)

    def __iter__(self) -> Iterator[Conversation]:
        return self.report.watch(self.run.tallied(self.run.conversations()), self.run)

    def close(self) -> None:
        self.report.close(self.run)
