"""Agent frameworks' logs (issue 49): AutoGen messages and saved state, smolagents
memories, benchmark rows and bus logs, OpenAI Agents SDK traces. As in
tests/test_agent_logs.py, each reading is compared with the file's own texts: every value
of every fixture reaches the canonical output but what the dialect leaves out by design;
then many speakers, handoffs, thoughts, calls written as text, spans out of order."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from chatpipe import AIMessage, SystemMessage, ToolMessage
from chatpipe.pipeline.opening import detect_file
from conftest import FIXTURES
from test_agent_logs import bad_line_is_named, conversations, fixture, records, run, unread_values
from test_fixtures import leaves

DIALECTS = {"autogen": "autogen", "smolagents": "smolagents", "openai_agents": "openai-agents"}
FILES = sorted(p for p in FIXTURES.iterdir() if p.is_file() and p.name.split("__")[0] in DIALECTS)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_a_fixture_is_detected_as_its_dialect(path):
    _, dialect, _, _ = detect_file(str(path), None)
    expected = DIALECTS[path.name.split("__")[0]]
    assert dialect.name == ("smolagents-bus" if "message_bus" in path.name else expected)


def _kept_by_design(path: Path, record: dict) -> list:
    """The values of a record the dialect reads, in the form it reads them."""
    kind = path.name.split("__")[0]
    if kind == "openai_agents":  # (its "object" names the item's kind)
        items = record.get("data") if "data" in record else [record]
        return [v for i in items for v in leaves({k: v for k, v in i.items() if k != "object"})]
    if kind == "smolagents" and isinstance(record.get("intermediate_steps"), str):
        return list(leaves({k: v for k, v in record.items() if k != "intermediate_steps"}))
    return list(leaves(record))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_value_of_a_fixture_reaches_the_output(path):
    assert unread_values(path, _kept_by_design) == []


@pytest.mark.parametrize("path", [p for p in FILES if p.suffix == ".jsonl"], ids=lambda p: p.name)
def test_a_bad_line_is_named_at_its_place(path, tmp_path):
    bad_line_is_named(path, tmp_path)


# -- AutoGen -------------------------------------------------------------------------------


def test_autogen_sources_name_the_speakers_and_function_calls_are_calls():
    path = fixture("autogen__autogen_handoffs_sample_llm_messages.json")
    written = records(path)[0]["messages"]
    [conversation] = conversations(path)
    messages = conversation.messages
    assert [m.name for m in messages] == [
        m.get("source") or m["content"][0]["name"] for m in written
    ]
    calls = [c for m in messages if isinstance(m, AIMessage) for c in m.tool_calls]
    function = written[3]["content"][0]
    assert calls == [
        {
            "name": function["name"],
            "args": json.loads(function["arguments"]),
            "id": function["id"],
            "type": "tool_call",
        }
    ]
    result = next(m for m in messages if isinstance(m, ToolMessage))
    assert (result.tool_call_id, result.content) == (
        function["id"],
        written[4]["content"][0]["content"],
    )


def test_autogen_recorded_calls_are_prompt_and_answer_and_state_gives_each_thread():
    path = fixture("autogen__autogen_tests_recorded_model_client_session.json")
    calls = records(path)
    read_back = conversations(path)
    assert len(read_back) == len(calls)
    for conversation, call in zip(read_back, calls, strict=True):
        assert conversation.messages[-1].content == call["response"]["content"]
        assert isinstance(conversation.messages[0], SystemMessage)
        assert conversation.messages[0].content == call["messages"][0]["content"]
    team = records(fixture("autogen__autogen_docs_team_state.json"))[0]
    thread, agent = conversations(fixture("autogen__autogen_docs_team_state.json"))
    manager = next(v for v in team["agent_states"].values() if "message_thread" in v)
    assert [m.content for m in thread.messages] == [m["content"] for m in manager["message_thread"]]
    assert [m.name for m in agent.messages] == ["user", "assistant_agent"]


def test_autogen_agentchat_thoughts_join_their_turn_and_events_are_notes():
    path = fixture("autogen__documented_agentchat_task_result_messages.json")
    written = records(path)
    [conversation] = conversations(path)
    thought = next(m for m in written if m["type"] == "ThoughtEvent")
    request = next(m for m in written if m["type"] == "ToolCallRequestEvent")
    turn = next(m for m in conversation.messages if isinstance(m, AIMessage) and m.tool_calls)
    assert turn.content[0]["reasoning"] == thought["content"]
    assert [c["id"] for c in turn.tool_calls] == [c["id"] for c in request["content"]]
    handoff = next(m for m in written if m["type"] == "HandoffMessage")
    assert any(
        m.content == handoff["content"] and m.name == handoff["source"]
        for m in conversation.messages
    )
    assert [n["type"] for n in conversation.meta["notes"]] == ["UserInputRequestedEvent"]


# -- smolagents ----------------------------------------------------------------------------

SMOL = fixture("smolagents__documented_benchmark_rows_code_and_tool_calling.jsonl")


def test_smolagents_written_calls_are_calls_and_responses_answer_them():
    rows = records(SMOL)
    code, tools, vanilla = conversations(SMOL)
    written = [
        ast.literal_eval(m["content"][0]["text"].split("\n", 1)[1])
        for m in rows[1]["intermediate_steps"]
        if m["role"] == "tool-call"
    ]
    calls = [
        [c["id"] for c in m.tool_calls]
        for m in tools.messages
        if isinstance(m, AIMessage) and m.tool_calls
    ]
    assert calls == [[c["id"] for c in step] for step in written]
    answered = [m.tool_call_id for m in tools.messages if isinstance(m, ToolMessage)]
    # the first response names its call; the others answer their step's first call
    assert answered == ["call_a1", "call_b1", "call_c1"]
    code_calls = [c for m in code.messages if isinstance(m, AIMessage) for c in m.tool_calls]
    assert code_calls[0]["args"] == {"code": written_code(rows[0])[0]}
    assert [m.content for m in vanilla.messages] == [
        rows[2]["question"],
        rows[2]["intermediate_steps"],
    ]


def written_code(row: dict) -> list:
    return [
        ast.literal_eval(m["content"][0]["text"].split("\n", 1)[1])[0]["function"]["arguments"]
        for m in row["intermediate_steps"]
        if m["role"] == "tool-call"
    ]


def test_a_smolagents_memory_is_not_taken_for_openai_messages(tmp_path):
    steps = records(SMOL)[1]["intermediate_steps"]
    path = tmp_path / "memory.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in steps))
    assert detect_file(str(path), None)[1].name == "smolagents"
    [conversation] = conversations(path)
    assert [m.tool_call_id for m in conversation.messages if isinstance(m, ToolMessage)] == [
        "call_a1",
        "call_b1",
        "call_c1",
    ]


def test_smolagents_bus_threads_are_conversations_named_by_sender():
    path = fixture("smolagents__handmade_message_bus_two_threads.jsonl")
    lines = records(path)
    found = conversations(path)
    threads = list(dict.fromkeys(line["thread_id"] for line in lines))
    assert [c.meta["thread_id"] for c in found] == threads
    for conversation, thread in zip(found, threads, strict=True):
        mine = [line for line in lines if line["thread_id"] == thread]
        assert [(m.name, m.content) for m in conversation.messages] == [
            (line["sender"], line["content"]) for line in mine
        ]


# -- OpenAI Agents -------------------------------------------------------------------------

TRACE = fixture("openai_agents__documented_chat_completions_handoff_trace.jsonl")


def test_agents_trace_reads_generations_in_start_order_each_call_answered_once(tmp_path):
    items = records(TRACE)
    [conversation] = conversations(TRACE)
    spans = sorted((i for i in items if i["object"] == "trace.span"), key=lambda s: s["started_at"])
    generations = [s["span_data"] for s in spans if s["span_data"]["type"] == "generation"]
    last = generations[-1]
    said = [m["content"] for m in last["input"][1:] if m.get("content")] + [
        last["output"][0]["content"]
    ]
    assert [
        m.content for m in conversation.messages if m.content and not isinstance(m, SystemMessage)
    ] == said
    assert [m.name for m in conversation.messages if isinstance(m, AIMessage)] == [
        "Triage agent",
        "Weather agent",
        "Weather agent",
    ]
    calls = [
        c["id"] for m in conversation.messages if isinstance(m, AIMessage) for c in m.tool_calls
    ]
    answers = [m.tool_call_id for m in conversation.messages if isinstance(m, ToolMessage)]
    assert answers == calls  # each once: the function span's result is not repeated
    handoff = next(s["span_data"] for s in spans if s["span_data"]["type"] == "handoff")
    assert any(
        n["type"] == "handoff" and n["to_agent"] == handoff["to_agent"]
        for n in conversation.meta["notes"]
    )
    assert conversation.meta["title"] == items[0]["workflow_name"]
    shuffled = tmp_path / "shuffled.jsonl"
    shuffled.write_text("".join(json.dumps(i) + "\n" for i in reversed(items)))
    [again] = conversations(shuffled)
    assert [m.content for m in again.messages] == [m.content for m in conversation.messages]


def test_agents_response_spans_leave_the_replies_out_and_say_so():
    path = fixture("openai_agents__documented_responses_export_batch.json")
    spans = [i for i in records(path)[0]["data"] if i["object"] == "trace.span"]
    functions = [
        s
        for s in sorted(spans, key=lambda s: s["started_at"])
        if s["span_data"]["type"] == "function"
    ]
    [conversation] = conversations(path)
    calls = [c for m in conversation.messages if isinstance(m, AIMessage) for c in m.tool_calls]
    assert [(c["name"], c["args"]) for c in calls] == [
        (s["span_data"]["name"], json.loads(s["span_data"]["input"])) for s in functions
    ]
    failed = [
        m for m in conversation.messages if isinstance(m, ToolMessage) and m.status == "error"
    ]
    assert [m.content for m in failed] == [functions[1]["error"]["data"]["error"]]
    code, _, err = run("convert", path)
    assert code == 0
    assert "model replies (the trace's response spans name them by response_id only)" in err
