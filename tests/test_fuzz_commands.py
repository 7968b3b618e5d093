"""No input makes any command print a traceback or end with an unknown exit code."""

from __future__ import annotations

import json
import re
import sys

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from chatpipe.cli import app
from strategies import json_values
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
