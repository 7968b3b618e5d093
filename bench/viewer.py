"""How fast the HTML viewer is on a large export: write a ChatGPT export of N
conversations (default 1,000) made of the real ChatGPT exports in fixtures/ (each copied
with a new id, title and one numbered word), convert it with ``chatpipe convert --to html``,
open the page in Chromium (Debian's /usr/bin/chromium, driven by Playwright) and time:

- ``write``: the conversion, wall clock, median of the rounds;
- ``interactive``: from navigation start until the viewer's script has listed every
  conversation and shown the first (its ``chatpipe-ready`` performance mark);
- ``search``: typing a word into the search box until the list is filtered and the next
  frame painted (a common word, and a word one conversation holds);
- ``open``: a click on a conversation until it is shown and painted.

    python bench/viewer.py [--conversations 1000] [--repeat 3]

Targets (#22): interactive < 2 s, search < 100 ms.
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
from pathlib import Path

from stamp import stamp  # the date, CPU, Python and chatpipe of a run

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "fixtures").glob("chatgpt_export__*.json"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def real_conversations() -> list[dict]:
    found = []
    for path in SOURCES:
        value = json.loads(path.read_text())
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict) and isinstance(item.get("mapping"), dict) and item["mapping"]:
                found.append(item)
    return found


def make_export(count: int, path: Path) -> None:
    """``count`` conversations, the real ones in turn, each with its own id, title and
    a word only it holds (``zebra<N>``) in its first user message."""
    real = real_conversations()
    out = []
    for number in range(count):
        item = copy.deepcopy(real[number % len(real)])
        item["id"] = f"bench-{number}"
        item["title"] = f"{item.get('title') or 'Untitled'} ({number})"
        for node in item["mapping"].values():
            message = (node or {}).get("message") or {}
            parts = (message.get("content") or {}).get("parts")
            if (
                (message.get("author") or {}).get("role") == "user"
                and parts
                and isinstance(parts[0], str)
            ):
                parts[0] = f"{parts[0]} zebra{number}"
                break
        out.append(item)
    path.write_text(json.dumps(out))


SEARCH = """async (word) => {
  const q = document.getElementById("q");
  const start = performance.now();
  q.value = word;
  q.dispatchEvent(new Event("input"));
  await new Promise((done) => requestAnimationFrame(() => setTimeout(done)));
  const took = performance.now() - start;
  const shown = document.querySelectorAll("#list li:not([hidden])").length;
  q.value = "";
  q.dispatchEvent(new Event("input"));
  return [took, shown];
}"""

OPEN = """async (n) => {
  const start = performance.now();
  document.querySelectorAll("#list li a")[n].click();
  await new Promise((done) => setTimeout(done));
  await new Promise((done) => requestAnimationFrame(() => setTimeout(done)));
  return [performance.now() - start, document.querySelector("#view h1").textContent];
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conversations", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        export, page_path = Path(tmp) / "conversations.json", Path(tmp) / "viewer.html"
        make_export(args.conversations, export)
        writes = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "chatpipe",
                    "convert",
                    "--to",
                    "html",
                    "--branch",
                    "all",
                    str(export),
                    "-o",
                    str(page_path),
                ],
                check=True,
            )
            writes.append(time.perf_counter() - start)
        ready, common, rare, opened = [], [], [], []
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            version = browser.version
            for _ in range(args.repeat):
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(page_path.as_uri())
                page.wait_for_selector("body[data-ready]")
                ready.append(
                    page.evaluate("performance.getEntriesByName('chatpipe-ready')[0].startTime")
                )
                took, shown_common = page.evaluate(SEARCH, "python")
                common.append(took)
                took, shown_rare = page.evaluate(SEARCH, f"zebra{args.conversations // 2}")
                rare.append(took)
                took, _title = page.evaluate(OPEN, args.conversations - 1)
                opened.append(took)
                page.close()
            browser.close()
        size = page_path.stat().st_size
        export_size = export.stat().st_size
    print(f"# bench/viewer.py, {stamp()}, Chromium {version}")
    print(
        f"export: {args.conversations} conversations, {export_size / 1e6:.1f} MB; "
        f"page: {size / 1e6:.1f} MB; rounds: {args.repeat}"
    )
    for name, values, unit, target in (
        ("write (chatpipe convert --to html)", [w * 1000 for w in writes], "ms", None),
        ("interactive (navigation to ready)", ready, "ms", 2000),
        (f"search 'python' ({shown_common} shown)", common, "ms", 100),
        (f"search one word ({shown_rare} shown)", rare, "ms", 100),
        ("open the last conversation", opened, "ms", None),
    ):
        verdict = "" if target is None else (" met" if max(values) < target else " MISSED")
        goal = "" if target is None else f" (target < {target} {unit}:{verdict})"
        print(
            f"{name:40s} median {statistics.median(values):8.1f} {unit}, "
            f"range {min(values):.1f}–{max(values):.1f}{goal}"
        )


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
