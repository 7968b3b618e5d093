"""Where a job runs, chosen in one place for every command: ``serial`` (this process,
streaming), or in parts (plan.py) run by a mapper (workers.py: this process, one after
another, or forked workers; dask_mapper.py: a Dask cluster) and put back together in
input order (assemble.py). Every way gives the same bytes."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError
from ..model import Conversation
from .job import Job, Run, is_stream

Watch = Callable[[Iterator[Conversation], Run], Iterator[Conversation]]
Note = Callable[[str], None]


@dataclass(frozen=True)
class Engine:
    """Where to run: ``jobs`` workers (forked processes; with ``dask``, the workers of a
    local Dask cluster, or of the running one at ``scheduler``: its address, or a
    ``distributed.Client`` connected to it). ``blocksize``: about how many bytes of input
    a part holds (None: the engine's own, 1 MiB on forked workers, 64 MiB on Dask)."""

    jobs: int = 1
    dask: bool = False
    scheduler: Any = None
    blocksize: int | None = None

    def checked(self) -> Engine:
        if self.jobs < 1:
            raise UsageError(f"--jobs must be at least 1, got {self.jobs}")
        if self.scheduler is not None and not self.dask:
            raise UsageError("--scheduler goes with --engine dask")
        if self.scheduler is not None and self.jobs > 1:
            raise UsageError(
                "--scheduler names a running cluster and --jobs (--workers) starts one; pick one"
            )
        if self.blocksize is not None and self.blocksize < 1:
            raise UsageError(f"a part's size must be at least 1 byte, got {self.blocksize}")
        return self

    def in_words(self) -> str:
        """The engine as the command line asks for it."""
        return "--engine dask" if self.dask else f"--jobs {self.jobs}"


def serial(job: Job, sink: Any, watch: Watch | None = None, say: Note | None = None) -> Run:
    """The job in this process, streaming. ``watch`` sees the conversations as they are
    read (the CLI's progress bar and notes); ``say`` hears the target's warnings."""
    run = Run(job)
    conversations = run.conversations()
    if watch is not None:
        conversations = watch(conversations, run)
    run.target.emit(run, run.operated(conversations), sink)
    return _said(run, say)


def _said(run: Run, say: Note | None) -> Run:
    """``run``, its target's warnings said: at its end, when it ended well (a run that
    fails says one thing, its error)."""
    if say is not None:
        for text in run.notes:
            say(text)
    run.notes.clear()
    return run


def execute(
    job: Job,
    sink: Any,
    engine: Engine = Engine(),
    *,
    output_dir: str | None = None,
    parquet: bool = False,
    watch: Watch | None = None,
    note: Note | None = None,
    progress: Callable[[int, int], None] | None = None,
    verbose: bool = False,
) -> Run:
    """The job where ``engine`` says, its output into ``sink`` (or, with ``output_dir``,
    into shards there, all moved into place when the run ends well). ``note`` hears the
    warnings and why fewer workers, or one process, ran; ``progress(done, parts)`` each
    part put back."""
    engine = engine.checked()
    if engine.dask or engine.jobs > 1:
        refuse_state(job.operation, engine)
    say = note or (lambda _: None)
    target_parts = job.target.parts if job.target is not None else True
    whole = job.target is not None and job.target.one_process
    if (engine.dask or output_dir is not None) and not target_parts and not whole:
        raise UsageError(
            "this output is one document or a folder of pages, written by one process",
            hint="leave --engine dask and --output-dir out, or write records (--to canonical)",
        )
    if output_dir is not None and "-" in job.inputs.files:
        raise UsageError(
            "--output-dir names each shard after its input file, and stdin has no name",
            hint="write the input to a file and name the file, or write one output with -o",
        )
    if (is_stream(job.operation) and not two_passes(job.operation)) or whole:  # in order
        if output_dir is not None:
            raise UsageError("this command reads its inputs in one process, not in parts")
        if engine.dask or engine.jobs > 1:
            say(f"{engine.in_words()}: this command reads its inputs in one process")
        return serial(job, sink, watch, say)
    if engine.dask:
        return _on_dask(job, sink, engine, output_dir, parquet, say, progress)
    jobs = engine.jobs
    if jobs > 1 and verbose:
        say(
            f"--jobs {jobs} with -v: -v notes each conversation as one process reads it; "
            "running in one process"
        )
        jobs = 1
    if jobs == 1 and output_dir is None:
        return serial(job, sink, watch, say)
    return _on_processes(
        job, sink, jobs, engine.blocksize, output_dir, parquet, say, watch, progress
    )


def _on_processes(
    job: Job,
    sink: Any,
    jobs: int,
    blocksize: int | None,
    output_dir: str | None,
    parquet: bool,
    say: Note,
    watch: Watch | None,
    progress: Any,
) -> Run:
    from ..io.sources import display_path
    from .assemble import run_in_parts
    from .plan import FILE, JOB_BLOCKSIZE, Part, plan, refuse_once
    from .workers import ForkPool, Inline, can_fork

    usable = min(jobs, _cores())
    if usable < jobs:
        say(f"--jobs {jobs}: this machine runs {usable} at once; using {usable} workers")
    size = JOB_BLOCKSIZE if blocksize is None else blocksize
    found = plan(job, size, logs=output_dir is None and usable > 1)
    why = can_fork() if usable > 1 else None
    if found.joined:
        if output_dir is not None:
            refuse_once(found, "")
        say(f"--jobs {jobs}: a batch's input and output files are joined in one process")
        return serial(job, sink, watch, say)
    if found.once:  # read once, in order, here
        if jobs > 1:
            say(
                f"--jobs {jobs}: {found.once[0]} can be read only once (stdin, a pipe); "
                "running in one process"
            )
        if output_dir is None:
            return serial(job, sink, watch, say)
        found.parts = [Part(spec, FILE) for spec in found.files]
        usable = 1
    elif why is not None:
        say(f"{why}; running in one process")
        usable = 1
    parts = len(found.parts)
    one_output = job.target is not None and not job.target.parts
    if output_dir is None and (parts < 2 or one_output):  # nothing to share out
        big = usable > 1 and any(_larger(part, size) for part in found.parts)
        if big and one_output:
            say(f"--jobs {jobs}: this output is one document, written by one process")
        elif big:
            say(
                f"--jobs {jobs}: {display_path(found.parts[0].spec)} is read whole ("
                "conversation-per-line JSONL and Parquet files are cut into parts, and one "
                "message log written message by message); running in one process"
            )
        return serial(job, sink, watch, say)
    workers = min(usable, parts)
    mapper = ForkPool(workers) if workers > 1 else Inline()
    if output_dir is None:
        job = settled(job, found)
    run = Run(_second_pass(job, found, mapper))
    run_in_parts(
        run, found, mapper, sink, output_dir=output_dir, parquet=parquet, progress=progress
    )
    return _said(run, say)


def _on_dask(
    job: Job,
    sink: Any,
    engine: Engine,
    output_dir: str | None,
    parquet: bool,
    say: Note,
    progress: Any,
) -> Run:
    from dataclasses import replace

    from .assemble import run_in_parts
    from .dask_mapper import DaskMapper, client, elsewhere
    from .plan import DEFAULT_BLOCKSIZE, plan, refuse_once

    if output_dir is not None and output_dir.startswith("memory://"):
        raise UsageError(
            f"--output-dir {output_dir}: the memory filesystem is this process's own, and "
            "the dask engine's workers write the shards",
            hint="name a folder or a URL that the workers share (a shared disk, s3://, gs://)",
        )
    # a worker reads the paths the client names: the same files, wherever it runs (a
    # local cluster's workers run here, in this folder: their lines name files as given)
    away = elsewhere(engine.scheduler)
    files = tuple(_for_workers(spec, away) for spec in job.inputs.files)
    job = Job(replace(job.inputs, files=files), job.operation, job.target)
    found = plan(job, DEFAULT_BLOCKSIZE if engine.blocksize is None else engine.blocksize)
    refuse_once(found, "the dask engine's workers read files")
    if output_dir is None:
        job = settled(job, found)
    workers = None
    if engine.scheduler is None:  # a local cluster: no more workers than parts, or cores
        workers = _local_workers(engine.jobs, len(found.parts), say)
    with client(engine.scheduler, workers) as connected:
        mapper = DaskMapper(connected)
        run = Run(_second_pass(job, found, mapper))
        run_in_parts(
            run,
            found,
            mapper,
            sink,
            output_dir=output_dir,
            parquet=parquet,
            shard_per_part=True,
            progress=progress,
        )
    return _said(run, say)


def refuse_state(operation: Any, engine: Engine) -> None:
    """A usage error for an operation that may keep state and does not say how the
    parts' states merge, on an engine that runs parts on several processes (each would
    keep its own, and the run give another answer than one process's)."""
    from ..ops.operation import undeclared_state

    why = undeclared_state(operation)
    if why is None:
        return
    raise UsageError(
        f"{engine.in_words()} runs the parts of the inputs in several processes, each with "
        f"its own copy of the operation, and it may keep state: {why}",
        hint="if it keeps none, derive it from chatpipe.ops.operation.Stateless or wrap "
        "it in stateless(); to say how the parts' states merge, derive it from PerPart "
        "(docs/library.md); or run it in one process",
    )


def _local_workers(jobs: int, parts: int, say: Note) -> int:
    """The workers of a local cluster: ``--jobs N`` (two by default), but no more than the
    processors this process may use (said, as for --jobs) or the parts to run (a worker
    with no part to run is a process started for nothing: 40 asked for a one-line file)."""
    asked = jobs if jobs > 1 else 2
    usable = min(asked, _cores())
    if usable < jobs:
        say(f"--jobs {jobs}: this machine runs {usable} at once; using {usable} workers")
    return max(1, min(usable, parts))


def two_passes(operation: Any) -> bool:
    """Whether an operation must see every conversation before it decides about any, and
    can do so in parts over two passes (``TwoPasses``: dedupe, sample -n)."""
    from ..ops.operation import TwoPasses

    return isinstance(operation, TwoPasses)


def _second_pass(job: Job, found: Any, mapper: Any) -> Job:
    """The job to run on the parts: as it is, or, for an operation that decides once it
    has seen every conversation, the one that filters by what a first pass over the same
    parts gathered (its errors left for the second to say)."""
    if not two_passes(job.operation):
        return job
    from ..ops.operation import PerPart, Stateless, undeclared_state
    from .assemble import run_in_parts
    from .opening import ErrorLog
    from .target import Target

    operation: Any = job.operation
    name = type(operation).__name__
    gather = operation.first_pass()
    if gather is None:
        if not isinstance(operation, (PerPart, Stateless)):
            raise UsageError(
                f"{name} runs in one pass (its first_pass gives None), and is neither "
                "Stateless nor PerPart: its parts' states could not be put together"
            )
        return job
    if not isinstance(gather, PerPart):
        raise UsageError(
            f"{name}'s first pass is a {type(gather).__name__}, not a PerPart: what its "
            "parts gather could not be put together"
        )
    first = Run(Job(job.inputs, gather, Target()), ErrorLog("skip"))
    run_in_parts(first, found, mapper, None)
    second = operation.second_pass(gather)
    why = undeclared_state(second)
    if why is not None:
        raise UsageError(f"{name}'s second pass runs the parts, and may keep state: {why}")
    return Job(job.inputs, second, job.target)


def settled(job: Job, found: Any) -> Job:
    """The job as its parts must run it to give one process's output: the dialect its
    target settles at the first conversation, settled now."""
    from .targets import ToDialect

    target = job.target if job.target is not None else ToDialect()
    if found.dialect is None:
        return job
    return Job(job.inputs, job.operation, target.settled(found.dialect))


def _larger(part: Any, size: int) -> bool:
    try:
        return os.path.getsize(part.spec) > size
    except OSError:
        return False


def _for_workers(spec: str, elsewhere: bool) -> str:
    """The path a Dask worker opens for ``spec``: absolute for a scheduler's workers (in
    folders of their own), as given for a local cluster's (in this one). A glob is a path
    too: made absolute, it matches the files it matched here (the plan expands it)."""
    from ..io.sources import is_url

    if spec == "-" or is_url(spec):
        return spec
    if spec.startswith(("/dev/", "/proc/")) and os.path.isfile(spec):
        return os.path.realpath(spec)  # /dev/stdin < FILE: that file, not a worker's stdin
    return os.path.abspath(spec) if elsewhere else spec


def _cores() -> int:
    """The processors this process may run on (its affinity, where the system says)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
