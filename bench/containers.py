"""Reading a JSON array against JSONL, and whole-document writers' memory (issue #23).

Two questions, each answered side by side in one run:

1. Is a JSON array read as fast as the same messages as JSONL, and in time linear in its
   size? The log's messages are written again as one JSON array; ``count`` and
   ``convert`` run on both in paired rounds (order alternating), the ratio is the median
   of the rounds' ratios (target: within 1.5×); the array is also read at a quarter of
   its size, so that the time per message at both sizes shows the reading is linear.
2. Do the writers of whole documents (Markdown, YAML, ``--json``, ``show``) hold the
   output? Peak RSS on a log and on a log ten times its size: streamed, the two are
   alike (target: within 10 MB).

    python bench/corpus.py 100000 bench/corpus/log_100k.jsonl
    python bench/containers.py bench/corpus/log_100k.jsonl

Not part of the test suite (tests/test_bench_smoke.py runs it on a tiny log).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from run import _paired, _rounds, peak_rss, wall  # noqa: E402
from stamp import stamp  # noqa: E402

ARRAY_RATIO = 1.5
WRITER_GROWTH_MB = 10
READERS = {"count": ["count"], "convert": ["convert"]}
WRITERS = {
    "convert --to markdown": ["convert", "--to", "markdown"],
    "convert --to yaml": ["convert", "--to", "yaml"],
    "convert --json": ["convert", "--json"],
    "openai --json": ["openai", "--json"],
    "show --no-pager": ["show", "--no-pager"],
}


def _array(lines: list[bytes], path: str) -> None:
    with open(path, "wb") as out:
        out.write(b"[" + b",".join(line.rstrip(b"\n") for line in lines) + b"]")


def _jsonl(lines: list[bytes], path: str) -> None:
    with open(path, "wb") as out:
        out.writelines(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("log", help="a message-per-line OpenAI JSONL log (bench/corpus.py)")
    parser.add_argument("--repeat", type=int, default=7, help="paired rounds per job")
    parser.add_argument(
        "--writer-messages",
        type=int,
        default=10_000,
        help="messages of the smaller log the writers run on (the larger has 10×)",
    )
    args = parser.parse_args()
    chatpipe = [sys.executable, "-m", "chatpipe"]
    with open(args.log, "rb") as log:
        lines = [line for line in log if line.strip()]
    met = True
    with tempfile.TemporaryDirectory() as tmp:
        jsonl, array = os.path.join(tmp, "log.jsonl"), os.path.join(tmp, "log.json")
        quarter = os.path.join(tmp, "quarter.json")
        _jsonl(lines, jsonl)
        _array(lines, array)
        _array(lines[: len(lines) // 4], quarter)
        print(f"run: {stamp()}")
        print(
            f"log: {args.log}, {len(lines):,} messages; as a JSON array "
            f"{os.path.getsize(array) / 1e6:.1f} MB; {args.repeat} paired rounds, "
            "times are medians, ratios the median of the rounds' (range in brackets)\n"
        )
        print(
            "| job | JSON array | JSONL | array × JSONL | target | quarter array | per message, quarter / whole |"
        )
        print("|---|---|---|---|---|---|---|")
        for name, argv in READERS.items():
            commands = {
                "array": [*chatpipe, *argv, array],
                "jsonl": [*chatpipe, *argv, jsonl],
                "quarter": [*chatpipe, *argv, quarter],
            }
            walls = _rounds(commands, args.repeat, wall)
            ratio, low, high = _paired(walls["array"], walls["jsonl"])
            whole, part = statistics.median(walls["array"]), statistics.median(walls["quarter"])
            per = (part / (len(lines) // 4)) / (whole / len(lines))
            ok = ratio <= ARRAY_RATIO
            met = met and ok
            print(
                f"| {name} | {whole:.2f} s | {statistics.median(walls['jsonl']):.2f} s | "
                f"{ratio:.2f} ({low:.2f}–{high:.2f}) | ≤ {ARRAY_RATIO}{'' if ok else ' MISSED'} | "
                f"{part:.2f} s | {per:.2f} |"
            )
        small, large = os.path.join(tmp, "small.jsonl"), os.path.join(tmp, "large.jsonl")
        count = min(args.writer_messages, len(lines))
        _jsonl(lines[:count], small)
        _jsonl(lines[:count] * 10, large)
        print(f"\npeak RSS of whole-document writers on {count:,} and {count * 10:,} messages:\n")
        print("| writer | small log | 10× log | growth | target |")
        print("|---|---|---|---|---|")
        for name, argv in WRITERS.items():
            a = peak_rss([*chatpipe, *argv, small], os.devnull)
            b = peak_rss([*chatpipe, *argv, large], os.devnull)
            ok = b - a <= WRITER_GROWTH_MB
            met = met and ok
            print(
                f"| {name} | {a:.0f} MB | {b:.0f} MB | {b - a:+.0f} MB | "
                f"≤ +{WRITER_GROWTH_MB} MB{'' if ok else ' MISSED'} |"
            )
    print(f"\ntargets of issue #23: {'every one met' if met else 'some missed'}")


if __name__ == "__main__":
    main()
