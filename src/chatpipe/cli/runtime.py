"""Where the command line meets the core: a command's Job run to stdout or ``-o``, and
what the run says on stderr. Errors from the core arrive here as ChatpipeErrors and leave
as one stderr line and an exit code; stdout only ever carries data."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

import typer

from ..errors import ChatpipeError, UsageError, interrupted_code
from ..formats.detect import MESSAGES, STREAM
from ..io.sink import output_sink, quiet_stdout
from ..model import Conversation
from ..pipeline import executors
from ..pipeline.job import Job, Run
from ..pipeline.reading import Reading as Found
from .options import ReadingOptions

PROG = "chatpipe"


_quiet = False  # -q: no warnings or notes on stderr, only errors


def _one_line(text: str) -> str:
    """A message on one line: langchain-core's messages span several (a block shown
    after a blank line), and each stderr line must stand alone for grep and logs. What
    it quotes from the data (a key, a template's own message) has its control characters
    made visible: nothing a line prints is an escape the terminal acts on."""
    if "\n" in text or "\r" in text:
        text = " ".join(part.strip() for part in text.splitlines() if part.strip())
    from ..render.markup import terminal_safe  # (loaded when a line is printed)

    return terminal_safe(text)


def warn(text: str) -> None:
    """A note or warning for people on stderr (silenced by -q)."""
    if not _quiet:
        sys.stderr.write(f"{PROG}: {_one_line(text)}\n")


def error(text: str) -> None:
    """An error line on stderr: always shown."""
    sys.stderr.write(f"{PROG}: error: {_one_line(text)}\n")


def rich_console(**options: Any) -> Any:
    """A rich Console whose closed pipe ends the run as every command's does (quietly,
    exit 0), not with rich's own exit 1."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    return _Console(**options)


class Report:
    """What a run says on stderr: a progress bar for large inputs on a terminal, with
    ``-v`` what was detected and each conversation's notes, and at the end the branches
    left out and the records skipped."""

    def __init__(self, verbose: int = 0) -> None:
        self.verbose = verbose

    def watch(self, conversations: Iterator[Conversation], run: Run) -> Iterator[Conversation]:
        files = run.job.inputs.files
        sizes = {f: os.path.getsize(f) for f in files if f != "-" and os.path.isfile(f)}
        total = sum(sizes.values())
        noted = self._noted(conversations, run) if self.verbose else conversations
        if _quiet or not sys.stderr.isatty() or total < _PROGRESS_FROM:
            return noted
        return _with_progress(noted, run.reading, sizes, total)

    def _noted(self, conversations: Iterator[Conversation], run: Run) -> Iterator[Conversation]:
        """``-v``: what each source was read as, and each conversation's notes."""
        reported = 0
        for conversation in conversations:
            branch = conversation.meta.get("branch")
            for source, dialect, shape in run.reading.found[reported:]:
                per = {MESSAGES: "message per record", STREAM: "a stream of events"}.get(
                    shape, "conversation per record"
                )
                warn(f"read {source.name}: {dialect.name} ({source.container}, {per})")
            reported = len(run.reading.found)
            where = conversation.location or ""
            if isinstance(branch, dict) and branch.get("left_out"):
                which = "newest" if branch.get("chosen") == "newest" else "active"
                warn(
                    f"{where}: wrote the {which} branch; {branch['left_out']} other branch"
                    f"{'es' * (branch['left_out'] != 1)} left out (--branch all writes them)"
                )
            if "batch_error" in conversation.meta:
                ident, why = conversation.meta.get("custom_id"), conversation.meta["batch_error"]
                warn(f"{where}: custom_id {ident!r} has no answer: {why}")
            elif not conversation.messages and conversation.meta:
                title = conversation.meta.get("title") or conversation.meta.get("name")
                named = f" {title!r}" if isinstance(title, str) and title else ""
                warn(f"{where}: conversation{named} has no messages (its record holds none)")
            yield conversation

    def close(self, run: Run) -> None:
        taken, others = run.newest
        if taken:
            subject, chosen = (
                ("s branch and name", "the newest branch of each")
                if taken != 1
                else (" branches and names", "its newest branch")
            )
            warn(
                f"{taken} conversation{subject} no current leaf: wrote {chosen}, {others} other"
                f" branch{'es' * (others != 1)} left out (--branch all writes them)"
            )
        if run.unanswered:
            many = run.unanswered != 1
            warn(
                f"warning: {run.unanswered} batch request{'s' * many} ha{'ve' if many else 's'} "
                "no answer (failed, expired, canceled, or not in the output files): kept, "
                "the reason in 'batch_error' (-v names them)"
            )
        shown, count = run.errors.skipped, run.errors.count
        for error in shown:
            warn(f"skipped: {error}")
        if count > len(shown):
            warn(f"... and {count - len(shown)} more")
        if count:
            warn(f"warning: skipped {count} bad record{'s' if count != 1 else ''}")
        if run.losses is not None:
            for line in run.losses.lines(bool(self.verbose)):
                warn(line)


