"""Where parts run, the mappers: ``Inline`` (one after another, in this process) and
``ForkPool`` (``--jobs N``: forked worker processes). Dask's is in dask_mapper.py.

A mapper's ``map(function, items, *shared)`` gives ``function(item, *shared)`` of each
item, in item order; leaving the iterator early (``close``) stops what is still running.

The fork pool's workers take items from a shared pipe of item numbers as they get free.
A worker puts a result's output bytes (``.data``) in a slot of memory it shares with the
main process, which hands the slot back once the caller has taken them: the output is
copied once, never through a pipe or a file; the rest of the result comes back pickled.
Workers are forked (no interpreter to start, nothing to import, nothing pickled to them).
The command line runs no other thread when it forks (its bar of parts is redrawn from the
main thread); a library caller that runs threads of its own is forked as multiprocessing's
fork start method forks it: only the calling thread goes on in a worker, which runs
chatpipe's reading and writing and takes none of the other threads' locks (the import lock
and logging's are made anew in a forked process by Python itself).

Signals: a worker ignores Ctrl-C and dies of SIGTERM and SIGHUP (it has nothing to clean
up); the main process, while workers run, turns SIGTERM and SIGHUP into ``Terminated``
(as Ctrl-C into KeyboardInterrupt), so that it stops them and removes what the run staged.
What must not be cut short (forking a worker, stopping them) holds the signals until it is
done (``held``). A worker that dies (killed, out of memory) is noticed at once: its pipe
ends; the run stops the others and says which part was lost (``WorkerLost``).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import pickle
import signal
import struct
from collections.abc import Iterator
from typing import Any

from ..errors import WorkerLost
from ..io.signals import blocked, clean_up_on_signals, restore

_SLOT = 1 << 22  # bytes of output a slot holds; a larger output is piped after its result
_SLOTS = 4  # slots a worker: it can be this many items ahead of the output
_HEAD = struct.Struct("<iiq")  # an item's number, slot, size (below: what the message is)
_RAISED, _TOOK = -1, -2  # number: what the worker raised; slot: the item it starts on
# the signals that end a run: Ctrl-C, and those that terminate it
ENDING = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def terminating() -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP raise ``Terminated`` (unwinding as Ctrl-C
    does: workers stopped, staged output removed); the handlers before are given back
    after. In the main thread only (elsewhere: nothing changes)."""
    saved = clean_up_on_signals()
    try:
        yield
    finally:
        restore(saved)


@contextlib.contextmanager
def held(deliver: bool = True) -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP held while the block runs (a step that must not be cut
    short: starting or stopping workers), then delivered as they would have been (with
    ``deliver``; else dropped: the run they would end has ended); a second Ctrl-C is not
    held. In the main thread only."""
    if not _main_thread():
        yield
        return
    caught: list[int] = []

    def hold(signum: int, _frame: object) -> None:
        if signum == signal.SIGINT and signal.SIGINT in caught:
            raise KeyboardInterrupt  # asked twice: at once
        caught.append(signum)

    saved = {signum: signal.signal(signum, hold) for signum in ENDING}
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(caught) if deliver else ():
            signal.raise_signal(signum)  # (the handler before runs now)


class Inline:
    """The parts one after another, here."""

    workers = 1

    def map(self, function: Any, items: list[Any], *shared: Any) -> Iterator[Any]:
        return (function(item, *shared) for item in items)


def can_fork() -> str | None:
    """None when this process can fork workers; else why not."""
    if not hasattr(os, "fork"):
        return "--jobs needs a system that can fork processes"
    return None


class ForkPool:
    """``workers`` forked processes."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def map(self, function: Any, items: list[Any], *shared: Any) -> Iterator[Any]:
        def work(item: Any) -> tuple[Any, Any]:
            result = function(item, *shared)
            data, result.data = result.data or b"", None
            return data, result

        with terminating(), _Workers(work, items, self.workers) as results:
            for data, result in results:
                result.data = data
                yield result


