"""The engines side by side on a sharded corpus (issues 17 and 38): for each number of
workers N, wall time of one process, of ``--jobs N`` (forked workers), of ``--engine dask
--jobs N`` (a local cluster started and stopped by the run) and of ``--engine dask
--scheduler`` (a cluster of N workers started beforehand, as a user's running cluster),
and the machine's own ceiling: N one-process runs started together, each on its share of
the shards. Dask's ratio to ``--jobs N`` is the figure issue 38 sets (within 1.15×); the
client's own CPU time on the running cluster the other (under 0.5 s). Medians of paired
rounds, the runs of a round taking turns at going first; every run's output compared,
shard by shard, with the one-process run's.

    python bench/corpus.py 1000000 bench/corpus/rows_1m.jsonl --rows
    python bench/dask_engine.py bench/corpus/rows_1m.jsonl --shards 64 --workers 2 --repeat 5
    python bench/dask_engine.py bench/corpus/rows_1m.jsonl --shards 64 --workers 8 16

Each command writes ``--output-dir`` (a file per shard), so that no engine pays for one
stdout. Peak memory is that of the largest process of a run (Dask's client or a worker).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

from stamp import stamp

JOBS = {
    "convert --to openai": ["convert", "--to", "openai"],
    "trim --max-tokens 4000": ["trim", "--max-tokens", "4000"],
}
CHATPIPE = [sys.executable, "-m", "chatpipe"]


def shard(corpus: str, shards: int) -> list[str]:
    folder = os.path.join(os.path.dirname(corpus), "shards")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    with open(corpus, "rb") as stream:
        lines = stream.readlines()
    size = -(-len(lines) // shards)
    paths = []
    for k in range(shards):
        path = os.path.join(folder, f"train-{k:05d}-of-{shards:05d}.jsonl")
        with open(path, "wb") as out:
            out.writelines(lines[k * size : (k + 1) * size])
        paths.append(path)
    return paths


# runs a command, then prints its wall time, the peak RSS of its largest process (its
# own, or a worker's: processes it waited for count as its children's children do), and
# the CPU time of the processes it waited for (the client's own, on a running cluster)
_MEASURED = """
import resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
seconds = time.perf_counter() - start
sys.stderr.buffer.write(done.stderr)
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(seconds, used.ru_maxrss, used.ru_utime + used.ru_stime)
sys.exit(done.returncode)
"""


def timed(command: list[str]) -> tuple[float, float, float]:
    """(wall seconds, peak RSS in MB of the largest process, CPU seconds of the run's
    own processes)."""
    # the previous run's output is flushed to disk first: left to the kernel, its writing
    # back would fall inside the next run's time
    os.sync()
    done = subprocess.run([sys.executable, "-c", _MEASURED, *command], capture_output=True)
    if done.returncode:
        raise SystemExit(done.stderr.decode())
    seconds, peak, cpu = done.stdout.split()
    return float(seconds), int(peak) / 1024, float(cpu)


def side_by_side(commands: list[list[str]]) -> tuple[float, float, float]:
    """Wall seconds of several runs started together, until the last one ends."""
    os.sync()
    start = time.perf_counter()
    running = [subprocess.Popen(c, stdout=subprocess.DEVNULL) for c in commands]
    if any(r.wait() for r in running):
        raise SystemExit(f"a side-by-side run failed: {commands}")
    return time.perf_counter() - start, 0.0, 0.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def running_cluster(workers: int) -> Iterator[str]:
    """A Dask scheduler and ``workers`` single-thread workers started here (as a user
    starts them), their profilers off as chatpipe's own cluster has them; the address."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = dict(os.environ, DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED="False")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
    scheduler = subprocess.Popen(
        ["dask", "scheduler", "--port", str(port), "--no-dashboard"], **quiet
    )
    worker = ["dask", "worker", address, "--nworkers", str(workers), "--nthreads", "1"]
    pool = subprocess.Popen([*worker, "--no-dashboard"], **quiet)
    try:
        import distributed

        with distributed.Client(address, timeout="60s") as client:
            client.wait_for_workers(workers, timeout=120)
            client.run(__import__, "chatpipe.pipeline.parts")  # as a first task would
        yield address
    finally:
        for process in (pool, scheduler):
            process.terminate()
        for process in (pool, scheduler):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def compare(out: str, paths: list[str], folders: list[str]) -> None:
    for base in map(os.path.basename, paths):
        with open(os.path.join(out, "serial", base), "rb") as a:
            first = a.read()
        for folder in folders:
            with open(os.path.join(out, folder, base), "rb") as b:
                if b.read() != first:
                    raise SystemExit(f"{base} differs between the serial run and {folder}")


