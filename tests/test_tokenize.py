"""``chatpipe tokenize``: token ids and assistant masks, against transformers.

The oracle is transformers' ``apply_chat_template(tokenize=True)`` (a test dependency, no
torch) on a model directory per chat template of fixtures/chat_templates: the real
template, its model's special tokens, and a small byte-level BPE tokenizer.json trained
here on the templates' own text, with every special token the templates write as an
added token (a real model's tokenizer.json is megabytes). chatpipe reads the same
directory. The ids must be transformers' ids; for templates with ``{% generation %}``
markers (TRL's training templates) the masks must be transformers'
``return_assistant_tokens_mask=True``; for the others, which transformers masks all
zeros, each masked run is checked against the assistant's text and the template's
end-of-turn token, and, where the template renders the conversation as its prefixes
do, against the span transformers' own prefix renders give.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, decoders, pre_tokenizers, trainers
from tokenizers import models as bpe_models
from transformers import AutoTokenizer
from typer.testing import CliRunner

import chatpipe as cp
from chatpipe.cli import app
from chatpipe.errors import DataError, UsageError
from chatpipe.templates.packing import Packer
from chatpipe.templates.token_ids import ChatTokenizer
from conftest import FIXTURES

TEMPLATES = FIXTURES / "chat_templates"
runner = CliRunner()

# each model's special tokens (its tokenizer_config.json's) and the end-of-turn tokens
# its template writes after an assistant turn
MODELS = {
    "Qwen-Qwen2.5-7B-Instruct": ({"eos_token": "<|im_end|>"}, ("<|im_end|>",)),
    "Qwen-Qwen3-0.6B": ({"eos_token": "<|im_end|>"}, ("<|im_end|>",)),
    "meta-llama-Llama-3.1-8B-Instruct": (
        {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
        ("<|eot_id|>", "<|eom_id|>"),
    ),
    "meta-llama-Llama-3.2-3B-Instruct": (
        {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
        ("<|eot_id|>", "<|eom_id|>"),
    ),
    "mistralai-Mistral-Nemo-Instruct-2407": ({"bos_token": "<s>", "eos_token": "</s>"}, ("</s>",)),
    "google-gemma-2-2b-it": ({"bos_token": "<bos>", "eos_token": "<eos>"}, ("<end_of_turn>",)),
    "microsoft-Phi-3.5-mini-instruct": (
        {"bos_token": "<s>", "eos_token": "<|endoftext|>"},
        ("<|end|>", "<|endoftext|>"),
    ),
    "deepseek-ai-DeepSeek-V3.1": (
        {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<｜end▁of▁sentence｜>"},
        ("<｜end▁of▁sentence｜>",),
    ),
    "NousResearch-Hermes-3-Llama-3.1-8B-tool_use": (
        {"bos_token": "<|begin_of_text|>", "eos_token": "<|im_end|>"},
        ("<|im_end|>",),
    ),
    "openai-gpt-oss-120b": ({"eos_token": "<|return|>"}, ("<|end|>", "<|return|>", "<|call|>")),
    "ibm-granite-granite-3.3-2B-Instruct": (
        {"bos_token": "<|end_of_text|>", "eos_token": "<|end_of_text|>"},
        ("<|end_of_text|>",),
    ),
    "CohereForAI-c4ai-command-r7b-12-2024-tool_use": (
        {"bos_token": "<BOS_TOKEN>", "eos_token": "<|END_OF_TURN_TOKEN|>"},
        ("<|END_OF_TURN_TOKEN|>",),
    ),
    "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B": (
        {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<｜end▁of▁sentence｜>"},
        ("<｜end▁of▁sentence｜>",),
    ),
    "huggingface-trl-qwen3_training": ({"eos_token": "<|im_end|>"}, ("<|im_end|>",)),
    "huggingface-trl-llama3_training": (
        {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
        ("<|eot_id|>",),
    ),
}
GENERATION = ("huggingface-trl-qwen3_training", "huggingface-trl-llama3_training")
# the templates that need tools (their tool_use variants) and those without tool calls
NEED_TOOLS = ("NousResearch-Hermes-3-Llama-3.1-8B-tool_use",)
# the templates that read reasoning from the content, "<think>...</think>" first, and drop
# it (DeepSeek R1's distilled models: from every turn but one after tool results, whose
# header "<｜tool▁outputs▁end｜>" the prompt writes): their masks must equal the spans of
# the prefix renders
THINK_IN_CONTENT = ("deepseek-ai-DeepSeek-R1-Distill-Qwen-32B",)
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city"}},
            "required": ["city"],
        },
    },
}
SPECIAL = re.compile(
    r"<\|[^|<>\s]{1,40}\|>|<｜[^｜]{1,40}｜>|\[/?(?:INST|TOOL_CALLS|AVAILABLE_TOOLS|TOOL_RESULTS)\]"
    r"|<(?:start|end)_of_turn>|<[A-Z_]+_TOKEN>"
)


def template_text(name: str) -> str:
    """A model's chat template: its .jinja, or its tokenizer_config.json's."""
    path = TEMPLATES / f"{name}.jinja"
    if path.exists():
        return path.read_text(encoding="utf-8")
    config = TEMPLATES / name / "tokenizer_config.json"
    return json.loads(config.read_text(encoding="utf-8"))["chat_template"]


def build_tokenizer(path: Path) -> None:
    """A byte-level BPE of 700 tokens, trained on the templates, every special token of
    theirs (and of their models' configs) an added token."""
    texts = [template_text(name) for name in sorted(MODELS)]
    specials = {m for t in texts for m in SPECIAL.findall(t)}
    specials.update(v for tokens, _ in MODELS.values() for v in tokens.values())
    tokenizer = Tokenizer(bpe_models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=700,
        special_tokens=sorted(specials),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer)
    tokenizer.save(str(path))


def model_dir(root: Path, name: str, tokenizer: Path, tokens: dict | None = None) -> Path:
    directory = root / name
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "tokenizer.json").write_bytes(tokenizer.read_bytes())
    config = {
        "chat_template": template_text(name),
        "tokenizer_class": "PreTrainedTokenizerFast",
        **(MODELS[name][0] if tokens is None else tokens),
    }
    (directory / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return directory


@pytest.fixture(scope="module")
def tokenizer_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("tokenizer") / "tokenizer.json"
    build_tokenizer(path)
    return path


class Models(dict):
    def __repr__(self) -> str:  # (hypothesis prints the arguments of a failing case)
        return "models"


@pytest.fixture(scope="module")
def models(tmp_path_factory, tokenizer_file):
    """Every model: its directory, transformers' tokenizer, chatpipe's tokenizers."""
    root = tmp_path_factory.mktemp("models")
    out = Models()
    for name in MODELS:
        directory = model_dir(root, name, tokenizer_file)
        theirs = AutoTokenizer.from_pretrained(str(directory))
        ours = {
            tools: ChatTokenizer.load(str(directory), tools=[WEATHER] if tools else None)
            for tools in (False, True)
        }
        out[name] = (directory, theirs, ours)
    return out


# -- generated conversations --------------------------------------------------------------

TEXT = st.lists(
    st.sampled_from([*"abc xyzé中🙂\n\t{}<>/\"'\\", "{{", " the ", "ok", "\n\n"]),
    min_size=1,
    max_size=12,
).map("".join)
CALL_ID = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=9, max_size=9)


