"""Coding agents' logs (issue 49): Cursor transcripts, Qwen Code recordings, Copilot CLI
events. Each reading is compared with the file's own texts, taken from the file here (not
from chatpipe's earlier output): every value of every fixture reaches the canonical output
but what the dialect leaves out by design; then the shapes each format has: wrapped
prompts, calls without ids, trees and rewinds, records written twice, subagents.
tests/test_agent_frameworks.py does the same for the agent frameworks' logs."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from chatpipe import AIMessage, HumanMessage, ToolMessage
from chatpipe.cli import app
from chatpipe.formats.exports import ReadOptions
from chatpipe.pipeline.opening import detect_file
from chatpipe.pipeline.reading import read
from conftest import FIXTURES
from test_fixtures import leaves, parsed_and_kept
from test_providers import output_leaves

runner = CliRunner()
DIALECTS = {"cursor": "cursor", "copilot_cli": "copilot-cli", "qwen_code": "qwen-code"}
FILES = sorted(p for p in FIXTURES.iterdir() if p.is_file() and p.name.split("__")[0] in DIALECTS)


def run(*args, input=None):
    result = runner.invoke(app, [str(a) for a in args], input=input)
    return result.exit_code, result.stdout, result.stderr


def conversations(path, **options):
    found = list(read([str(path)], options=ReadOptions(**options)))
    for conversation in found:
        conversation.messages = list(conversation.messages)
    return found


def records(path: Path) -> list:
    text = path.read_text(encoding="utf-8")
    try:
        value = json.loads(text)
    except ValueError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return value if isinstance(value, list) else [value]


def fixture(name: str) -> Path:
    return FIXTURES / name


# -- every fixture: nothing lost -----------------------------------------------------------

# what each dialect leaves out by design, as the file says it (the test's own reading)
QWEN_UNNOTED = ("ui_telemetry", "attribution_snapshot", "file_history_snapshot")
COPILOT_SILENT = ("assistant.turn_start", "assistant.turn_end", "hook.start", "hook.end")


def _kept_by_design(path: Path, record: dict) -> list:
    """The values of a record the dialect reads, in the form it reads them."""
    kind = path.name.split("__")[0]
    if kind == "qwen_code" and record.get("subtype") in QWEN_UNNOTED:
        return []
    if kind == "copilot_cli" and record.get("type") in COPILOT_SILENT:
        return []
    if kind == "cursor" and record.get("type") == "turn_ended" and record["status"] == "success":
        return []
    if kind == "cursor" and record.get("role") == "user":  # the prompt, unwrapped
        text = json.dumps(record).replace("<user_query>\\n", "").replace("\\n</user_query>", "")
        return list(leaves(json.loads(text)))
    return list(leaves(record))


def unread_values(path: Path, by_design: Callable[[Path, dict], list] = _kept_by_design) -> list:
    """The values of a fixture (``by_design``: those its dialect reads) that the canonical
    output of every branch and subagent does not hold."""
    code, out, err = run("convert", "--branch", "all", "--include-subagents", path)
    assert code == 0, err
    kept = output_leaves([json.loads(line) for line in out.splitlines()])
    missing = {
        v
        for record in records(path)
        for v in by_design(path, record)
        if v not in kept and not parsed_and_kept(v, kept)
    }
    return sorted(map(str, missing))[:5]


def bad_line_is_named(path: Path, tmp_path: Path) -> None:
    """A line of no dialect's in a log: one line naming it; skipped with --on-error skip."""
    copy = tmp_path / path.name
    lines = path.read_text(encoding="utf-8").splitlines()
    copy.write_text("\n".join([lines[0], '{"what": "no line of this log"}', *lines[1:]]) + "\n")
    code, _, err = run("convert", copy)
    assert code == 1 and err.startswith(f"chatpipe: error: {copy}:2:1: "), err
    assert "Traceback" not in err and len(err.splitlines()) == 1
    code, out, err = run("convert", "--on-error", "skip", copy)
    assert code == 0 and out and "skipped 1 bad record" in err


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_a_fixture_is_detected_as_its_dialect(path):
    _, dialect, _, _ = detect_file(str(path), None)
    assert dialect.name == DIALECTS[path.name.split("__")[0]]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_value_of_a_fixture_reaches_the_output(path):
    assert unread_values(path) == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_a_bad_line_is_named_at_its_place(path, tmp_path):
    bad_line_is_named(path, tmp_path)