def measure(job: list[str], paths: list[str], workers: int, address: str, rounds: int) -> dict:
    """Each run's medians over paired rounds."""
    taken: dict[str, list[tuple[float, float, float]]] = {}
    for round_number in range(rounds):
        with tempfile.TemporaryDirectory() as out:

            def to(folder: str) -> list[str]:
                return ["--output-dir", os.path.join(out, folder)]

            shares = [CHATPIPE + job + to(f"side{k}") + paths[k::workers] for k in range(workers)]
            n = str(workers)
            runs = {
                "serial": (timed, CHATPIPE + job + to("serial") + paths),
                "jobs": (timed, CHATPIPE + job + ["--jobs", n] + to("jobs") + paths),
                "dask": (
                    timed,
                    CHATPIPE + job + ["--engine", "dask", "--jobs", n] + to("dask") + paths,
                ),
                "scheduler": (
                    timed,
                    CHATPIPE
                    + job
                    + ["--engine", "dask", "--scheduler", address]
                    + to("scheduler")
                    + paths,
                ),
                "side by side": (side_by_side, shares),
            }
            order = list(runs)
            turn = round_number % len(order)  # each run first in turn
            for name in order[turn:] + order[:turn]:
                how, command = runs[name]
                taken.setdefault(name, []).append(how(command))
            compare(out, paths, ["jobs", "dask", "scheduler"])
            for k in range(workers):  # each side-by-side run's own shards
                compare(out, paths[k::workers], [f"side{k}"])
    return taken


def _median(values: list[float]) -> float:
    return statistics.median(values)


def _range(values: list[float]) -> str:
    return f"{_median(values):.2f}× ({min(values):.2f}–{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpus", help="a conversation-per-line JSONL (bench/corpus.py --rows)")
    parser.add_argument("--shards", type=int, default=64)
    parser.add_argument("--workers", type=int, nargs="+", default=[2])
    parser.add_argument("--repeat", type=int, default=3, help="paired rounds per command")
    args = parser.parse_args()
    paths = shard(args.corpus, args.shards)
    size = sum(os.path.getsize(p) for p in paths)
    with open(args.corpus, "rb") as stream:
        rows = sum(1 for _ in stream)
    print(f"# {stamp()}")
    print(
        f"# {rows:,} conversations, {size / 1e6:,.0f} MB in {args.shards} shards, "
        f"--output-dir; medians of {args.repeat} paired rounds (range)"
    )
    print()
    print(
        "| job | N | one process s | --jobs N s | dask s | dask on a running cluster s "
        "| dask ÷ --jobs N | running cluster ÷ --jobs N | --jobs N speed-up | N one-process "
        "runs side by side: speed-up | client CPU on the running cluster | peak RSS: "
        "one process, largest dask process |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for workers in args.workers:
        with running_cluster(workers) as address:
            for name, job in JOBS.items():
                taken = measure(job, paths, workers, address, args.repeat)
                wall = {k: [t[0] for t in v] for k, v in taken.items()}
                serial = wall["serial"]
                over_jobs = [d / j for d, j in zip(wall["dask"], wall["jobs"], strict=True)]
                running = [d / j for d, j in zip(wall["scheduler"], wall["jobs"], strict=True)]
                speed = [s / j for s, j in zip(serial, wall["jobs"], strict=True)]
                ceiling = [s / c for s, c in zip(serial, wall["side by side"], strict=True)]
                client = [t[2] for t in taken["scheduler"]]
                peak_serial = max(t[1] for t in taken["serial"])
                peak_dask = max(t[1] for t in taken["dask"])
                print(
                    f"| {name} | {workers} | {_median(serial):.2f} | {_median(wall['jobs']):.2f} "
                    f"| {_median(wall['dask']):.2f} | {_median(wall['scheduler']):.2f} "
                    f"| {_range(over_jobs)} | {_range(running)} | {_range(speed)} "
                    f"| {_range(ceiling)} | {_median(client):.2f} s "
                    f"| {peak_serial:.0f} MB, {peak_dask:.0f} MB |"
                )
    print()
    print(
        "(outputs compared shard by shard: identical. dask: chatpipe's local cluster, "
        "started and stopped by each run; a running cluster: `dask scheduler` and `dask "
        "worker --nworkers N --nthreads 1` started once, chatpipe imported on its workers. "
        "Side by side: N one-process runs started together, each on one shard in N)"
    )


if __name__ == "__main__":
    main()
