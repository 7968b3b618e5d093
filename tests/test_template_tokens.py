"""A chat template's special tokens and other variables (#41): where they come from, and a
template that needs one nothing gives is refused before any output, never rendered empty.

The oracle is transformers' ``apply_chat_template`` on a model folder built the way the Hub
gives it (a tokenizer.json, a tokenizer_config.json holding the template), with the real
tokenizer files of Llama 3.1 (its special_tokens_map.json) and Mistral (its
tokenizer_config.json) from fixtures/chat_templates; chatpipe reads the bare ``.jinja``
with those files beside it, or named with ``--tokenizer``, or the tokens given with ``--var``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from transformers import AutoTokenizer
from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.templates.variables import needed
from conftest import FIXTURES

TEMPLATES = FIXTURES / "chat_templates"
TOKENIZER = TEMPLATES / "all-MiniLM-L6-v2" / "tokenizer.json"
LLAMA = TEMPLATES / "meta-llama-Llama-3.1-8B-Instruct.jinja"
LLAMA_TOKENS = TEMPLATES / "ultravox-v0_6-llama-3_1-8b" / "special_tokens_map.json"
MISTRAL = TEMPLATES / "mistralai-Mistral-Nemo-Instruct-2407.jinja"
MISTRAL_CONFIG = TEMPLATES / "yarn-mistral-flax" / "tokenizer_config.json"
runner = CliRunner()

CHATS = [
    [{"role": "user", "content": "What is the capital of France?"}],
    [
        {"role": "system", "content": "Answer in one word."},
        {"role": "user", "content": "Capital of Germany?"},
        {"role": "assistant", "content": "Berlin."},
        {"role": "user", "content": "And of Köln's state?"},
    ],
    [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hello! How can I help?"},
        {"role": "user", "content": "Tell me a joke."},
        {"role": "assistant", "content": "Why did the chicken cross the road?"},
    ],
]


def cli(*args: str, input: str | None = None):
    return runner.invoke(app, list(args), input=input)


def log_of(chats: list[list[dict]]) -> str:
    return "".join(json.dumps({"messages": chat}) + "\n" for chat in chats)


def oracle_folder(
    folder: Path, template: Path, *, config: Path | None = None, tokens: Path | None = None
):
    """transformers' tokenizer of a model folder: the template in its tokenizer_config.json
    (the real ``config`` when given, else a plain one), with the bos and eos tokens of a
    special_tokens_map.json (``tokens``: transformers 5 cannot load the real Llama map
    itself, for its additional_special_tokens objects; its tokens go in the config)."""
    folder.mkdir()
    shutil.copy(TOKENIZER, folder / "tokenizer.json")
    if config is not None:
        data = json.loads(config.read_text())
    else:
        data = {"tokenizer_class": "PreTrainedTokenizerFast"}
    data["chat_template"] = template.read_text(encoding="utf-8")
    if tokens is not None:
        for key, value in json.loads(tokens.read_text()).items():
            if key in ("bos_token", "eos_token"):
                data[key] = value["content"]
    (folder / "tokenizer_config.json").write_text(json.dumps(data), encoding="utf-8")
    return AutoTokenizer.from_pretrained(str(folder))


def rendered(tokenizer, chats) -> str:
    return "".join(
        json.dumps(tokenizer.apply_chat_template(chat, tokenize=False), ensure_ascii=False) + "\n"
        for chat in chats
    )


def test_llama_with_its_special_tokens_map_beside_renders_as_transformers(tmp_path):
    """Llama 3.1's bare template used to lose <|begin_of_text|> silently."""
    theirs = oracle_folder(tmp_path / "oracle", LLAMA, tokens=LLAMA_TOKENS)
    expected = rendered(theirs, CHATS)
    assert expected.count("<|begin_of_text|>") == len(CHATS)
    folder = tmp_path / "llama"
    folder.mkdir()
    shutil.copy(LLAMA, folder / "chat_template.jinja")
    shutil.copy(LLAMA_TOKENS, folder / "special_tokens_map.json")
    result = cli(
        "template", "--chat-template", str(folder / "chat_template.jinja"), input=log_of(CHATS)
    )
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == expected
    # the same tokens from --tokenizer (the folder, or a file in it), or from --var
    for tokenizer in (LLAMA_TOKENS.parent, LLAMA_TOKENS):
        named = cli(
            "template",
            "--chat-template",
            str(LLAMA),
            "--tokenizer",
            str(tokenizer),
            input=log_of(CHATS),
        )
        assert (named.exit_code, named.stdout) == (0, expected), named.stderr
    given = cli(
        "template",
        "--chat-template",
        str(LLAMA),
        "--var",
        "bos_token=<|begin_of_text|>",
        input=log_of(CHATS),
    )
    assert (given.exit_code, given.stdout) == (0, expected), given.stderr


