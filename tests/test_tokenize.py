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

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, decoders, pre_tokenizers, trainers
from tokenizers import models as bpe_models
from transformers import AutoTokenizer
from typer.testing import CliRunner

import chatpipe as cp
from chatpipe.errors import DataError
from chatpipe.templates.tokenize import ChatTokenizer
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
    "huggingface-trl-qwen3_training": ({"eos_token": "<|im_end|>"}, ("<|im_end|>",)),
    "huggingface-trl-llama3_training": (
        {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
        ("<|eot_id|>",),
    ),
}
GENERATION = ("huggingface-trl-qwen3_training", "huggingface-trl-llama3_training")
# the templates that need tools (their tool_use variants) and those without tool calls
NEED_TOOLS = ("NousResearch-Hermes-3-Llama-3.1-8B-tool_use",)
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


def build_tokenizer(path: Path) -> None:
    """A byte-level BPE of 700 tokens, trained on the templates, every special token of
    theirs (and of their models' configs) an added token."""
    texts = [p.read_text(encoding="utf-8") for p in sorted(TEMPLATES.glob("*.jinja"))]
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
        "chat_template": (TEMPLATES / f"{name}.jinja").read_text(encoding="utf-8"),
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
def conversations(draw, calls: bool = True, system: bool = True):
    """A system turn now and then, user questions, assistant answers with reasoning now
    and then, and tool calls answered by tool results: what real templates accept.
    User texts start "ask:", assistant answers "say:", so that a masked run can be told
    from a question."""
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
            answer["reasoning_content"] = "think: " + draw(TEXT)
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
        start = next((i for i, (a, b) in enumerate(zip(before, upto)) if a != b), len(before))
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
    chat = data.draw(conversations(calls=calls, system=system))
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
    if exact is not None:  # a template that renders the chat as its prefixes do
        assert made.assistant_masks == exact
    masked = [theirs.decode(run) for run in runs(made.input_ids, made.assistant_masks)]
    answers = [m for m in chat if m["role"] == "assistant"]
    assert 1 <= len(masked) <= len(answers)
    for run in masked:
        assert "ask:" not in run and "rules:" not in run and "sunny" not in run, run
        assert run.rstrip().endswith(MODELS[name][1]), run
    # every answer's text is in a masked run, whole (templates may trim its ends)
    joined = "\x00".join(masked)
    for answer in answers:
        if answer["content"]:
            assert answer["content"].strip() in joined, (answer, masked)


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
