"""No input makes any command print a traceback or end with an unknown exit code."""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES
from strategies import fixture_readers, json_values, swapped_fixtures
from test_robustness import message_like_junk

runner = CliRunner()
PYTHON_ERROR = re.compile(r"\b(KeyError|AttributeError|TypeError|IndexError|ValueError):")
COMMANDS = [
    ["convert"],
    ["convert", "--to", "anthropic"],
    ["convert", "--to", "gemini"],
    ["convert", "--to", "sharegpt"],
    ["convert", "--to", "markdown"],
    ["convert", "--to", "yaml"],
    ["buffer"],
    ["buffer", "--format", "xml"],
    ["openai"],
    ["trim", "--max-tokens", "20"],
    ["count"],
    ["filter", "--exclude-all-tool-calls"],
    ["merge"],
    ["validate"],
    ["stats"],
    ["show", "--no-pager"],
]

provider_like = st.fixed_dictionaries(
    {},
    optional={
        "messages": st.lists(message_like_junk, max_size=3),
        "contents": st.lists(
            st.dictionaries(st.sampled_from(["role", "parts"]), json_values), max_size=2
        ),
        "mapping": st.one_of(
            st.dictionaries(
                st.sampled_from(["a", "b"]),
                st.dictionaries(st.sampled_from(["parent", "message", "id"]), json_values),
                max_size=2,
            ),
            json_values,
        ),
        "current_node": st.sampled_from(["a", "b", None]),
        "chat_messages": st.lists(
            st.dictionaries(
                st.sampled_from(["sender", "text", "content", "uuid", "parent_message_uuid"]),
                json_values,
            ),
            max_size=2,
        ),
        "conversations": st.lists(
            st.dictionaries(st.sampled_from(["from", "value"]), json_values), max_size=2
        ),
        "type": st.sampled_from(
            ["message_start", "response.completed", "message", "content_block_delta"]
        ),
        "choices": st.lists(
            st.dictionaries(st.sampled_from(["delta", "message", "index"]), json_values), max_size=2
        ),
        "candidates": st.lists(json_values, max_size=2),
        "input": json_values,
        "system": json_values,
    },
)
records = st.one_of(json_values, message_like_junk, provider_like)


def text_inputs():
    as_jsonl = st.lists(records, min_size=1, max_size=3).map(
        lambda rs: "".join(json.dumps(r) + "\n" for r in rs).encode()
    )
    as_json = st.lists(records, max_size=3).map(lambda rs: json.dumps(rs, indent=1).encode())
    as_yaml = st.lists(records, max_size=3).map(lambda rs: yaml.safe_dump(rs).encode())
    as_sse = st.lists(records, min_size=1, max_size=3).map(
        lambda rs: "".join(f"data: {json.dumps(r)}\n\n" for r in rs).encode() + b"data: [DONE]\n\n"
    )
    return st.one_of(st.binary(max_size=200), as_jsonl, as_json, as_yaml, as_sse)


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(COMMANDS), text_inputs())
def test_every_command_ends_cleanly_on_any_input(command, data):
    result = runner.invoke(app, command, input=data)
    assert result.exit_code in (0, 1, 2), (command, result.exit_code)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "internal error" not in result.stderr, (command, data, result.stderr)
    assert "Traceback" not in result.stderr
    if result.exit_code and not (command == ["validate"] and result.exit_code == 1):
        assert result.stderr.startswith("chatpipe: error: "), (command, result.stderr)
    # a reader's error is said in words, never as a Python exception name (#18)
    assert not PYTHON_ERROR.search(result.stdout + result.stderr), (command, result.stderr)


# option values as a user (or a script gone wrong) may type them: out of range, not
# numbers, not finite, empty, not UTF-8 (a byte that is not UTF-8 arrives as \udcff)
OPTIONS = [
    ([], "--max-record-bytes", ["convert"]),
    ([], "--max-depth", ["convert"]),
    ([], "--max-yaml-values", ["convert"]),
    (["convert"], "--max-depth", []),
    (["trim"], "--max-tokens", []),
    (["trim", "--max-tokens", "50"], "--start-on", []),
    (["trim", "--max-tokens", "50"], "--strategy", []),
    (["trim", "--max-tokens", "50"], "--token-counter", []),
    (["count"], "--chars-per-token", []),
    (["count"], "--extra-tokens-per-message", []),
    (["count"], "--tokens-per-image", []),
    (["count"], "--token-counter", []),
    (["buffer"], "--separator", []),
    (["buffer"], "--message-separator", []),
    (["buffer"], "--human-prefix", []),
    (["buffer"], "--format", []),
    (["convert"], "--to", []),
    (["convert"], "--from", []),
    (["convert"], "--jobs", []),
    (["convert"], "--branch", []),
    (["convert"], "--group-by", []),
    (["convert"], "--on-error", []),
    (["filter"], "--include-types", []),
    (["filter"], "--exclude-names", []),
    (["merge"], "--chunk-separator", []),
    (["validate"], "--max-tokens", []),
    (["validate"], "--rules", []),
    (["openai"], "--text-format", []),
]
option_values = st.one_of(
    st.sampled_from(
        [
            "0",
            "-1",
            "1",
            "nan",
            "NaN",
            "inf",
            "-inf",
            "1e999",
            "1.5",
            "-0",
            "",
            "99999999999999999999",
            "9" * 400,
            "\udcff",
            "x\udcfe",
            "--",
            "-v",
            "human",
        ]
    ),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=6),
)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(OPTIONS), option_values)
def test_every_option_value_ends_cleanly(option, value):
    from chatpipe.cli import arrange
    from conftest import FIXTURES

    before, flag, after = option
    args = arrange([*before, flag, value, *after, str(FIXTURES / "openai_tool_calls.jsonl")])
    depth = sys.getrecursionlimit()
    try:
        result = runner.invoke(app, args)
    finally:  # --max-depth raises it for the run; the next example starts as this one did
        sys.setrecursionlimit(depth)
    assert result.exit_code in (0, 1, 2), (args, result.exit_code, result.stderr)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        args,
        repr(result.exception),
    )
    assert "internal error" not in result.stderr, (args, result.stderr)
    assert "Traceback" not in result.stderr
    if result.exit_code == 2:  # a usage error: one line, chatpipe's (click printed four)
        assert result.stderr.startswith("chatpipe: error: "), (args, result.stderr)
        assert result.stderr.count("\n") == 1, (args, result.stderr)


