"""The regular expression engine of grep and select (#51): Python's ``re`` as chatpipe runs
it (each search bounded in time: ops/user_regex.py), the same unbounded, and RE2 (the
google-re2 wheel, when installed) on the message texts of a bench corpus; a catastrophic
pattern under each; and the patterns on which the engines disagree.

    python -m pip install google-re2   # optional: the RE2 column
    python bench/regex_engines.py --messages 50000
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus

from chatpipe.ops.user_regex import UserPattern

PATTERNS = [
    "refund",
    r"(?i)weather in \w+",
    r"\b\d{4}-\d{2}-\d{2}\b",
    r"error|fail(?:ed|ure)?",
    r"[A-Z][a-z]+ [A-Z][a-z]+",
]
# (pattern, text): where RE2 and Python's re find different things, or RE2 refuses
DIFFERENCES = [
    (r"\w+", "jürgen"),
    (r"\d+", "٣٤"),  # Arabic-Indic digits
    (r"^a$", "a\n"),
    (r"\bmüller\b", "herr müller sagt"),
    (r"(a)\1", "aa"),
    (r"(?<=@)\w+", "user@example"),
]


def texts(count: int) -> list[str]:
    rng = random.Random(7)
    found: list[str] = []
    for message in corpus.messages(rng):  # (an endless session)
        content = message.get("content")
        if isinstance(content, str) and content:
            found.append(content)
            if len(found) == count:
                return found
    return found


def timed(search, items: list[str]) -> float:
    start = time.perf_counter()
    for text in items:
        search(text)
    return time.perf_counter() - start


def re2_module():
    try:
        import re2
    except ImportError:
        return None
    return re2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=50_000)
    args = parser.parse_args()
    items = texts(args.messages)
    megabytes = sum(len(t.encode()) for t in items) / 1e6
    re2 = re2_module()
    print(f"{len(items):,} message texts, {megabytes:.1f} MB; MB/s of search (higher is better)")
    print(f"{'pattern':32} {'re':>8} {'re, bounded':>12} {'RE2':>8}")
    for pattern in PATTERNS:
        plain = re.compile(pattern).search
        bounded = UserPattern(pattern, "PATTERN").search
        row = [megabytes / timed(plain, items), megabytes / timed(bounded, items)]
        if re2 is not None:
            row.append(megabytes / timed(re2.compile(pattern).search, items))
        print(
            f"{pattern:32} "
            + " ".join(f"{v:8.0f}" for v in row[:1])
            + f" {row[1]:12.0f}"
            + (f" {row[2]:8.0f}" if len(row) > 2 else "       -")
        )
    text = "a" * 35 + "b"
    start = time.perf_counter()
    try:
        UserPattern("(a+)+$", "PATTERN").search(text)
        said = "finished"
    except ValueError:
        said = "stopped"
    print(
        f"\n(a+)+$ on 35 a's and a b: re bounded {said} after {time.perf_counter() - start:.2f} s",
        end="",
    )
    if re2 is not None:
        start = time.perf_counter()
        re2.compile("(a+)+$").search(text)
        print(f"; RE2 {1e6 * (time.perf_counter() - start):.0f} µs", end="")
    print("; re unbounded: 2^35 steps, hours")
    if re2 is None:
        print("\n(google-re2 is not installed: no RE2 column)")
        return
    print(f"\n{'pattern':16} {'text':20} {'re':16} RE2")
    for pattern, sample in DIFFERENCES:
        ours = [m.group() for m in re.finditer(pattern, sample)]
        try:
            theirs = [m.group() for m in re2.compile(pattern).finditer(sample)]
        except Exception as exc:
            theirs = f"refused ({type(exc).__name__})"
        print(f"{pattern:16} {sample!r:20} {ours!s:16} {theirs}")


if __name__ == "__main__":
    main()
