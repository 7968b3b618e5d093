"""Coding agents' session logs (issue 40): Claude Code transcripts, Codex rollouts, Gemini
CLI chats. Each fixture's whole canonical output is compared with its checked file
(``tests/expected_sessions/``; after a change meant to alter them, regenerate with
``python tests/test_agent_sessions.py`` and read the diff); then the shapes each format
has that a reader gets wrong: split replies, parallel results, rewinds, compactions,
subagents, call pairing, rewrites and rewinds of Gemini's JSONL form."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import chatpipe as cp
from chatpipe.cli import app
from chatpipe.formats.exports import ReadOptions
from chatpipe.pipeline.opening import detect_file
from chatpipe.pipeline.reading import read
from conftest import FIXTURES
from test_fixtures import leaves, parsed_and_kept
from test_providers import output_leaves

runner = CliRunner()
EXPECTED = Path(__file__).parent / "expected_sessions"
DIALECTS = {"claude_code": "claude-code", "codex": "codex", "gemini_cli": "gemini-cli"}
SESSIONS = sorted(
    p for p in FIXTURES.iterdir() if p.is_file() and p.name.split("__")[0] in DIALECTS
)
PROJECT = FIXTURES / "claude_code__daaain_handmade_project"
MAIN = PROJECT / "55550000-0000-4000-8000-000000000001.jsonl"


def run(*args, input=None):
    result = runner.invoke(app, [str(a) for a in args], input=input)
    return result.exit_code, result.stdout, result.stderr


def conversations(name, **options):
    """The conversations of a fixture, their messages listed."""
    path = name if isinstance(name, Path) else FIXTURES / name
    found = list(read([str(path)], options=ReadOptions(**options)))
    for conversation in found:
        conversation.messages = list(conversation.messages)
    return found


def canonical_output(path: Path) -> str:
    code, out, err = run("convert", "--branch", "all", "--include-subagents", path)
    assert code == 0, err
    return out


# -- every fixture -----------------------------------------------------------------------


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name)
def test_a_session_is_detected_as_its_dialect(path):
    _, dialect, shape, _ = detect_file(str(path), None)
    assert (dialect.name, shape) == (DIALECTS[path.name.split("__")[0]], "stream")
    code, out, _ = run("convert", "--from", dialect.name, path)
    assert code == 0 and out == run("convert", path)[1]


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name)
def test_the_whole_canonical_output_is_the_checked_one(path):
    assert canonical_output(path) == (EXPECTED / f"{path.name}.jsonl").read_text("utf-8")


def turn_texts(path: Path) -> list:
    """Every text and number the turns of a session carry (the lines that are not turns,
    hooks, snapshots, progress of tools, are left out by design)."""
    kind = path.name.split("__")[0]
    text = path.read_text(encoding="utf-8")
    records = (
        [json.loads(line) for line in text.splitlines() if line.strip()]
        if path.suffix == ".jsonl"
        else [json.loads(text)]
    )
    found = []
    for record in records:
        if kind == "claude_code":
            message = record.get("message")
            data = record.get("data") or {}
            if isinstance(data.get("message"), dict):  # a subagent's message, copied
                message = data["message"].get("message")
            if isinstance(message, dict):
                found.extend(leaves(message.get("content")))
            if record.get("subtype") == "compact_boundary":
                found.extend(leaves(record.get("compactMetadata")))
        elif kind == "codex":
            if record.get("type") in ("response_item", "compacted", "session_meta"):
                found.extend(leaves(record["payload"]))
        else:
            messages = record.get("messages") if isinstance(record, dict) else None
            items = record if isinstance(record, list) else messages or [record]
            for item in items:
                if isinstance(item, dict):
                    found.extend(leaves({k: item.get(k) for k in ("content", "toolCalls")}))
                    found.extend(leaves(item.get("message")))
                    # a thought is read as the model wrote it: its subject, then the rest
                    found.extend(
                        f"**{t['subject']}**\n\n{t['description']}"
                        for t in item.get("thoughts") or ()
                    )
    return found


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name)
def test_every_text_of_the_turns_is_in_the_output(path):
    kept = output_leaves([json.loads(line) for line in canonical_output(path).splitlines()])
    missing = {v for v in turn_texts(path) if v not in kept and not parsed_and_kept(v, kept)}
    assert not missing, sorted(map(str, missing))[:5]


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name)
def test_no_session_is_taken_for_chatpipes_own_format(path):
    """Two Claude Code files were read as canonical JSONL for their ``type`` field."""
    code, _, _ = run("convert", "--from", "canonical", path)
    assert code == 1 and "canonical" not in run("convert", "-v", path)[2]


def test_the_other_fixtures_keep_their_dialects():
    """No other fixture is taken for a session log."""
    others = [
        p
        for p in sorted(FIXTURES.iterdir())
        if p.is_file()
        and p.suffix in (".json", ".jsonl", ".yaml", ".sse")
        and p not in SESSIONS
        and not p.name.startswith("malformed")
    ]
    assert len(others) > 90
    for path in others:
        found = detect_file(str(path), None)
        assert found is not None and found[1].name not in DIALECTS.values(), path.name


# -- Claude Code -----------------------------------------------------------------------------


def test_one_reply_split_over_lines_is_one_message_with_its_usage_once():
    [conversation] = conversations("claude_code__entire_2026_exit_resume_branch_lines1_53.jsonl")
    reply = conversation.messages[3]
    assert [b["type"] for b in reply.content] == ["thinking", "tool_use"]
    assert reply.id == "msg_01QPA6Pe6cqtyaGpMw2aE4FD"
    # the last line's usage (output 121; the first line said 7), counted once
    assert reply.usage_metadata == {
        "input_tokens": 136312,
        "output_tokens": 121,
        "total_tokens": 136433,
        "input_token_details": {"cache_creation": 136302},
    }
    envelope = reply.additional_kwargs["claude_code"]
    assert envelope["uuid"] == "61f928a8-dbad-41f3-a24a-26d9e005845a"
    assert [m["uuid"] for m in envelope["merged"]] == ["dd2bd06c-c5df-4c84-91d5-1633e9980d3f"]


def test_a_resume_after_exit_is_a_branch_and_the_live_one_goes_on():
    code, _, err = run(
        "convert", "-v", FIXTURES / "claude_code__entire_2026_exit_resume_branch_lines1_53.jsonl"
    )
    assert code == 0
    assert "wrote the active branch; 1 other branch left out (--branch all writes them)" in err
    left, live = conversations(
        "claude_code__entire_2026_exit_resume_branch_lines1_53.jsonl", branch="all"
    )
    assert [m.text for m in left.messages] == [
        left.messages[0].text,
        "<command-name>/exit</command-name>\n            <command-message>exit</command-message>"
        "\n            <command-args></command-args>",
        "<local-command-stdout>Bye!</local-command-stdout>",
    ]
    assert left.meta["branch"] == {
        "leaf": "e4eb01a8-2cfa-49c2-a4e8-2aea84de3ab8",
        "index": 0,
        "of": 2,
    }
    assert live.meta["branch"]["active"] is True and len(live.messages) == 15


def test_a_rewind_gives_the_later_prompt_and_all_gives_both():
    [live] = conversations("claude_code__daaain_handmade_compact_after_rewind.jsonl")
    assert [m.text for m in live.messages] == [
        "Start",
        "Ready",
        "Second attempt",
        "Second answer",
        "Keep going",
        "Kept going",
        "This session is being continued from a previous conversation that ran out of "
        "context. Summary: the user asked for a plan.",
        "After compaction",
        "Final answer",
    ]
    first, second = conversations(
        "claude_code__daaain_handmade_compact_after_rewind.jsonl", branch="all"
    )
    assert [m.text for m in first.messages] == ["Start", "Ready", "First attempt", "First answer"]
    assert (first.meta["branch"], second.meta["branch"]) == (
        {"leaf": "b1a", "index": 0, "of": 2},
        {"leaf": "p1a", "index": 1, "of": 2, "active": True},
    )
    [latest] = conversations(
        "claude_code__daaain_handmade_compact_after_rewind.jsonl", branch="latest"
    )
    assert latest.messages[-1].text == "Final answer"


def test_a_compaction_summary_is_generated_not_a_human_turn():
    [conversation] = conversations("claude_code__daaain_handmade_compact_after_rewind.jsonl")
    summary = conversation.messages[6]
    assert isinstance(summary, cp.SystemMessage)
    assert summary.additional_kwargs["claude_code"]["isCompactSummary"] is True
    [note] = conversation.meta["notes"]
    assert note == {
        "at": 6,
        "parentUuid": None,
        "logicalParentUuid": "b2a2",
        "uuid": "cb",
        "timestamp": "2025-07-01T10:30:00.000Z",
        "subtype": "compact_boundary",
        "content": "Conversation compacted",
        "level": "info",
        "compactMetadata": {"trigger": "auto", "preTokens": 150000},
        "type": "system",
    }


def test_parallel_results_and_progress_lines_are_not_branches():
    [conversation] = conversations(
        "claude_code__entire_2026_task_agent_progress_lines11_30_53_66.jsonl"
    )
    # a Task call and a Bash call in one reply; each result is a child of its own call
    # line, and hook and agent progress lines hang beside them
    calls = [(m.type, getattr(m, "tool_call_id", None)) for m in conversation.messages[3:8]]
    assert calls == [
        ("system", None),
        ("ai", None),
        ("tool", "toolu_0141a8id8CWHmsbTaZRTD38W"),
        ("tool", "toolu_01DUFD6ZHSF4AniRPYRAqr2Y"),
        ("ai", None),
    ]
    assert "branch" not in conversation.meta
    assert all("progress" not in str(m.content)[:20] for m in conversation.messages)


def test_subagents_come_as_conversations_of_their_own_only_when_asked():
    assert len(conversations("claude_code__derived_rewind_compaction_subagent.jsonl")) == 1
    main, agent = conversations(
        "claude_code__derived_rewind_compaction_subagent.jsonl", include_subagents=True
    )
    assert not any("Read and follow" in m.text for m in main.messages)
    assert {k: agent.meta[k] for k in ("id", "agentId", "parent_tool_call_id", "title")} == {
        "id": "agent-a102bdd",
        "agentId": "a102bdd",
        "parent_tool_call_id": "toolu_0141a8id8CWHmsbTaZRTD38W",
        "title": "Reviewer checking PR #102",
    }
    assert agent.meta["subagent_source"] == "progress"
    assert agent.messages[0].text.startswith("\nRead and follow the instructions")
    assert [m.type for m in agent.messages] == ["human", "ai", "tool", "tool", "tool", "ai", "tool"]


def test_subagent_files_beside_the_session_are_read(tmp_path):
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    session = project / MAIN.name
    _, web, jobs = list(read([str(session)], options=ReadOptions(include_subagents=True)))
    assert [c.meta["title"] for c in (web, jobs)] == [
        "Survey the web module",
        "Survey the jobs module",
    ]
    assert web.meta["parent_tool_call_id"] == "toolu_sc_showcol1"
    assert web.meta["subagent_source"] == "file"
    assert [m.text for m in jobs.messages] == [
        "Survey src/jobs and list its scheduled jobs.",
        "",
        'src/jobs/cleanup.py:12:@scheduled("0 3 * * *")\nsrc/jobs/reindex.py:8:@scheduled('
        '"*/30 * * * *")\nsrc/jobs/report.py:15:@scheduled("0 9 * * 1")',
        "Three scheduled jobs:\n\n| Job | Schedule |\n|---|---|\n| cleanup | daily at 03:00 |\n"
        "| reindex | every 30 minutes |\n| report | Mondays at 09:00 |",
    ]
    # a subagent's own file read alone is its conversation
    [alone] = conversations(project / MAIN.stem / "subagents" / "agent-showcol2.jsonl")
    assert [m.text for m in alone.messages] == [m.text for m in jobs.messages]


def test_sidechain_lines_in_the_session_file_stay_out_of_the_main_thread():
    [main] = conversations("claude_code__daaain_sidechain_in_session_file_trimmed.jsonl")
    assert [m.type for m in main.messages] == ["ai", "tool", "ai"]
    # the file is cut: the sidechain's later line (which names the agent) names a parent
    # the file does not hold, so its first lines are a sidechain of their own
    _, agent, cut = conversations(
        "claude_code__daaain_sidechain_in_session_file_trimmed.jsonl", include_subagents=True
    )
    assert agent.meta["agentId"] == "e1c84ba5"
    assert agent.meta["parent_tool_call_id"] == "toolu_01JA2mLseQCAW3MdwPE4qWEk"
    assert agent.meta["subagent_source"] == "sidechain"
    assert [m.type for m in agent.messages] == ["tool"]
    assert cut.meta["agentId"] == "sidechain-b674eedd-0d9d-49e7-8116-1f092cd750ed"
    assert cut.meta["parent_tool_call_id"] is None
    assert [m.id for m in cut.messages] == ["msg_017zj75dqWUNqVxCUrhqbTkf"]


def test_lines_that_are_not_turns_never_become_messages(tmp_path):
    lines = [
        {
            "type": "file-history-snapshot",
            "messageId": "u1",
            "snapshot": {},
            "isSnapshotUpdate": False,
        },
        {"type": "queue-operation", "operation": "enqueue", "sessionId": "s", "content": "later"},
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "sessionId": "s",
            "message": {"role": "user", "content": "hi"},
        },
        {
            "type": "progress",
            "uuid": "p1",
            "parentUuid": "u1",
            "sessionId": "s",
            "data": {"type": "hook_progress", "command": "echo hook"},
        },
        {
            "type": "system",
            "subtype": "turn_duration",
            "uuid": "d1",
            "parentUuid": "p1",
            "sessionId": "s",
            "durationMs": 5,
        },
        {
            "type": "system",
            "subtype": "local_command",
            "uuid": "c1",
            "parentUuid": "d1",
            "sessionId": "s",
            "content": "<command-name>/mcp</command-name>",
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "c1",
            "sessionId": "s",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "text", "text": "hello"}],
            },
        },
        {"type": "summary", "summary": "Greeting", "leafUuid": "a1"},
        {"type": "pr-link", "sessionId": "s", "prNumber": 7, "prUrl": "https://e.x/pr/7"},
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, out, err = run("convert", path)
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "messages": [
            {
                "type": "human",
                "content": "hi",
                "id": "u1",
                "additional_kwargs": {"claude_code": {"uuid": "u1", "parentUuid": None}},
            },
            {
                "type": "ai",
                "content": [{"type": "text", "text": "hello"}],
                "id": "m1",
                "additional_kwargs": {"claude_code": {"uuid": "a1", "parentUuid": "c1"}},
                "response_metadata": {"model_provider": "anthropic"},
            },
        ],
        "id": "s",
        "title": "Greeting",
        "pull_requests": [{"sessionId": "s", "prNumber": 7, "prUrl": "https://e.x/pr/7"}],
        "notes": [
            {
                "at": 1,
                "uuid": "c1",
                "parentUuid": "d1",
                "subtype": "local_command",
                "content": "<command-name>/mcp</command-name>",
                "type": "system",
            }
        ],
    }


def test_bad_lines_are_skipped_with_their_place(tmp_path):
    path = tmp_path / "session.jsonl"
    good = {
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "sessionId": "s",
        "message": {"role": "user", "content": "hi"},
    }
    bad = {
        "type": "assistant",
        "uuid": "a1",
        "parentUuid": "u1",
        "sessionId": "s",
        "message": "not an object",
    }
    path.write_text(json.dumps(good) + "\n{oops\n" + json.dumps(bad) + "\n")
    code, _, err = run("convert", path)
    assert code == 1
    assert err == (
        f"chatpipe: error: {path}:2:2: invalid JSON: unexpected character, expected a string key\n"
    )
    code, out, err = run("convert", "--on-error", "skip", path)
    assert code == 0 and [m["content"] for m in json.loads(out)["messages"]] == ["hi"]
    assert err == (
        f"chatpipe: skipped: {path}:2:2: invalid JSON: unexpected character, expected a "
        "string key\n"
        f'chatpipe: skipped: {path}:3:1: a assistant line\'s "message" must be an object, got '
        "a string (each user and assistant line holds an Anthropic message)\n"
        "chatpipe: warning: skipped 2 bad records\n"
    )


def test_validate_names_each_problem_at_its_line():
    code, out, _ = run(
        "validate", FIXTURES / "claude_code__entire_2026_compaction_lines18_44.jsonl"
    )
    assert code == 1
    assert out == (
        f"{FIXTURES / 'claude_code__entire_2026_compaction_lines18_44.jsonl'}:1:1: "
        "orphan_tool_result: a tool result for 'toolu_01XwsEJ9W7DszZ5duozWQFGZ' with no tool "
        "call before it (providers reject this: add the call or drop the result)\n"
    )
    code, out, _ = run(
        "validate", FIXTURES / "claude_code__derived_rewind_compaction_subagent.jsonl"
    )
    assert (code, out) == (0, "")


def test_show_names_the_summary_and_places_the_compaction():
    code, out, _ = run(
        "show", "--no-pager", FIXTURES / "claude_code__daaain_handmade_compact_after_rewind.jsonl"
    )
    assert code == 0
    assert "Conversation compacted · auto · 150,000 tokens before" in out
    assert out.index("Conversation compacted") < out.index("Summary (generated)")
    assert out.index("Kept going") < out.index("Conversation compacted")


def test_html_opens_on_the_live_branch_with_the_notes_between_messages():
    code, out, _ = run(
        "convert",
        "--to",
        "html",
        "--branch",
        "all",
        "--include-subagents",
        FIXTURES / "claude_code__derived_rewind_compaction_subagent.jsonl",
    )
    assert code == 0
    page = out.replace("\\u003c", "<")
    assert '<section class=\\"branch\\" data-index=\\"0\\" hidden>' in page
    assert '<section class=\\"branch\\" data-index=\\"1\\">' in page
    assert (
        '<p class=\\"note compact_boundary\\">Conversation compacted · auto · 150,000 tokens before'
        in page
    )
    assert '<span class=\\"role\\">Summary (generated)</span>' in page
    assert (
        "subagent general-purpose started by toolu_0141a8id8CWHmsbTaZRTD38W in session s1" in page
    )


# -- Codex -----------------------------------------------------------------------------------


def test_codex_pairs_calls_and_outputs_by_call_id():
    [conversation] = conversations("codex__idaho_vault_2026_developer_parallel_calls_error.jsonl")
    kinds = [(m.type, getattr(m, "tool_call_id", None)) for m in conversation.messages]
    assert kinds[5:9] == [
        ("ai", None),
        ("tool", "functions.list_mcp_resources:0"),
        ("tool", "functions.list_mcp_resource_templates:1"),
        ("ai", None),
    ]
    ai = conversation.messages[5]
    assert [c["id"] for c in ai.tool_calls] == [
        "functions.list_mcp_resources:0",
        "functions.list_mcp_resource_templates:1",
    ]
    assert conversation.messages[6].name == "list_mcp_resources"
    assert ai.response_metadata["model_name"] == "kimi-k2.5:cloud"


def test_codex_context_and_developer_messages_are_not_human_turns():
    [conversation] = conversations("codex__idaho_vault_2026_developer_parallel_calls_error.jsonl")
    heads = [(m.type, m.text[:24]) for m in conversation.messages[:5]]
    assert heads == [
        ("system", "<user_shell_command>\n<co"),
        ("system", "<turn_aborted>\nThe user "),
        ("system", "<permissions instruction"),
        ("system", "# AGENTS.md instructions"),
        ("human", "Error ID: 3d511891-89d5-"),
    ]
    assert conversation.messages[2].additional_kwargs["__openai_role__"] == "developer"
    assert conversation.messages[3].additional_kwargs["codex"] == {
        "context": True,
        "timestamp": "2026-04-20T04:12:26.236Z",
    }
    assert conversation.meta["id"] == "019da915-31a8-74d0-ad7f-640110fae046"
    assert conversation.meta["cli_version"] == "0.121.0"
    assert [n["type"] for n in conversation.meta["notes"]] == ["turn_aborted", "error"]


def test_codex_aborted_turn_compaction_shell_and_unparsed_arguments():
    [conversation] = conversations("codex__documented_compacted_local_shell_aborted_call.jsonl")
    assert [m.type for m in conversation.messages] == [
        "system",
        "human",
        "ai",
        "tool",
        "ai",
        "system",
        "human",
        "ai",
        "tool",
        "ai",
    ]
    shell = conversation.messages[2].tool_calls[0]
    assert (shell["name"], shell["args"]["command"]) == (
        "local_shell",
        ["bash", "-lc", "pytest tests/test_cart.py -q"],
    )
    [unparsed] = conversation.messages[4].invalid_tool_calls
    assert unparsed["args"] == "query=rounding in cart.py"
    summary = conversation.messages[5]
    assert summary.additional_kwargs["codex"]["compacted"] is True
    assert conversation.messages[7].tool_calls[0]["args"] == {
        "input": "*** Begin Patch\n*** Update File: cart.py\n@@\n-    return total\n+    "
        "return round(total, 2)\n*** End Patch\n"
    }
    assert [(n["type"], n["at"]) for n in conversation.meta["notes"]] == [
        ("turn_aborted", 5),
        ("error", 9),
    ]
    code, out, _ = run(
        "convert",
        "--to",
        "openai",
        FIXTURES / "codex__documented_compacted_local_shell_aborted_call.jsonl",
    )
    assert code == 0
    assert '"arguments":"query=rounding in cart.py"' in out


def test_codex_reasoning_keeps_its_encrypted_content_opaque():
    [conversation] = conversations("codex__moonmind_2025_turn_aborted_shell_lines1_44.jsonl")
    reasoning = conversation.messages[3].content[0]
    assert reasoning["reasoning"] == "**Searching for note in repo**"
    assert reasoning["extras"]["encrypted_content"].startswith("gAAAAABpFTly")


# -- Gemini CLI ------------------------------------------------------------------------------


def test_gemini_cli_tool_calls_thoughts_tokens_and_notes():
    [conversation] = conversations("gemini_cli__entire_2026_session_tools_info.json")
    ai, tool = conversation.messages[1:3]
    assert ai.content[0]["reasoning"].startswith("**Considering Color Documentation Format**\n\n")
    assert ai.tool_calls[0]["name"] == "write_file"
    assert ai.usage_metadata == {
        "input_tokens": 12207,
        "output_tokens": 258,
        "total_tokens": 12465,
        "input_token_details": {"cache_read": 2558},
        "output_token_details": {"reasoning": 153},
    }
    assert (tool.name, tool.tool_call_id, tool.content) == (
        "write_file",
        "write_file-1768510312836-c85bc7ab6bf4a8",
        "Successfully created and wrote to new file: "
        "/Users/peytonmontei/Documents/entire/devenv/entireio/cli/docs/blue.md.",
    )
    [note] = conversation.meta["notes"]
    assert (note["type"], note["at"]) == ("info", 8)


def test_gemini_cli_jsonl_rewrites_keep_their_place_and_rewinds_branch():
    [conversation] = conversations("gemini_cli__derived_jsonl_set_rewrite_rewind.jsonl")
    assert [m.type for m in conversation.messages] == ["human", "ai", "human", "ai", "tool"]
    # written first with no tokens, then again under its id with them: the last write, in
    # the first one's place
    assert conversation.messages[3].id == "b2136b82-13ad-49bf-891a-1c58ed6915ac"
    assert conversation.messages[3].usage_metadata["total_tokens"] == 12115
    assert conversation.meta["lastUpdated"] == "2026-01-10T02:09:27.575Z"
    assert conversation.meta["branch"]["left_out"] == 1
    live, rewound = conversations(
        "gemini_cli__derived_jsonl_set_rewrite_rewind.jsonl", branch="all"
    )
    assert len(rewound.messages) == 8 and live.meta["branch"]["active"] is True


def test_gemini_cli_logs_split_by_session():
    found = conversations("gemini_cli__derived_logs.json")
    assert [(c.meta["id"], [m.text for m in c.messages]) for c in found] == [
        (
            "faff42ab-6ea5-4f78-b8c4-f7dd6272af08",
            ["add new text to test-gemini.txt", '",how are you"'],
        ),
        (
            "fa4593e0-f7e1-4dd1-b656-da95fb4d60fa",
            ['write to test-gemini.txt "hello, gemini" only', "System: Please continue."],
        ),
        (
            "f7633853-6663-4dbb-bbf4-6159afa29df8",
            ["run an agent that creates a color file inside docs, choose your color"],
        ),
    ]


# -- Cline / Roo ---------------------------------------------------------------------------


def test_cline_ui_messages_are_refused_naming_the_file_to_read():
    path = FIXTURES / "malformed__coregems_cline_ui_messages_trimmed.json"
    assert run("convert", path) == (
        1,
        "",
        f"chatpipe: error: {path}:1:2: this is a Cline or Roo Code ui_messages.json: what the "
        "task's panel showed, not the conversation (read api_conversation_history.json from the "
        "same task folder instead)\n",
    )


# -- what people see of the lines that are not turns ------------------------------------------


def test_each_kind_of_note_reads_as_a_line():
    from chatpipe.render.sessions import note_text

    notes = [
        {
            "subtype": "compact_boundary",
            "compactMetadata": {"trigger": "manual", "preTokens": 1200},
        },
        {"subtype": "microcompact_boundary", "microcompactMetadata": {"trigger": "auto"}},
        {"type": "turn_aborted", "reason": "interrupted"},
        {"type": "ghost_snapshot", "ghost_commit": {"id": "e0f6"}},
        {"type": "session_meta", "id": "019d9249"},
        {"type": "api_error", "content": "API Error: 529  overloaded"},
        {"subtype": "local_command", "content": "<command-name>/mcp</command-name>"},
        {"subtype": "stop_hook_summary", "hookErrors": ["exit 2", "timeout"]},
        {"type": "error", "message": [{"text": "quota"}, "exceeded"]},
        {"type": "info"},
    ]
    assert [note_text(n) for n in notes] == [
        "Conversation compacted · manual · 1,200 tokens before",
        "Context microcompacted · auto",
        "Turn aborted (interrupted)",
        "Undo snapshot",
        "Session 019d9249 (recorded again)",
        "API error: API Error: 529 overloaded",
        "Command: /mcp",
        "Hooks: exit 2; timeout",
        "Error: quota exceeded",
        "Info",
    ]


def write_lines(path: Path, lines: list) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_claude_code_titles_loops_and_the_library_reader(tmp_path):
    from chatpipe.errors import DataError, Location
    from chatpipe.formats.registry import get_dialect

    user = {
        "type": "user",
        "uuid": "u1",
        "parentUuid": "a1",
        "sessionId": "s",
        "message": {"role": "user", "content": "hi"},
    }
    reply = {
        "type": "assistant",
        "uuid": "a1",
        "parentUuid": "u1",
        "sessionId": "s",
        "message": {"id": "m1", "role": "assistant", "content": "hello"},
    }
    path = write_lines(tmp_path / "loop.jsonl", [user, reply])
    code, _, err = run("convert", path)
    assert (code, err) == (
        1,
        f"chatpipe: error: {path}:1:1: the parentUuid links loop at 'a1' (the file is "
        "damaged: a line names a later line as its parent)\n",
    )
    user["parentUuid"] = None
    titled = [
        {"type": "ai-title", "aiTitle": "Greeting", "sessionId": "s"},
        {"type": "custom-title", "customTitle": "My chat", "sessionId": "s"},
    ]
    dialect = get_dialect("claude-code")
    [conversation] = dialect.read_stream([user, reply, *titled], Location("x.jsonl"))
    assert conversation.meta["title"] == "My chat"
    assert [m.text for m in conversation.messages] == ["hi", "hello"]
    [untitled] = dialect.read_stream([user, reply, titled[0]], Location("x.jsonl"))
    assert untitled.meta["title"] == "Greeting"
    with pytest.raises(DataError, match="not a Claude Code transcript line"):
        list(dialect.read_stream([user, {"type": "user"}], Location("x.jsonl")))
    # a file of summaries only (Claude Code writes some) is a conversation with no messages
    summary = {"type": "summary", "summary": "Old work", "leafUuid": "elsewhere"}
    [empty] = dialect.read_stream([summary], Location("x.jsonl"))
    assert (list(empty.messages), empty.meta) == ([], {"title": "Old work"})


def test_gemini_cli_checkpoints_errors_and_sessions_one_after_another(tmp_path):
    header = {"sessionId": "g1", "projectHash": "p", "startTime": "t0"}
    call = {
        "id": "read-1",
        "name": "read_file",
        "args": {"path": "a.png"},
        "status": "error",
        "result": [
            {
                "functionResponse": {
                    "id": "read-1",
                    "name": "read_file",
                    "response": {"error": "no such file"},
                }
            },
            {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
        ],
    }
    lines = [
        header,
        {"id": "m1", "timestamp": "t1", "type": "user", "content": "dropped"},
        {
            "$set": {
                "messages": [
                    {"id": "m2", "timestamp": "t2", "type": "user", "content": [{"text": "look"}]},
                    {
                        "id": "m3",
                        "timestamp": "t3",
                        "type": "gemini",
                        "content": "",
                        "toolCalls": [call],
                    },
                ],
                "summary": "A look",
            }
        },
        {
            "id": "m4",
            "timestamp": "t4",
            "type": "gemini",
            "content": [{"text": "done"}],
            "toolCalls": [
                {
                    "id": "x",
                    "name": "shell",
                    "args": "ls",
                    "result": {"functionResponse": {"name": "shell", "response": {"stdout": "a"}}},
                }
            ],
        },
        {
            "sessionId": "g2",
            "projectHash": "p",
            "messages": [
                {"id": "n1", "timestamp": "t5", "type": "user", "content": "second session"}
            ],
        },
    ]
    first, second = conversations(write_lines(tmp_path / "session.jsonl", lines))
    assert first.meta == {"id": "g1", "projectHash": "p", "startTime": "t0", "summary": "A look"}
    look, ai, tool, done, shell = first.messages
    assert look.content == "look" and ai.tool_calls[0]["args"] == {"path": "a.png"}
    assert (tool.status, tool.content) == (
        "error",
        [
            {"type": "text", "text": "no such file"},
            {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"},
        ],
    )
    assert tool.additional_kwargs["gemini_cli"] == {"status": "error", "error": True}
    assert done.tool_calls[0]["args"] == {} and shell.content == '{"stdout": "a"}'
    assert [m.text for m in second.messages] == ["second session"]
    bad = write_lines(
        tmp_path / "bad.jsonl",
        [header, {"id": "m1", "type": "user", "timestamp": "t", "content": 7}, {"$rewindTo": 3}],
    )
    code, out, err = run("convert", "--on-error", "skip", bad)
    assert code == 0 and json.loads(out)["messages"] == []
    assert err == (
        f'chatpipe: skipped: {bad}:2:1: a message\'s "content" must be text or parts, got a '
        "number\n"
        f"chatpipe: skipped: {bad}:3:1: not a Gemini CLI chat record (a session's fields, a "
        "message, a $set or $rewindTo line)\n"
        "chatpipe: warning: skipped 2 bad records\n"
    )


def test_codex_bad_lines_forks_and_the_library_reader(tmp_path):
    from chatpipe.errors import Location
    from chatpipe.formats.registry import get_dialect

    meta = {"type": "session_meta", "payload": {"id": "c1", "cwd": "/w"}}
    parent = {"type": "session_meta", "payload": {"id": "c0"}}
    user = {
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "hi"}],
        },
    }
    broken = {"type": "response_item", "payload": {"type": "message", "role": "user", "content": 3}}
    odd = {"type": "response_item", "payload": {"type": "reasoning", "summary": 5}}
    path = write_lines(tmp_path / "rollout.jsonl", [meta, parent, user, {"x": 1}, broken, odd])
    code, out, err = run("convert", "--on-error", "skip", path)
    assert code == 0
    record = json.loads(out)
    assert [m["content"] for m in record["messages"]] == [[{"type": "text", "text": "hi"}]]
    assert record["notes"] == [{"at": 0, "type": "session_meta", "id": "c0"}]
    assert err == (
        f"chatpipe: skipped: {path}:4:1: not a Codex rollout line (each line is {{timestamp, "
        "type, payload})\n"
        f'chatpipe: skipped: {path}:5:1: a message\'s "content" must be a list of parts, got a '
        "number\n"
        f"chatpipe: skipped: {path}:6:1: cannot read this line as codex: a field holds a value "
        "of another kind than Codex writes (check the line against the rollout format, or "
        "name another dialect with --from)\n"
        "chatpipe: warning: skipped 3 bad records\n"
    )
    [conversation] = get_dialect("codex").read_stream([meta, user], Location("r.jsonl"))
    assert [m.text for m in conversation.messages] == ["hi"]


def main() -> None:
    EXPECTED.mkdir(exist_ok=True)
    for path in SESSIONS:
        (EXPECTED / f"{path.name}.jsonl").write_text(canonical_output(path), encoding="utf-8")
    print(f"wrote {len(SESSIONS)} files in {EXPECTED}", file=sys.stderr)


if __name__ == "__main__":
    main()


def test_a_summary_titles_its_branch_and_a_last_prompt_marks_the_live_one(tmp_path):
    # Claude Code writes a summary for every chain it finds without one (in other files
    # too): its leafUuid names the chain it titles, not where the session goes on. A
    # last-prompt line (newer versions write one as a session is left) does name that.
    rewind = FIXTURES / "claude_code__daaain_handmade_compact_after_rewind.jsonl"
    lines = rewind.read_text().splitlines()
    summary = {"type": "summary", "summary": "The first attempt", "leafUuid": "b1a"}
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join([json.dumps(summary), *lines]) + "\n")
    [live] = conversations(path)
    assert (live.messages[-1].text, "title" in live.meta) == ("Final answer", False)
    first, second = conversations(path, branch="all")
    assert (first.meta["title"], first.meta["branch"]) == (
        "The first attempt",
        {"leaf": "b1a", "index": 0, "of": 2},
    )
    assert second.meta["branch"]["active"] is True

    last = {"type": "last-prompt", "lastPrompt": "First", "leafUuid": "b1u", "sessionId": "s1"}
    path.write_text("\n".join([*lines, json.dumps(last)]) + "\n")
    code, _, err = run("convert", "-v", path)
    assert code == 0
    assert "wrote the active branch; 1 other branch left out (--branch all writes them)" in err
    [live] = conversations(path)
    assert [m.text for m in live.messages] == ["Start", "Ready", "First attempt", "First answer"]
    first, second = conversations(path, branch="all")
    assert (first.meta["branch"], second.meta["branch"]) == (
        {"leaf": "b1a", "index": 0, "of": 2, "active": True},
        {"leaf": "p1a", "index": 1, "of": 2},
    )
    # a marker naming no line of this file (or a line that is not a message's) leaves the
    # last message line live; the lines of newer versions that are not turns are read
    elsewhere = {**last, "leafUuid": "not-here"}
    modes = [
        {"type": "last-prompt", "leafUuid": "not-here", "sessionId": "s1"},
        {"type": "permission-mode", "permissionMode": "default", "sessionId": "s1"},
        {"type": "mode", "mode": "normal", "sessionId": "s1"},
    ]
    path.write_text("\n".join([*lines, *map(json.dumps, [elsewhere, *modes])]) + "\n")
    [live] = conversations(path)
    assert live.messages[-1].text == "Final answer"
