"""``chatpipe filter`` and ``chatpipe merge`` end to end."""

from __future__ import annotations

import json

import langchain_core.messages as lc
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()
LOG = FIXTURES / "openai_tool_calls.jsonl"


def cli(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def lc_log():
    return lc.convert_to_messages(
        [json.loads(line) for line in LOG.read_text(encoding="utf-8").splitlines()]
    )


def as_canonical(result):
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_filter_options_equal_langchain():
    cases = [
        (
            ["--include-types", "human", "--include-types", "system"],
            {"include_types": ["human", "system"]},
        ),
        (["--exclude-types", "tool"], {"exclude_types": ["tool"]}),
        (["--exclude-all-tool-calls"], {"exclude_tool_calls": True}),
        (["--exclude-tool-calls", "call_paris"], {"exclude_tool_calls": ["call_paris"]}),
        (["--include-ids", "nope"], {"include_ids": ["nope"]}),
    ]
    for args, kwargs in cases:
        result = cli("filter", "--to", "langchain", *args, str(LOG))
        assert result.exit_code == 0, result.stderr
        assert as_canonical(result) == lc.messages_to_dict(
            lc.filter_messages(lc_log(), **kwargs)
        ), args


def test_filter_names_and_conflicting_flags():
    data = (
        '{"role":"user","content":"a","name":"ann"}\n{"role":"user","content":"b","name":"bob"}\n'
    )
    assert (
        cli("filter", "--exclude-names", "ann", input=data).stdout
        == '{"role":"user","name":"bob","content":"b"}\n'
    )
    assert (
        cli("filter", "--include-names", "ann", input=data).stdout
        == '{"role":"user","name":"ann","content":"a"}\n'
    )
    both = cli("filter", "--exclude-all-tool-calls", "--exclude-tool-calls", "x", input=data)
    assert both.exit_code == 2


def test_merge_runs_with_separator_and_conversation_rows():
    data = '"a"\n"b"\n["ai","c"]\n["ai","d"]\n'
    assert (
        cli("merge", input=data).stdout
        == '{"role":"user","content":"a\\nb"}\n{"role":"assistant","content":"c\\nd"}\n'
    )
    assert (
        cli("merge", "--chunk-separator", " | ", input=data).stdout.splitlines()[0]
        == '{"role":"user","content":"a | b"}'
    )
    row = {
        "messages": [{"role": "user", "content": "x"}, {"role": "user", "content": "y"}],
        "id": 7,
    }
    merged = cli("merge", "--to", "canonical", input=json.dumps(row) + "\n")
    assert json.loads(merged.stdout) == {
        "messages": [{"type": "human", "content": "x\ny"}],
        "id": 7,
    }


def test_merge_of_a_chatgpt_export_keeps_runs_whose_times_cannot_add_apart():
    """Every message of a ChatGPT export holds its create_time, a float: a run of two
    answers failed with "internal error: TypeError" (#51)."""
    export = FIXTURES / "chatgpt_export__realazthat_2024_code_interpreter.json"
    result = cli("merge", str(export))
    assert result.exit_code == 0, result.stderr
    assert result.stderr == "chatpipe: chatgpt-export is read only: wrote canonical instead\n"
    [record] = [json.loads(line) for line in result.stdout.splitlines()]
    read = json.loads(cli("convert", str(export)).stdout)
    assert len(read["messages"]) >= len(record["messages"]) > 0