@st.composite
def conversations(draw, calls: bool = True, system: bool = True, think: str = "field"):
    """A system turn now and then, user questions, assistant answers with reasoning now
    and then (``think``: in ``reasoning_content``, or in the content as DeepSeek R1
    writes it, ``<think>...</think>`` first), and tool calls answered by tool results:
    what real templates accept. User texts start "ask:", assistant answers "say:",
    reasoning "think:", so that a masked run can be told from a question."""
    out = []
    if system and draw(st.booleans()):
        out.append({"role": "system", "content": "rules: " + draw(TEXT)})
    for _ in range(draw(st.integers(1, 3))):
        out.append({"role": "user", "content": "ask: " + draw(TEXT)})
        if calls and draw(st.booleans()):
            call_id = draw(CALL_ID)
            arguments = json.dumps({"city": draw(TEXT)})
            function = {"name": "get_weather", "arguments": arguments}
            call = {"id": call_id, "type": "function", "function": function}
            out.append({"role": "assistant", "content": None, "tool_calls": [call]})
            out.append({"role": "tool", "tool_call_id": call_id, "content": "sunny " + draw(TEXT)})
        answer = {"role": "assistant", "content": "say: " + draw(TEXT)}
        if draw(st.booleans()):
            reasoning = "think: " + draw(TEXT)
            if think == "content":
                answer["content"] = f"<think>\n{reasoning}\n</think>\n\n{answer['content']}"
            else:
                answer["reasoning_content"] = reasoning
        out.append(answer)
    return out


