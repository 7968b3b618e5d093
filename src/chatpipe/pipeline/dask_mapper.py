"""Parts on a Dask cluster (the extra ``chatpipe[dask]``): ``DaskMapper(client)`` runs the
one worker body on the cluster's workers, and ``client`` connects to a running scheduler
or starts a local cluster for the run.

The local cluster's workers are forked from a fork server, a process of its own started
with chatpipe and Dask already imported and Ctrl-C, SIGTERM and SIGHUP ignored: a worker
starts in a few milliseconds, imports nothing before its first part, inherits no lock that
another thread of this process held, and leaves signals to this process (which stops them
all, in order).
Starting and stopping the cluster hold Ctrl-C and SIGTERM until done (then delivered);
while it runs, SIGTERM and SIGHUP unwind the run as Ctrl-C does. Dask's own log lines
(a scheduler gone, a worker restarted) are not printed: what went wrong is said once, as
a chatpipe error. What a part needs of this process travels with it: the limits the
command was given (``--max-depth``, ...), which a worker started elsewhere knows nothing of.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import signal
import sys
import tempfile
from collections.abc import Iterator
from typing import Any

from ..errors import ChatpipeError, UsageError, WorkerLost, install_hint
from ..io.limits import LIMITS
from .workers import ENDING as _ENDING
from .workers import held, terminating

_METHOD_VARIABLE = "DASK_DISTRIBUTED__WORKER__MULTIPROCESSING_METHOD"
_PROFILE_VARIABLE = "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED"
# what a worker needs for its parts, imported once in the fork server
_PRELOAD = [
    "distributed",
    "chatpipe.pipeline.parts",
    "chatpipe.pipeline.targets",
    "chatpipe.pipeline.reading",
    "chatpipe.formats.openai",
]
_WAIT_FOR_WORKERS = 30.0  # seconds a running scheduler is given to show a worker
_SCHEDULER_LOST = "lost the connection to the Dask scheduler during the run; the run stopped"


def elsewhere(scheduler: Any) -> bool:
    """Whether the workers of ``scheduler`` (an address, a client, or None: a local
    cluster started for the run) may run in folders other than this process's: all but
    a cluster this process started (whose workers it started here)."""
    if scheduler is None:
        return False
    return isinstance(scheduler, str) or scheduler.cluster is None


def dask_modules() -> Any:
    """Dask's distributed, or a usage error naming the extra."""
    needs_dask()
    try:
        import dask  # noqa: F401
        import distributed
    except ImportError:
        raise UsageError("--engine dask needs Dask", hint=install_hint("dask")) from None
    return distributed


def needs_dask() -> None:
    """A usage error naming the extra where Dask is not installed; nothing imported (the
    local cluster's fork server, started first, imports Dask while this process does)."""
    import importlib.util

    if any(importlib.util.find_spec(name) is None for name in ("dask", "distributed")):
        raise UsageError("--engine dask needs Dask", hint=install_hint("dask"))


class DaskMapper:
    """The parts on the cluster behind a ``distributed.Client``: what every part shares
    (the job) sent once to every worker, the results in order, each released once handed
    on; leaving early cancels what has not run."""

    def __init__(self, connected: Any) -> None:
        self.client = connected
        self.workers = max(1, sum(connected.nthreads().values()))

    def map(self, function: Any, items: list[Any], *shared: Any) -> Iterator[Any]:
        client = self.client
        shared = (_carried(), *shared)
        task = functools.partial(_settled, function)
        try:
            # (in a list: a dict alone is scattered as named values, under its own keys
            # ("limits"), which the previous map's cancel takes from this one's tasks)
            sent = [client.scatter([value], broadcast=True, hash=False)[0] for value in shared]
            futures = client.map(task, items, *([s] * len(items) for s in sent), pure=False)
        except (OSError, TimeoutError):  # the scheduler's connection lost (CommClosedError)
            raise WorkerLost(_SCHEDULER_LOST) from None
        try:
            for future in futures:
                yield _result(future)
                future.release()
        finally:
            with contextlib.suppress(Exception):  # (a scheduler gone has nothing to cancel)
                client.cancel([*futures, *sent])


def _carried() -> dict[str, Any]:
    """What a part needs of this process's settings: the limits (``chatpipe --max-depth``
    and the others) and the stack they need."""
    return {"limits": dict(vars(LIMITS)), "recursion": sys.getrecursionlimit()}


def _settled(function: Any, item: Any, given: dict[str, Any], *shared: Any) -> Any:
    """``function(item, *shared)`` on a worker, under the settings of the process that
    planned the run."""
    for name, value in given["limits"].items():
        setattr(LIMITS, name, value)
    if given["recursion"] > sys.getrecursionlimit():
        sys.setrecursionlimit(given["recursion"])
    return function(item, *shared)


