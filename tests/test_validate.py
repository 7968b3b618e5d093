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


# -- batch files and pydantic-ai histories (#40) ------------------------------------------

CLEAN_BATCHES_AND_HISTORIES = [
    "anthropic_batch__documented_requests_body.json",
    "openai_batch__cookbook_responses_input_first1.jsonl",
    "openai_batch__litellm_chat_input.jsonl",
    "openai_batch__litellm_chat_output.jsonl",
    "pydantic_ai__afarntrog_gemini_dice_tool_calls.json",
    "pydantic_ai__generated_pydantic_ai_2_68_one_message_a_line.jsonl",
    "pydantic_ai__generated_pydantic_ai_2_68_thinking_retry_media.json",
]


def test_clean_batch_files_and_histories_have_no_problems():
    # the last: an instructions field and a system prompt, two system messages at the
    # start, which are not misplaced
    for name in CLEAN_BATCHES_AND_HISTORIES:
        result = cli("validate", str(FIXTURES / name))
        assert (name, result.exit_code, result.stdout, result.stderr) == (
            name,
            0,
            "",
            "chatpipe: no problems found\n",
        )


def _requests(tmp_path, name, *lines):
    path = tmp_path / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


ASK = {"role": "user", "content": "Weather?"}
HI = {"role": "user", "content": "Hi"}


def test_batch_requests_are_checked_at_their_lines(tmp_path):
    call = {"id": "c1", "type": "function", "function": {"name": "w", "arguments": "{}"}}
    chat = {"custom_id": "r1", "method": "POST", "url": "/v1/chat/completions"}
    openai = _requests(
        tmp_path,
        "openai.jsonl",
        {**chat, "body": {"model": "m", "messages": [HI]}},
        {**chat, "custom_id": "r2", "body": {"model": "m"}},
        {
            **chat,
            "custom_id": "r3",
            "body": {
                "model": "m",
                "messages": [
                    ASK,
                    {"role": "assistant", "content": None, "tool_calls": [call]},
                    {"role": "user", "content": "and?"},
                ],
            },
        },
    )
    result = cli("validate", str(openai))
    assert (result.exit_code, result.stdout) == (
        1,
        f'{openai}:2:1: unreadable_record: the request\'s body has no "messages" list (a '
        "/v1/chat/completions request holds its conversation in body.messages)\n"
        f"{openai}:3:1: message 2: unanswered_tool_call: tool call 'c1' has no result (add "
        "the tool result, or drop the call)\n",
    )
    use = {"type": "tool_use", "id": "t1", "name": "w", "input": {}}
    params = {"model": "m", "max_tokens": 10}
    anthropic = _requests(
        tmp_path,
        "anthropic.jsonl",
        {"custom_id": "a1", "params": {**params, "messages": [HI]}},
        {"custom_id": "a2", "params": params},
        {
            "custom_id": "a3",
            "params": {
                **params,
                "messages": [ASK, {"role": "assistant", "content": [use]}, HI],
            },
        },
    )
    result = cli("validate", str(anthropic))
    assert (result.exit_code, result.stdout) == (
        1,
        f'{anthropic}:2:1: unreadable_record: the request\'s params have no "messages" '
        "list (a Message Batches request holds its conversation in params.messages)\n"
        f"{anthropic}:3:1: message 2: unanswered_tool_call: tool call 't1' has no result "
        "(add the tool result, or drop the call)\n",
    )


def test_a_failed_batch_result_is_a_problem_at_its_line(tmp_path):
    path = FIXTURES / "openai_batch__documented_errors_output.jsonl"
    result = cli("validate", str(path))
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        f"{path}:1:1: failed_batch_request: custom_id 'request-3' has no answer: "
        "batch_expired: This request could not be executed before the completion window "
        "expired. (mend what the error says, then send the request again in a new batch)\n"
        f"{path}:2:1: failed_batch_request: custom_id 'request-4' has no answer: HTTP 400: "
        "Invalid value for 'max_tokens': must be a positive integer. (mend what the error "
        "says, then send the request again in a new batch)\n",
        "chatpipe: 2 problems: 2 failed_batch_request\n",
    )
    path = FIXTURES / "anthropic_batch__documented_results.jsonl"
    result = cli("validate", "--json", str(path))
    assert kinds_at(result) == [
        (3, None, "failed_batch_request"),
        (4, None, "failed_batch_request"),
    ]
    assert json.loads(result.stdout.splitlines()[1])["message"] == (
        "custom_id 'my-fourth-request' has no answer: expired"
    )
    errored = {"type": "errored", "error": {"type": "error", "error": {"type": "overloaded"}}}
    results = _requests(tmp_path, "results.jsonl", {"custom_id": "x", "result": errored})
    said = cli("validate", str(results)).stdout
    assert said.startswith(f"{results}:1:1: failed_batch_request: custom_id 'x' has no answer: ")


def test_a_pydantic_ai_history_is_checked_at_each_model_message(tmp_path):
    def request(part_kind, content, **part):
        return {"kind": "request", "parts": [{"part_kind": part_kind, "content": content, **part}]}

    roll = {"part_kind": "tool-call", "tool_name": "roll", "args": "{}", "tool_call_id": "c1"}
    history = [
        request("user-prompt", "Roll a die"),
        {"kind": "response", "parts": [roll], "model_name": "m"},
        request("user-prompt", "Well?"),
        {"kind": "response", "parts": [{"part_kind": "text", "content": "4"}]},
        request("tool-return", "4", tool_name="roll", tool_call_id="c9"),
    ]
    dump = tmp_path / "history.json"
    dump.write_text("[\n" + ",\n".join(json.dumps(m) for m in history) + "\n]\n")
    lines = _requests(tmp_path, "history.jsonl", *history)
    for path, first in ((dump, 2), (lines, 1)):
        result = cli("validate", str(path))
        assert (result.exit_code, result.stdout) == (
            1,
            f"{path}:{first + 4}:1: orphan_tool_result: a tool "
            "result for 'c9' with no tool call before it (providers reject this: add the "
            "call or drop the result)\n"
            f"{path}:{first + 1}:1: unanswered_tool_call: tool call "
            "'c1' has no result (add the tool result, or drop the call)\n",
        )
    several = tmp_path / "histories.jsonl"
    several.write_text(json.dumps(history[:3]) + "\n" + json.dumps(history[3:]) + "\n")
    result = cli("validate", str(several))
    assert result.stdout.splitlines() == [
        f"{several}:1:1: unanswered_tool_call: tool call 'c1' has no result (add the tool "
        "result, or drop the call)",
        f"{several}:2:1: orphan_tool_result: a tool result for 'c9' with no tool call before "
        "it (providers reject this: add the call or drop the result)",
    ]
