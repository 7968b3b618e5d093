"""Profile one chatpipe command in this process with pyinstrument and print its call tree.

chatpipe ends its process with ``os._exit`` (no teardown), which a profiler wrapping the
process never sees end; this runs the command's own entry point in-process instead, its
output sent to /dev/null, and prints the tree (built-ins included) on stdout.

    pip install pyinstrument
    python bench/call_tree.py bench/corpus/agent_100k.jsonl buffer --format xml
    python bench/call_tree.py bench/corpus/log_100k.jsonl openai --depth 18

``--depth N`` prints the tree N calls deep (default 22; the command's work starts about
12 calls down).
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    argv = sys.argv[1:]
    depth = 22
    if "--depth" in argv:
        at = argv.index("--depth")
        depth = int(argv[at + 1])
        del argv[at : at + 2]
    corpus, *command = argv
    from pyinstrument import Profiler

    from chatpipe.cli import execute

    devnull = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(1)
    sys.argv = ["chatpipe", *command, corpus]
    profiler = Profiler(interval=0.0005)
    os.dup2(devnull, 1)
    profiler.start()
    try:
        execute()
    except SystemExit:
        pass
    finally:
        sys.stdout.flush()
        profiler.stop()
        os.dup2(saved, 1)
    text = profiler.output_text(unicode=False, color=False, show_all=True)
    for line in text.splitlines():
        if line.strip() and (len(line) - len(line.lstrip(" |`-"))) // 3 <= depth:
            print(line)


if __name__ == "__main__":
    main()
