"""What the local Dask cluster of `--jobs N --engine dask` costs to start, by the way its
workers are started: forked by a fork server (chatpipe's way), forked from the chatpipe
process itself (Dask's `fork`: fast, but a worker may inherit a lock another thread
held), or spawned (fresh interpreters that import everything). Rounds alternate the
methods; medians and ranges.

    python bench/cluster_start.py [--rounds 9] [--workers 2] [FILE]

Two figures a method: the whole command (`chatpipe count --engine dask --jobs N FILE`:
start-up, imports, cluster, the job) and the cluster alone in a fresh process (start N
workers, run one task, stop them). `--jobs N` without Dask is the floor.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

METHODS = ("forkserver", "fork", "spawn")
_VARIABLE = "DASK_DISTRIBUTED__WORKER__MULTIPROCESSING_METHOD"  # (forkserver: unset)

_CLUSTER = """
import sys, time
from chatpipe.pipeline.dask_mapper import client
if __name__ == "__main__":
    start = time.perf_counter()
    with client(workers=int(sys.argv[1])) as connected:
        connected.submit(sum, [1, 2]).result()
    print(time.perf_counter() - start)
"""


def _seconds(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def _summary(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s ({min(values):.2f}-{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("file", nargs="?", help="the job's input (default: 200 small rows)")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="cluster-start-")
    script = os.path.join(folder, "cluster.py")
    with open(script, "w") as out:
        out.write(_CLUSTER)
    data = args.file or os.path.join(folder, "rows.jsonl")
    if args.file is None:
        with open(data, "w") as out:
            for i in range(200):
                out.write(f'{{"messages":[{{"role":"user","content":"question {i}"}}]}}\n')
    chatpipe = [sys.executable, "-m", "chatpipe", "count"]
    jobs = ["--jobs", str(args.workers), data]
    whole: dict[str, list[float]] = {method: [] for method in METHODS}
    alone: dict[str, list[float]] = {method: [] for method in METHODS}
    floor = []
    for _ in range(args.rounds):
        for method in METHODS:
            env = {k: v for k, v in os.environ.items() if k != _VARIABLE}
            if method != "forkserver":
                env[_VARIABLE] = method
            whole[method].append(_seconds([*chatpipe, "--engine", "dask", *jobs], env))
            done = subprocess.run(
                [sys.executable, script, str(args.workers)],
                env=env,
                check=True,
                capture_output=True,
            )
            alone[method].append(float(done.stdout))
        floor.append(_seconds([*chatpipe, *jobs], dict(os.environ)))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"# {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, load average "
        f"{load:.1f}, {args.rounds} rounds, {args.workers} workers; medians (ranges)"
    )
    print("| workers started by | whole command | cluster alone (start, one task, stop) |")
    print("|---|---|---|")
    for method in METHODS:
        print(f"| {method} | {_summary(whole[method])} | {_summary(alone[method])} |")
    print(f"| (--jobs {args.workers} without Dask) | {_summary(floor)} | |")
    shutil.rmtree(folder)


if __name__ == "__main__":
    main()