def oracle_messages(chat: list[dict]) -> list[dict]:
    """transformers' documented chat shape: arguments as objects, results named."""
    out = []
    for message in chat:
        message = {k: v for k, v in message.items() if v is not None}
        if message.get("tool_calls"):
            message["content"] = ""
            message["tool_calls"] = [
                {
                    **c,
                    "function": {
                        **c["function"],
                        "arguments": json.loads(c["function"]["arguments"]),
                    },
                }
                for c in message["tool_calls"]
            ]
        if message["role"] == "tool":
            message["name"] = "get_weather"
        out.append(message)
    return out


def transformers_outcome(tokenizer, chat, tools, masks: bool, **options):
    try:
        done = tokenizer.apply_chat_template(
            chat, tools=tools, tokenize=True, return_assistant_tokens_mask=masks, **options
        )
    except Exception as exc:  # the template's raise_exception, or a failed render
        return "error", str(exc)
    return "ids", done


def runs(ids: list[int], mask: list[int]) -> list[list[int]]:
    """The masked ids, a list per run of ones."""
    out, current = [], []
    for token, bit in zip(ids, mask, strict=True):
        if bit:
            current.append(token)
        elif current:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def prefix_mask(tokenizer, chat, tools, text, ends) -> list[int] | None:
    """The mask that transformers' own prefix renders give, over its token offsets: from
    just after the generation prompt to the turn's last end-of-turn token (``ends``) and
    the white space after it (not what a template writes after the conversation: Command
    R7B's next header); None when the template does not render the conversation as its
    prefixes do."""
    spans = []
    for k, message in enumerate(chat):
        if message["role"] != "assistant":
            continue
        upto = tokenizer.apply_chat_template(chat[: k + 1], tools=tools, tokenize=False)
        before = tokenizer.apply_chat_template(
            chat[:k], tools=tools, tokenize=False, add_generation_prompt=True
        )
        plain = tokenizer.apply_chat_template(chat[:k], tools=tools, tokenize=False) if k else ""
        if not text.startswith(upto) or not text.startswith(plain):
            return None
        start = next(
            (i for i, (a, b) in enumerate(zip(before, upto, strict=False)) if a != b), len(before)
        )
        end = max((upto.rfind(e, start) + len(e) for e in ends if e in upto[start:]), default=0)
        while end < len(upto) and upto[end].isspace():
            end += 1
        spans.append((start, end))
    offsets = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    return [
        int(any(a < end and b > start for start, end in spans))
        for a, b in offsets["offset_mapping"]
    ]


@pytest.mark.parametrize("name", sorted(MODELS))
@settings(
    max_examples=14, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data(), with_tools=st.booleans())
def test_ids_and_masks_equal_transformers(models, name, data, with_tools):
    # (DeepSeek V3.1 takes tool-call arguments as text only, Gemma has no system role)
    calls, system = name != "deepseek-ai-DeepSeek-V3.1", name != "google-gemma-2-2b-it"
    think = "content" if name in THINK_IN_CONTENT else "field"
    chat = data.draw(conversations(calls=calls, system=system, think=think))
    _, theirs, ours = models[name]
    with_tools = with_tools or name in NEED_TOOLS
    tools = [WEATHER] if with_tools else None
    shaped = oracle_messages(chat)
    expected = transformers_outcome(theirs, shaped, tools, name in GENERATION)
    try:
        made = ours[with_tools].tokenize(cp.convert_to_messages(chat))
    except DataError as exc:
        # refused on both sides, with the template's own words
        assert expected[0] == "error", (exc, expected)
        assert expected[1].split("\n")[0] in str(exc)
        return
    assert expected[0] == "ids", expected
    assert made.input_ids == expected[1]["input_ids"]
    if name in GENERATION:
        assert made.method == "generation"
        assert made.assistant_masks == expected[1]["assistant_masks"]
        return
    assert made.method == "per-turn"
    assert sum(expected[1].get("assistant_masks") or [0]) == 0  # transformers finds none
    text = theirs.apply_chat_template(shaped, tools=tools, tokenize=False)
    exact = prefix_mask(theirs, shaped, tools, text, MODELS[name][1])
    assert exact is not None or name not in THINK_IN_CONTENT
    if exact is not None:  # a template that renders the chat as its prefixes do
        assert made.assistant_masks == exact
    masked = [theirs.decode(run) for run in runs(made.input_ids, made.assistant_masks)]
    answers = [m for m in chat if m["role"] == "assistant"]
    assert 1 <= len(masked) <= len(answers)
    for run in masked:
        assert "ask:" not in run and "rules:" not in run and "sunny" not in run, run
        assert run.rstrip().endswith(MODELS[name][1]), run
    # every answer's text is in a masked run, whole (templates may trim its ends, and drop
    # the reasoning before "</think>")
    joined = "\x00".join(masked)
    for answer in answers:
        if answer["content"]:
            assert answer["content"].split("</think>")[-1].strip() in joined, (answer, masked)


