"""``--jobs N``: conversation-per-line JSONL converted by N worker processes, written in
input order. The file is cut into line-aligned byte ranges, which the workers take one at
a time as they get free; each writes a range's lines to a file of its own, and the main
process copies those files to the output in input order (in the kernel where it can), so
the output never crosses a pipe between processes. Workers are forked (where the system
can; else one process does the work): no interpreter to start, nothing to import."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from typing import Any

import orjson

from ..errors import ChatpipeError, DataError, Location
from ..io import Record, Source
from .losses import CHECKS

_RANGES_PER_JOB = 16  # small ranges even out the workers' ends


def parallel_dialect(spec: str, forced: Any, errors: Any) -> Any:
    """The dialect of a conversation-per-line JSONL file (what --jobs splits by line), or
    None when the file is something else."""
    from . import CONVERSATIONS, open_records

    if spec == "-" or not hasattr(os, "fork"):
        return None
    source = Source(spec)
    opened = open_records(source, forced, errors)
    if opened is None or opened[1] != CONVERSATIONS or source.container != "jsonl":
        return None
    return opened[0]


def convert_lines(
    spec: str, dialect: str, target: str, branch: str, include_hidden: bool, jobs: int
) -> Iterator[tuple[str, Any]]:
    """("lines", (file, start, end)): bytes of a file of output lines to write;
    ("loss", (kind, conversation, message)) and ("error", DataError) items; all in input
    order, an error after the lines read before it. A file is removed once the next item
    is asked for."""
    ranges = _ranges(spec, min(jobs * _RANGES_PER_JOB, 4096))
    with tempfile.TemporaryDirectory(prefix="chatpipe-jobs-") as folder:
        work = _Range(spec, dialect, target, branch, include_hidden, folder)
        with _Workers(work, ranges, jobs) as results:
            lines_before = conversations_before = 0
            for path, lines, conversations, losses, errors in results:
                for kind, conversation, index in losses:
                    yield "loss", (kind, conversations_before + conversation, index)
                start = 0
                for message, line, col, offset in errors:
                    if offset > start:
                        yield "lines", (path, start, offset)
                        start = offset
                    yield "error", DataError(message, Location(spec, lines_before + line, col))
                if path is not None:
                    yield "lines", (path, start, None)
                    os.remove(path)
                lines_before += lines
                conversations_before += conversations


def _ranges(spec: str, parts: int) -> list[tuple[int, int]]:
    """Byte ranges of a file, each starting at a line start."""
    size = os.path.getsize(spec)
    starts = [0]
    with open(spec, "rb") as stream:
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
    each range's result in range order. Leaving the block stops the workers."""

    def __init__(self, work: Any, ranges: list[tuple[int, int]], jobs: int) -> None:
        self.work, self.ranges = work, ranges
        self.jobs = max(1, min(jobs, len(ranges)))
        self.pids: list[int] = []
        self.results: list[int] = []  # the main process's read ends, one per worker

    def __enter__(self) -> Iterator[tuple]:
        tasks, feed = os.pipe()
        # every range number is in the pipe before a worker starts: a worker reading
        # four bytes gets one number or the end (a pipe read is atomic for this size)
        os.write(feed, b"".join(index.to_bytes(4, "little") for index in range(len(self.ranges))))
        os.close(feed)
        try:
            for _ in range(self.jobs):
                read, write = os.pipe()
                pid = os.fork()
                if pid == 0:  # the worker: never returns
                    os.close(read)
                    for other in self.results:
                        os.close(other)
                    self._serve(tasks, write)
                os.close(write)
                self.pids.append(pid)
                self.results.append(read)
        finally:
            os.close(tasks)
        return self._in_order()

    def __exit__(self, *exc: object) -> None:
        import signal

        for read in self.results:
            os.close(read)
        for pid in self.pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        for pid in self.pids:
            os.waitpid(pid, 0)

    def _serve(self, tasks: int, out: int) -> None:
        status = 0
        try:
            while task := os.read(tasks, 4):
                index = int.from_bytes(task, "little")
                message = orjson.dumps([index, *self.work(self.ranges[index])])
                _send(out, message)
        except BaseException as exc:
            status = 1
            try:
                import pickle

                _send(out, b"!" + pickle.dumps(exc))
            except BaseException:
                pass
        finally:
            os._exit(status)

    def _in_order(self) -> Iterator[tuple]:
        import select

        done: dict[int, list] = {}
        open_ends = list(self.results)
        for wanted in range(len(self.ranges)):
            while wanted not in done:
                if not open_ends:
                    raise RuntimeError("a --jobs worker ended before its work was done")
                for end in select.select(open_ends, [], [])[0]:
                    message = _receive(end)
                    if message is None:
                        open_ends.remove(end)
                    elif message[:1] == b"!":
                        import pickle

                        raise pickle.loads(message[1:])
                    else:
                        index, *result = orjson.loads(message)
                        done[index] = result
            yield tuple(done.pop(wanted))


def _send(fd: int, message: bytes) -> None:
    data = memoryview(len(message).to_bytes(8, "little") + message)
    while data:
        data = data[os.write(fd, data) :]


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
    """The work on one byte range: its lines converted into a file of the run's folder."""

    def __init__(
        self, spec: str, dialect: str, target: str, branch: str, include_hidden: bool, folder: str
    ) -> None:
        from . import ReadOptions, get_dialect

        self.spec, self.folder = spec, folder
        self.dialect, self.target = get_dialect(dialect), get_dialect(target)
        self.check = CHECKS.get(target)
        self.options = ReadOptions(branch, include_hidden)

    def __call__(self, span: tuple[int, int]) -> tuple[str | None, int, int, list, list]:
        """(file of output lines or None, lines read, conversations written, losses,
        errors): line numbers count from the range's start; an error carries the size of
        the output written before it."""
        from . import conversations_of
        from .write import write_records

        target, check = self.target, self.check
        with open(self.spec, "rb") as stream:
            stream.seek(span[0])
            data = stream.read(span[1] - span[0])
        out: list[bytes] = []
        size = 0
        losses: list[tuple[str, int, int]] = []
        errors: list[tuple[str, int, int | None, int]] = []
        written = 0
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                errors.append((f"invalid JSON: {exc.msg}", number, exc.colno, size))
                continue
            try:
                conversations = conversations_of(
                    self.dialect, Record(value, Location(self.spec, number, 1)), self.options
                )
                for conversation in conversations:
                    if check is not None:
                        conversation.messages = list(conversation.messages)
                        for index, message in enumerate(conversation.messages):
                            losses.extend((kind, written, index) for kind in check(message))
                    for record in write_records(
                        [conversation],
                        target.write_messages,
                        lambda: False,
                        False,
                        getattr(target, "write_conversation", None),
                        target.record_meta,
                    ):
                        out.append(record)
                        size += len(record) + 1
                    written += 1
            except ChatpipeError as exc:
                message = str(exc.message) + (f" ({exc.hint})" if exc.hint else "")
                errors.append((message, number, 1, size))
        path = None
        if out:
            path = os.path.join(self.folder, f"{span[0]}.jsonl")
            with open(path, "wb") as stream:
                stream.write(b"\n".join(out))
                stream.write(b"\n")
        return path, len(lines), written, losses, errors