def _result(future: Any) -> Any:
    from distributed.client import FutureCancelledError

    try:
        return future.result()
    except ChatpipeError:
        raise
    except FutureCancelledError:
        raise WorkerLost("the Dask cluster went away during the run; the run stopped") from None
    except (OSError, TimeoutError):  # the scheduler's connection lost (CommClosedError)
        raise WorkerLost(_SCHEDULER_LOST) from None
    except Exception as exc:
        if "KilledWorker" in type(exc).__name__:
            raise WorkerLost(
                f"a part was tried on {exc.args[-1] if exc.args else 'several'} workers and "
                "each of them died; the run stopped",
                hint="give the workers more memory, or cut smaller parts",
            ) from None
        raise


@contextlib.contextmanager
def client(scheduler: Any = None, workers: int | None = None) -> Iterator[Any]:
    """A Dask client: of a running scheduler (which must show a worker), or of a local
    cluster of ``workers`` processes (one thread each) started here and stopped when the
    block ends. Dask's log lines in this process are not printed while the block runs.
    ``scheduler``: its address, or a client the caller holds (given as it is, and left
    open: the library's ``chatpipe.dask.run_job``)."""
    if scheduler is not None and not isinstance(scheduler, str):
        yield scheduler
        return
    with terminating():
        forking = scheduler is None and _forkserver_wanted()
        if forking:  # started first: it imports Dask while this process does
            with held():
                forking = _forkserver_ready()
        distributed = dask_modules()
        with _quiet():
            if scheduler is not None:
                with _connected(distributed, scheduler) as connected:
                    yield connected
                return
            with _local(distributed, workers or 2, forking) as connected:
                yield connected


@contextlib.contextmanager
def _local(distributed: Any, workers: int, forking: bool) -> Iterator[Any]:
    """A client of a local cluster of ``workers`` processes, started and stopped whole:
    Ctrl-C and SIGTERM held meanwhile (a cluster cut short in its start leaves processes
    and semaphores behind), and delivered once it is up, or down after a run that failed
    (after one that ended they end nothing: its output is whole and in place)."""
    import dask

    settings: dict[str, Any] = {"distributed.worker.daemon": False}
    if not os.environ.get(_PROFILE_VARIABLE):
        # a worker's statistical profiler (for the dashboard, which this cluster has not)
        # samples the running part every 10 ms: 5 to 10 % of a run's time here
        settings["distributed.worker.profile.enabled"] = False
    stack = contextlib.ExitStack()
    ended = False
    try:
        with held():
            if forking:
                settings["distributed.worker.multiprocessing-method"] = "forkserver"
            # the scratch folders of the workers and the scheduler, and Dask's lock files,
            # in one of the run's own (removed after it)
            scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="chatpipe-dask-"))
            settings["temporary-directory"] = scratch
            stack.enter_context(dask.config.set(settings))
            failed = None
            try:
                cluster = stack.enter_context(
                    distributed.LocalCluster(
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=True,
                        # no dashboard, and the HTTP server the scheduler starts anyway on
                        # a free port: never 8787, which may be taken
                        dashboard_address=None,
                        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                        silence_logs=50,
                    )
                )
                connected = stack.enter_context(distributed.Client(cluster))
            except (ChatpipeError, KeyboardInterrupt):
                raise
            except Exception as exc:  # (said below, its frames let go: they hold semaphores)
                failed = _start_failure(exc)
            if failed is not None:
                gc.collect()  # (freed now: a process that ends at once never frees them)
                raise WorkerLost(
                    f"the local Dask cluster did not start ({failed})",
                    hint="--jobs N without --engine dask runs the parts in forked processes",
                )
        yield connected
        ended = True
    finally:
        # a signal while the cluster stops after a run that ended ends nothing: the run's
        # output is whole and in place (delivered, it would say "interrupted" over it)
        with held(deliver=not ended):
            stack.close()
            gc.collect()  # (what the stopped cluster left, and would say when freed: now)


def _forkserver_wanted() -> bool:
    """Whether the local cluster's workers come from the fork server: where there is one
    (POSIX), Dask is installed, and no start method is asked for in Dask's variable."""
    import importlib.util
    import multiprocessing

    return (
        "forkserver" in multiprocessing.get_all_start_methods()
        and not os.environ.get(_METHOD_VARIABLE)
        and importlib.util.find_spec("distributed") is not None
    )


def _forkserver_ready() -> bool:
    """The fork server started (once a process) with Dask and chatpipe imported and the
    ending signals ignored, which its workers inherit; True once it runs."""
    from multiprocessing import forkserver, get_context

    get_context("forkserver").set_forkserver_preload(_PRELOAD)
    _socket_folder()
    # started with Ctrl-C, SIGTERM and SIGHUP ignored, which it keeps and hands to its
    # workers: a signal to the terminal's process group reaches this process alone, which
    # stops the cluster in order (Dask stops a worker with a message, or SIGKILL); one
    # that comes meanwhile is kept pending (blocked) and reaches this process after
    mask = getattr(signal, "pthread_sigmask", None)
    before = mask(signal.SIG_BLOCK, _ENDING) if mask else None
    handlers = {signum: signal.signal(signum, signal.SIG_IGN) for signum in _ENDING}
    try:
        forkserver.ensure_running()
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        if mask:
            mask(signal.SIG_SETMASK, before)
    return True


