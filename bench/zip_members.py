"""A zip of many small members (#51 item 8): ``chatpipe count`` on it serially, with
``--jobs 2`` and with ``--engine dask --jobs 2``, each the median wall time of its
rounds. A member part used to open the zip again and read its listing (quadratic: 3,000
members took 0.4 s serially and 27 s on --jobs 2); a worker now keeps the zip open.

    python bench/zip_members.py [--members 3000] [--repeat 3] [--no-dask]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from stamp import stamp  # noqa: E402

FIXTURE = os.path.join(HERE, "..", "fixtures", "openai_chat__cookbook_toy_chat_fine_tuning.jsonl")


def make_zip(members: int, path: str) -> None:
    """``members`` JSONL members, each a conversation of the fixture's, in turn."""
    with open(FIXTURE, encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for number in range(members):
            archive.writestr(f"chats/c{number:05d}.jsonl", json.dumps(rows[number % len(rows)]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--members", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-dask", action="store_true")
    args = parser.parse_args()
    print(f"run: {stamp()}")
    ways = {"serial": [], "--jobs 2": ["--jobs", "2"]}
    if not args.no_dask:
        ways["--engine dask --jobs 2"] = ["--engine", "dask", "--jobs", "2"]
    with tempfile.TemporaryDirectory() as tmp:
        archive = os.path.join(tmp, "many.zip")
        make_zip(args.members, archive)
        print(f"zip: {args.members:,} members, {os.path.getsize(archive) / 1e6:.1f} MB")
        for way, options in ways.items():
            times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                done = subprocess.run(
                    [sys.executable, "-m", "chatpipe", "count", *options, archive],
                    capture_output=True,
                    check=True,
                )
                times.append(time.perf_counter() - start)
            assert len(done.stdout.splitlines()) == args.members, done.stderr
            print(f"| count {way} | {statistics.median(times):.2f} s |")


if __name__ == "__main__":
    main()
