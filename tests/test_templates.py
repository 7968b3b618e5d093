"""``chatpipe template`` and counts through a chat template, against transformers.

The oracle is transformers' own ``tokenizer.apply_chat_template`` (a test dependency, no
torch), on a tokenizer loaded by transformers itself from a model directory: the
real template (fixtures/chat_templates, from the models' tokenizer_config.json files),
the model's special tokens, and a real tokenizer.json. chatpipe reads the same directory.

The messages given to transformers are built here from langchain-core's OpenAI output
for chatpipe's messages (not from chatpipe's own writer) in the shape transformers
documents for chat templates: arguments as objects, tool results named, reasoning as
``reasoning_content``, images as ``{"type": "image", "url"}``. Most cases render text on both sides (counted and asserted),
and where transformers raises, chatpipe must refuse with the template's own message.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import langchain_core.messages as lc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from transformers import AutoTokenizer
from typer.testing import CliRunner

import chatpipe as cp
from chatpipe.cli import app
from chatpipe.errors import ChatpipeError
from chatpipe.ops.count import HFCounter
from chatpipe.pipeline.reading import read
from chatpipe.templates import ChatTemplate, chat_messages
from conftest import FIXTURES
from expected_messages import conversation_fixtures

TEMPLATES = FIXTURES / "chat_templates"
TOKENIZER = TEMPLATES / "all-MiniLM-L6-v2" / "tokenizer.json"
runner = CliRunner()

# the special tokens of each model's tokenizer_config.json (what a user passes with --var
# when all they have is the template)
TOKENS = {
    "Qwen-Qwen2.5-7B-Instruct": {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
    "Qwen-Qwen3-0.6B": {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
    "meta-llama-Llama-3.1-8B-Instruct": {
        "bos_token": "<|begin_of_text|>",
        "eos_token": "<|eot_id|>",
    },
    "meta-llama-Llama-3.2-3B-Instruct": {
        "bos_token": "<|begin_of_text|>",
        "eos_token": "<|eot_id|>",
    },
    "mistralai-Mistral-Nemo-Instruct-2407": {"bos_token": "<s>", "eos_token": "</s>"},
    "google-gemma-2-2b-it": {"bos_token": "<bos>", "eos_token": "<eos>"},
    "microsoft-Phi-3.5-mini-instruct": {"bos_token": "<s>", "eos_token": "<|endoftext|>"},
    "deepseek-ai-DeepSeek-V3.1": {
        "bos_token": "<｜begin▁of▁sentence｜>",
        "eos_token": "<｜end▁of▁sentence｜>",
    },
    "NousResearch-Hermes-3-Llama-3.1-8B-tool_use": {
        "bos_token": "<|begin_of_text|>",
        "eos_token": "<|im_end|>",
    },
    "openai-gpt-oss-120b": {"eos_token": "<|return|>"},
    "ibm-granite-granite-3.3-2B-Instruct": {
        "bos_token": "<|end_of_text|>",
        "eos_token": "<|end_of_text|>",
    },
    "CohereForAI-c4ai-command-r7b-12-2024-tool_use": {
        "bos_token": "<BOS_TOKEN>",
        "eos_token": "<|END_OF_TURN_TOKEN|>",
    },
}
MODELS = sorted(TOKENS)
REAL_CONFIG = "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B"

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
DOCUMENTS = [
    {"title": "Köln", "text": "Köln lies on the Rhine."},
    {"title": "Paris", "text": "Paris lies on the Seine."},
]


def model_dir(tmp: Path, name: str, tokens: dict | None = None) -> Path:
    """A model directory as the Hub gives it: tokenizer.json and tokenizer_config.json."""
    directory = tmp / name
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copy(TOKENIZER, directory / "tokenizer.json")
    if name == REAL_CONFIG:
        shutil.copy(TEMPLATES / name / "tokenizer_config.json", directory)
    else:
        config = {
            "chat_template": (TEMPLATES / f"{name}.jinja").read_text(encoding="utf-8"),
            "tokenizer_class": "PreTrainedTokenizerFast",
            **(TOKENS[name] if tokens is None else tokens),
        }
        (directory / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return directory


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Every model: (chatpipe's template, transformers' tokenizer), from one directory."""
    tmp = tmp_path_factory.mktemp("models")
    out = {}
    for name in [*MODELS, REAL_CONFIG]:
        directory = model_dir(tmp, name)
        out[name] = (str(directory), AutoTokenizer.from_pretrained(str(directory)))
    return out


# -- the oracle's messages, built from OpenAI dicts --------------------------------------