def test_mistral_with_tokenizer_renders_as_transformers(tmp_path):
    """Mistral's bare template failed with "'eos_token' is undefined" and no hint."""
    theirs = oracle_folder(tmp_path / "oracle", MISTRAL, config=MISTRAL_CONFIG)
    expected = rendered(theirs, CHATS)
    assert expected.count("</s>") == 3 and expected.count("<s>") == len(CHATS)
    result = cli(
        "template",
        "--chat-template",
        str(MISTRAL),
        "--tokenizer",
        str(MISTRAL_CONFIG.parent),
        input=log_of(CHATS),
    )
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == expected
    # a tokenizer.json named: the tokenizer files beside it
    folder = tmp_path / "mistral"
    folder.mkdir()
    shutil.copy(MISTRAL_CONFIG, folder)
    shutil.copy(TOKENIZER, folder)
    named = cli(
        "template",
        "--chat-template",
        str(MISTRAL),
        "--tokenizer",
        str(folder / "tokenizer.json"),
        input=log_of(CHATS),
    )
    assert (named.exit_code, named.stdout) == (0, expected), named.stderr


def test_a_template_without_its_tokens_is_refused_before_any_output(tmp_path):
    """transformers renders Llama without <|begin_of_text|>, and fails Mistral without a word
    of why; chatpipe names what is missing and how to give it, one line, exit 2."""
    bare = oracle_folder(tmp_path / "bare", LLAMA)
    with_tokens = oracle_folder(tmp_path / "tokens", LLAMA, tokens=LLAMA_TOKENS)
    assert rendered(bare, CHATS) == rendered(with_tokens, CHATS).replace("<|begin_of_text|>", "")
    result = cli("template", "--chat-template", str(LLAMA), input=log_of(CHATS))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"chatpipe: error: {LLAMA}: the chat template uses bos_token, which nothing defines (a"
        " special token: put the model's tokenizer_config.json or special_tokens_map.json"
        " beside the template, or give --tokenizer PATH (the model's tokenizer folder) or"
        " --var bos_token=TOKEN)\n"
    )
    mistral = oracle_folder(tmp_path / "mistral", MISTRAL)
    with pytest.raises(Exception, match="'eos_token' is undefined"):
        mistral.apply_chat_template(CHATS[2], tokenize=False)
    result = cli("template", "--chat-template", str(MISTRAL), input=log_of(CHATS))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith(
        f"chatpipe: error: {MISTRAL}: the chat template uses bos_token and eos_token, which"
        " nothing defines (a special token:"
    )
    assert result.stderr.endswith(" or --var bos_token=TOKEN --var eos_token=TOKEN)\n")
    # a tokenizer that does not name the token is said to
    partial = tmp_path / "partial"
    partial.mkdir()
    (partial / "special_tokens_map.json").write_text('{"bos_token": "<s>"}')
    result = cli("template", "--chat-template", str(MISTRAL), "--tokenizer", str(partial), input="")
    assert (result.exit_code, result.stderr) == (
        2,
        f"chatpipe: error: {MISTRAL}: the chat template uses eos_token, which nothing defines"
        f" (--tokenizer {partial} does not name it either; give --var eos_token=TOKEN)\n",
    )
    lone = tmp_path / "lone" / "tokenizer.json"
    lone.parent.mkdir()
    shutil.copy(TOKENIZER, lone)
    result = cli("template", "--chat-template", str(MISTRAL), "--tokenizer", str(lone), input="")
    assert (result.exit_code, result.stderr) == (
        2,
        f"chatpipe: error: --tokenizer {lone}: no tokenizer_config.json or"
        f" special_tokens_map.json in {lone.parent} (a tokenizer.json alone does not say which"
        " token is bos_token or eos_token; put the model's tokenizer_config.json beside it, or"
        " give --var bos_token=TOKEN)\n",
    )
    result = cli("template", "--chat-template", str(MISTRAL), "--tokenizer", "nowhere/", input="")
    assert (result.exit_code, result.stderr) == (
        2,
        "chatpipe: error: --tokenizer nowhere/: no such file or directory\n",
    )