def test_the_generated_conversations_reach_every_template(models):
    """Each template renders a generated conversation (no test passes on refusals only)."""
    chat = [
        {"role": "user", "content": "ask: weather?"},
        {"role": "assistant", "content": "say: sunny"},
        {"role": "user", "content": "ask: thanks"},
        {"role": "assistant", "content": "say: bye"},
    ]
    for name, (_, theirs, ours) in models.items():
        made = ours[name in NEED_TOOLS].tokenize(cp.convert_to_messages(chat))
        expected = theirs.apply_chat_template(
            chat, tools=[WEATHER] if name in NEED_TOOLS else None, tokenize=True
        )
        assert made.input_ids == expected["input_ids"], name
        texts = [theirs.decode(run) for run in runs(made.input_ids, made.assistant_masks)]
        assert [t.split(":", 1)[1].lstrip().split("<")[0].strip() for t in texts] == [
            "sunny",
            "bye",
        ], (name, texts)


# -- weights, --train-on, the command --------------------------------------------------------

ROWS = [
    {
        "id": "r1",
        "source": "docs",
        "messages": [
            {"role": "user", "content": "ask: one"},
            {"role": "assistant", "content": "say: first", "weight": 0},
            {"role": "user", "content": "ask: two"},
            {"role": "assistant", "content": "say: second"},
        ],
    },
    {
        "id": "r2",
        "messages": [
            {"role": "system", "content": "rules: brief"},
            {"role": "user", "content": "ask: three"},
            {"role": "assistant", "content": "say: third"},
            {"role": "user", "content": "ask: four"},
            {"role": "assistant", "content": "say: fourth"},
        ],
    },
]


def masked_texts(theirs, ids, mask) -> list[str]:
    return [theirs.decode(run) for run in runs(ids, mask)]


def test_weights_and_train_on_last(models):
    directory, theirs, _ = models["Qwen-Qwen2.5-7B-Instruct"]
    every = ChatTokenizer.load(str(directory))
    last = ChatTokenizer.load(str(directory), train_on="last")
    first, second = (cp.convert_to_messages(row["messages"]) for row in ROWS)
    made = every.tokenize(first)
    assert made.input_ids == theirs.apply_chat_template(ROWS[0]["messages"])["input_ids"]
    assert masked_texts(theirs, made.input_ids, made.assistant_masks) == ["say: second<|im_end|>\n"]
    made = every.tokenize(second)
    assert masked_texts(theirs, made.input_ids, made.assistant_masks) == [
        "say: third<|im_end|>\n",
        "say: fourth<|im_end|>\n",
    ]
    made = last.tokenize(second)
    assert masked_texts(theirs, made.input_ids, made.assistant_masks) == ["say: fourth<|im_end|>\n"]
    assert made.labels() == [
        i if m else -100 for i, m in zip(made.input_ids, made.assistant_masks, strict=True)
    ]
    # weight 0 on the only answer: nothing to train on, an error, not a row of zeros
    only = cp.convert_to_messages(ROWS[0]["messages"][:2])
    with pytest.raises(DataError, match="weight 0"):
        every.tokenize(only)
    with pytest.raises(DataError, match="no assistant turn"):
        every.tokenize(cp.convert_to_messages(ROWS[0]["messages"][:1]))


def test_generation_markers_choose_the_turns_that_count(models):
    directory, theirs, _ = models["huggingface-trl-llama3_training"]
    last = ChatTokenizer.load(str(directory), train_on="last")
    made = last.tokenize(cp.convert_to_messages(ROWS[1]["messages"]))
    assert made.method == "generation"
    assert masked_texts(theirs, made.input_ids, made.assistant_masks) == ["say: fourth<|eot_id|>"]
    weighted = ChatTokenizer.load(str(directory)).tokenize(
        cp.convert_to_messages(ROWS[0]["messages"])
    )
    assert masked_texts(theirs, weighted.input_ids, weighted.assistant_masks) == [
        "say: second<|eot_id|>"
    ]


