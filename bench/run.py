"""Time chatpipe against the orjson floor and langchain-core, side by side.

Each job runs alternately (chatpipe, floor, langchain), --repeat times; the table shows
medians of wall time and peak RSS, and the ratios. Not part of the test suite.

    python bench/corpus.py 100000 bench/corpus/log_100k.jsonl
    python bench/corpus.py 100000 bench/corpus/rows_100k.jsonl --rows
    python bench/corpus.py 1000000 bench/corpus/rows_1m.jsonl --rows
    python bench/run.py bench/corpus/log_100k.jsonl --repeat 3 \
        --rows bench/corpus/rows_100k.jsonl --rows bench/corpus/rows_1m.jsonl
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = sys.executable
JOBS = {
    "buffer": (["buffer"], "buffer"),
    "buffer --format xml": (["buffer", "--format", "xml"], "buffer-xml"),
    "openai": (["openai"], "openai"),
    "convert --to canonical": (["convert"], "convert"),
    "trim --max-tokens 4000": (["trim", "--max-tokens", "4000"], "trim"),
}


def measure(argv: list[str], stdin_path: str) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one run, output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    with open(stdin_path, "rb") as stdin, open(os.devnull, "wb") as devnull:
        start = time.perf_counter()
        subprocess.run(argv, stdin=stdin, stdout=devnull, check=True)
        wall = time.perf_counter() - start
    # ru_maxrss of children is the largest so far: run the largest job last to see it fully
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(peak, before) / 1024


def peak_rss(argv: list[str], stdin_path: str) -> float:
    """Peak RSS (MB) of one run, measured alone with GNU time when it is there."""
    if os.path.exists("/usr/bin/time"):
        with open(stdin_path, "rb") as stdin:
            done = subprocess.run(
                ["/usr/bin/time", "-f", "%M", *argv],
                stdin=stdin,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                check=True,
            )
        return int(done.stderr.decode().strip().splitlines()[-1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpus")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-langchain", action="store_true")
    parser.add_argument(
        "--rows",
        action="append",
        default=[],
        help="a conversation-per-line file: time convert --jobs 2 on it (repeatable)",
    )
    args = parser.parse_args()
    _compile_chatpipe()
    chatpipe = [PY, "-m", "chatpipe"]
    floor = [PY, os.path.join(HERE, "floor.py")]
    rows = []
    for name, (cp_args, lc_job) in JOBS.items():
        commands = {"chatpipe": chatpipe + cp_args, "floor": floor}
        if not args.no_langchain:
            commands["langchain"] = [PY, os.path.join(HERE, "lc_jobs.py"), lc_job]
        walls: dict[str, list[float]] = {k: [] for k in commands}
        for _ in range(args.repeat):
            for key, argv in commands.items():  # alternating runs
                walls[key].append(measure(argv, args.corpus)[0])
        medians = {k: statistics.median(v) for k, v in walls.items()}
        rss = {k: peak_rss(argv, args.corpus) for k, argv in commands.items()}
        rows.append((name, medians, rss))
    size = os.path.getsize(args.corpus) / 1e6
    with open(args.corpus, "rb") as corpus:
        lines = sum(1 for _ in corpus)
    print(
        f"corpus: {args.corpus}, {lines:,} messages, {size:.1f} MB; medians of {args.repeat} runs\n"
    )
    print(
        "| job | chatpipe | floor | × floor | langchain-core | × faster than langchain | RSS chatpipe / langchain |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, medians, rss in rows:
        cp, fl = medians["chatpipe"], medians["floor"]
        lc = medians.get("langchain")
        lc_cells = (
            (f"{lc:.2f} s", f"{lc / cp:.1f}×", f"{rss['chatpipe']:.0f} / {rss['langchain']:.0f} MB")
            if lc
            else ("–", "–", f"{rss['chatpipe']:.0f} MB")
        )
        print(
            f"| {name} | {cp:.2f} s | {fl:.2f} s | {cp / fl:.2f} | {lc_cells[0]} | {lc_cells[1]} | {lc_cells[2]} |"
        )
    starts, bares = [], []
    for _ in range(15):  # alternating runs
        starts.append(_startup(chatpipe))
        bares.append(_startup([PY, "-c", "import typer, orjson"], args=False))
    start, bare = statistics.median(starts), statistics.median(bares)
    print(
        f"\nstart-up: chatpipe buffer on 5 messages {start * 1000:.0f} ms; "
        f"python -c 'import typer, orjson' {bare * 1000:.0f} ms ({start / bare:.2f}×)"
    )
    for rows_file in args.rows:
        _jobs(chatpipe, rows_file, args.repeat)


def _jobs(chatpipe: list[str], rows: str, repeat: int) -> None:
    """convert on a conversation-per-line file in one process and with --jobs 2."""
    walls: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(repeat):
        for jobs in walls:  # alternating runs
            argv = [*chatpipe, "convert", "--jobs", str(jobs), rows]
            start = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
            walls[jobs].append(time.perf_counter() - start)
    one, two = statistics.median(walls[1]), statistics.median(walls[2])
    with open(rows, "rb") as data:
        count = sum(line.count(b'"role"') for line in data)
    print(
        f"convert --jobs 2 on {rows} (about {count:,} messages): {two:.2f} s; one process "
        f"{one:.2f} s ({one / two:.2f}× faster)"
    )


def _compile_chatpipe() -> None:
    """Bytecode for chatpipe's modules, as ``pip install .`` writes it: an editable install
    under PYTHONDONTWRITEBYTECODE=1 (this machine's setting) would compile every module
    on every start, which no installed copy does."""
    import compileall

    import chatpipe

    compileall.compile_dir(os.path.dirname(chatpipe.__file__), quiet=1)


def _startup(argv: list[str], args: bool = True) -> float:
    tiny = os.path.join(HERE, "..", "fixtures", "openai_chat__cookbook_toy_chat_fine_tuning.jsonl")
    start = time.perf_counter()
    subprocess.run(argv + (["buffer", tiny] if args else []), stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