# the variables each real template needs from outside (beside messages, tools, documents,
# add_generation_prompt): its optional ones (date_string, enable_thinking, builtin_tools,
# reasoning_effort, ...) are tested with `is defined` or `default`, and not asked for
NEEDED = {
    "CohereForAI-c4ai-command-r7b-12-2024-tool_use": {"bos_token"},
    "NousResearch-Hermes-3-Llama-3.1-8B-tool_use": {"bos_token"},
    "Qwen-Qwen2.5-7B-Instruct": set(),
    "Qwen-Qwen3-0.6B": set(),
    "deepseek-ai-DeepSeek-V3.1": {"bos_token"},
    "google-gemma-2-2b-it": {"bos_token"},
    "huggingface-trl-llama3_training": {"bos_token"},
    "huggingface-trl-qwen3_training": set(),
    "ibm-granite-granite-3.3-2B-Instruct": set(),
    "meta-llama-Llama-3.1-8B-Instruct": {"bos_token"},
    "meta-llama-Llama-3.2-3B-Instruct": {"bos_token"},
    "microsoft-Phi-3.5-mini-instruct": {"eos_token"},
    "mistralai-Mistral-Nemo-Instruct-2407": {"bos_token", "eos_token"},
    "openai-gpt-oss-120b": set(),
}


def test_what_each_real_template_needs():
    found = {p.stem: set(needed(p.read_text(encoding="utf-8"))) for p in TEMPLATES.glob("*.jinja")}
    assert found == NEEDED


def test_optional_variables_and_one_reached_unguarded(tmp_path):
    template = tmp_path / "t.jinja"
    template.write_text(
        "{% if greeting %}{{ greeting }} {% endif %}"  # optional: tested before it is printed
        "{{ messages[0].content }}{{ suffix | default('.') }}"
        "{% if messages | length > 1 %}{% if extra is defined %}{% endif %}{{ extra }}{% endif %}"
    )
    chats = [[{"role": "user", "content": "a"}], [{"role": "user", "content": "b"}] * 2]
    ok = cli("template", "--chat-template", str(template), input=log_of(chats[:1]))
    assert (ok.exit_code, ok.stdout) == (0, "a.\n")
    given = cli(
        "template",
        "--chat-template",
        str(template),
        "--var",
        "greeting=hello",
        input=log_of(chats[:1]),
    )
    assert given.stdout == "hello a.\n"
    # `extra` is tested in one place and printed in another: refused when reached, with
    # the conversation's place
    log = tmp_path / "log.jsonl"
    log.write_text(log_of(chats))
    reached = cli("template", "--chat-template", str(template), str(log))
    assert (reached.exit_code, reached.stdout) == (2, "")
    assert reached.stderr == (
        f"chatpipe: error: {log}:2:1: the chat template uses extra, which nothing defines"
        " (give it with --var extra=VALUE)\n"
    )
    for used in (
        "{{ name.first }}",
        "{{ 'x' ~ name }}",
        "{% for x in name %}{% endfor %}",
        "{{ name|length }}",
    ):
        template.write_text("{% if name is defined %}{% endif %}" + used)
        refused = cli("template", "--chat-template", str(template), str(log))
        assert (refused.exit_code, refused.stdout) == (2, ""), used
        assert "the chat template uses name, which nothing defines" in refused.stderr, used


def test_attributes_a_message_lacks_stay_as_in_transformers(tmp_path):
    """Only the template's own variables are strict: a field a message lacks is still
    Jinja's undefined (templates test `message.tool_calls` all the time)."""
    template = tmp_path / "t.jinja"
    source = (
        "{% for m in messages %}[{{ m.tool_calls }}|{{ m['name'] }}|{{ m.content }}]{% endfor %}"
    )
    template.write_text(source)
    from transformers.utils.chat_template_utils import render_jinja_template

    chat = [{"role": "user", "content": "hi"}]
    theirs = render_jinja_template([chat], chat_template=source)[0][0]
    result = cli("template", "--chat-template", str(template), input=log_of([chat]))
    assert (result.exit_code, result.stdout) == (0, theirs + "\n") == (0, "[||hi]\n")


def test_count_through_a_template_takes_its_tokenizers_tokens(tmp_path):
    """count --token-counter hf:DIR/tokenizer.json: the template's tokens from DIR's files."""
    folder = tmp_path / "model"
    folder.mkdir()
    shutil.copy(TOKENIZER, folder)
    shutil.copy(LLAMA_TOKENS, folder)
    counter = f"hf:{folder / 'tokenizer.json'}"
    counted = cli(
        "count", "--chat-template", str(LLAMA), "--token-counter", counter, input=log_of(CHATS[:1])
    )
    given = cli(
        "count",
        "--chat-template",
        str(LLAMA),
        "--token-counter",
        f"hf:{TOKENIZER}",
        "--var",
        "bos_token=<|begin_of_text|>",
        input=log_of(CHATS[:1]),
    )
    assert (counted.exit_code, given.exit_code) == (0, 0), counted.stderr + given.stderr
    assert counted.stdout == given.stdout
    bare = cli(
        "count", "--chat-template", str(LLAMA), "--token-counter", f"hf:{TOKENIZER}", input=""
    )
    assert bare.exit_code == 2 and "uses bos_token, which nothing defines" in bare.stderr