def oracle_messages(openai: list[dict]) -> list[dict]:
    """transformers' documented chat shape, from OpenAI chat dicts."""
    names, out = {}, []
    for message in openai:
        message = dict(message)
        for call in message.get("tool_calls") or ():
            names[call.get("id")] = call["function"]["name"]
        if message.get("tool_calls"):
            message["tool_calls"] = [
                {
                    **({"id": c["id"]} if c.get("id") is not None else {}),
                    "type": c.get("type", "function"),
                    "function": {
                        "name": c["function"]["name"],
                        "arguments": json.loads(c["function"]["arguments"] or "{}"),
                    },
                }
                for c in message["tool_calls"]
            ]
        call_name = names.get(message.get("tool_call_id"))
        if message["role"] == "tool" and "name" not in message and call_name:
            message["name"] = call_name
        content = message.get("content")
        if content is None:  # OpenAI's null: templates get "" (see chatpipe.templates.messages)
            message["content"] = ""
        if isinstance(content, list):
            reasoning = [
                b.get("reasoning") or b.get("thinking")
                for b in content
                if b.get("type") in ("reasoning", "thinking")
            ]
            parts = []
            for block in content:
                if block.get("type") in ("reasoning", "thinking"):
                    continue
                if block.get("type") == "image_url":
                    parts.append({"type": "image", "url": block["image_url"]["url"]})
                elif block.get("type") == "input_audio":
                    parts.append({"type": "audio", **block["input_audio"]})
                else:
                    parts.append(block)
            if all(p.get("type") == "text" for p in parts):
                parts = "\n".join(p["text"] for p in parts)
            message["content"] = parts
            if any(reasoning):
                message["reasoning_content"] = "\n".join(r for r in reasoning if r)
        out.append({k: v for k, v in message.items() if v is not None})
    return out


_ORACLES: dict[int, tuple[list, str]] = {}  # id(messages) -> (messages, the oracle's JSON)


def oracle_of(messages) -> list[dict]:
    """The oracle's messages for chatpipe messages: the OpenAI dicts langchain-core writes
    for them (not chatpipe's writer, which the templates use), with the reasoning an AI
    message holds as ``reasoning_content`` (which the OpenAI dicts leave out). Made once
    for each conversation, a fresh copy each call."""
    made = _ORACLES.get(id(messages))
    if made is None or made[0] is not messages:
        dicts = []
        for message in lc.messages_from_dict(cp.messages_to_dict(list(messages))):
            written = lc.convert_to_openai_messages([message])
            reasoning = message.additional_kwargs.get("reasoning_content")
            if message.type == "ai" and isinstance(reasoning, str) and reasoning and written:
                written[0] = {**written[0], "reasoning_content": reasoning}
            dicts.extend(written)
        made = _ORACLES[id(messages)] = (messages, json.dumps(oracle_messages(dicts)))
    return json.loads(made[1])


def transformers_outcome(tokenizer, messages, **options):
    try:
        return "text", tokenizer.apply_chat_template(messages, tokenize=False, **options)
    except Exception as exc:  # the template's raise_exception, or a failed render
        return "error", str(exc)


def chatpipe_outcome(template: ChatTemplate, messages, meta=None):
    try:
        return "text", template.render(messages, meta)
    except ChatpipeError as exc:
        return "error", exc.message


def same(ours, theirs) -> bool:
    if ours[0] != theirs[0]:
        return False
    if ours[0] == "text":
        return ours[1] == theirs[1]
    # refused on both sides: with the template's own words
    return theirs[1].split("\n")[0] in ours[1]


# -- every fixture conversation, through every template ---------------------------------


def fixture_conversations():
    out = []
    # (every chat-log fixture but the malformed ones reads: a failure here fails the module)
    for path in conversation_fixtures():
        for conversation in read([str(path)]):
            messages = list(conversation.messages)
            try:  # what has no OpenAI form (langchain refuses it too) has no template form
                cp.convert_to_openai_messages(messages)
            except ChatpipeError:
                continue
            if messages:
                out.append((path.name, messages, conversation.meta))
    return out


CONVERSATIONS = fixture_conversations()


def test_the_fixtures_give_many_conversations():
    assert len(CONVERSATIONS) >= 60
    assert len({name for name, _, _ in CONVERSATIONS}) >= 40


@pytest.mark.parametrize("name", [*MODELS, REAL_CONFIG])
@pytest.mark.parametrize("generation", [False, True])
def test_every_fixture_conversation_renders_as_transformers_renders_it(models, name, generation):
    directory, tokenizer = models[name]
    default_tools = [WEATHER] if name.endswith("tool_use") else None  # these need tools
    template = ChatTemplate(directory, add_generation_prompt=generation, tools=default_tools)
    texts = 0
    for fixture, messages, meta in CONVERSATIONS:
        own = meta.get("tools")
        tools = own if isinstance(own, list) and own else default_tools
        documents = meta.get("documents")  # a conversation's own (Cohere's, RAG logs')
        theirs = transformers_outcome(
            tokenizer,
            oracle_of(messages),
            tools=tools or None,
            documents=documents if isinstance(documents, list) and documents else None,
            add_generation_prompt=generation,
        )
        ours = chatpipe_outcome(template, messages, meta)
        assert same(ours, theirs), (fixture, ours, theirs)
        texts += ours[0] == "text"
    # real templates refuse much (images in text-only models, a system role Gemma lacks,
    # tool-call ids Mistral rejects): still, a good share must render
    assert texts >= len(CONVERSATIONS) // 5, (name, texts)


def test_the_shapes_given_to_templates(models):
    """chatpipe's messages equal the oracle's on every fixture conversation."""
    for fixture, messages, _ in CONVERSATIONS:
        expected = oracle_of(messages)
        assert chat_messages(messages) == expected, fixture


def test_most_fixture_renders_are_text_not_errors(models):
    directory, _ = models["Qwen-Qwen3-0.6B"]
    template = ChatTemplate(directory)
    outcomes = [chatpipe_outcome(template, m, meta)[0] for _, m, meta in CONVERSATIONS]
    assert outcomes.count("text") >= 0.6 * len(outcomes)


# -- generated conversations -------------------------------------------------------------