def _socket_folder() -> None:
    """multiprocessing's temporary folder, which holds the fork server's socket, made in
    /tmp when the one under TMPDIR would give the socket a path longer than a socket's
    address may be (108 bytes on Linux, 104 on macOS: a deep TMPDIR said "AF_UNIX path too
    long")."""
    import tempfile
    from multiprocessing import process, util

    config = process.current_process()._config
    if (
        config.get("tempdir")
        or len(tempfile.gettempdir()) + len("/pymp-12345678/listener-12345678") < 100
    ):
        return  # (made already, or short enough: multiprocessing makes it as usual)
    for short in ("/tmp", "/var/tmp"):
        try:
            folder = tempfile.mkdtemp(prefix="pymp-", dir=short)
        except OSError:
            continue
        config["tempdir"] = folder
        import shutil

        util.Finalize(None, shutil.rmtree, args=(folder, True), exitpriority=-100)
        return


def release() -> None:
    """For a process that ends without Python's teardown (the command line ends with
    ``os._exit``): multiprocessing's temporary folder, which holds the fork server's
    socket, removed as that teardown would (the fork server ends when this process does)."""
    import shutil
    from multiprocessing import process

    folder = process.current_process()._config.get("tempdir")
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
    _end_fork_server()


def _end_fork_server() -> None:
    """The fork server, and the workers it forked that are still there, ended with this
    process. Left alone, each ends only once it notices this one gone, after its imports
    (a Dask cluster stopped in its start by SIGTERM or Ctrl-C: 1 to 3 s of processes left
    behind, issue #51); after a run that stopped its cluster there is only the server."""
    from multiprocessing import forkserver

    pid = getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)
    if not pid:
        return
    for child in [*_children(pid), pid]:
        with contextlib.suppress(OSError):
            os.kill(child, signal.SIGKILL)


def _children(pid: int) -> list[int]:
    """The processes ``pid`` started (Linux's /proc; none known elsewhere)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as listed:
            return [int(child) for child in listed.read().split()]
    except (OSError, ValueError):
        return []


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Dask's warnings (a slow start) and log lines (a scheduler gone, a client closing,
    a task of its event loop that failed as the cluster stopped) in this process are not
    chatpipe's to say: what went wrong is raised, and said once."""
    import logging
    import warnings

    names = [
        name
        for name in list(logging.root.manager.loggerDict)
        if name.split(".", 1)[0] in ("distributed", "tornado", "asyncio")
    ]
    loggers = [logging.getLogger(name) for name in names]
    before = [logger.disabled for logger in loggers]
    for logger in loggers:
        logger.disabled = True
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        for logger, disabled in zip(loggers, before, strict=True):
            logger.disabled = disabled


@contextlib.contextmanager
def _connected(distributed: Any, scheduler: str) -> Iterator[Any]:
    """A client of the scheduler at ``scheduler``, which shows a worker."""
    if "://" in scheduler and not scheduler.startswith(("tcp://", "tls://", "inproc://", "ucx://")):
        raise UsageError(
            f"--scheduler {scheduler!r} is not a Dask scheduler's address",
            hint="give tcp://HOST:PORT (8786 by default; http:// is its dashboard)",
        )
    try:
        connected = distributed.Client(scheduler, timeout="10s")
    except (OSError, TimeoutError) as exc:
        raise UsageError(
            f"cannot reach the Dask scheduler at {scheduler} ({_reason(exc)})",
            hint="start one with `dask scheduler`, or use --jobs N for a local cluster",
        ) from None
    except ValueError as exc:
        raise UsageError(
            f"--scheduler {scheduler!r} is not a Dask scheduler's address ({exc})",
            hint="give tcp://HOST:PORT",
        ) from None
    with connected:
        if not connected.nthreads():
            try:
                connected.wait_for_workers(1, timeout=_WAIT_FOR_WORKERS)
            except (OSError, TimeoutError):
                raise UsageError(
                    f"the Dask scheduler at {scheduler} has no workers "
                    f"(waited {_WAIT_FOR_WORKERS:g} s)",
                    hint="start some with `dask worker " + scheduler + "`",
                ) from None
        yield connected


def _start_failure(exc: BaseException) -> str:
    """Why a local cluster did not start, in words."""
    while exc.__cause__ is not None:
        exc = exc.__cause__
    if "failed to start worker process" in str(exc):  # (Dask's Nanny)
        return "a worker process ended as it started"
    return _reason(exc)


def _reason(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:200]