def cli(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def test_the_command_writes_parquet_a_trainer_reads(models, tmp_path):
    directory, theirs, _ = models["Qwen-Qwen2.5-7B-Instruct"]
    rows = tmp_path / "train.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    out = tmp_path / "train.parquet"
    result = cli("tokenize", "--tokenizer", str(directory), "--labels", str(rows), "-o", str(out))
    assert result.exit_code == 0, result.stderr
    table = pq.read_table(out)
    assert [str(f.type) for f in table.schema] == [
        "string",
        "string",
        "list<element: int32>",
        "list<element: int32>",
        "list<element: int32>",
        "int64",
    ]
    assert table.column_names == [
        "id",
        "source",
        "input_ids",
        "assistant_masks",
        "labels",
        "length",
    ]
    got = table.to_pylist()
    for row, source in zip(got, ROWS, strict=True):
        ids = theirs.apply_chat_template(source["messages"])["input_ids"]
        assert row["input_ids"] == ids and row["length"] == len(ids)
        assert row["labels"] == [
            i if m else -100 for i, m in zip(ids, row["assistant_masks"], strict=True)
        ]
    assert got[0]["source"] == "docs" and got[1]["source"] is None
    # JSONL: the same rows, one JSON object a line, the row's fields first
    result = cli("tokenize", "--tokenizer", str(directory), str(rows))
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [list(line) for line in lines] == [
        ["id", "source", "input_ids", "assistant_masks", "length"],
        ["id", "input_ids", "assistant_masks", "length"],
    ]
    assert [line["input_ids"] for line in lines] == [row["input_ids"] for row in got]


def test_verbose_says_which_method_and_which_conversations_rewrite(models, tmp_path):
    directory, _, _ = models["Qwen-Qwen3-0.6B"]
    rows = tmp_path / "rows.jsonl"
    chat = [
        {"role": "user", "content": "ask: a"},
        {"role": "assistant", "content": "say: b", "reasoning_content": "think: c"},
        {"role": "user", "content": "ask: d"},
        {"role": "assistant", "content": "say: e"},
    ]
    rows.write_text(
        json.dumps({"messages": chat}) + "\n" + json.dumps({"messages": chat[:2]}) + "\n"
    )
    result = cli("tokenize", "--tokenizer", str(directory), "-v", str(rows))
    assert result.exit_code == 0, result.stderr
    assert (
        "tokenize: 2 conversations: assistant masks per turn: each turn as the template "
        f"renders it in the whole conversation, {directory}"
    ) in result.stderr
    assert "tokenize: 1 conversation renders differently from its prefixes" in result.stderr
    generation, _, _ = models["huggingface-trl-qwen3_training"]
    result = cli("tokenize", "--tokenizer", str(generation), "-v", str(rows))
    assert "assistant masks from its {% generation %} markers" in result.stderr


def test_errors_name_the_conversation(models, tmp_path):
    directory, _, _ = models["Qwen-Qwen2.5-7B-Instruct"]
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        "".join(json.dumps(r) + "\n" for r in [ROWS[0], {"messages": ROWS[0]["messages"][:1]}])
    )
    result = cli("tokenize", "--tokenizer", str(directory), str(rows))
    assert result.exit_code == 1
    assert result.stderr.endswith(
        f"chatpipe: error: {rows}:2:1: this conversation has no assistant turn: nothing to "
        "train on\n"
    )
    skipped = cli("tokenize", "--tokenizer", str(directory), "--on-error", "skip", str(rows))
    assert skipped.exit_code == 0 and len(skipped.stdout.splitlines()) == 1
    assert "skipped 1 bad record" in skipped.stderr
    assert cli("tokenize", str(rows)).stderr == (
        "chatpipe: error: tokenize needs --tokenizer MODEL (a tokenizer.json, a model "
        "directory or a cached model id)\n"
    )
    (tmp_path / "tokenizer.json").write_bytes((directory / "tokenizer.json").read_bytes())
    lone = cli("tokenize", "--tokenizer", str(tmp_path / "tokenizer.json"), str(rows))
    assert lone.exit_code == 2 and "has no chat template beside it" in lone.stderr
    pack = cli("tokenize", "--tokenizer", str(directory), "--pack", "8", "--max-length", "9")
    assert "--max-length 9 is more than --pack 8" in pack.stderr
    alone = cli("tokenize", "--tokenizer", str(directory), "--truncate", "left", str(rows))
    assert "--truncate goes with --max-length" in alone.stderr


