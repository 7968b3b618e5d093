"""A text encoded piece by piece (templates/pieces.py) against the same text encoded whole:
the same ids, and the same mapping between characters and tokens, on tokenizers of the
kinds it takes (byte-level BPE with special and plain added tokens, with and without a
normalizer), and refused by those whose pieces it cannot encode alone."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import AddedToken, Tokenizer, normalizers, pre_tokenizers
from tokenizers import models as bpe_models

from chatpipe.templates.hf_tokenizer import TextTokenizer
from chatpipe.templates.pieces import PieceEncoder
from test_tokenize import build_tokenizer

SPECIALS = ["<|im_start|>", "<|im_start|>assistant", "<|im_end|>", "<|eot_id|>", "<s>", "</s>"]
# pieces of text and of tokens, and near misses of tokens
ALPHABET = [
    *SPECIALS,
    "<tool_call>",
    "<|im_",
    "|>",
    "<",
    "assistant\n",
    "user",
    " the ",
    "  ",
    "\n\n",
    "\t",
    "é",
    "e\u0301",
    "中",
    "🙂",
    '{"a": 1}',
    "123456",
]
TEXT = st.lists(st.sampled_from(ALPHABET), max_size=25).map("".join)


@pytest.fixture(scope="module")
def backends(tmp_path_factory) -> list[Tokenizer]:
    path = tmp_path_factory.mktemp("pieces") / "tokenizer.json"
    build_tokenizer(path)
    plain = Tokenizer.from_file(str(path))
    plain.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in SPECIALS])
    plain.add_tokens([AddedToken("<tool_call>", special=False, normalized=False)])
    normalized = Tokenizer.from_file(str(path))
    normalized.normalizer = normalizers.NFC()
    normalized.add_special_tokens([AddedToken(t, normalized=False) for t in SPECIALS])
    return [plain, normalized]


def _same(backend: Tokenizer, text: str) -> None:
    pieces = PieceEncoder.of(backend)
    assert pieces is not None
    for _ in range(2):  # (the second time from the pieces kept)
        made, whole = pieces.encode(text), backend.encode(text, add_special_tokens=False)
        assert made.ids == whole.ids
        for at in range(len(text)):
            assert made.char_to_token(at) == whole.char_to_token(at), at
        for token in range(len(whole.ids)):
            assert made.token_to_chars(token) == whole.token_to_chars(token), token


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=TEXT, which=st.integers(0, 1))
def test_a_text_encoded_by_its_pieces_is_the_text_encoded_whole(backends, text, which):
    _same(backends[which], text)


def test_a_chat_template_s_text_and_its_repeats(backends):
    text = (
        "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nhi 🙂<|im_end|>\n"
        '<|im_start|>assistant\n<tool_call>\n{"name": "f"}\n</tool_call><|im_end|>\n'
    )
    for backend in backends:
        _same(backend, text)
        _same(backend, text + text)


def test_tokenizers_whose_pieces_depend_on_their_place_are_encoded_whole(backends):
    backend = backends[0]
    metaspace = Tokenizer(bpe_models.BPE())
    metaspace.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first")
    metaspace.add_special_tokens(["<s>"])
    prefixed = Tokenizer(bpe_models.BPE())
    prefixed.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    prefixed.add_special_tokens(["<s>"])
    stripping = Tokenizer.from_str(backend.to_str())
    stripping.add_special_tokens([AddedToken("<|strip|>", lstrip=True)])
    for refused in (metaspace, prefixed, stripping):
        assert PieceEncoder.of(refused) is None
    assert PieceEncoder.of(backend) is not None
    # and the tokenizer then encodes the text whole
    whole = TextTokenizer(metaspace, "x")
    assert whole.encode_pieces("<s>a b").ids == metaspace.encode("<s>a b").ids


def test_verbose_says_how_the_texts_were_encoded(tmp_path):
    import json

    from typer.testing import CliRunner

    from chatpipe.cli import app
    from test_tokenize import model_dir

    path = tmp_path / "tokenizer.json"
    build_tokenizer(path)
    directory = model_dir(tmp_path, "Qwen-Qwen2.5-7B-Instruct", path)
    chat = [{"role": "user", "content": "ask: a"}, {"role": "assistant", "content": "say: b"}]
    rows = tmp_path / "rows.jsonl"
    rows.write_text((json.dumps({"messages": chat}) + "\n") * 3)
    result = CliRunner().invoke(app, ["tokenize", "--tokenizer", str(directory), "-v", str(rows)])
    assert result.exit_code == 0, result.stderr
    # three rows of the same six pieces (a default system turn, a line feed thrice): four
    assert (
        "tokenize: each text encoded by its pieces between added tokens, each piece once: "
        "4 encoded for 18 asked"
    ) in result.stderr