TEXT = st.lists(
    st.sampled_from([*"abc xyzÄé中🙂\n\t{}%#<>/|\"'\\", "{{", "{%", "</s>", "<|im_end|>"]),
    max_size=20,
).map("".join)
CALL_ID = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABC0123456789", min_size=9, max_size=9)


@st.composite
def conversations(draw):
    """Well-formed chats: an optional system, user/assistant turns, a tool call (answered)
    now and then, reasoning now and then: what real templates accept."""
    out = []
    if draw(st.booleans()):
        out.append({"role": "system", "content": draw(TEXT)})
    for _ in range(draw(st.integers(1, 4))):
        out.append({"role": "user", "content": draw(TEXT) or "hi"})
        if draw(st.booleans()):
            call_id = draw(CALL_ID)
            out.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {
                                "name": "get_weather",
                                "arguments": json.dumps({"city": draw(TEXT)}),
                            },
                        }
                    ],
                }
            )
            out.append({"role": "tool", "tool_call_id": call_id, "content": draw(TEXT)})
        answer = {"role": "assistant", "content": draw(TEXT) or "ok"}
        if draw(st.booleans()):
            answer["reasoning_content"] = draw(TEXT) or "thinking"
        out.append(answer)
    if draw(st.booleans()):
        out.pop()  # ends on the user (or a tool result): a prompt awaiting the reply
    return out


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    chat=conversations(),
    name=st.sampled_from([*MODELS, REAL_CONFIG]),
    generation=st.booleans(),
    with_tools=st.booleans(),
    with_documents=st.booleans(),
    thinking=st.sampled_from([None, True, False]),
)
def test_generated_conversations_render_as_transformers_renders_them(
    models, chat, name, generation, with_tools, with_documents, thinking
):
    directory, tokenizer = models[name]
    variables = {} if thinking is None else {"enable_thinking": thinking}
    tools = [WEATHER] if with_tools else None
    documents = DOCUMENTS if with_documents else None
    messages = cp.convert_to_messages(chat)
    template = ChatTemplate(
        directory,
        add_generation_prompt=generation,
        variables=variables,
        tools=tools,
        documents=documents,
    )
    theirs = transformers_outcome(
        tokenizer,
        oracle_messages(chat),
        tools=tools,
        documents=documents,
        add_generation_prompt=generation,
        **variables,
    )
    ours = chatpipe_outcome(template, messages)
    assert same(ours, theirs), (ours, theirs)
    if name.startswith("Qwen"):  # Qwen's templates take every well-formed chat: text compared
        assert ours[0] == "text", ours


# -- the command -------------------------------------------------------------------------