# -- truncation and packing ------------------------------------------------------------------


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(chat=conversations(), limit=st.integers(1, 120), side=st.sampled_from(["right", "left"]))
def test_truncation_keeps_one_end_whole(models, chat, limit, side):
    directory, _, ours = models["Qwen-Qwen2.5-7B-Instruct"]
    messages = cp.convert_to_messages(chat)
    whole = ours[False].tokenize(messages)
    cut = ChatTokenizer.load(str(directory), max_length=limit, truncate=side)
    keep = (
        slice(None, limit) if side == "right" else slice(max(0, len(whole.input_ids) - limit), None)
    )
    if 1 not in whole.assistant_masks[keep]:  # nothing left to learn: an error
        with pytest.raises(DataError, match=f"--max-length {limit} cuts every assistant token"):
            cut.tokenize(messages)
        return
    made = cut.tokenize(messages)
    assert made.input_ids == whole.input_ids[keep]
    assert made.assistant_masks == whole.assistant_masks[keep]
    assert (
        made.cut
        == len(whole.input_ids) - len(made.input_ids)
        == max(0, len(whole.input_ids) - limit)
    )
    if made.cut:
        refuse = ChatTokenizer.load(str(directory), max_length=limit, truncate="error")
        with pytest.raises(DataError, match=f"more than --max-length {limit}"):
            refuse.tokenize(messages)


ROW_LENGTHS = st.lists(st.integers(1, 40), min_size=0, max_size=30)


@given(lengths=ROW_LENGTHS, size=st.integers(40, 100))
def test_packs_hold_every_token_once_in_order(lengths, size):
    rows = []
    for k, length in enumerate(lengths):
        ids = [k * 1000 + j for j in range(length)]
        rows.append(
            {"id": f"c{k}", "input_ids": ids, "assistant_masks": [j % 2 for j in range(length)]}
        )
    packs = list(Packer(size).packs(rows))
    assert [t for p in packs for t in p["input_ids"]] == [t for r in rows for t in r["input_ids"]]
    assert [t for p in packs for t in p["assistant_masks"]] == [
        t for r in rows for t in r["assistant_masks"]
    ]
    assert [i for p in packs for i in p["ids"]] == [r["id"] for r in rows]
    taken = iter(rows)
    for number, pack in enumerate(packs):
        assert 0 < pack["length"] == len(pack["input_ids"]) == sum(pack["seq_lengths"]) <= size
        expected = [list(range(n)) for n in pack["seq_lengths"]]
        assert pack["position_ids"] == [p for row in expected for p in row]
        for n in pack["seq_lengths"]:
            assert len(next(taken)["input_ids"]) == n
        if number + 1 < len(packs):  # full: the next row would not have fitted
            assert pack["length"] + packs[number + 1]["seq_lengths"][0] > size
    with pytest.raises(UsageError, match="does not fit in a pack of 3"):
        Packer(3).add({"input_ids": [1, 2, 3, 4]})


def test_the_command_packs_and_reports_the_rows_cut(models, tmp_path):
    directory, _, ours = models["Qwen-Qwen2.5-7B-Instruct"]
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in ROWS * 3), encoding="utf-8")
    lengths = [
        len(ours[False].tokenize(cp.convert_to_messages(r["messages"])).input_ids) for r in ROWS
    ]
    size = max(lengths) + 5
    result = cli(
        "tokenize", "--tokenizer", str(directory), "--pack", str(size), "--labels", "-v", str(rows)
    )
    assert result.exit_code == 0, result.stderr
    packs = [json.loads(line) for line in result.stdout.splitlines()]
    assert [i for p in packs for i in p["ids"]] == ["r1", "r2"] * 3
    assert all(
        set(p)
        == {
            "ids",
            "input_ids",
            "assistant_masks",
            "labels",
            "position_ids",
            "seq_lengths",
            "length",
        }
        for p in packs
    )
    assert [n for p in packs for n in p["seq_lengths"]] == lengths * 3
    assert f"tokenize: 6 rows in {len(packs)} packs" in result.stderr
    short = min(lengths) - 1
    result = cli(
        "tokenize",
        "--tokenizer",
        str(directory),
        "--max-length",
        str(short),
        "--truncate",
        "left",
        str(rows),
    )
    assert result.exit_code == 0, result.stderr
    assert all(json.loads(line)["length"] == short for line in result.stdout.splitlines())
    cut = sum(lengths) * 3 - 6 * short
    assert (
        result.stderr
        == f"chatpipe: cut 6 rows of 6 to --max-length {short} ({cut} tokens cut, on the left)\n"
    )


# -- counts agree with the ids -------------------------------------------------------------


