"""Two checkouts of chatpipe side by side: every job of bench/run.py, the two alternating
run by run, medians of wall time, and the start-up of each. For restructurings that must
not be slower.

    python bench/compare_speed.py /tmp/before/src src bench/corpus/log_100k.jsonl
    python bench/compare_speed.py /tmp/before/src src bench/corpus/shards64/*.jsonl \
        --jobs 2 --output-dir --only "convert --to canonical" --only "trim --strategy last"

``--jobs N`` runs each job on N workers; ``--output-dir`` writes a shard per input into a
fresh folder each run (removed after), as a dataset's shards are converted.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from run import JOBS
from stamp import stamp


def wall(src: str, argv: list[str], output_dir: bool = False) -> float:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    folder = tempfile.mkdtemp(prefix="compare-speed-") if output_dir else None
    extra = ["--output-dir", os.path.join(folder, "out")] if folder else []
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "chatpipe", *argv, *extra],
        stdout=subprocess.DEVNULL,
        env=env,
        check=True,
    )
    took = time.perf_counter() - start
    if folder:
        shutil.rmtree(folder)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("before", help="the src/ directory of the old checkout")
    parser.add_argument("after", help="the src/ directory of the new checkout")
    parser.add_argument("corpus", nargs="+")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=1, help="workers for each job")
    parser.add_argument("--output-dir", action="store_true", help="a shard per input")
    parser.add_argument("--only", action="append", choices=list(JOBS), help="these jobs")
    args = parser.parse_args()
    jobs_n = ["--jobs", str(args.jobs)] if args.jobs > 1 else []
    # both trees compiled first: a tree without its bytecode (a fresh worktree, with
    # PYTHONDONTWRITEBYTECODE set) would compile every module on every run, and lose
    for src in (args.before, args.after):
        compileall.compile_dir(src, quiet=1)
    print(f"# {stamp().split(', chatpipe')[0]}; both checkouts from source, alternating")
    print(f"# {len(args.corpus)} input(s), --jobs {args.jobs}, --output-dir {args.output_dir}")
    for job, (argv, _) in JOBS.items():
        if args.only and job not in args.only:
            continue
        times: dict[str, list[float]] = {"before": [], "after": []}
        command = [*argv, *jobs_n, *args.corpus]
        for round_ in range(args.repeat):  # (taking turns at going first)
            order = ("before", "after") if round_ % 2 == 0 else ("after", "before")
            for name in order:
                src = args.before if name == "before" else args.after
                times[name].append(wall(src, command, args.output_dir))
        old, new = statistics.median(times["before"]), statistics.median(times["after"])
        print(f"{job:28} before {old:.3f}s  after {new:.3f}s  after/before {new / old:.3f}")
    for name, src in (("before", args.before), ("after", args.after)):
        runs = [wall(src, ["--version"]) for _ in range(15)]
        print(f"start-up {name:6} {statistics.median(runs) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
