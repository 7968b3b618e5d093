"""``--jobs N``: a job on conversation-per-line JSONL run by N worker processes, written in
input order (and ``map_in_processes``: any function of parts, for validate;
``map_parts_in_processes``: the parts of other inputs, pipeline/parts.py). The file is
cut into line-aligned byte ranges, which the workers take one at a time as they get free.
A worker puts a range's output lines in a slot of memory it shares with the main
process, which writes them to the output in input order and hands the slot back: the
lines are copied once, never through a pipe or a file. Workers are forked: no
interpreter to start, nothing to import (where the system cannot fork, one process does
the work)."""

from __future__ import annotations

import contextlib
import mmap
import os
import pickle
import struct
from collections.abc import Iterator
from typing import Any

from ..io.sources import Source, text_start
from ..pipeline.parts import JOB_BLOCKSIZE, LINES, Done, Part

_RANGES_PER_JOB = 16  # at least this many ranges a worker: they even out the workers' ends
_RANGE = JOB_BLOCKSIZE  # and ranges of at most about this many bytes of input
_SLOT = 1 << 22  # bytes of output a slot holds; a range's output larger than it is piped
_SLOTS = 4  # slots a worker: it can be this many ranges ahead of the output
_HEAD = struct.Struct("<iiq")  # a result's range number (-1: what the worker raised), slot, size


def record_per_line_dialect(spec: str, run: Any) -> Any:
    """The dialect of a conversation-per-line JSONL file (what --jobs splits by line), or
    None when the file is something else."""
    from ..formats.detect import CONVERSATIONS
    from ..formats.registry import reading_dialect
    from ..pipeline.reading import detect_file

    if spec == "-":
        return None
    found = detect_file(spec, reading_dialect(run.job.inputs.dialect))
    if found is None or found[2] != CONVERSATIONS or found[0].container != "jsonl":
        return None
    with open(spec, "rb") as stream:
        if text_start(stream.read(4)) is None:  # UTF-16 text: its lines are not in its bytes
            return None
    return found[1]