def cli(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def test_the_command_prints_what_transformers_prints(models, tmp_path):
    session = tmp_path / "session.jsonl"
    rows = (FIXTURES / "openai_tool_calls.jsonl").read_text(encoding="utf-8").splitlines()[:6]
    session.write_text("\n".join(rows) + "\n", encoding="utf-8")
    directory, tokenizer = models["Qwen-Qwen2.5-7B-Instruct"]
    expected = tokenizer.apply_chat_template(
        oracle_messages([json.loads(r) for r in rows]), tokenize=False
    )
    assert "<tool_call>" in expected and "<tool_response>" in expected
    result = cli("template", "--chat-template", directory, str(session))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected + "\n"
    # a lone .jinja file, as docs/chat-templates.md shows it, gives the same text (Qwen needs no tokens)
    jinja = TEMPLATES / "Qwen-Qwen2.5-7B-Instruct.jinja"
    result = cli("template", "--chat-template", str(jinja), str(session))
    assert result.stdout == expected + "\n"


def test_several_conversations_are_json_strings_or_raw(models):
    directory, tokenizer = models["Qwen-Qwen3-0.6B"]
    path = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    expected = [tokenizer.apply_chat_template(r["messages"], tokenize=False) for r in rows]
    result = cli("template", "--chat-template", directory, str(path))
    assert result.exit_code == 0, result.stderr
    assert [json.loads(line) for line in result.stdout.splitlines()] == expected
    result = cli("template", "--chat-template", directory, "-0", str(path))
    assert result.stdout.split("\0")[:-1] == expected


def test_options_reach_the_template(models, tmp_path):
    directory, tokenizer = models["Qwen-Qwen3-0.6B"]
    chat = [{"role": "user", "content": "Weather in Köln?"}]
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([WEATHER]), encoding="utf-8")
    expected = tokenizer.apply_chat_template(
        chat, tools=[WEATHER], add_generation_prompt=True, enable_thinking=False, tokenize=False
    )
    assert "<think>\n\n</think>" in expected and "get_weather" in expected
    result = cli(
        "template",
        "--chat-template",
        directory,
        "--add-generation-prompt",
        "--var",
        "enable_thinking=false",
        "--tools",
        str(tools),
        input=json.dumps(chat[0]) + "\n",
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected + "\n"


def test_continue_final_message_as_transformers(models):
    directory, tokenizer = models["Qwen-Qwen2.5-7B-Instruct"]
    chat = [{"role": "user", "content": "Say hi"}, {"role": "assistant", "content": "Hi, I am "}]
    expected = tokenizer.apply_chat_template(chat, continue_final_message=True, tokenize=False)
    assert expected.endswith("Hi, I am ")
    ours = ChatTemplate(directory, continue_final_message=True).render(cp.convert_to_messages(chat))
    assert ours == expected
    both = cli(
        "template",
        "--chat-template",
        directory,
        "--continue-final-message",
        "--add-generation-prompt",
        input='{"role":"user","content":"x"}\n',
    )
    assert both.exit_code == 2 and "contradict" in both.stderr


def test_tools_from_the_conversation(models):
    """A fine-tuning row's own tools reach the template (and pick a tool_use template)."""
    directory, tokenizer = models["Qwen-Qwen2.5-7B-Instruct"]
    row = {"messages": [{"role": "user", "content": "Weather?"}], "tools": [WEATHER]}
    expected = tokenizer.apply_chat_template(row["messages"], tools=[WEATHER], tokenize=False)
    assert "get_weather" in expected
    result = cli(
        "template", "--chat-template", directory, "--from", "openai", input=json.dumps(row) + "\n"
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected + "\n"  # one conversation: its text (#18 item 17)


# -- template sources ---------------------------------------------------------------------


def test_named_templates_and_tool_use(tmp_path):
    config = {
        "chat_template": [
            {"name": "default", "template": "D{% for m in messages %}{{ m.content }}{% endfor %}"},
            {"name": "tool_use", "template": "T{{ tools | length }}"},
            {"name": "rag", "template": "R{{ documents[0].title }}"},
        ],
        "bos_token": {"__type": "AddedToken", "content": "<s>"},
    }
    path = tmp_path / "tokenizer_config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    messages = cp.convert_to_messages([{"role": "user", "content": "hi"}])
    assert ChatTemplate(str(path)).render(messages) == "Dhi"
    assert ChatTemplate(str(path), tools=[WEATHER]).render(messages) == "T1"
    assert ChatTemplate(str(path), name="rag", documents=DOCUMENTS).render(messages) == "RKöln"
    assert ChatTemplate(str(path)).variables["bos_token"] == "<s>"
    result = cli(
        "template",
        "--chat-template",
        str(path),
        "--template-name",
        "nope",
        input='{"role":"user","content":"x"}\n',
    )
    assert result.exit_code == 2
    assert "no chat template named 'nope'" in result.stderr
    assert "default, rag, tool_use" in result.stderr


def test_a_model_id_from_the_local_cache_only(tmp_path, monkeypatch):
    snapshot = tmp_path / "hub" / "models--acme--tiny-chat" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (snapshot / "chat_template.jinja").write_text("{{ bos_token }}{{ messages[0].content }}")
    (snapshot / "tokenizer_config.json").write_text('{"bos_token": "<B>"}')
    refs = tmp_path / "hub" / "models--acme--tiny-chat" / "refs"
    refs.mkdir()
    (refs / "main").write_text("abc123")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    result = cli("template", "--chat-template", "acme/tiny-chat", input='"hello"\n')
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "<B>hello\n"
    missing = cli("template", "--chat-template", "acme/not-here", input='"hello"\n')
    assert missing.exit_code == 2
    assert "never downloads" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_a_real_tokenizer_config_gives_its_tokens(models):
    directory, tokenizer = models[REAL_CONFIG]
    template = ChatTemplate(directory)
    assert template.variables == tokenizer.special_tokens_map
    assert template.variables["bos_token"] == "<｜begin▁of▁sentence｜>"


# -- errors -------------------------------------------------------------------------------


def test_raise_exception_is_one_line_with_the_location(models, tmp_path):
    directory, tokenizer = models["google-gemma-2-2b-it"]
    chat = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
    with pytest.raises(Exception, match="System role not supported"):
        tokenizer.apply_chat_template(chat, tokenize=False)
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(json.dumps({"messages": chat}) for _ in range(2)) + "\n")
    result = cli("template", "--chat-template", directory, str(path))
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [
        f"chatpipe: error: {path}:1:1: the chat template refused this conversation: "
        "System role not supported"
    ]
    skipped = cli("template", "--chat-template", directory, "--on-error", "skip", str(path))
    assert skipped.exit_code == 0
    assert skipped.stdout == ""
    assert "System role not supported" in skipped.stderr
    assert "skipped 2 bad records" in skipped.stderr


def test_the_sandbox_refuses_escapes(tmp_path):
    for source in (
        "{{ messages.__class__.__mro__[1].__subclasses__() }}",
        "{{ ''.__class__.__base__.__subclasses__() }}",
        "{{ raise_exception.__globals__ }}",
        "{% set ns = namespace(_hidden=1) %}{{ ns._hidden }}",
        "{{ cycler.__init__.__globals__.os.popen('echo pwned').read() }}",
        # a format string reaches attributes itself: str.format must stay the sandbox's
        '{{ "{0.__class__.__base__.__subclasses__}".format(messages) }}',
        '{{ "{0.__init__.__globals__}".format(raise_exception) }}',
        '{{ "{m.__class__}".format_map({"m": messages}) }}',
        '{% set f = "{0.__class__}".format %}{{ f(messages) }}',
        '{{ ("{0.__class__}" | string).format(messages) }}',
    ):
        path = tmp_path / "evil.jinja"
        path.write_text(source, encoding="utf-8")
        result = cli("template", "--chat-template", str(path), input='"hi"\n')
        assert result.exit_code == 1, (source, result.stdout)
        assert "pwned" not in result.stdout
        assert "Traceback" not in result.stderr
        line = result.stderr.strip()
        assert "\n" not in line
        assert "sandbox forbids" in line or "refused" in line or "failed" in line, line
        assert "subclasses" not in result.stdout and "class" not in result.stdout


@pytest.mark.parametrize(
    ("source", "unsafe"),
    [
        ('{{ "{0.__class__.__base__.__subclasses__}".format(messages) }}', True),
        ('{{ "{m.__class__}".format_map({"m": messages}) }}', True),
        (
            '{{ "{} and {}".format(1, "two") }}|{{ "{a}".format_map({"a": messages[0].role}) }}',
            False,
        ),
        (
            "{% set ns = namespace(a=1) %}{% set ns.a = ns.a + 1 %}{{ ns.a }}{{ ns.b is defined }}",
            False,
        ),
    ],
)
def test_format_strings_and_namespaces_as_transformers(tmp_path, source, unsafe):
    from transformers.utils.chat_template_utils import render_jinja_template

    chat = [{"role": "user", "content": "x"}]
    try:
        theirs = render_jinja_template([chat], chat_template=source)[0][0]
    except Exception as exc:
        theirs = type(exc).__name__
    path = tmp_path / "t.jinja"
    path.write_text(source)
    result = cli("template", "--chat-template", str(path), input=json.dumps(chat[0]) + "\n")
    if not unsafe:
        assert (result.exit_code, result.stdout) == (0, theirs + "\n")
        return
    # transformers' sandbox raises, or renders the unsafe field as nothing; chatpipe refuses
    assert theirs in ("SecurityError", "")
    assert (result.exit_code, result.stdout) == (1, "")
    assert "the chat template tried something the sandbox forbids" in result.stderr


def test_bad_templates_and_options_are_one_line(tmp_path):
    bad = tmp_path / "bad.jinja"
    bad.write_text("{% for m in messages %}\n{{ m.content \n{% endfor %}", encoding="utf-8")
    result = cli("template", "--chat-template", str(bad), input='"hi"\n')
    assert result.exit_code == 2
    assert result.stderr.startswith(f"chatpipe: error: {bad}:3: the chat template is not valid")
    config = tmp_path / "tokenizer_config.json"
    config.write_text('{"eos_token": "</s>"}')
    result = cli("template", "--chat-template", str(config), input='"hi"\n')
    assert result.exit_code == 2 and "has no 'chat_template' key" in result.stderr
    result = cli("template", "--chat-template", str(bad), "--var", "not a pair", input='"hi"\n')
    assert result.exit_code == 2 and "--var takes KEY=VALUE" in result.stderr
    good = TEMPLATES / "Qwen-Qwen2.5-7B-Instruct.jinja"
    result = cli("count", "--chat-template", str(good), input='"hi"\n')
    assert result.exit_code == 2 and "a real tokenizer" in result.stderr


def test_a_missing_extra_is_named(monkeypatch):
    from chatpipe.templates import environment

    monkeypatch.setitem(sys.modules, "jinja2", None)
    environment.load_jinja.cache_clear()
    environment._environment.cache_clear()
    environment.refusal_class.cache_clear()
    environment.compile_template.cache_clear()
    with pytest.raises(ChatpipeError) as caught:
        environment.compile_template("{{ 1 }}")
    assert caught.value.hint == (
        "pip install 'chatpipe[templates]', or from a clone: pip install -e '.[templates]'"
    )
    monkeypatch.undo()
    environment.load_jinja.cache_clear()
    environment._environment.cache_clear()
    environment.refusal_class.cache_clear()


# -- exact counts ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["Qwen-Qwen2.5-7B-Instruct", "Qwen-Qwen3-0.6B", "microsoft-Phi-3.5-mini-instruct"]
)
def test_exact_counts_equal_transformers_token_ids(tmp_path, name):
    # no added special tokens: the tokens in the count are the tokenizer.json's own (Phi's
    # template prints eos_token, which transformers renders empty when the tokenizer has
    # none: chatpipe is told so, with an empty --var)
    directory = model_dir(tmp_path, name, tokens={})
    tokenizer = AutoTokenizer.from_pretrained(str(directory))
    counter = f"hf:{directory / 'tokenizer.json'}"
    checked = longest = 0
    for fixture, messages, _ in CONVERSATIONS:
        shaped = oracle_of(messages)
        try:
            ids = tokenizer.apply_chat_template(shaped, tokenize=True, return_dict=False)
        except Exception:
            continue
        longest = max(longest, len(ids))
        lines = "\n".join(json.dumps(m) for m in cp.convert_to_openai_messages(messages))
        result = cli(
            "count",
            "--chat-template",
            str(directory),
            "--token-counter",
            counter,
            "--from",
            "openai",
            "--var",
            "eos_token=",
            input=lines + "\n",
        )
        assert result.exit_code == 0, (fixture, result.stderr)
        assert int(result.stdout) == len(ids), fixture
        checked += 1
        if checked == 12:
            break
    assert checked == 12
    assert longest > 128  # past the tokenizer.json's own truncation