def test_count_and_trim_agree_with_the_ids_length(models, tmp_path):
    directory, _, ours = models["Qwen-Qwen3-0.6B"]
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    lengths = [
        json.loads(line)["length"]
        for line in cli("tokenize", "--tokenizer", str(directory), str(rows)).stdout.splitlines()
    ]
    through = cli(
        "count",
        "--chat-template",
        str(directory),
        "--token-counter",
        f"hf:{directory / 'tokenizer.json'}",
        str(rows),
    )
    model = cli("count", "--token-counter", f"template:{directory}", str(rows))
    assert [int(n) for n in through.stdout.split()] == lengths
    assert [int(n) for n in model.stdout.split()] == lengths
    both = cli(
        "count",
        "--chat-template",
        str(directory),
        "--token-counter",
        f"template:{directory}",
        str(rows),
    )
    assert both.exit_code == 2 and "leave --chat-template out" in both.stderr
    # trim to a budget: what it keeps tokenizes to no more than the budget
    budget = lengths[1] - 10
    trimmed = cli(
        "trim",
        "--max-tokens",
        str(budget),
        "--token-counter",
        f"template:{directory}",
        "--start-on",
        "human",
        str(rows),
    )
    assert trimmed.exit_code == 0, trimmed.stderr
    kept = json.loads(trimmed.stdout.splitlines()[1])
    made = ours[False].tokenize(cp.convert_to_messages(kept["messages"]))
    assert 0 < len(made.input_ids) <= budget
    assert len(kept["messages"]) < len(ROWS[1]["messages"])
    # select keeps the rows whose ids are at most --max-tokens long
    most = min(lengths)
    chosen = cli(
        "select", "--max-tokens", str(most), "--token-counter", f"template:{directory}", str(rows)
    )
    assert chosen.exit_code == 0, chosen.stderr
    expected = [row for row, n in zip(ROWS, lengths, strict=True) if n <= most]
    assert [json.loads(line) for line in chosen.stdout.splitlines()] == expected
    assert 0 < len(expected) < len(ROWS)


def test_counts_take_the_config_s_special_tokens_as_transformers_does(tmp_path, tokenizer_file):
    """A tokenizer.json without the config's eos token: transformers adds it, so does
    chatpipe (for tokenize, and for counts through the template)."""
    bare = Tokenizer.from_file(str(tokenizer_file))
    plain = Tokenizer(bpe_models.BPE(vocab=bare.get_vocab(with_added_tokens=False), merges=[]))
    plain.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    plain.decoder = decoders.ByteLevel()
    path = tmp_path / "plain.json"
    plain.save(str(path))
    directory = model_dir(
        tmp_path,
        "Qwen-Qwen2.5-7B-Instruct",
        path,
        {"eos_token": "<|im_end|>", "added_tokens_decoder": {"0": {"content": "<|im_start|>"}}},
    )
    theirs = AutoTokenizer.from_pretrained(str(directory))
    chat = ROWS[1]["messages"]
    ids = theirs.apply_chat_template(chat)["input_ids"]
    made = ChatTokenizer.load(str(directory)).tokenize(cp.convert_to_messages(chat))
    assert made.input_ids == ids
    assert theirs.convert_ids_to_tokens(ids).count("<|im_end|>") == 5
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(ROWS[1]) + "\n", encoding="utf-8")
    counted = cli(
        "count",
        "--chat-template",
        str(directory),
        "--token-counter",
        f"hf:{directory / 'tokenizer.json'}",
        str(rows),
    )
    assert counted.stdout == f"{len(ids)}\n"


# -- where the turns come from ----------------------------------------------------------------