# -- Cursor --------------------------------------------------------------------------------


def test_cursor_prompts_are_unwrapped_and_calls_get_ids_of_their_own():
    path = fixture("cursor__agentsessions_handmade_two_turn_shell.jsonl")
    lines = records(path)
    [conversation] = conversations(path)
    prompts = [
        re.fullmatch(r"<user_query>\n(.*)\n</user_query>", b["text"], re.S).group(1)
        for line in lines
        if line["role"] == "user"
        for b in line["message"]["content"]
    ]
    humans = [m for m in conversation.messages if isinstance(m, HumanMessage)]
    assert (
        [m.content for m in humans] == prompts == ["run ls command", "now show me the git status"]
    )
    written = [
        (b["name"], b["input"])
        for line in lines
        for b in line["message"]["content"]
        if b["type"] == "tool_use"
    ]
    calls = [c for m in conversation.messages for c in getattr(m, "tool_calls", [])]
    assert [(c["name"], c["args"]) for c in calls] == written
    assert len({c["id"] for c in calls}) == len(calls) and all(c["id"] for c in calls)
    # the redacted reasoning stands as reasoning, not as the answer's text
    redacted = conversation.messages[4]
    assert redacted.content == [
        {"type": "reasoning", "reasoning": "[REDACTED]", "extras": {"redacted": True}}
    ]