def test_trim_keeps_the_newest_messages_whose_prompt_fits(tmp_path):
    directory = model_dir(tmp_path, "Qwen-Qwen2.5-7B-Instruct", tokens={})
    tokenizer = AutoTokenizer.from_pretrained(str(directory))
    chat = []
    for k in range(8):
        chat.append({"role": "user", "content": f"question {k} " + "word " * k})
        chat.append({"role": "assistant", "content": f"answer {k} " + "more " * (8 - k)})
    lines = "\n".join(json.dumps(m) for m in chat) + "\n"

    def tokens(messages):
        return len(tokenizer.apply_chat_template(messages, tokenize=True, return_dict=False))

    sizes = []
    for budget in (40, 90, 150, 260, 10_000):
        result = cli(
            "trim",
            "--max-tokens",
            str(budget),
            "--start-on",
            "human",
            "--chat-template",
            str(directory),
            "--token-counter",
            f"hf:{directory / 'tokenizer.json'}",
            input=lines,
        )
        assert result.exit_code == 0, result.stderr
        kept = [json.loads(line) for line in result.stdout.splitlines()]
        sizes.append(len(kept))
        if kept:
            assert kept == chat[len(chat) - len(kept) :]
            assert kept[0]["role"] == "user"
            assert tokens(kept) <= budget
        # one more turn back would not fit
        start = len(chat) - len(kept) - 2
        if start >= 0:
            assert tokens(chat[start:]) > budget
        if budget == 10_000:
            assert kept == chat
    assert sizes == [0, 2, 4, 10, 16]  # (40 tokens hold no turn: its prompt alone is more)


