"""Time chatpipe against the orjson floor and langchain-core, side by side.

For each corpus, each job runs in --repeat rounds, each round running chatpipe and the
floor once, back to back (order alternating), then langchain-core --langchain-repeat
times; the tables show medians of wall time, the median of the rounds' ratios to the
floor with their range, peak RSS, and whether each of issue #20's targets is met on every
corpus. ``--markdown`` prints the whole report as Markdown with the run's stamp (date,
CPU, Python, chatpipe), ready to paste into docs/performance.md. Not part of the test suite.

    python bench/corpus.py 100000 bench/corpus/log_100k.jsonl
    python bench/agent_corpus.py 100000 bench/corpus/agent_100k.jsonl
    python bench/corpus.py 1000000 bench/corpus/log_1m.jsonl
    python bench/corpus.py 1000000 bench/corpus/rows_1m.jsonl --rows
    python bench/run.py bench/corpus/log_100k.jsonl bench/corpus/agent_100k.jsonl \
        --rows bench/corpus/rows_1m.jsonl --log-jobs bench/corpus/agent_100k.jsonl \
        --rss bench/corpus/log_1m.jsonl --markdown
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
PY = sys.executable
JOBS = {
    "buffer": (["buffer"], "buffer"),
    "buffer --format xml": (["buffer", "--format", "xml"], "buffer-xml"),
    "openai": (["openai"], "openai"),
    "convert --to canonical": (["convert"], "convert"),
    "trim --strategy last": (["trim", "--max-tokens", "4000", "--strategy", "last"], "trim"),
}
# issue #20's bars: × the floor's wall time per job on every corpus, start-up × typer's
# own import, peak RSS at a million messages, and the speed-up of convert --jobs 2
TARGETS = {
    "buffer": 1.3,
    "buffer --format xml": 1.5,
    "openai": 1.3,
    "convert --to canonical": 1.3,
    "trim --strategy last": 1.25,
}
STARTUP = 1.15
RSS_MB = 30
JOBS_SPEEDUP = 1.8


def wall(argv: list[str], stdin_path: str | None = None) -> float:
    """Wall seconds of one run, its stdin a file (or none), its output discarded."""
    with open(stdin_path or os.devnull, "rb") as stdin:
        start = time.perf_counter()
        subprocess.run(argv, stdin=stdin, stdout=subprocess.DEVNULL, check=True)
        return time.perf_counter() - start


def timed(argv: list[str], stdin_path: str | None = None) -> tuple[float, float]:
    """Wall seconds and processor seconds (user and system, the process's and its
    children's) of one run, its stdin a file (or none), its output discarded. Processor
    time is what a busy machine disturbs less: a run waiting for a core counts none."""
    with open(stdin_path or os.devnull, "rb") as stdin:
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        took = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code:
        raise subprocess.CalledProcessError(code, argv)
    return took, usage.ru_utime + usage.ru_stime


def timed_rounds(
    commands: dict[str, list[str]], repeat: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """``_rounds`` of ``timed``: each command's wall times and processor times."""
    both = _rounds(commands, repeat, timed)
    walls = {k: [w for w, _ in v] for k, v in both.items()}
    cpus = {k: [c for _, c in v] for k, v in both.items()}
    return walls, cpus


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


class Report:
    """What a run prints: plain text for a terminal, or Markdown (``--markdown``)."""

    def __init__(self, markdown: bool) -> None:
        self.markdown = markdown

    def line(self, text: str = "") -> None:
        print(text, flush=True)

    def table(self, header: list[str], rows: list[list[str]]) -> None:
        if self.markdown:
            print("| " + " | ".join(header) + " |")
            print("|" + "---|" * len(header))
            for row in rows:
                print("| " + " | ".join(row) + " |")
        else:
            widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
            for row in [header, *rows]:
                print(
                    "  ".join(
                        cell.ljust(width) for cell, width in zip(row, widths, strict=True)
                    ).rstrip()
                )
        print(flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpora", nargs="+", help="message-per-line logs; targets hold on each")
    parser.add_argument("--repeat", type=int, default=11, help="rounds of chatpipe and the floor")
    parser.add_argument(
        "--langchain-repeat", type=int, default=3, help="runs of each langchain-core job (0: none)"
    )
    parser.add_argument(
        "--rows",
        action="append",
        default=[],
        help="a conversation-per-line file: time convert --jobs 2 on it (repeatable)",
    )
    parser.add_argument(
        "--log-jobs",
        action="append",
        default=[],
        help="a message-per-line log: time buffer and openai --jobs 2 on it (repeatable)",
    )
    parser.add_argument(
        "--rss",
        action="append",
        default=[],
        help="a log of a million messages: peak RSS of each chatpipe job on it (repeatable)",
    )
    parser.add_argument("--markdown", action="store_true", help="print the report as Markdown")
    args = parser.parse_args()
    _compile_chatpipe()
    report = Report(args.markdown)
    from stamp import stamp

    report.line(
        f"run: {stamp()}; bench/run.py --repeat {args.repeat} "
        f"--langchain-repeat {args.langchain_repeat}"
    )
    report.line()
    chatpipe = [PY, "-m", "chatpipe"]
    misses: list[str] = []
    summary: list[list[str]] = []
    for number, corpus in enumerate(args.corpora):
        # peak RSS on the large logs once, with the first corpus
        misses += _corpus(report, chatpipe, corpus, args, summary, args.rss if number == 0 else [])
    tiny = os.path.join(HERE, "..", "fixtures", "openai_chat__cookbook_toy_chat_fine_tuning.jsonl")
    starts = _rounds(
        {"chatpipe": [*chatpipe, "buffer", tiny], "bare": [PY, "-c", "import typer, orjson"]},
        max(15, args.repeat),
        wall,
    )
    start, bare = statistics.median(starts["chatpipe"]), statistics.median(starts["bare"])
    ratio, low, high = _paired(starts["chatpipe"], starts["bare"])
    if ratio > STARTUP:
        misses.append(f"start-up {ratio:.2f}× > {STARTUP}×")
    report.line(
        f"start-up: chatpipe buffer on 5 messages {start * 1000:.0f} ms; "
        f"python -c 'import typer, orjson' {bare * 1000:.0f} ms "
        f"({ratio:.2f}× ({low:.2f}–{high:.2f}); target ≤ {STARTUP}×)"
    )
    for rows_file in args.rows:
        speedup = _jobs(report, chatpipe, ["convert"], rows_file, args.repeat, JOBS_SPEEDUP)
        if speedup < JOBS_SPEEDUP:
            misses.append(f"--jobs 2 on {os.path.basename(rows_file)} {speedup:.2f}×")
    for log in args.log_jobs:  # one conversation cut into ranges: no target of the issue's
        for command in (["buffer"], ["openai"]):
            _jobs(report, chatpipe, command, log, args.repeat)
    report.line()
    report.table(["corpus", *TARGETS, "verdict"], summary)
    report.line(
        "targets of issue #20: "
        + ("every one met" if not misses else "missed: " + "; ".join(misses))
    )


def _corpus(
    report: Report, chatpipe: list[str], corpus: str, args: Any, summary: list, big_logs: list
) -> list:
    """The table of one corpus; the targets it misses."""
    floor = [PY, os.path.join(HERE, "floor.py")]
    misses: list[str] = []
    rows = []
    for name, (cp_args, lc_job) in JOBS.items():
        commands = {"chatpipe": chatpipe + cp_args, "floor": floor}
        walls = _rounds(commands, args.repeat, lambda argv: wall(argv, corpus))
        if args.langchain_repeat:
            # fewer runs (5 s each); compared with chatpipe's median
            commands["langchain"] = [PY, os.path.join(HERE, "lc_jobs.py"), lc_job]
            walls["langchain"] = [
                wall(commands["langchain"], corpus) for _ in range(args.langchain_repeat)
            ]
        rss = {k: peak_rss(argv, corpus) for k, argv in commands.items()}
        for big in big_logs:
            rss[big] = peak_rss(commands["chatpipe"], big)
        rows.append((name, walls, rss))
    size = os.path.getsize(corpus) / 1e6
    with open(corpus, "rb") as data:
        lines = sum(1 for _ in data)
    report.line(
        f"corpus: {corpus}, {lines:,} messages, {size:.1f} MB; {args.repeat} rounds of "
        "chatpipe and the floor back to back (order alternating), langchain-core "
        f"{args.langchain_repeat} runs; times are medians, × floor the median of the rounds' "
        "ratios (range in brackets)"
    )
    report.line()
    cells = []
    ratios = []
    for name, walls, rss in rows:
        cp, fl = statistics.median(walls["chatpipe"]), statistics.median(walls["floor"])
        ratio, low, high = _paired(walls["chatpipe"], walls["floor"])
        bar = TARGETS[name]
        met = ratio <= bar
        if not met:
            misses.append(f"{name} on {os.path.basename(corpus)} {ratio:.2f}× > {bar}×")
        ratios.append(f"{ratio:.2f}" + ("" if met else " ✗"))
        lc_walls = walls.get("langchain")
        lc_cells = (
            [
                f"{statistics.median(lc_walls):.2f} s",
                f"{statistics.median(lc_walls) / cp:.1f}×",
                f"{rss['chatpipe']:.0f} / {rss['langchain']:.0f} MB",
            ]
            if lc_walls
            else ["–", "–", f"{rss['chatpipe']:.0f} MB"]
        )
        cells.append(
            [
                name,
                f"{cp:.2f} s",
                f"{fl:.2f} s",
                f"{ratio:.2f} ({low:.2f}–{high:.2f})",
                f"≤ {bar}",
                *lc_cells,
            ]
        )
    report.table(
        [
            "job",
            "chatpipe",
            "floor",
            "× floor",
            "target",
            "langchain-core",
            "× faster than langchain",
            "RSS chatpipe / langchain",
        ],
        cells,
    )
    summary.append([os.path.basename(corpus), *ratios, "met" if not misses else "missed"])
    for big in big_logs:
        big_peaks = {name: rss[big] for name, _, rss in rows}
        report.line(
            f"peak RSS on {big}: "
            + ", ".join(f"{name} {mb:.0f} MB" for name, mb in big_peaks.items())
            + f" (target ≤ {RSS_MB} MB)"
        )
        report.line()
        # (nan, not measured without GNU time, is not a pass either)
        misses += [
            f"{name} RSS {mb:.0f} MB on {os.path.basename(big)} > {RSS_MB} MB"
            for name, mb in big_peaks.items()
            if not mb <= RSS_MB
        ]
    return misses


def _rounds(commands: dict[str, list[str]], repeat: int, time_one: Any) -> dict[str, list[Any]]:
    """What ``time_one`` gives of each command (its wall time) over ``repeat`` rounds; a round runs every command once,
    in the given order on even rounds and reversed on odd ones, so that neither side
    always runs first."""
    walls: dict[str, list[float]] = {k: [] for k in commands}
    for round_ in range(repeat):
        order = list(commands.items())
        for key, argv in order if round_ % 2 == 0 else reversed(order):
            walls[key].append(time_one(argv))
    return walls


def _paired(mine: list[float], theirs: list[float]) -> tuple[float, float, float]:
    """Median, lowest and highest of the rounds' ratios mine/theirs. Two runs of a round
    are seconds apart, so a machine whose speed drifts over minutes moves both alike;
    a ratio of medians taken over the whole run would not cancel that drift."""
    ratios = sorted(a / b for a, b in zip(mine, theirs, strict=True))
    return statistics.median(ratios), ratios[0], ratios[-1]


def _jobs(
    report: Report,
    chatpipe: list[str],
    command: list[str],
    path: str,
    repeat: int,
    target: float | None = None,
) -> float:
    """A command on a file in one process and with --jobs 2: the speed-up (median of the
    rounds' ratios)."""
    walls = _rounds({n: [*chatpipe, *command, "--jobs", n, path] for n in ("1", "2")}, repeat, wall)
    one, two = statistics.median(walls["1"]), statistics.median(walls["2"])
    speedup, low, high = _paired(walls["1"], walls["2"])
    with open(path, "rb") as data:
        count = sum(line.count(b'"role"') for line in data)
    wanted = f"; target ≥ {target}×" if target is not None else ""
    report.line(
        f"{' '.join(command)} --jobs 2 on {path} (about {count:,} messages): {two:.2f} s; one "
        f"process {one:.2f} s ({speedup:.2f}× faster ({low:.2f}–{high:.2f}){wanted})"
    )
    return speedup


def _compile_chatpipe() -> None:
    """Bytecode for chatpipe's modules, as ``pip install .`` writes it: an editable install
    under PYTHONDONTWRITEBYTECODE=1 (this machine's setting) would compile every module
    on every start, which no installed copy does."""
    import compileall

    import chatpipe

    compileall.compile_dir(os.path.dirname(chatpipe.__file__), quiet=1)


if __name__ == "__main__":
    main()
