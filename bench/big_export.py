"""A large ChatGPT export on one line, as the export writes it (#51 items 1 and 28): the
real exports' conversations in fixtures/ repeated (each with its own id and title) to
about ``--mb`` megabytes, then, each run alone, its wall and CPU time and peak RSS
(medians of ``--repeat`` rounds; CPU time is the steadier on a shared machine):

- ``whole document``: what reading was before #51, parsed whole by orjson (the file read,
  then ``orjson.loads``; the floor of that way, with nothing converted);
- ``convert --to openai``: chatpipe reading the array element by element and writing
  every conversation;
- ``convert --to html``: the viewer (each conversation's place is shown, so every
  element's line and column is counted), its time per MB.

    python bench/big_export.py [--mb 140] [--repeat 3] [--src OTHER/src] [--no-html]

``--src`` runs the chatpipe of another tree as well (``git worktree add /tmp/old
COMMIT``, then ``--src /tmp/old/src``), each figure side by side.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from stamp import stamp  # noqa: E402
from viewer import real_conversations  # noqa: E402

WHOLE = (
    "import gc, sys, orjson\n"
    "gc.disable()\n"
    "value = orjson.loads(open(sys.argv[1], 'rb').read())\n"
    "print(len(value))\n"
)


def make_export(megabytes: float, path: str) -> int:
    """About ``megabytes`` of conversations on one line (UTF-8, not escaped); how many."""
    real = real_conversations()
    target = int(megabytes * 1e6)
    size, count = 2, 0
    with open(path, "w", encoding="utf-8") as out:
        out.write("[")
        while size < target:
            item = copy.deepcopy(real[count % len(real)])
            item["id"] = f"bench-{count}"
            item["title"] = f"{item.get('title') or 'Untitled'} ({count})"
            text = json.dumps(item, ensure_ascii=False)
            out.write(("," if count else "") + text)
            size += len(text.encode()) + 1
            count += 1
        out.write("]")
    return count


def measure(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS in MB) of one run, its output discarded."""
    start = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%U %S %M", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        check=False,
    )
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(done.stderr.decode(errors="replace"))
    user, system, rss = done.stderr.decode().strip().splitlines()[-1].split()
    return took, float(user) + float(system), int(rss) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=140)
    parser.add_argument("--repeat", type=int, default=3, help="rounds (medians printed)")
    parser.add_argument("--src", action="append", default=[], help="another chatpipe's src/")
    parser.add_argument("--no-html", action="store_true", help="leave out the viewer")
    args = parser.parse_args()
    print(f"run: {stamp()}")
    trees = [("this chatpipe", None), *((src, src) for src in args.src)]
    with tempfile.TemporaryDirectory() as tmp:
        export = os.path.join(tmp, "conversations.json")
        count = make_export(args.mb, export)
        mb = os.path.getsize(export) / 1e6
        print(f"export: {count:,} conversations, {mb:.1f} MB on one line; medians of {args.repeat}")
        print("| run | wall | CPU | peak RSS |\n|---|---|---|---|")
        runs = {
            "whole document (orjson.loads, nothing converted)": (
                [sys.executable, "-c", WHOLE, export],
                None,
            )
        }
        page = os.path.join(tmp, "page.html")
        for name, src in trees:
            runs[f"convert --to openai ({name})"] = (
                [sys.executable, "-m", "chatpipe", "convert", "--to", "openai", export],
                src,
            )
            if not args.no_html:
                runs[f"convert --to html ({name})"] = (
                    [
                        sys.executable,
                        "-m",
                        "chatpipe",
                        "convert",
                        "--to",
                        "html",
                        "-o",
                        page,
                        export,
                    ],
                    src,
                )
        found: dict[str, list[tuple[float, float, float]]] = {run: [] for run in runs}
        for _ in range(args.repeat):  # (rounds in turn: a moment's load falls on each)
            for run, (argv, src) in runs.items():
                env = dict(os.environ)
                if src is not None:
                    env["PYTHONPATH"] = src
                found[run].append(measure(argv, env))
        for run, rounds in found.items():
            wall, cpu, rss = (statistics.median(r[k] for r in rounds) for k in range(3))
            rate = f", {cpu / mb * 1000:.0f} ms CPU per MB" if "html" in run else ""
            print(f"| {run} | {wall:.2f} s | {cpu:.2f} s{rate} | {rss:.0f} MB |")


if __name__ == "__main__":
    main()