# -- every reader x every command, on the fixtures' own shapes with a value swapped (#51) ----

READERS = fixture_readers()
QWEN = FIXTURES / "chat_templates" / "Qwen-Qwen2.5-7B-Instruct.jinja"
TARGETS = ["canonical", "openai", "anthropic", "gemini", "openai-responses", "sharegpt"]
TARGETS += ["alpaca", "pydantic-ai", "langchain", "markdown", "yaml", "html"]
EVERY_COMMAND = [
    *(["convert", "--to", to] for to in TARGETS),
    ["convert", "--to", "openai-batch", "--model", "m"],
    ["convert", "--to", "anthropic-batch", "--model", "m", "--max-tokens", "9"],
    ["convert", "--branch", "all", "--include-subagents"],
    ["buffer"],
    ["buffer", "--format", "xml"],
    ["openai"],
    ["trim", "--max-tokens", "20"],
    ["count"],
    ["count", "--chat-template", str(QWEN)],
    ["filter", "--exclude-all-tool-calls"],
    ["merge"],
    ["validate"],
    ["stats"],
    ["show", "--no-pager"],
    ["select", "--max-tokens", "100", "--has", "tool-calls"],
    ["grep", "a", "--in", "all"],
    ["head", "-n", "1"],
    ["sample", "-n", "1", "--seed", "1"],
    ["split", "--ratio", "a=0.5,b=0.5", "--output-dir", "{folder}"],
    ["dedupe"],
    ["redact"],
    ["template", "--chat-template", str(QWEN)],
    ["tokenize", "--tokenizer", "{tokenizer}"],
]
# in the suite: a fixed sample of swaps a command, the same each run (derandomized); run
# more with CHATPIPE_FUZZ_EXAMPLES=N (a run of 2,000 a command found what #51 fixed)
SWAPS = int(os.environ.get("CHATPIPE_FUZZ_EXAMPLES", "8"))


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
    """A model folder: a small tokenizer.json and the Qwen template."""
    import tokenizers  # noqa: F401  (the test extra installs it: missing fails, never skips)

    folder = tmp_path_factory.mktemp("model")
    source = FIXTURES / "chat_templates" / "all-MiniLM-L6-v2" / "tokenizer.json"
    (folder / "tokenizer.json").write_bytes(source.read_bytes())
    config = {"chat_template": QWEN.read_text(encoding="utf-8"), "eos_token": "[SEP]"}
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


@pytest.mark.parametrize("command", EVERY_COMMAND, ids=" ".join)
def test_a_value_of_another_kind_anywhere_in_a_fixture_is_said_in_one_located_line(
    command, tokenizer, tmp_path_factory
):
    """Each fixture's records, the value at one place swapped for one of another kind
    (an object where a string was, a list for a block's type, null for a list...): every
    command ends cleanly, and an error is one line naming the file (issue #51: internal
    errors from tools [{"type": {}}] and blocks whose type was an object)."""
    folder = tmp_path_factory.mktemp("swapped")

    @settings(
        max_examples=SWAPS,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(swapped_fixtures(READERS))
    def check(swapped):
        _, name, suffix, data = swapped
        path = folder / f"swapped{suffix}"
        path.write_bytes(data)
        out = tempfile.mkdtemp(dir=folder)
        args = [a.format(folder=f"{out}/sides", tokenizer=tokenizer) for a in command]
        result = runner.invoke(app, [*args, str(path)])
        said = (command, name, result.stderr[-2000:])
        assert result.exit_code in (0, 1, 2), said
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            command,
            name,
            repr(result.exception),
        )
        assert "internal error" not in result.stderr, said
        assert "Traceback" not in result.stderr, said
        assert not PYTHON_ERROR.search(result.stderr), said
        errors = [line for line in result.stderr.splitlines() if "chatpipe: error: " in line]
        assert len(errors) <= 1, said
        if result.exit_code == 1 and (errors or command[0] not in ("validate", "grep")):
            # (validate's 1 says it found problems, grep's that nothing matched)
            assert len(errors) == 1 and str(path) in errors[0], said

    check()
