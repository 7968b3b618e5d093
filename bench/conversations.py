"""Issue #42's commands on a conversation-per-line corpus, against the orjson floor
(floor.py) and against what a user would reach for without chatpipe (jq, head, shuf,
awk), side by side, with each run's peak memory.

    python bench/corpus.py 1000000 bench/corpus/rows_1m.jsonl --rows
    python bench/conversations.py bench/corpus/rows_1m.jsonl --rounds 5

Each round runs the floor, then every job, each job right after the floor's run so that
the machine's drift moves both sides of a ratio alike; a ratio is the median of the
rounds'. Each run's processor time (user and system, of the process: what a busy machine
disturbs less than the wall clock) is taken too, and its ratio to the floor's printed
beside the wall clock's. The other tools do a nearby job, not the same one (jq cannot
count tokens or normalise text): their column says what each does, and how many times
faster chatpipe is. Targets (issue #50): head, sample, split, select by metadata or size
<= 1.5x the floor; dedupe, grep, redact <= 3x, grep and select >= 3x faster than jq;
convert, openai, buffer, trim on rows <= 2x.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from stamp import stamp  # noqa: E402

PY = sys.executable
CHATPIPE = [PY, "-m", "chatpipe"]

# name, chatpipe's arguments, target x floor, the nearest other tool (a shell line, with
# {corpus}; None where there is none) and what that tool does; {out} is a new folder a run
JOBS = [
    (
        "select --max-tokens 4000",
        ["select", "--max-tokens", "4000"],
        1.5,
        "jq -c 'select(([.messages[] | .content | tostring] | add | length) / 4 <= 4000)' {corpus}",
        "jq: characters / 4, not tokens",
    ),
    (
        "select --min-messages 12",
        ["select", "--min-messages", "12"],
        1.5,
        "jq -c 'select((.messages | length) >= 12)' {corpus}",
        "jq: the same",
    ),
    (
        "grep",
        ["grep", "Paris"],
        3.0,
        "jq -c 'select(any(.messages[]; (.content | tostring) | test(\"Paris\")))' {corpus}",
        "jq: matching conversations, not messages",
    ),
    ("head -n 1000", ["head", "-n", "1000"], 1.5, "head -n 1000 {corpus}", "head: lines"),
    (
        "sample -n 1000",
        ["sample", "-n", "1000", "--seed", "1"],
        1.5,
        "shuf -n 1000 --random-source={corpus} {corpus}",
        "shuf: lines, input order lost",
    ),
    (
        "sample --fraction 0.1",
        ["sample", "--fraction", "0.1", "--seed", "1"],
        1.5,
        "awk 'BEGIN { srand(1) } rand() < 0.1' {corpus}",
        "awk: a random tenth, not a stable one",
    ),
    (
        "split 0.9/0.1",
        ["split", "--ratio", "train=0.9,test=0.1", "--seed", "1", "--output-dir", "{out}"],
        1.5,
        'awk \'BEGIN { srand(1) } { print > (rand() < 0.9 ? "{out}/train.jsonl" : '
        '"{out}/test.jsonl") }\' {corpus}',
        "awk: a random side a line, not a stable one",
    ),
    (
        "dedupe",
        ["dedupe", "-q"],
        3.0,
        "awk '!seen[$0]++' {corpus}",
        "awk: byte-identical lines only",
    ),
    ("redact", ["redact", "-q"], 3.0, None, ""),
    ("convert --to canonical", ["convert", "--to", "canonical"], 2.0, None, ""),
    ("openai", ["openai"], 2.0, None, ""),
    ("buffer", ["buffer"], 2.0, None, ""),
    ("trim --max-tokens 4000", ["trim", "--max-tokens", "4000"], 2.0, None, ""),
    (
        "count",
        ["count"],
        2.0,
        "jq -c '[.messages[] | .content | tostring] | add | length' {corpus}",
        "jq: characters, not tokens",
    ),
]


def timed(
    command: list[str] | str, shell: bool = False, stdin: str | None = None
) -> tuple[float, int, float]:
    """(seconds, peak RSS in MB, processor seconds) of one run, its output thrown away;
    ``{out}`` in the command is a new temporary folder (split's sides), removed after."""
    scratch = tempfile.mkdtemp(prefix="chatpipe-bench-")
    out = os.path.join(scratch, "sides")
    if shell:
        assert isinstance(command, str)
        os.mkdir(out)  # (awk writes into a folder that is there)
        command = command.replace("{out}", out)
    else:
        command = [part.replace("{out}", out) for part in command]
    try:
        return _timed(command, shell, stdin)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _timed(command: list[str] | str, shell: bool, stdin: str | None) -> tuple[float, int, float]:
    source = open(stdin, "rb") if stdin else subprocess.DEVNULL  # noqa: SIM115
    try:
        start = time.perf_counter()
        process = subprocess.Popen(
            command, shell=shell, stdin=source, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
    finally:
        if stdin:
            source.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    error = process.stderr.read().decode(errors="replace") if process.stderr else ""
    if process.returncode not in (0, 1):  # grep's 1: nothing found
        raise SystemExit(f"{command} failed ({process.returncode}): {error.strip()}")
    return elapsed, usage.ru_maxrss // 1024, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", action="append", help="run only jobs starting with this")
    args = parser.parse_args()
    corpus = args.corpus
    jobs = [j for j in JOBS if not args.only or any(j[0].startswith(o) for o in args.only)]
    floor = [PY, os.path.join(HERE, "floor.py")]
    names = [j[0] for j in jobs]
    ratios: dict[str, list[float]] = {n: [] for n in names}  # wall clock, to the floor's
    cpu_ratios: dict[str, list[float]] = {n: [] for n in names}  # processor time, the same
    times: dict[str, list[float]] = {n: [] for n in names}
    cpus: dict[str, list[float]] = {n: [] for n in names}
    floors: list[float] = []
    floor_cpus: list[float] = []
    rss: dict[str, int] = {}
    others: dict[str, list[float]] = {n: [] for n in names}
    faster: dict[str, list[float]] = {n: [] for n in names}  # other tool's time / chatpipe's
    other_rss: dict[str, int] = {}
    for _ in range(args.rounds):
        for name, arguments, _target, other, _what in jobs:
            base, floor_rss, base_cpu = timed(floor, stdin=corpus)
            floors.append(base)
            floor_cpus.append(base_cpu)
            rss["floor"] = max(rss.get("floor", 0), floor_rss)
            seconds, peak, cpu = timed([*CHATPIPE, *arguments, corpus])
            times[name].append(seconds)
            cpus[name].append(cpu)
            ratios[name].append(seconds / base)
            cpu_ratios[name].append(cpu / base_cpu)
            rss[name] = max(rss.get(name, 0), peak)
            tool = other.split()[0] if other else None
            if other and shutil.which(tool):
                line = other.replace("{corpus}", shlex.quote(corpus))
                theirs, peak, _ = timed(line, shell=True)
                others[name].append(theirs)
                faster[name].append(theirs / seconds)
                other_rss[name] = max(other_rss.get(name, 0), peak)
    size = os.path.getsize(corpus) / 1e6
    print(f"run: {stamp()}")
    print(
        f"corpus: {corpus}, {size:.1f} MB; {args.rounds} rounds; floor median "
        f"{statistics.median(floors):.2f} s ({statistics.median(floor_cpus):.2f} s of "
        f"processor time), peak RSS {rss['floor']} MB; × floor: the median of the rounds' "
        "ratios (range), of the wall clock and of processor time\n"
    )
    print(
        "| job | chatpipe | × floor | × floor, processor time | target | peak RSS "
        "| other tool | its time | chatpipe faster by | its RSS |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, _arguments, target, _other, what in jobs:
        ratio, cpu_ratio = statistics.median(ratios[name]), statistics.median(cpu_ratios[name])
        mark = "" if target is None else (" ✓" if ratio <= target else " ✗")
        cpu_mark = "" if target is None else (" ✓" if cpu_ratio <= target else " ✗")
        other_time = f"{statistics.median(others[name]):.2f} s" if others[name] else "–"
        by = faster[name]
        by_text = f"{statistics.median(by):.2f}× ({min(by):.2f}–{max(by):.2f})" if by else "–"
        print(
            f"| {name} | {statistics.median(times[name]):.2f} s | {ratio:.2f}"
            f" ({min(ratios[name]):.2f}–{max(ratios[name]):.2f}){mark} | {cpu_ratio:.2f}"
            f" ({min(cpu_ratios[name]):.2f}–{max(cpu_ratios[name]):.2f}){cpu_mark} | "
            f"{'–' if target is None else f'≤ {target}'} | {rss[name]} MB | "
            f"{what or '–'} | {other_time} | {by_text} | {other_rss.get(name, '–')}"
            f"{' MB' if name in other_rss else ''} |"
        )


if __name__ == "__main__":
    main()
