"""Time one command's work in-process, many times, to see small changes through noise.

The subprocess runner (run.py) gives the numbers that count; this one leaves out
start-up and takes the minimum CPU time of many runs, which a noisy machine disturbs less.

    python bench/inproc.py bench/corpus/log_100k.jsonl buffer --format xml
"""

from __future__ import annotations

import os
import sys
import time


def main() -> None:
    corpus, *argv = sys.argv[1:]
    repeat = int(os.environ.get("REPEAT", "15"))
    from chatpipe.cli import execute

    if os.environ.get("GC") == "off":
        import gc

        gc.disable()

    devnull = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(1)
    times, floor_times = [], []
    for _ in range(repeat):
        floor_times.append(_floor(corpus, devnull))
        sys.argv = ["chatpipe", *argv, corpus]
        sys.stdout.flush()
        os.dup2(devnull, 1)
        start = time.process_time()
        try:
            execute()
        finally:
            sys.stdout.flush()
            times.append(time.process_time() - start)
            os.dup2(saved, 1)
    times.sort()
    floor_times.sort()
    print(
        f"{' '.join(argv)}: min {times[0] * 1000:.1f} ms, median {times[len(times) // 2] * 1000:.1f}"
        f" ms; floor min {floor_times[0] * 1000:.1f} ms; ratio of minimums"
        f" {times[0] / floor_times[0]:.2f}"
    )


def _floor(corpus: str, fd: int) -> float:
    """The floor's loop (bench/floor.py) over the corpus, in this process."""
    import orjson

    start = time.process_time()
    with open(corpus, "rb") as lines, open(fd, "wb", closefd=False) as out:
        write = out.write
        for line in lines:
            write(orjson.dumps(orjson.loads(line)) + b"\n")
    return time.process_time() - start


if __name__ == "__main__":
    main()
