"""Where a log's time goes, by kind of line: the log split into its plain ``{role,
content}`` lines and tool results, its assistant turns of calls, and the rest (content
parts, refusals, reasoning fields, developer turns), and each part timed in-process
against the floor's loop, as bench/inproc.py does.

    python bench/kinds.py bench/corpus/agent_100k.jsonl buffer openai
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PLAIN_ROLES = ("user", "assistant", "system")


def kind(value: dict) -> str:
    if value.get("tool_calls"):
        return "turns of calls"
    if len(value) == 2 and isinstance(value.get("content"), str) and value["role"] in PLAIN_ROLES:
        return "plain"
    if value.get("role") == "tool" and len(value) == 3:
        return "plain"
    return "other"


def main() -> None:
    corpus, *jobs = sys.argv[1:]
    with tempfile.TemporaryDirectory() as folder:
        paths = {
            k: os.path.join(folder, k.replace(" ", "_") + ".jsonl")
            for k in ("plain", "turns of calls", "other")
        }
        counts = dict.fromkeys(paths, 0)
        with contextlib.ExitStack() as files, open(corpus, encoding="utf-8") as lines:
            outs = {
                k: files.enter_context(open(p, "w", encoding="utf-8")) for k, p in paths.items()
            }
            for line in lines:
                found = kind(json.loads(line))
                outs[found].write(line)
                counts[found] += 1
        for name, path in paths.items():
            print(f"{name}: {counts[name]:,} lines, {os.path.getsize(path) / 1e6:.1f} MB")
            for job in jobs:
                done = subprocess.run(
                    [sys.executable, os.path.join(HERE, "inproc.py"), path, *job.split()],
                    capture_output=True,
                    text=True,
                    check=True,
                    env={**os.environ, "REPEAT": "5"},
                )
                print("  " + done.stdout.strip())


if __name__ == "__main__":
    main()
