"""Every fixture converted to every API target through two checkouts of chatpipe: which
outputs and which warnings differ. For a change to the API writers, where each difference
is to be looked at (compare_outputs.py is for changes that must differ in nothing).

    git worktree add /tmp/before <old commit>
    python bench/compare_targets.py /tmp/before/src src

Prints a line for each run whose stdout differs (``OUT target fixture``) and for each whose
stderr does (``ERR target fixture: the lines the new checkout adds``), then the counts.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TARGETS = ("openai", "openai-responses", "anthropic", "gemini", "bedrock-converse", "ollama")


def fixtures() -> list[str]:
    """The fixtures fixtures/DIALECTS.md names as chat logs."""
    with open(os.path.join(ROOT, "fixtures", "DIALECTS.md"), encoding="utf-8") as table:
        rows = re.findall(r"^\| `([^`]+)` \| ([\w-]+) \| (\w+) \|", table.read(), re.M)
    return [name for name, dialect, _ in rows if dialect != "none"]


def convert(src: str, name: str, target: str) -> tuple[int, str, str]:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    path = os.path.join(ROOT, "fixtures", name)
    done = subprocess.run(
        [sys.executable, "-m", "chatpipe", "convert", "--to", target, path],
        capture_output=True,
        text=True,
        env=env,
    )
    return done.returncode, done.stdout, done.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("before", help="the src/ directory of the old checkout")
    parser.add_argument("after", help="the src/ directory of the new checkout")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--match", default="", help="only the fixtures whose name holds this")
    args = parser.parse_args()
    runs = [(name, t) for name in fixtures() if args.match in name for t in TARGETS]

    def both(run: tuple[str, str]) -> tuple[tuple[str, str], tuple, tuple]:
        return run, convert(args.before, *run), convert(args.after, *run)

    outs, errs, same = Counter(), Counter(), 0
    with ThreadPoolExecutor(args.workers) as pool:
        for (name, target), old, new in pool.map(both, runs):
            if old == new:
                same += 1
                continue
            if old[:2] != new[:2]:
                outs[target] += 1
                print(f"OUT {target} {name}")
            if old[2] != new[2]:
                errs[target] += 1
                added = sorted(set(new[2].splitlines()) - set(old[2].splitlines()))
                print(f"ERR {target} {name}: " + " / ".join(added))
    print(f"{len(runs)} runs, {same} the same; stdout differs: {dict(outs)}; stderr: {dict(errs)}")


if __name__ == "__main__":
    main()
