"""Parts on a Dask cluster (the extra ``chatpipe[dask]``): ``DaskMapper(client)`` runs the
one worker body on the cluster's workers, and ``client`` connects to a running scheduler
or starts a local cluster for the run.

The local cluster's workers are forked from a fork server, a process of its own started
with chatpipe and Dask already imported and Ctrl-C ignored: a worker starts in a few
milliseconds, imports nothing before its first part, inherits no lock that another thread
of this process held, and leaves interrupting to this process (which stops them all).
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from typing import Any

from ..errors import ChatpipeError, UsageError, WorkerLost

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


def dask_modules() -> Any:
    """Dask's distributed, or a usage error naming the extra."""
    try:
        import dask  # noqa: F401
        import distributed
    except ImportError:
        raise UsageError("--engine dask needs Dask", hint="pip install 'chatpipe[dask]'") from None
    return distributed


class DaskMapper:
    """The parts on the cluster behind a ``distributed.Client``: what every part shares
    (the job) sent once to every worker, the results in order, each released once handed
    on; leaving early cancels what has not run."""

    def __init__(self, connected: Any) -> None:
        self.client = connected
        self.workers = max(1, sum(connected.nthreads().values()))

    def map(self, function: Any, items: list[Any], *shared: Any) -> Iterator[Any]:
        client = self.client
        sent = [client.scatter(value, broadcast=True, hash=False) for value in shared]
        futures = client.map(function, items, *([s] * len(items) for s in sent), pure=False)
        try:
            for future in futures:
                yield _result(future)
                future.release()
        finally:
            client.cancel([*futures, *sent])


def _result(future: Any) -> Any:
    from distributed.client import FutureCancelledError

    try:
        return future.result()
    except ChatpipeError:
        raise
    except FutureCancelledError:
        raise WorkerLost("the Dask cluster went away during the run; nothing was written") from None
    except (OSError, TimeoutError) as exc:  # the scheduler's connection lost (CommClosedError)
        raise WorkerLost(
            f"lost the Dask scheduler during the run ({type(exc).__name__}); nothing was written"
        ) from None
    except Exception as exc:
        if "KilledWorker" in type(exc).__name__:
            raise WorkerLost(
                f"a part was tried on {exc.args[-1] if exc.args else 'several'} workers and "
                "each of them died; nothing was written",
                hint="give the workers more memory, or cut smaller parts",
            ) from None
        raise


@contextlib.contextmanager
def client(scheduler: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """A Dask client: of a running scheduler (which must show a worker), or of a local
    cluster of ``workers`` processes (one thread each) started here and stopped when the
    block ends."""
    distributed = dask_modules()
    if scheduler is not None:
        with _connected(distributed, scheduler) as connected:
            yield connected
        return
    import dask

    settings: dict[str, Any] = {"distributed.worker.daemon": False}
    if not os.environ.get(_METHOD_VARIABLE) and _forkserver_ready():
        settings["distributed.worker.multiprocessing-method"] = "forkserver"
    if not os.environ.get(_PROFILE_VARIABLE):
        # a worker's statistical profiler (for the dashboard, which this cluster has not)
        # samples the running part every 10 ms: 5 to 10 % of a run's time here
        settings["distributed.worker.profile.enabled"] = False
    with (
        dask.config.set(settings),
        _quiet(),
        distributed.LocalCluster(
            n_workers=workers or 2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=50,
        ) as cluster,
        distributed.Client(cluster) as connected,
    ):
        yield connected


def _forkserver_ready() -> bool:
    """The fork server started (once a process) with chatpipe imported and Ctrl-C
    ignored, which its workers inherit; False where there is none (not POSIX)."""
    import multiprocessing

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return False
    from multiprocessing import forkserver

    from distributed.utils import get_mp_context

    with dask_method("forkserver"):
        context = get_mp_context()  # (Dask names what it preloads: kept, ours added)
    preload = getattr(forkserver._forkserver, "_preload_modules", None) or []
    context.set_forkserver_preload(list(dict.fromkeys([*preload, *_PRELOAD])))
    ignored = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        forkserver.ensure_running()
    finally:
        signal.signal(signal.SIGINT, ignored)
    return True


@contextlib.contextmanager
def dask_method(method: str) -> Iterator[None]:
    import dask

    with dask.config.set({"distributed.worker.multiprocessing-method": method}):
        yield


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Dask's warnings at start (a busy port, a slow start) are not chatpipe's to say."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


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


def _reason(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:200]