def run_in_processes(
    run: Any, spec: str, dialect: Any, sink: Any, jobs: int, assembly: Any
) -> None:
    """One file of ``run``'s job by ``jobs`` workers: its output to ``sink`` in input
    order, put back by ``assembly`` (the run's, across its files) with its errors,
    warnings and losses in their places."""
    parts = max(jobs * _RANGES_PER_JOB, os.path.getsize(spec) // _RANGE)
    ranges = _ranges(spec, min(parts, 1 << 14))
    part = Part(spec, LINES)
    with _Workers(_Range(run, spec, dialect), ranges, jobs) as results:
        for data, done in results:
            done.data = data
            assembly.add(part, done, sink)


def map_in_processes(function: Any, items: list[Any], arguments: tuple, jobs: int) -> Iterator[Any]:
    """``function(item, *arguments)`` of each item on ``jobs`` forked workers, in item
    order; its results come back pickled."""
    with _Workers(lambda item: (b"", function(item, *arguments)), items, jobs) as results:
        for _, result in results:
            yield result


def map_parts_in_processes(
    function: Any, items: list[Any], arguments: tuple, jobs: int
) -> Iterator[Any]:
    """``function(item, *arguments)`` of each item on ``jobs`` forked workers, in item
    order: a part's Done, its output (``data``) through the memory the workers share
    with this process, valid until the next step, the rest pickled."""

    def work(item: Any) -> tuple[Any, Any]:
        done = function(item, *arguments)
        data, done.data = done.data or b"", None
        return data, done

    with _Workers(work, items, jobs) as results:
        for data, done in results:
            done.data = data
            yield done


def _ranges(spec: str, parts: int) -> list[tuple[int, int]]:
    """Byte ranges of a file, each starting at a line start (the first after a UTF-8
    byte order mark)."""
    size = os.path.getsize(spec)
    with open(spec, "rb") as stream:
        starts = [text_start(stream.read(4)) or 0]
        for k in range(1, parts):
            stream.seek(max(starts[-1], size * k // parts))
            if stream.tell() != 0:
                stream.readline()
            position = stream.tell()
            if position >= size:
                break
            if position > starts[-1]:
                starts.append(position)
    return list(zip(starts, [*starts[1:], size], strict=True))


class _Workers:
    """Forked workers taking ranges from a shared pipe of range numbers; iterating gives
    (output bytes, rest of the result) for each range in range order, the bytes valid
    until the next step. Leaving the block stops the workers.

    ``work(range)`` gives (output bytes, result): the result goes back pickled, the bytes
    in one of the worker's slots of shared memory, which the main process hands back when
    the caller has taken them (piped after the result when they do not fit a slot).
    """

    def __init__(self, work: Any, ranges: list[tuple[int, int]], jobs: int) -> None:
        self.work, self.ranges = work, ranges
        self.jobs = max(1, min(jobs, len(ranges)))
        self.pids: list[int] = []
        self.results: list[int] = []  # the main process's read ends, one per worker
        self.acks: list[int] = []  # and the write ends it hands slots back through
        self.memory: list[mmap.mmap] = []

    def __enter__(self) -> Iterator[tuple[Any, Any]]:
        tasks, feed = os.pipe()
        # every range number is in the pipe before a worker starts: a worker reading
        # four bytes gets one number or the end (a pipe read is atomic for this size)
        os.write(feed, b"".join(index.to_bytes(4, "little") for index in range(len(self.ranges))))
        os.close(feed)
        try:
            for _ in range(self.jobs):
                memory = mmap.mmap(-1, _SLOT * _SLOTS)
                read, write = os.pipe()
                acks, ack = os.pipe()
                pid = os.fork()
                if pid == 0:  # the worker: never returns
                    for end in (read, ack, *self.results, *self.acks):
                        os.close(end)
                    self._serve(tasks, write, acks, memory)
                os.close(write)
                os.close(acks)
                self.pids.append(pid)
                self.results.append(read)
                self.acks.append(ack)
                self.memory.append(memory)
        finally:
            os.close(tasks)
        return self._in_order()

    def __exit__(self, *exc: object) -> None:
        import signal
        import time

        for end in (*self.results, *self.acks):
            os.close(end)
        # a worker ends by itself once its pipes close (no task left, or its result refused);
        # one still busy with a range after a moment (the reader went away early) is stopped
        deadline = time.monotonic() + 0.2
        running = list(self.pids)
        while running and time.monotonic() < deadline:
            running = [pid for pid in running if os.waitpid(pid, os.WNOHANG)[0] == 0]
            if running:
                time.sleep(0.002)
        for pid in running:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        for pid in running:
            os.waitpid(pid, 0)
        for memory in self.memory:
            with contextlib.suppress(BufferError):  # a view still held: unmapped when freed
                memory.close()

    def _serve(self, tasks: int, out: int, acks: int, memory: mmap.mmap) -> None:
        import signal

        # the main process's handler unwinds to clean up its output; a worker has nothing to
        # clean up, and unwinding it would run the caller's code in a forked copy: it dies
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        status = 0
        free = list(range(_SLOTS))
        try:
            while task := os.read(tasks, 4):
                index = int.from_bytes(task, "little")
                data, result = self.work(self.ranges[index])
                size = len(data)
                if size > _SLOT:
                    _send(out, _HEAD.pack(index, -1, size) + pickle.dumps(result), data)
                    continue
                if not free:  # wait for the main process to hand a slot back
                    free.append(os.read(acks, 1)[0])
                slot = free.pop()
                memory[slot * _SLOT : slot * _SLOT + size] = data
                _send(out, _HEAD.pack(index, slot, size) + pickle.dumps(result))
        except BaseException as exc:  # handed to the main process, whatever it is
            status = 1
            with contextlib.suppress(BaseException):
                _send(out, _HEAD.pack(-1, 0, 0) + pickle.dumps(exc))
        finally:
            os._exit(status)

    def _in_order(self) -> Iterator[tuple[Any, Any]]:
        import select

        done: dict[int, tuple] = {}
        owner = {end: worker for worker, end in enumerate(self.results)}
        open_ends = list(self.results)
        for wanted in range(len(self.ranges)):
            while wanted not in done:
                if not open_ends:
                    raise RuntimeError("a --jobs worker ended before its work was done")
                for end in select.select(open_ends, [], [])[0]:
                    head = _receive(end)
                    if head is None:
                        open_ends.remove(end)
                        continue
                    index, slot, size = _HEAD.unpack_from(head)
                    result = pickle.loads(memoryview(head)[_HEAD.size :])
                    if index < 0:
                        raise result
                    data = _read_exactly(end, size) if slot < 0 else None
                    done[index] = (owner[end], slot, size, data, result)
            worker, slot, size, data, result = done.pop(wanted)
            if data is not None:
                yield data, result
                continue
            with memoryview(self.memory[worker])[slot * _SLOT : slot * _SLOT + size] as view:
                yield view, result
            with contextlib.suppress(BrokenPipeError):  # the worker may be done
                os.write(self.acks[worker], bytes([slot]))


def _send(fd: int, message: bytes, payload: bytes = b"") -> None:
    for data in (len(message).to_bytes(8, "little") + message, payload):
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]


def _receive(fd: int) -> bytes | None:
    """One message, or None at the end of the pipe."""
    head = _read_exactly(fd, 8)
    return None if head is None else _read_exactly(fd, int.from_bytes(head, "little"))


def _read_exactly(fd: int, size: int) -> bytes | None:
    parts, left = [], size
    while left:
        part = os.read(fd, left)
        if not part:
            if left == size:
                return None
            raise RuntimeError("a --jobs worker ended in the middle of a message")
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


class _Range:
    """The work on one byte range: its lines read, operated on and written by the job's
    own code, in a Run of the worker's whose errors are kept with their place."""

    def __init__(self, run: Any, spec: str, dialect: Any) -> None:
        from ..formats.detect import CONVERSATIONS
        from ..pipeline.job import Run
        from ..pipeline.reading import ErrorLog

        self.spec, self.dialect = spec, dialect
        self.run = Run(run.job, ErrorLog("fail"))  # every error raised, kept by __call__
        self.run.reading.found.append((Source(spec), dialect, CONVERSATIONS))

    def __call__(self, span: tuple[int, int]) -> tuple[bytes, Done]:
        """(output lines, the rest of the part's Done): the part's work as every engine
        does it (pipeline/parts.py), places counted from the range's start."""
        from ..pipeline.parts import line_records, read_range, run_records

        records = line_records(Source(self.spec), read_range(self.spec, *span))
        done = run_records(self.run, self.dialect, self.spec, records)
        output, done.data = done.data or b"", None
        return output, done