class _Workers:
    """Forked workers taking items from a shared pipe of item numbers; iterating gives
    (output bytes, rest of the result) for each item in order, the bytes valid until the
    next step. Leaving the block stops the workers."""

    def __init__(self, work: Any, items: list[Any], jobs: int) -> None:
        self.work, self.items = work, items
        self.jobs = max(1, min(jobs, len(items)))
        self.pids: list[int] = []
        self.results: list[int] = []  # the main process's read ends, one per worker
        self.acks: list[int] = []  # and the write ends it hands slots back through
        self.memory: list[mmap.mmap] = []
        self.holding: dict[int, int] = {}  # worker: the item it is on

    def __enter__(self) -> Iterator[tuple[Any, Any]]:
        tasks, feed = os.pipe()
        # every item number is in the pipe before a worker starts: a worker reading four
        # bytes gets one number or the end (a pipe read is atomic for this size)
        os.write(feed, b"".join(index.to_bytes(4, "little") for index in range(len(self.items))))
        os.close(feed)
        try:
            with held():  # a worker forked, and known, or not at all
                for _ in range(self.jobs):
                    self._fork(tasks)
        except BaseException:
            self.__exit__()
            raise
        finally:
            os.close(tasks)
        return self._in_order()

    def _fork(self, tasks: int) -> None:
        memory = mmap.mmap(-1, _SLOT * _SLOTS)
        read, write = os.pipe()
        acks, ack = os.pipe()
        with blocked():  # (the child sets its own handlers before any signal reaches it)
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

    def __exit__(self, *exc: object) -> None:
        with held():  # the workers stopped and waited for, whatever arrives meanwhile
            self._stop()

    def _stop(self) -> None:
        import time

        for end in (*self.results, *self.acks):
            os.close(end)
        self.results, self.acks = [], []
        # a worker ends by itself once its pipes close (no item left, or its result refused);
        # one still busy after a moment (the reader went away early) is stopped
        deadline = time.monotonic() + 0.2
        running = [pid for pid in self.pids if pid]
        while running and time.monotonic() < deadline:
            running = [pid for pid in running if _running(pid)]
            if running:
                time.sleep(0.002)
        for pid in running:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in running:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        for memory in self.memory:
            with contextlib.suppress(BufferError):  # a view still held: unmapped when freed
                memory.close()

    def _serve(self, tasks: int, out: int, acks: int, memory: mmap.mmap) -> None:
        # the main process stops the workers and says why; a worker has nothing to clean
        # up, and unwinding it would run the caller's code in a forked copy: it dies
        for signum in ENDING:  # (blocked since the fork: now set, then let through)
            signal.signal(signum, signal.SIG_IGN if signum == signal.SIGINT else signal.SIG_DFL)
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, ENDING)
        status = 0
        free = list(range(_SLOTS))
        try:
            while task := os.read(tasks, 4):
                index = int.from_bytes(task, "little")
                _send(out, _HEAD.pack(index, _TOOK, 0))
                data, result = self.work(self.items[index])
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
                _send(out, _HEAD.pack(_RAISED, 0, 0) + pickle.dumps(exc))
        finally:
            os._exit(status)

    def _in_order(self) -> Iterator[tuple[Any, Any]]:
        import select

        done: dict[int, tuple] = {}
        owner = {end: worker for worker, end in enumerate(self.results)}
        open_ends = list(self.results)
        for wanted in range(len(self.items)):
            while wanted not in done:
                if not open_ends:  # (every worker gone, none of them lost: cannot be)
                    raise WorkerLost(f"the --jobs workers ended before {self._what(wanted)}")
                for end in select.select(open_ends, [], [])[0]:
                    worker = owner[end]
                    head = _receive(end, lambda w=worker: self._lost(w))
                    if head is None:
                        open_ends.remove(end)
                        self._ended(worker)
                        continue
                    index, slot, size = _HEAD.unpack_from(head)
                    if slot == _TOOK:
                        self.holding[worker] = index
                        continue
                    result = pickle.loads(memoryview(head)[_HEAD.size :])
                    if index == _RAISED:
                        raise result
                    lost = lambda w=worker: self._lost(w)  # noqa: E731
                    data = _read_exactly(end, size, lost) if slot < 0 else None
                    done[index] = (worker, slot, size, data, result)
                    self.holding.pop(worker, None)
            worker, slot, size, data, result = done.pop(wanted)
            if data is not None:
                yield data, result
                continue
            with memoryview(self.memory[worker])[slot * _SLOT : slot * _SLOT + size] as view:
                yield view, result
            with contextlib.suppress(BrokenPipeError):  # the worker may be done
                os.write(self.acks[worker], bytes([slot]))

    def _ended(self, worker: int) -> None:
        """A worker's results ended: it finished (every item taken), or it died."""
        pid, self.pids[worker] = self.pids[worker], 0
        _, status = os.waitpid(pid, 0)
        if status != 0 or worker in self.holding:
            raise self._lost(worker, pid, status)

    def _lost(self, worker: int, pid: int | None = None, status: int | None = None) -> WorkerLost:
        if pid is None:  # (its message cut short: it is dying)
            pid, self.pids[worker] = self.pids[worker], 0
            status = os.waitpid(pid, 0)[1]
        why = _status(status or 0)
        item = self.holding.get(worker)
        # (holding nothing: it died between two parts, or as it took one, before saying which)
        lost = f" while on {self._what(item)}: that part was lost" if item is not None else ""
        return WorkerLost(
            f"a --jobs worker (process {pid}) {why}{lost or ' between parts'}; the run stopped",
            hint="if the system ran out of memory, run fewer --jobs or cut smaller inputs",
        )

    def _what(self, index: int) -> str:
        item = self.items[index]
        describe = getattr(item, "describe", None)
        return describe(len(self.items)) if describe else f"part {index + 1} of {len(self.items)}"


def _status(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        killer = " (the out-of-memory killer sends it)" if number == signal.SIGKILL else ""
        return f"was killed by {name}{killer}"
    return f"ended with exit code {os.WEXITSTATUS(status)}"


def _running(pid: int) -> bool:
    try:
        return os.waitpid(pid, os.WNOHANG)[0] == 0
    except ChildProcessError:
        return False


def _send(fd: int, message: bytes, payload: bytes = b"") -> None:
    for data in (len(message).to_bytes(8, "little") + message, payload):
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]


def _receive(fd: int, lost: Any) -> bytes | None:
    """One message, or None at the end of the pipe."""
    head = _read_exactly(fd, 8, lost)
    return None if head is None else _read_exactly(fd, int.from_bytes(head, "little"), lost)


def _read_exactly(fd: int, size: int, lost: Any) -> bytes | None:
    parts, left = [], size
    while left:
        part = os.read(fd, left)
        if not part:
            if left == size:
                return None
            raise lost()  # ended in the middle of a message
        parts.append(part)
        left -= len(part)
    return b"".join(parts)
