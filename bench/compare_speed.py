"""Two checkouts of chatpipe side by side: every job of bench/run.py, the two alternating
run by run, medians of wall time, and the start-up of each. For restructurings that must
not be slower.

    python bench/compare_speed.py /tmp/before/src src bench/corpus/log_100k.jsonl
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

from run import JOBS


def wall(src: str, argv: list[str]) -> float:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "chatpipe", *argv], stdout=subprocess.DEVNULL, env=env, check=True
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("before", help="the src/ directory of the old checkout")
    parser.add_argument("after", help="the src/ directory of the new checkout")
    parser.add_argument("corpus")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for job, (argv, _) in JOBS.items():
        times: dict[str, list[float]] = {"before": [], "after": []}
        for _ in range(args.repeat):
            times["before"].append(wall(args.before, [*argv, args.corpus]))
            times["after"].append(wall(args.after, [*argv, args.corpus]))
        old, new = statistics.median(times["before"]), statistics.median(times["after"])
        print(f"{job:28} before {old:.3f}s  after {new:.3f}s  after/before {new / old:.3f}")
    for name, src in (("before", args.before), ("after", args.after)):
        runs = [wall(src, ["--version"]) for _ in range(15)]
        print(f"start-up {name:6} {statistics.median(runs) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