MACRO_LOOP = (
    "{% macro turns(messages) %}{% for m in messages %}<|im_start|>{{ m.role }}\n"
    "{{ m.content }}<|im_end|>\n{% endfor %}{% endmacro %}{{ turns(messages) }}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def test_a_loop_that_cannot_be_followed_is_masked_from_prefixes(tmp_path, tokenizer_file):
    directory = tmp_path / "macro"
    directory.mkdir()
    (directory / "tokenizer.json").write_bytes(tokenizer_file.read_bytes())
    (directory / "chat_template.jinja").write_text(MACRO_LOOP, encoding="utf-8")
    tokens = ChatTokenizer.load(str(directory))
    made = tokens.tokenize(cp.convert_to_messages(ROWS[1]["messages"]))
    assert made.method == "prefix"
    decoded = [tokens.tokenizer.decode(r) for r in runs(made.input_ids, made.assistant_masks)]
    assert decoded == ["say: third<|im_end|>\n", "say: fourth<|im_end|>\n"]
    # a template that renders the conversation unlike its prefixes, through a macro: an error
    (directory / "chat_template.jinja").write_text(
        MACRO_LOOP.replace("{{ m.content }}", "{{ m.content if loop.last else '' }}"),
        encoding="utf-8",
    )
    with pytest.raises(DataError, match="its assistant turns cannot be found"):
        ChatTokenizer.load(str(directory)).tokenize(cp.convert_to_messages(ROWS[1]["messages"]))


def test_a_template_that_never_writes_the_assistant_is_an_error(tmp_path, tokenizer_file):
    directory = tmp_path / "users"
    directory.mkdir()
    (directory / "tokenizer.json").write_bytes(tokenizer_file.read_bytes())
    (directory / "chat_template.jinja").write_text(
        "{% for m in messages %}{% if m.role == 'user' %}{{ m.content }}\n{% endif %}{% endfor %}",
        encoding="utf-8",
    )
    with pytest.raises(DataError, match="its mask would be all zeros") as raised:
        ChatTokenizer.load(str(directory)).tokenize(
            cp.convert_to_messages(ROWS[1]["messages"]), location=None
        )
    assert "prefix method" in str(raised.value)


def test_a_cached_model_gives_template_and_tokenizer(models, tmp_path, monkeypatch):
    directory, theirs, _ = models["meta-llama-Llama-3.1-8B-Instruct"]
    snapshot = tmp_path / "hub" / "models--meta-llama--Llama-3.1-8B-Instruct" / "snapshots" / "abc"
    snapshot.mkdir(parents=True)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (snapshot / name).write_bytes((directory / name).read_bytes())
    (snapshot.parent.parent / "refs").mkdir()
    (snapshot.parent.parent / "refs" / "main").write_text("abc")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    made = ChatTokenizer.load("meta-llama/Llama-3.1-8B-Instruct").tokenize(
        cp.convert_to_messages(ROWS[1]["messages"])
    )
    assert made.input_ids == theirs.apply_chat_template(ROWS[1]["messages"])["input_ids"]
    with pytest.raises(UsageError, match="no tokenizer found at 'meta-llama/Nope'"):
        ChatTokenizer.load("meta-llama/Nope")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UsageError, match=r"no tokenizer\.json in this directory"):
        ChatTokenizer.load(str(empty))
    (empty / "tokenizer.json").write_text("{}")
    with pytest.raises(UsageError, match="cannot load this tokenizer"):
        ChatTokenizer.load(str(empty))


def many_rows(path: Path) -> Path:
    """1,200 rows in over 2 MiB: a file cut into parts for two workers."""
    many = [{**row, "id": f"{row['id']}-{k}"} for k in range(150) for row in ROWS]
    padding = "x" * 2000  # (a field carried)
    text = "".join(json.dumps({**r, "note": padding}) + "\n" for r in many * 4)
    path.write_text(text, encoding="utf-8")
    assert path.stat().st_size > 2 << 20
    return path


def test_jobs_give_the_rows_and_packs_of_one_process(models, tmp_path):
    directory, _, _ = models["Qwen-Qwen2.5-7B-Instruct"]
    rows = many_rows(tmp_path / "rows.jsonl")
    for extra in ([], ["--pack", "200"], ["--max-length", "30", "--truncate", "left"]):
        one = cli("tokenize", "--tokenizer", str(directory), *extra, str(rows))
        two = cli("tokenize", "--tokenizer", str(directory), "--jobs", "2", *extra, str(rows))
        assert one.exit_code == two.exit_code == 0, one.stderr + two.stderr
        assert (one.stdout, one.stderr) == (two.stdout, two.stderr) and one.stdout
    assert two.stderr.startswith("chatpipe: cut 1200 rows of 1200 to --max-length 30")


@pytest.mark.parametrize(
    "extra", [["--labels"], ["--pack", "200", "--max-length", "30", "--truncate", "left"]]
)
def test_dask_gives_the_rows_and_packs_of_one_process(models, tmp_path, extra):
    """--engine dask --jobs 2: the parts on a local cluster of two worker processes (one
    cluster started per test), the rows, packs and the report of the rows cut those of one
    process."""
    directory, _, _ = models["Qwen-Qwen2.5-7B-Instruct"]
    rows = many_rows(tmp_path / "rows.jsonl")
    command = ("tokenize", "--tokenizer", str(directory), *extra, str(rows))
    one = cli(*command)
    on_dask = cli(*command, "--engine", "dask", "--jobs", "2")
    assert one.exit_code == on_dask.exit_code == 0, one.stderr + on_dask.stderr
    assert (one.stdout, one.stderr) == (on_dask.stdout, on_dask.stderr) and one.stdout