def test_stats_and_count_through_the_template_agree(tmp_path):
    directory = model_dir(tmp_path, "Qwen-Qwen2.5-7B-Instruct", tokens={})
    counter = f"hf:{directory / 'tokenizer.json'}"
    path = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
    counted = cli("count", "--chat-template", str(directory), "--token-counter", counter, str(path))
    stats = cli(
        "stats", "--json", "--chat-template", str(directory), "--token-counter", counter, str(path)
    )
    assert counted.exit_code == 0 and stats.exit_code == 0, counted.stderr + stats.stderr
    rows = [json.loads(line) for line in stats.stdout.splitlines()][:-1]
    assert [r["tokens"] for r in rows] == [int(n) for n in counted.stdout.split()]
    plain = HFCounter(str(directory / "tokenizer.json"))
    assert rows[0]["tokens"] > plain.count(cp.convert_to_messages([]))


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        (
            "list.json",
            b"[1, 2]",
            "list.json: has no 'chat_template' key (give the model's tokenizer_config.json,"
            " chat_template.json or .jinja)",
        ),
        (
            "wrongtype.json",
            b'{"chat_template": 5}',
            "wrongtype.json: 'chat_template' is neither a template nor a list of named ones",
        ),
        (
            "badbos.json",
            b'{"chat_template": "x", "bos_token": 5}',
            "badbos.json: bos_token is neither a string nor a token object",
        ),
        (
            "badjson.json",
            b'{"chat_template": "{{ bos_token }}',
            "badjson.json:1: not valid JSON (Unterminated string starting at)",
        ),
        ("notutf8.json", b"\xff\xfe{", "notutf8.json: not UTF-8 text"),
    ],
)
def test_a_chat_template_source_that_cannot_serve_is_said(name, content, said, tmp_path):
    source = tmp_path / name
    source.write_bytes(content)
    conversation = tmp_path / "c.jsonl"
    conversation.write_text('{"messages":[{"role":"user","content":"hi"}]}\n')
    result = cli("template", "--chat-template", str(source), str(conversation))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"chatpipe: error: {tmp_path}/{said}\n"


def test_a_model_directory_and_a_cached_model_id_serve_their_templates(tmp_path, monkeypatch):
    """transformers' rules: files in additional_chat_templates/ replace the config's
    template (no default then), special_tokens_map.json fills tokens the config lacks,
    and a model id is its newest snapshot in the local cache."""
    model = tmp_path / "model"
    (model / "additional_chat_templates").mkdir(parents=True)
    (model / "tokenizer_config.json").write_text(
        '{"chat_template": "{% for m in messages %}{{ m.content }}{% endfor %}"}'
    )
    (model / "additional_chat_templates" / "tool_use.jinja").write_text(
        "{{ bos_token }}TOOL:{{ messages[0].content }}"
    )
    (model / "special_tokens_map.json").write_text('{"bos_token": "<s>"}')
    conversation = tmp_path / "c.jsonl"
    conversation.write_text('{"messages":[{"role":"user","content":"hi"}]}\n')

    no_default = cli("template", "--chat-template", str(model), str(conversation))
    assert (no_default.exit_code, no_default.stderr) == (
        2,
        f"chatpipe: error: {model} has several chat templates and none is the default (pick"
        " one with --template-name: tool_use)\n",
    )
    named = cli(
        "template", "--chat-template", str(model), "--template-name", "tool_use", str(conversation)
    )
    assert (named.exit_code, named.stdout) == (0, "<s>TOOL:hi\n")

    snapshot = tmp_path / "hf" / "hub" / "models--org--tiny" / "snapshots" / "abc"
    snapshot.mkdir(parents=True)
    (snapshot / "tokenizer_config.json").write_text((model / "tokenizer_config.json").read_text())
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    cached = cli("template", "--chat-template", "org/tiny", str(conversation))
    assert (cached.exit_code, cached.stdout) == (0, "hi\n")
    # a model id not in the cache: where it was looked for, and how to give a file (#41)
    missing = cli("template", "--chat-template", "org/missing", str(conversation))
    assert (missing.exit_code, missing.stderr) == (
        2,
        "chatpipe: error: --chat-template org/missing: no such file, and no org/missing in the"
        f" local Hugging Face cache ({tmp_path}/hf/hub/models--org--missing is not there; the"
        " cache is HF_HUB_CACHE, else $HF_HOME/hub); chatpipe never downloads (download it"
        " first (hf download org/missing tokenizer_config.json), or give a file:"
        " --chat-template FILE.jinja, its tokenizer_config.json, or the model's folder)\n",
    )
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    missing = cli("template", "--chat-template", "org/missing", str(conversation))
    assert f"({tmp_path}/hub/models--org--missing is not there;" in missing.stderr
    nofile = cli("template", "--chat-template", "no/such/t.jinja", str(conversation))
    assert (nofile.exit_code, nofile.stderr) == (
        2,
        "chatpipe: error: --chat-template no/such/t.jinja: no such file or directory (give a"
        " chat_template.jinja, a tokenizer_config.json, a model's folder, or a model id"
        " (ORG/NAME) in the local Hugging Face cache)\n",
    )


