"""Every "needs the X package" error says how to install the extra that brings it, in one
line, the same words for each extra: from a package index and in a clone (#41)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from chatpipe.errors import install_hint

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
LOG = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
TEMPLATES = FIXTURES / "chat_templates"
QWEN = TEMPLATES / "Qwen-Qwen2.5-7B-Instruct.jinja"
TOKENIZER = TEMPLATES / "all-MiniLM-L6-v2" / "tokenizer.json"

# the command run without a module, and what it says
MISSING = {
    "templates": (
        ["jinja2"],
        ["template", "--chat-template", QWEN, LOG],
        "chat templates need the jinja2 package",
    ),
    "tokenize": (
        ["tokenizers"],
        ["tokenize", "--chat-template", QWEN, "--tokenizer", TOKENIZER, LOG],
        "tokenizing needs the tokenizers package",
    ),
    "hf": (
        ["tokenizers"],
        ["count", "--token-counter", f"hf:{TOKENIZER}", LOG],
        "the hf counter needs the tokenizers package",
    ),
    "tiktoken": (
        ["tiktoken"],
        ["count", "--token-counter", "tiktoken:cl100k_base", LOG],
        "the tiktoken counter needs the tiktoken package",
    ),
    "parquet": (
        ["pyarrow"],
        ["convert", "-o", "{tmp}/x.parquet", LOG],
        "reading or writing Parquet needs pyarrow",
    ),
    "zstd": (
        ["zstandard"],
        ["convert", "-o", "{tmp}/x.jsonl.zst", LOG],
        "{tmp}/x.jsonl.zst: writing zstd needs the zstandard package",
    ),
    "dask": (
        ["dask", "distributed"],
        ["convert", "--engine", "dask", "--workers", "2", LOG],
        "--engine dask needs Dask",
    ),
    "fsspec": (
        ["fsspec"],
        ["convert", "memory://in.jsonl"],
        "memory://in.jsonl: URLs are read and written with fsspec, which is not installed; "
        "the dask extra brings it",
    ),
}

SCRIPT = (
    "import sys\n"
    "for name in sys.argv[1].split(','): sys.modules[name] = None\n"
    "from chatpipe.entry import main\n"
    "sys.argv = ['chatpipe', *sys.argv[2:]]\n"
    "main()\n"
)


def test_the_hint_names_both_ways_in_one_line():
    assert install_hint("parquet") == (
        "pip install 'chatpipe[parquet]', or from a clone: pip install -e '.[parquet]'"
    )


@pytest.mark.parametrize("what", sorted(MISSING))
def test_a_missing_package_names_its_extra_both_ways(what, tmp_path):
    modules, command, said = MISSING[what]
    extra = "dask" if what == "fsspec" else what
    argv = [str(part).replace("{tmp}", str(tmp_path)) for part in command]
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, ",".join(modules), *argv],
        capture_output=True,
        text=True,
        timeout=60,
    )
    expected = said.replace("{tmp}", str(tmp_path))
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"chatpipe: error: {expected} (pip install 'chatpipe[{extra}]', or from a clone: "
        f"pip install -e '.[{extra}]')\n",
    )
    assert list(tmp_path.iterdir()) == []


def test_importing_chatpipe_dask_without_dask_names_the_extra_both_ways():
    done = subprocess.run(
        [sys.executable, "-c", "import sys; sys.modules['dask'] = None; import chatpipe.dask"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "ImportError: chatpipe.dask needs Dask (dask, distributed): pip install "
        "'chatpipe[dask]', or from a clone: pip install -e '.[dask]'"
    )
