"""``chatpipe validate``: every kind on its fixture, with exact locations and exit codes."""

from __future__ import annotations

import json
import re
import sys

from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()
V = FIXTURES / "validate"


def cli(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def kinds_at(result):
    """(line, message index, kind) of every reported problem."""
    out = []
    for line in result.stdout.splitlines():
        report = json.loads(line)
        out.append((report["line"], report["message_index"], report["kind"]))
    return out


def test_finetune_kinds_with_locations():
    result = cli(
        "validate", "--json", "--rules", "openai-finetune", str(V / "finetune_problems.jsonl")
    )
    assert result.exit_code == 1
    assert kinds_at(result) == [
        (1, None, "data_type"),
        (2, None, "missing_messages_list"),
        (3, 0, "message_missing_key"),
        (3, 0, "missing_content"),
        (4, 0, "message_unrecognized_key"),
        (5, 0, "unrecognized_role"),
        (6, 0, "missing_content"),
        (7, None, "example_missing_assistant_message"),
    ]


def test_structure_kinds_with_locations():
    result = cli("validate", "--json", "--rules", "structure", str(V / "structure_problems.jsonl"))
    assert result.exit_code == 1
    assert kinds_at(result) == [
        (1, 1, "orphan_tool_result"),
        (2, 1, "unanswered_tool_call"),
        (3, 3, "duplicate_tool_result"),
        (4, 1, "invalid_tool_arguments"),
        (5, 1, "empty_assistant_message"),
        (6, 1, "misplaced_system_message"),
    ]


def test_too_many_tokens_with_any_counter():
    for counter, budget in (("approximate", 30), ("messages", 1)):
        result = cli(
            "validate",
            "--json",
            "--rules",
            "structure",
            "--max-tokens",
            str(budget),
            "--token-counter",
            counter,
            str(V / "clean.jsonl"),
        )
        assert result.exit_code == 1
        assert kinds_at(result) == [(1, None, "too_many_tokens"), (2, None, "too_many_tokens")]


def test_clean_file_exits_zero_and_says_so():
    result = cli("validate", str(V / "clean.jsonl"))
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr == "chatpipe: no problems found\n"


def test_text_lines_and_summary():
    result = cli("validate", str(V / "structure_problems.jsonl"))
    assert result.stdout.splitlines()[0] == (
        f"{V / 'structure_problems.jsonl'}:1:1: message 2: orphan_tool_result: a tool result for "
        "'call_x' with no tool call before it (providers reject this: add the call or drop the result)"
    )
    assert result.stderr.startswith("chatpipe: 7 problems: ")


def test_message_per_line_logs_name_each_line():
    data = (
        '{"role":"user","content":"q"}\n'
        '{"role":"tool","tool_call_id":"nope","content":"r"}\n'
        "not json\n"
        '{"role":"assistant","content":"a","colour":"red"}\n'
    )
    result = cli("validate", "--json", input=data)
    assert kinds_at(result) == [
        (2, None, "orphan_tool_result"),
        (3, None, "unreadable_record"),
        (4, None, "message_unrecognized_key"),
    ]
    assert result.exit_code == 1


def test_bad_rules_is_a_usage_error():
    result = cli("validate", "--rules", "everything", str(V / "clean.jsonl"))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "chatpipe: error: --rules must be one of all, openai-finetune, structure, "
        "got 'everything'\n"
    )


def test_a_captured_stream_is_checked_and_its_broken_event_named(tmp_path):
    stream = FIXTURES / "anthropic_messages__vercel_stream_tool_use_input_json_delta.jsonl"
    clean = cli("validate", str(stream))
    assert (clean.exit_code, clean.stdout, clean.stderr) == (
        0,
        "",
        "chatpipe: no problems found\n",
    )
    lines = stream.read_text().splitlines(keepends=True)
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join([*lines[:2], "not json\n", *lines[2:]]))
    result = cli("validate", str(broken))
    assert result.exit_code == 1
    assert result.stdout == (
        f"{broken}:3:1: unreadable_record: invalid JSON: invalid literal, expected 'null'\n"
    )
    assert result.stderr == "chatpipe: 1 problem: 1 unreadable_record\n"


def test_the_summary_is_a_table_on_a_terminal(monkeypatch):
    import io
    from collections import Counter

    from chatpipe.cli import validate as command

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "40")
    command._summary(Counter({"unreadable_record": 2, "orphan_tool_result": 1}))
    plain = re.sub(r"\x1b\[[0-9;]*m", "", screen.getvalue())  # styles (italic title)
    lines = [line.rstrip() for line in plain.splitlines()]
    assert lines[0].strip() == "3 problems"
    rows = [line for line in lines if "│" in line or "┃" in line]
    assert [r.replace("│", " ").replace("┃", " ").split() for r in rows] == [
        ["kind", "count"],
        ["unreadable_record", "2"],
        ["orphan_tool_result", "1"],
    ]


def test_verbose_says_what_is_checked():
    result = cli("validate", "-v", str(V / "clean.jsonl"))
    assert result.exit_code == 0
    assert result.stderr.splitlines()[0] == (
        f"chatpipe: checking {V / 'clean.jsonl'} with the all rules"
    )
