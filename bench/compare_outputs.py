"""Run the same commands through two checkouts of chatpipe and compare every byte.

For restructurings that must change nothing a user sees: every command of a matrix, on
every fixture and on the given corpora, through the ``src/`` of each checkout (stdout,
stderr and exit code). Prints the runs that differ, exits 1 if any.

    git worktree add /tmp/before <old commit>
    python bench/compare_outputs.py /tmp/before/src src --corpus bench/corpus/log_100k.jsonl \
        --corpus bench/corpus/rows_100k.jsonl

``--save FILE`` keeps the old checkout's results; give FILE in its place next time to
compare against them without running the old checkout again.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures")
TEMPLATE = os.path.join(FIXTURES, "chat_templates")

# every reading command, and every writable dialect through convert
PER_FILE = [
    ["buffer"],
    ["buffer", "--format", "xml"],
    ["openai"],
    ["openai", "--keep-fields"],
    ["convert"],
    *(
        ["convert", "--to", to]
        for to in ("langchain", "anthropic", "gemini", "sharegpt", "openai", "markdown", "yaml")
    ),
    ["convert", "--branch", "all", "--include-hidden"],
    ["convert", "--on-error", "skip"],
    ["trim", "--max-tokens", "200"],
    ["trim", "--max-tokens", "4000", "--start-on", "human", "--include-system"],
    ["trim", "--max-tokens", "300", "--strategy", "first"],
    ["trim", "--max-tokens", "40", "--token-counter", "messages"],
    ["count"],
    ["count", "--json"],
    ["stats", "--json"],
    ["validate"],
    ["validate", "--json"],
    ["filter", "--include-types", "human", "--include-types", "ai"],
    ["filter", "--exclude-tool-calls"],
    ["merge"],
    ["show"],
    ["template", "--chat-template", os.path.join(TEMPLATE, "Qwen-Qwen2.5-7B-Instruct.jinja")],
    ["template", "--chat-template", os.path.join(TEMPLATE, "openai-gpt-oss-120b.jinja")],
]
# the bench corpora: the jobs of bench/run.py and the commands that take --jobs
PER_CORPUS = [
    ["buffer"],
    ["buffer", "--format", "xml"],
    ["openai"],
    ["convert"],
    ["convert", "--to", "openai"],
    ["convert", "--jobs", "2"],
    ["trim", "--max-tokens", "4000"],
    ["trim", "--max-tokens", "4000", "--strategy", "first"],
    ["count"],
    ["stats", "--json"],
    ["validate"],
    ["filter", "--include-types", "human"],
    ["merge"],
    # the operations that keep state, or choose: one process, and in parts
    ["dedupe"],
    ["dedupe", "--jobs", "2"],
    ["sample", "-n", "50", "--seed", "3"],
    ["sample", "-n", "50", "--seed", "3", "--jobs", "2"],
    ["select", "--min-messages", "4", "--jobs", "2"],
    ["redact", "--jobs", "2"],
    ["head", "-n", "5", "--jobs", "2"],
]


def run(src: str, argv: list[str]) -> str:
    """A digest of what one run printed and how it ended."""
    env = dict(os.environ, PYTHONPATH=src, COLUMNS="100", NO_COLOR="1")
    done = subprocess.run(
        [sys.executable, "-m", "chatpipe", *argv],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=env,
        cwd=os.path.dirname(HERE),
    )
    digest = hashlib.sha256(done.stdout).hexdigest()[:16]
    return f"exit {done.returncode} stdout {digest} stderr {done.stderr.decode(errors='replace')!r}"


def matrix(corpora: list[str]) -> list[list[str]]:
    runs = []
    for path in sorted(glob.glob(os.path.join(FIXTURES, "*.*"))):
        if path.endswith(".md"):
            continue
        rel = os.path.relpath(path, os.path.dirname(HERE))
        runs.extend([*argv, rel] for argv in PER_FILE)
    for path in corpora:
        runs.extend([*argv, path] for argv in PER_CORPUS)
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "before", help="the src/ directory of the old checkout, or results saved with --save"
    )
    parser.add_argument("after", help="the src/ directory of the new checkout")
    parser.add_argument("--corpus", action="append", default=[], help="a bench corpus")
    parser.add_argument("--save", help="write the old checkout's results here (JSON)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    before, after = os.path.abspath(args.before), os.path.abspath(args.after)
    runs = matrix(args.corpus)
    saved: dict[str, str] | None = None
    if before.endswith(".json"):
        with open(before) as file:
            saved = json.load(file)

    def both(argv: list[str]) -> tuple[list[str], str, str]:
        new = run(after, argv)
        if saved is not None:
            return argv, saved.get(" ".join(argv), "not recorded"), new
        return argv, new if before == after else run(before, argv), new

    differ = 0
    results = {}
    with ThreadPoolExecutor(args.workers) as pool:
        for argv, old, new in pool.map(both, runs):
            results[" ".join(argv)] = old
            if old != new:
                differ += 1
                print(f"DIFFERS: chatpipe {' '.join(argv)}\n  before: {old}\n  after:  {new}")
    if args.save:
        with open(args.save, "w") as file:
            json.dump(results, file, indent=0)
    print(f"{len(runs)} runs, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
