"""One chatpipe command on a corpus with --jobs N for several N: wall and processor time
(medians of rounds, the runs of a round taking turns at going first), speed-up over the
first N and parallel efficiency (speed-up / (N / first N)). Output to /dev/null.

    python bench/jobs_scale.py bench/corpus/rows_1m.jsonl --jobs 1 4 16 --repeat 2 \
        -- convert --to openai
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

from run import timed
from stamp import stamp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("command", nargs="+", help="chatpipe's arguments, after --")
    args = parser.parse_args()
    chatpipe = [sys.executable, "-m", "chatpipe", *args.command]
    runs = {n: [*chatpipe, "--jobs", str(n), args.corpus] for n in args.jobs}
    walls: dict[int, list[float]] = {n: [] for n in args.jobs}
    cpus: dict[int, list[float]] = {n: [] for n in args.jobs}
    for round_ in range(args.repeat):
        turn = round_ % len(args.jobs)
        for n in args.jobs[turn:] + args.jobs[:turn]:
            wall, cpu = timed(runs[n])
            walls[n].append(wall)
            cpus[n].append(cpu)
    size = os.path.getsize(args.corpus) / 1e6
    print(f"# {stamp()}")
    print(
        f"`chatpipe {' '.join(args.command)} --jobs N` on {args.corpus} ({size:.0f} MB), "
        f"{os.cpu_count()} cores; medians of {args.repeat} rounds (range)\n"
    )
    print(f"| N | wall s | processor s | speed-up over N={args.jobs[0]} | efficiency |")
    print("|---|---|---|---|---|")
    base = statistics.median(walls[args.jobs[0]])
    for n in args.jobs:
        wall = statistics.median(walls[n])
        speedup = base / wall
        ideal = n / args.jobs[0]
        print(
            f"| {n} | {wall:.2f} ({min(walls[n]):.2f}–{max(walls[n]):.2f}) "
            f"| {statistics.median(cpus[n]):.2f} | {speedup:.2f}× | {speedup / ideal:.0%} |"
        )


if __name__ == "__main__":
    main()
