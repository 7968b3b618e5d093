"""``chatpipe template`` against transformers rendering the same chat template (issue #21).

Fine-tuning rows (a conversation per line, tool calls and tool results among them) are
rendered through a real template (Qwen 2.5's by default) end to end, import included:

- chatpipe: ``chatpipe template --chat-template T rows.jsonl`` (one JSON string per line);
- transformers: a Python process that imports transformers' own chat-template rendering
  (``render_jinja_template``, what ``apply_chat_template(tokenize=False)`` calls), reads
  the rows with the standard json module, gives tool-call arguments as objects, renders
  each conversation and writes one JSON string per line: the script a user writes today.

Paired rounds, order alternating; the figure is the median of the rounds' ratios (target:
chatpipe at least 3× faster). Also: start-up of ``chatpipe template`` on one small
conversation (target: under 0.3 s).

    python bench/templates.py --conversations 100000
    python bench/templates.py --conversations 100000 \
        --template fixtures/chat_templates/meta-llama-Llama-3.1-8B-Instruct.jinja \
        --var 'bos_token=<|begin_of_text|>'

Not part of the test suite (tests/test_bench_smoke.py runs it on a few rows).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from run import _paired, _rounds, timed_rounds, wall  # noqa: E402
from stamp import stamp  # noqa: E402

TARGET = 3.0
STARTUP = 0.3
TEMPLATE = os.path.join(ROOT, "fixtures", "chat_templates", "Qwen-Qwen2.5-7B-Instruct.jinja")

# what a user writes with transformers today (no torch: the rendering needs none)
TRANSFORMERS_SCRIPT = r"""
import json, sys
from transformers.utils.chat_template_utils import render_jinja_template
template = open(sys.argv[1], encoding="utf-8").read()
tokens = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}  # (bos_token, ...)
out = sys.stdout
for line in open(sys.argv[2], encoding="utf-8"):
    row = json.loads(line)
    chat = []
    for m in row["messages"]:
        m = {k: v for k, v in m.items() if v is not None}
        if m.get("tool_calls"):
            m["tool_calls"] = [
                {**c, "function": {**c["function"],
                                   "arguments": json.loads(c["function"]["arguments"])}}
                for c in m["tool_calls"]
            ]
            m.setdefault("content", "")
        chat.append(m)
    text = render_jinja_template(
        [chat], chat_template=template, tools=row.get("tools"), **tokens
    )[0][0]
    out.write(json.dumps(text, ensure_ascii=False) + "\n")
"""


def rows(count: int) -> list[str]:
    """``count`` fine-tuning rows: chats of 2 to 8 turns, a third with a tool call."""
    out = []
    for k in range(count):
        messages = [{"role": "system", "content": f"You are assistant number {k % 97}."}]
        for turn in range(2 + k % 4):
            messages.append(
                {"role": "user", "content": f"Question {turn} of row {k}: " + "why? " * (k % 7)}
            )
            if (k + turn) % 3 == 0:
                call = f"call_{k}_{turn}"
                messages.append(
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": call,
                                "type": "function",
                                "function": {"name": "lookup", "arguments": json.dumps({"q": k})},
                            }
                        ],
                    }
                )
                messages.append({"role": "tool", "tool_call_id": call, "content": f"result {k}"})
            messages.append(
                {"role": "assistant", "content": "Because. " * (1 + k % 5) + "```py\nx = {k}\n```"}
            )
        out.append(json.dumps({"messages": messages}, ensure_ascii=False) + "\n")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--conversations", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5, help="paired rounds")
    parser.add_argument("--template", default=TEMPLATE)
    parser.add_argument(
        "--var",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a special token the template uses (bos_token=<|begin_of_text|>), on both sides",
    )
    args = parser.parse_args()
    tokens = dict(v.split("=", 1) for v in args.var)
    variables = [f"--var={v}" for v in args.var]
    chatpipe = [sys.executable, "-m", "chatpipe"]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "rows.jsonl")
        with open(path, "w", encoding="utf-8") as out:
            out.writelines(rows(args.conversations))
        small = os.path.join(tmp, "one.jsonl")
        with open(small, "w", encoding="utf-8") as out:
            out.writelines(rows(1))
        script = os.path.join(tmp, "with_transformers.py")
        with open(script, "w", encoding="utf-8") as out:
            out.write(TRANSFORMERS_SCRIPT)
        commands = {
            "chatpipe": [*chatpipe, "template", "--chat-template", args.template, *variables, path],
            "transformers": [sys.executable, script, args.template, path, json.dumps(tokens)],
        }
        # the same text on both sides, or the comparison means nothing
        import subprocess

        ours = subprocess.run(commands["chatpipe"], capture_output=True, check=True).stdout
        theirs = subprocess.run(commands["transformers"], capture_output=True, check=True).stdout
        if [json.loads(x) for x in ours.splitlines()] != [
            json.loads(x) for x in theirs.splitlines()
        ]:
            raise SystemExit("chatpipe and transformers rendered different texts")
        walls, cpus = timed_rounds(commands, args.repeat)
        ratio, low, high = _paired(walls["transformers"], walls["chatpipe"])
        cpu_ratio, cpu_low, cpu_high = _paired(cpus["transformers"], cpus["chatpipe"])
        startup = _rounds(
            {
                "template": [
                    *chatpipe,
                    "template",
                    "--chat-template",
                    args.template,
                    *variables,
                    small,
                ]
            },
            max(args.repeat, 5),
            wall,
        )["template"]
        print(f"run: {stamp()}")
        print(
            f"{args.conversations:,} conversations ({os.path.getsize(path) / 1e6:.1f} MB), "
            f"template {os.path.basename(args.template)}, {args.repeat} paired rounds; "
            "times are medians, the ratio the median of the rounds' (range in brackets)\n"
        )
        print("| job | chatpipe | transformers | chatpipe faster by | target |")
        print("|---|---|---|---|---|")
        mine, yours = statistics.median(walls["chatpipe"]), statistics.median(walls["transformers"])
        met = "met" if ratio >= TARGET else "NOT met"
        print(
            f"| render, end to end | {mine:.2f} s | {yours:.2f} s | {ratio:.2f}× "
            f"({low:.2f}–{high:.2f}) | ≥ {TARGET:g}×: {met} |"
        )
        mine, yours = statistics.median(cpus["chatpipe"]), statistics.median(cpus["transformers"])
        print(
            f"| render, processor time | {mine:.2f} s | {yours:.2f} s | {cpu_ratio:.2f}× "
            f"({cpu_low:.2f}–{cpu_high:.2f}) | |"
        )
        start = statistics.median(startup)
        met = "met" if start < STARTUP else "NOT met"
        print(f"| start-up, one conversation | {start:.3f} s | | | < {STARTUP:g} s: {met} |")


if __name__ == "__main__":
    main()