def test_generation_tags_and_what_continue_final_message_cannot_do(tmp_path):
    generation = tmp_path / "gen.json"
    generation.write_text(
        '{"chat_template": "{% for m in messages %}{% generation %}[{{ m.role }}]'
        '{% endgeneration %}{% endfor %}"}'
    )
    chat = tmp_path / "c.jsonl"
    chat.write_text('{"messages":[{"role":"user","content":"hi"}]}\n')
    shown = cli("template", "--chat-template", str(generation), str(chat))
    assert (shown.exit_code, shown.stdout) == (0, "[user]\n")  # the tag renders its body

    def refused(template, conversation):
        result = cli(
            "template",
            "--chat-template",
            str(template),
            "--continue-final-message",
            str(conversation),
        )
        assert (result.exit_code, result.stdout) == (1, "")
        prefix = f"chatpipe: error: {conversation}:1:1: --continue-final-message: "
        assert result.stderr.startswith(prefix)
        return result.stderr[len(prefix) :]

    assert refused(generation, chat) == 'the chat template never reads the "content" field\n'

    reads = tmp_path / "reads.json"
    reads.write_text('{"chat_template": "{% for m in messages %}{{ m.content }}{% endfor %}"}')
    no_text = tmp_path / "no_text.jsonl"
    no_text.write_text(
        '{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":'
        '[{"type":"image_url","image_url":{"url":"https://e.x/i.png"}}]}]}\n'
    )
    assert refused(reads, no_text) == "the final message has no text to continue\n"


def test_the_template_sees_plain_data_only():
    from chatpipe.templates.render import plain_data

    class Text(str):
        pass

    class Number(int):
        pass

    class Ratio(float):
        pass

    value = {Text("k"): [Number(3), Ratio(0.5), (Text("a"), None), object(), True]}
    plain = plain_data(value)
    assert plain == {"k": [3, 0.5, ("a", None), "<object>", True]}
    key = next(iter(plain))
    assert type(key) is str and type(plain["k"][0]) is int and type(plain["k"][1]) is float


# -- templates' own constructs and continue_final_message, against transformers' renderer ----

CONTENT_OR_PARTS = (
    "{% for m in messages %}{{ m.role }}: {% if m.content is string %}{{ m.content }}"
    "{% else %}{% for p in m.content %}{{ p.text }}{% endfor %}{% endif %}\n{% endfor %}"
)
REASONING = (
    "{% for m in messages %}{% if m.reasoning_content %}<think>{{ m.reasoning_content }}"
    "</think>{% endif %}{{ m.content }}|{% endfor %}"
)


def _both(tmp_path, template, chat, **options):
    from transformers.utils.chat_template_utils import render_jinja_template

    source = tmp_path / "t.jinja"
    source.write_text(template)
    try:
        theirs = ("text", render_jinja_template([chat], chat_template=template, **options)[0][0])
    except Exception as exc:
        theirs = ("error", str(exc))
    try:
        ours = ("text", ChatTemplate(str(source)).render_dicts([dict(m) for m in chat], **options))
    except ChatpipeError as exc:
        ours = ("error", exc.message)
    return ours, theirs