_PROGRESS_FROM = 32 << 20  # bytes of input worth a progress bar


def _with_progress(
    conversations: Iterator[Conversation], reading: Found, sizes: dict[str, int], total: int
) -> Iterator[Conversation]:
    """Bytes read and MB/s on stderr, polled from the open file, never from the data path."""
    import threading

    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

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
            return done_before["bytes"] + source.stream.tell()
        except (OSError, ValueError):
            return done_before["bytes"]

    columns = (BarColumn(), DownloadColumn(), TransferSpeedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
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


def run(body: Callable[[], Any], quiet: bool = False) -> None:
    """Run a command body; turn core errors into one stderr line and an exit code."""
    global _quiet
    _quiet = quiet
    try:
        body()
    except ChatpipeError as exc:
        error(str(exc))
        raise typer.Exit(exc.exit_code) from None
    except KeyboardInterrupt as exc:
        said, code = interrupted_code(exc)
        sys.stderr.write(f"{PROG}: {said}\n")
        raise typer.Exit(code) from None
    except BrokenPipeError:
        # the reader went away (`| head`): stop at once, quietly, exit 0 (as ripgrep);
        # handled here, before click's own handling turns it into exit 1
        quiet_stdout()
        raise typer.Exit(0) from None
    except typer.Exit:
        raise
    except RecursionError:
        error("a record nests too deeply to process (see chatpipe --max-depth)")
        raise typer.Exit(1) from None
    except Exception as exc:
        # a bug of ours, not bad input: still one line, and the details on request
        if os.environ.get("CHATPIPE_DEBUG"):
            raise
        error(
            f"internal error: {type(exc).__name__}: {exc} "
            "(please report it; CHATPIPE_DEBUG=1 shows the traceback)"
        )
        raise typer.Exit(1) from None


def execute(reading: ReadingOptions, job: Job, jobs: int = 1) -> Run:
    """Run a job to stdout or ``-o``, or into ``--output-dir`` shards, where the engine
    options say (the core chooses how), then report on stderr."""
    import gc

    from ..io.sink import parquet_wanted

    # what is built before the first record (modules, the command line, a compiled
    # template) lives to the end: kept out of the collector's full passes, which a run
    # over a large file makes many of (once a process: a process that runs commands one
    # after another, as the tests do, would keep each one's uncollected garbage for good)
    if not gc.get_freeze_count():
        gc.freeze()
    report = Report(reading.verbose)
    engine = engine_of(reading, jobs)
    # a target that makes a folder of pages (html) writes --output-dir itself
    shards = reading.output_dir if getattr(job.target, "output_dir", None) is None else None
    if reading.output_dir is not None and reading.output is not None:
        raise UsageError("-o writes one file and --output-dir a folder; pick one")
    parquet = parquet_wanted(None if shards else reading.output, reading.to_format)
    if shards is not None:
        out: Any = contextlib.nullcontext(None)
    else:
        out = output_sink(reading.output, list(job.inputs.files), reading.to_format)
    with out as sink, _parts_progress(reading) as progress:
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


def engine_of(reading: ReadingOptions, jobs: int) -> executors.Engine:
    """The engine the options ask for: ``--jobs N`` workers (``--workers N`` is the same),
    processes here or, with ``--engine dask``, Dask's (a local cluster, or the running one
    at ``--scheduler``)."""
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


@contextlib.contextmanager
def _parts_progress(reading: ReadingOptions) -> Iterator[Any]:
    """A bar of the parts done on stderr (a terminal's, and not with -q)."""
    if _quiet or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    columns = (BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("parts", total=None)

        def done(number: int, total: int) -> None:
            bar.update(task, completed=number, total=total)

        yield done


class Conversations:
    """The conversations of a command that takes them one by one (show, stats), seen by
    the report as a job's are: iterate, then ``close()``."""

    def __init__(self, reading: ReadingOptions) -> None:
        self.run = Run(Job(reading.inputs()))
        self.report = Report(reading.verbose)

    def __iter__(self) -> Iterator[Conversation]:
        return self.report.watch(self.run.tallied(self.run.conversations()), self.run)

    def close(self) -> None:
        self.report.close(self.run)