def test_cursor_results_answer_the_calls_in_order_and_turn_ends_are_noted(tmp_path):
    [drift] = conversations(fixture("cursor__agentsessions_handmade_schema_drift.jsonl"))
    ai, result = drift.messages[1], drift.messages[2]
    assert ai.content[0] == {
        "type": "reasoning",
        "reasoning": "I should inspect the build log before answering.",
    }
    assert isinstance(result, ToolMessage) and result.tool_call_id == ai.tool_calls[0]["id"]
    assert result.name == "read_file"
    lines = [
        {"type": "metadata", "metadata": {"overview": "Listing files"}},
        {"role": "user", "message": {"content": [{"type": "text", "text": "ls and cat"}]}},
        {
            "role": "assistant",
            "message": {
                "content": [
                    {"type": "tool_use", "name": "Shell", "input": {"command": "ls"}},
                    {"type": "tool_use", "name": "Read", "input": {"path": "a"}},
                ]
            },
        },
        {
            "role": "user",
            "message": {
                "content": [
                    {"type": "tool_result", "content": "a b"},
                    {"type": "tool_result", "content": "A"},
                ]
            },
        },
        {"type": "turn_ended", "status": "aborted"},
        {"type": "turn_ended", "status": "success"},
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    [conversation] = conversations(path)
    call, first, second = conversation.messages[1:]
    assert [first.tool_call_id, second.tool_call_id] == [c["id"] for c in call.tool_calls]
    assert [first.name, second.name] == ["Shell", "Read"]
    assert conversation.meta["overview"] == "Listing files"
    assert conversation.meta["notes"] == [{"at": 4, "type": "turn_ended", "status": "aborted"}]


# -- Qwen Code -----------------------------------------------------------------------------


def _qwen_chain(lines: list) -> list:
    """The uuids from the last record to the root, root first (as Qwen Code walks them)."""
    parents = {}
    for line in lines:
        parents.setdefault(line["uuid"], line["parentUuid"])
    chain, at = [], lines[-1]["uuid"]
    while at is not None:
        chain.append(at)
        at = parents.get(at)
    return chain[::-1]


def test_qwen_follows_the_last_record_and_all_gives_the_rewound_branch():
    path = fixture("qwen_code__agentsessions_handmade_rewind_branch.jsonl")
    lines = records(path)
    chain = _qwen_chain(lines)
    on_chain = [line for line in lines if line["uuid"] in chain and "message" in line]
    texts = [p["text"] for line in on_chain for p in line["message"]["parts"] if "text" in p]
    [live] = conversations(path)
    read_texts = []
    for message in live.messages:
        blocks = message.content if isinstance(message.content, list) else [message.content]
        for block in blocks:
            read_texts.append(
                block if isinstance(block, str) else block.get("text") or block.get("reasoning")
            )
    assert read_texts == texts
    # the uuid written twice is one message: its thought, then its call and text
    answer = live.messages[-1]
    assert [b["type"] for b in answer.content] == ["reasoning", "text"]
    assert answer.tool_calls[0]["id"] == "synthetic-active-call"
    assert answer.usage_metadata["input_tokens"] == 12
    assert live.meta["title"] == "Active branch title"
    assert live.meta["branch"] == {
        "leaf": chain[-3],
        "left_out": 1,
    }  # (a title and a note after it)
    both = conversations(path, branch="all")
    assert [c.meta["title"] for c in both] == ["Discarded branch title", "Active branch title"]
    assert both[0].messages[-1].content == "Discarded branch answer."
    assert both[1].meta["branch"]["active"] is True
    code, _, err = run("convert", "-v", path)
    assert code == 0 and "1 other branch left out (--branch all writes them)" in err


def test_qwen_results_pair_by_call_id_and_added_context_is_not_the_prompt():
    path = fixture("qwen_code__agentsessions_handmade_tool_call_session.jsonl")
    lines = records(path)
    [conversation] = conversations(path)
    kinds = [
        (type(m).__name__, m.content if isinstance(m.content, str) else None)
        for m in conversation.messages
    ]
    prompt, context = lines[0]["message"]["parts"]
    assert kinds[:2] == [("HumanMessage", prompt["text"]), ("SystemMessage", context["text"])]
    response = lines[2]["message"]["parts"][0]["functionResponse"]
    tool = next(m for m in conversation.messages if isinstance(m, ToolMessage))
    assert (tool.tool_call_id, tool.name, tool.content) == (
        response["id"],
        response["name"],
        response["response"]["output"],
    )
    assert tool.artifact == lines[2]["toolCallResult"]
    # a notification Qwen Code wrote is not a human turn
    assert kinds[-1] == ("SystemMessage", lines[-1]["message"]["parts"][0]["text"])


def test_qwen_parallel_results_a_failed_one_and_a_subagent_apart():
    path = fixture("qwen_code__documented_parallel_calls_error_compression_sidechain.jsonl")
    lines = records(path)
    responses = [
        p["functionResponse"]
        for line in lines
        if line["type"] == "tool_result"
        for p in line["message"]["parts"]
    ]
    main, agent = conversations(path, include_subagents=True)
    tools = [m for m in main.messages if isinstance(m, ToolMessage)]
    assert [(m.tool_call_id, m.content) for m in tools] == [
        (r["id"], r["response"].get("output") or r["response"].get("error")) for r in responses
    ]
    assert [m.status for m in tools] == ["success", "error", "success"]
    calls = [c["id"] for m in main.messages if isinstance(m, AIMessage) for c in m.tool_calls]
    assert calls == [r["id"] for r in responses]
    said = [
        p["text"] for line in lines if line.get("isSidechain") for p in line["message"]["parts"]
    ]
    assert [m.content for m in agent.messages] == said
    assert all(m.content not in said for m in main.messages if not isinstance(m, ToolMessage))
    assert agent.meta["parent_tool_call_id"] == calls[-1]
    assert [n["subtype"] for n in main.meta["notes"]] == ["slash_command", "chat_compression"]
    assert conversations(path)[0].left_out == [
        "subagents' conversations left out (--include-subagents writes them)"
    ]


def test_qwen_records_are_not_claude_code_lines_nor_the_other_way():
    _, dialect, _, _ = detect_file(
        str(fixture("qwen_code__agentsessions_handmade_rewind_branch.jsonl")), None
    )
    assert dialect.name == "qwen-code"
    claude = fixture("claude_code__entire_2026_exit_resume_branch_lines1_53.jsonl")
    assert detect_file(str(claude), None)[1].name == "claude-code"


# -- Copilot CLI ---------------------------------------------------------------------------

COPILOT = fixture("copilot_cli__sessionviewer_subagent_session_events.jsonl")


def test_copilot_messages_are_the_events_of_the_main_thread():
    events = records(COPILOT)
    main = [e for e in events if "parentToolCallId" not in e["data"]]
    [conversation] = conversations(COPILOT)
    messages = conversation.messages
    prompts = [e["data"]["content"] for e in main if e["type"] == "user.message"]
    assert [m.content for m in messages if isinstance(m, HumanMessage)] == prompts
    replies = [e["data"] for e in main if e["type"] == "assistant.message"]
    ais = [m for m in messages if isinstance(m, AIMessage)]
    assert [[c["id"] for c in m.tool_calls] for m in ais] == [
        [r["toolCallId"] for r in d["toolRequests"]] for d in replies
    ]
    thoughts = [
        b["reasoning"]
        for m in ais
        if isinstance(m.content, list)
        for b in m.content
        if b["type"] == "reasoning"
    ]
    assert thoughts == [d["reasoningText"] for d in replies if d.get("reasoningText")]
    results = {
        e["data"]["toolCallId"]: e["data"]["result"]["content"]
        for e in main
        if e["type"] == "tool.execution_complete"
    }
    tools = [m for m in messages if isinstance(m, ToolMessage)]
    assert {m.tool_call_id: m.content for m in tools} == results
    assert [m.name for m in tools] == ["view", "report_intent", "task"]
    assert conversation.meta["id"] == events[0]["data"]["sessionId"]
    assert conversation.left_out == [
        "subagents' conversations left out (--include-subagents writes them)"
    ]


def test_copilot_subagents_come_when_asked_opening_with_their_prompt():
    events = records(COPILOT)
    main, agent = conversations(COPILOT, include_subagents=True)
    task = next(
        c
        for m in main.messages
        if isinstance(m, AIMessage)
        for c in m.tool_calls
        if c["name"] == "task"
    )
    assert agent.meta["parent_tool_call_id"] == task["id"]
    assert agent.meta["subagent_type"] == "explore"
    assert agent.messages[0].content == task["args"]["prompt"]
    side = [e for e in events if e["data"].get("parentToolCallId") == task["id"]]
    results = [
        e["data"]["result"]["content"] for e in side if e["type"] == "tool.execution_complete"
    ]
    assert [m.content for m in agent.messages if isinstance(m, ToolMessage)] == results


def test_copilot_a_fork_in_the_chain_is_a_branch(tmp_path):
    def event(ident, parent, kind, **data):
        return {
            "type": kind,
            "data": data,
            "id": ident,
            "timestamp": f"2026-01-01T00:00:0{ident[-1]}Z",
            "parentId": parent,
        }

    lines = [
        event("e1", None, "session.start", sessionId="s1"),
        event("e2", "e1", "user.message", content="first try"),
        event("e3", "e2", "assistant.message", content="answer one", toolRequests=[]),
        event("e4", "e1", "user.message", content="second try"),
        event("e5", "e4", "assistant.message", content="answer two", toolRequests=[]),
    ]
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    [live] = conversations(path)
    assert [m.content for m in live.messages] == ["second try", "answer two"]
    both = conversations(path, branch="all")
    assert [[m.content for m in c.messages] for c in both] == [
        ["first try", "answer one"],
        ["second try", "answer two"],
    ]