@pytest.mark.parametrize(
    ("template", "chat", "options"),
    [
        (  # Jinja's dict(), dict.fromkeys, and an index past the end (undefined)
            "{{ dict(a=1, b=messages[0].role) | tojson }} {{ dict.fromkeys(['x'], 0) | tojson }}"
            " {{ messages[9] is defined }} {{ (messages | last).content | tojson(indent=2) }}",
            [{"role": "user", "content": "hi"}],
            {},
        ),
        (  # lookups on dicts, inline, and every kind the environment answers
            "{% for m in messages %}{{ m.role }}:{{ m['content'] }}|{{ m.missing is defined }}|"
            "{{ m['nope'] is defined }}|{{ m.items() | list | length }}|{{ m.content.upper() }}|"
            "{{ messages[0]['role'] }}|{{ m.get('role') }}|{{ (m.tool_calls or [{}])[0].id }}\n"
            "{% endfor %}{{ messages[0].content[0] }}{{ messages[-1]['content'][1:] }}",
            [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "yo", "tool_calls": [{"id": "c1"}]},
            ],
            {},
        ),
        (  # continue the last text part of list content
            CONTENT_OR_PARTS,
            [
                {"role": "user", "content": "Say hi"},
                {"role": "assistant", "content": [{"type": "text", "text": "Hi, I am "}]},
            ],
            {"continue_final_message": True},
        ),
        (  # a template that trims the content: the prompt ends where the trimmed text ends
            "{% for m in messages %}[{{ m.content | trim }}]{% endfor %}",
            [{"role": "user", "content": "x"}, {"role": "assistant", "content": "Sure,  "}],
            {"continue_final_message": True},
        ),
        (  # continue the reasoning, by the field's name
            REASONING,
            [
                {"role": "user", "content": "2+2?"},
                {"role": "assistant", "content": "", "reasoning_content": "Adding two and "},
            ],
            {"continue_final_message": "reasoning_content"},
        ),
        (  # the field named is missing
            REASONING,
            [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}],
            {"continue_final_message": "reasoning_content"},
        ),
        (  # a template that drops the final message
            "{% for m in messages[:-1] %}{{ m.content }}{% endfor %}",
            [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}],
            {"continue_final_message": True},
        ),
    ],
)
def test_template_constructs_render_as_transformers_renders_them(tmp_path, template, chat, options):
    ours, theirs = _both(tmp_path, template, chat, **options)
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "text":
        assert ours[1] == theirs[1]
    else:  # the same refusal, in chatpipe's own words
        assert "final message" in ours[1] and "final message" in theirs[1], (ours, theirs)


def test_a_conversation_without_messages_is_refused():
    template = ChatTemplate(str(FIXTURES / "chat_templates" / "Qwen-Qwen2.5-7B-Instruct.jinja"))
    with pytest.raises(ChatpipeError, match="this conversation has no messages"):
        template.render_dicts([])


def test_continue_field_ends_inside_the_reasoning_as_transformers(models, tmp_path):
    directory, tokenizer = models["Qwen-Qwen3-0.6B"]
    chat = [
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "", "reasoning_content": "Adding two and "},
    ]
    expected = tokenizer.apply_chat_template(
        chat, continue_final_message="reasoning_content", tokenize=False
    )
    assert expected.endswith("<think>\nAdding two and ")
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps({"messages": chat}) + "\n")
    result = cli(
        "template", "--chat-template", directory, "--continue-field", "reasoning_content", str(path)
    )
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == expected + "\n"


@pytest.mark.parametrize("name", ["messages", "tools", "documents", "add_generation_prompt"])
def test_a_var_of_a_variable_chatpipe_sets_is_refused(name):
    # transformers' apply_chat_template refuses such a keyword too (given twice)
    source = str(FIXTURES / "chat_templates" / "Qwen-Qwen2.5-7B-Instruct.jinja")
    result = cli("template", "--chat-template", source, "--var", f"{name}=1", input="")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"chatpipe: error: --var {name}: the template's {name} is chatpipe's to set "
        "(--add-generation-prompt, --tools and --documents set theirs)\n"
    )


def test_tools_and_documents_files_and_their_refusals(tmp_path):
    source = str(FIXTURES / "chat_templates" / "Qwen-Qwen2.5-7B-Instruct.jinja")
    log = str(FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl")
    wrapped = tmp_path / "tools.json"  # {"tools": [...]}, as a request body holds them
    wrapped.write_text('{"tools": [{"type": "function", "function": {"name": "get"}}]}')
    bare = tmp_path / "bare.json"  # bare function schemas
    bare.write_text('[{"name": "get"}]')
    shown = [
        cli("template", "--chat-template", source, "--tools", str(p), log) for p in (wrapped, bare)
    ]
    assert [r.exit_code for r in shown] == [0, 0] and shown[0].stdout == shown[1].stdout
    assert (
        '{\\"type\\": \\"function\\", \\"function\\": {\\"name\\": \\"get\\"}}' in shown[0].stdout
    )
    bad = tmp_path / "bad.json"
    bad.write_text("{bad")
    numbers = tmp_path / "numbers.json"
    numbers.write_text("[1, 2]")
    for args, said in (
        (
            ["--tools", "/no/such.json"],
            "--tools /no/such.json: cannot read it (No such file or directory)",
        ),
        (
            ["--tools", str(bad)],
            f"--tools {bad}: not valid JSON (unexpected character, expected a string key: line 1 column 2 (char 1))",
        ),
        (["--tools", str(numbers)], f"--tools {numbers}: expected a JSON list of objects"),
        (["--documents", str(numbers)], f"--documents {numbers}: expected a JSON list of objects"),
    ):
        result = cli("template", "--chat-template", source, *args, log)
        assert (result.exit_code, result.stdout, result.stderr) == (
            2,
            "",
            f"chatpipe: error: {said}\n",
        )
    result = cli("count", "--var", "x=1", log)
    assert (result.exit_code, result.stderr) == (
        2,
        "chatpipe: error: --template-name and --var go with --chat-template\n",
    )


def test_var_values_are_json_when_they_parse_and_text_otherwise(tmp_path):
    template = tmp_path / "t.jinja"
    template.write_text("{{ flag is sameas false }} {{ n + 1 }} {{ word }} {{ items | length }}")
    result = cli(
        "template",
        "--chat-template",
        str(template),
        "--var",
        "flag=false",
        "--var",
        "n=41",
        "--var",
        "word=hello there",
        "--var",
        'items=["a", "b"]',
        input='{"role": "user", "content": "x"}\n',
    )
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == "True 42 hello there 2\n"
