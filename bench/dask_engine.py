"""--engine dask against the serial engine on a sharded corpus, side by side in one run
(issue 17): wall time of each command, the ratio, each engine's peak memory (of its
largest process: a Dask run's main process or one of its workers), and what a part
costs, from which the scaling note is worked out. Each round flushes the previous run's
output to disk before it starts, and the runs take turns at going first.

Beside them, the machine's own ceiling at that hour: ``--workers`` serial runs started
together, each on its share of the shards, with nothing of Dask's in them. Their speed-up
over the one serial run is what this many processes get out of this machine's cores on
this work; no engine that runs the same code in that many processes can do much better.

    python bench/corpus.py 1000000 bench/corpus/rows_1m.jsonl --rows
    python bench/dask_engine.py bench/corpus/rows_1m.jsonl --shards 16 --repeat 3

The corpus is cut into ``--shards`` files (bench/corpus/shards/); each command runs with
``--output-dir`` (one output file per shard) so that neither engine pays for a single
stdout. The Dask run includes starting and stopping its LocalCluster of ``--workers``.
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

from stamp import stamp

JOBS = {
    "convert --to openai": ["convert", "--to", "openai"],
    "trim --max-tokens 4000": ["trim", "--max-tokens", "4000"],
}


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


# runs a command, then prints its wall time and the peak RSS of its largest process (its
# own, or a worker's: processes it waited for count as its children's children do)
_MEASURED = """
import resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
seconds = time.perf_counter() - start
sys.stderr.buffer.write(done.stderr)
print(seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(done.returncode)
"""


def timed(command: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB of the largest process)."""
    # the previous run's output (half a gigabyte) is flushed to disk first: left to the
    # kernel, its writing-back would fall inside the next run's time
    os.sync()
    done = subprocess.run([sys.executable, "-c", _MEASURED, *command], capture_output=True)
    if done.returncode:
        raise SystemExit(done.stderr.decode())
    seconds, peak = done.stdout.split()
    return float(seconds), int(peak) / 1024


# what a run pays for its cluster: importing Dask's distributed, and starting and stopping
# a LocalCluster of forked workers as --workers N does
_CLUSTER = """
import sys, time
start = time.perf_counter()
import chatpipe.dask as on_dask
imported = time.perf_counter()
with on_dask.client(workers=int(sys.argv[1])) as connected:
    connected.submit(sum, [1, 2]).result()
print(imported - start, time.perf_counter() - imported)
"""


def side_by_side(commands: list[list[str]]) -> float:
    """Wall seconds of several runs started together, until the last one ends."""
    os.sync()
    start = time.perf_counter()
    running = [subprocess.Popen(c, stdout=subprocess.DEVNULL) for c in commands]
    if any(r.wait() for r in running):
        raise SystemExit(f"a side-by-side run failed: {commands}")
    return time.perf_counter() - start


def cluster_cost(workers: int, rounds: int) -> tuple[float, float]:
    """(seconds importing chatpipe.dask, seconds starting and stopping the cluster)."""
    times = []
    for _ in range(rounds):
        done = subprocess.run(
            [sys.executable, "-c", _CLUSTER, str(workers)], capture_output=True, check=True
        )
        times.append(tuple(map(float, done.stdout.split())))
    return statistics.median(t[0] for t in times), statistics.median(t[1] for t in times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpus", help="a conversation-per-line JSONL (bench/corpus.py --rows)")
    parser.add_argument("--shards", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="paired rounds per command")
    args = parser.parse_args()
    paths = shard(args.corpus, args.shards)
    size = sum(os.path.getsize(p) for p in paths)
    with open(args.corpus, "rb") as stream:
        rows = sum(1 for _ in stream)
    print(f"# {stamp()}")
    print(
        f"# {rows:,} conversations, {size / 1e6:,.0f} MB in {args.shards} shards; "
        f"dask: LocalCluster of {args.workers} workers, started and stopped by each run"
    )
    print()
    print(
        f"| job | serial s | dask s | speed-up (range) | {args.workers} serial runs side by "
        "side: speed-up (range) | per part, dask | peak RSS, serial "
        "| peak RSS, largest dask process |"
    )
    print("|---|---|---|---|---|---|---|---|")
    chatpipe = [sys.executable, "-m", "chatpipe"]
    for name, job in JOBS.items():
        serial_times, dask_times, ratios, peaks, ceilings = [], [], [], [], []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as out:
                serial = chatpipe + job + ["--output-dir", os.path.join(out, "s"), *paths]
                shares = [
                    chatpipe
                    + job
                    + ["--output-dir", os.path.join(out, f"p{k}")]
                    + paths[k :: args.workers]
                    for k in range(args.workers)
                ]
                on_dask = (
                    chatpipe
                    + job
                    + [
                        "--engine",
                        "dask",
                        "--workers",
                        str(args.workers),
                        "--output-dir",
                        os.path.join(out, "d"),
                        *paths,
                    ]
                )
                runs = [
                    ("serial", timed, serial),
                    ("dask", timed, on_dask),
                    ("side by side", side_by_side, shares),
                ]
                turn = len(ratios) % len(runs)  # each run first in turn
                took = {name: how(what) for name, how, what in runs[turn:] + runs[:turn]}
                (s, s_peak), (d, d_peak) = took["serial"], took["dask"]
                peaks.append((s_peak, d_peak))
                for k, p in enumerate(paths):
                    base = os.path.basename(p)
                    for other in ("d", f"p{k % args.workers}"):
                        with (
                            open(os.path.join(out, "s", base), "rb") as a,
                            open(os.path.join(out, other, base), "rb") as b,
                        ):
                            if a.read() != b.read():
                                raise SystemExit(f"{name}: {base} differs between the runs")
            serial_times.append(s)
            dask_times.append(d)
            ratios.append(s / d)
            ceilings.append(s / took["side by side"])
        s, d = statistics.median(serial_times), statistics.median(dask_times)
        per_part = d * args.workers / args.shards
        s_peak, d_peak = (max(p[k] for p in peaks) for k in (0, 1))
        print(
            f"| {name} | {s:.2f} | {d:.2f} | {statistics.median(ratios):.2f}× "
            f"({min(ratios):.2f}–{max(ratios):.2f}) | {statistics.median(ceilings):.2f}× "
            f"({min(ceilings):.2f}–{max(ceilings):.2f}) | {per_part:.2f} s for "
            f"{rows // args.shards:,} conversations | {s_peak:.0f} MB | {d_peak:.0f} MB |"
        )
    print()
    print(
        f"(outputs compared shard by shard: identical; a part is {size / args.shards / 1e6:.0f}"
        " MB of input; peak RSS is the largest of the rounds; side by side: serial runs"
        f" started together, each on one shard in {args.workers})"
    )
    imported, started = cluster_cost(args.workers, args.repeat)
    print(
        f"cluster cost of a run (medians of {args.repeat}): importing chatpipe.dask "
        f"{imported:.2f} s; starting {args.workers} workers, one task, stopping {started:.2f} s"
    )


if __name__ == "__main__":
    main()
