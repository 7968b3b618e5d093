"""The fast lane (fast/lane.py) against the ordinary message path, output for output.

Generated message-per-line OpenAI logs mix plain lines with every kind of line the lane
must hand to the ordinary reader (extra keys, list content, unlinked tool results, calls
without ids, bad arguments, bad JSON, blank lines, deep records, non-dict lines); each
command runs on them with the lane on and off, in batches of a few bytes and of the
real size, and must write the same bytes and report the same errors.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import chatpipe.errors
import chatpipe.io.readers
import chatpipe.pipeline.fast_hooks
import chatpipe.pipeline.reading
from chatpipe.cli import app
from chatpipe.fast.lane_writer import LaneWriter
from chatpipe.fast.plain import plain_canonical
from chatpipe.formats.openai_messages import message_from_dict
from chatpipe.model.canonical import message_to_canonical
from conftest import ROOT

runner = CliRunner()

TEXT = st.lists(
    st.sampled_from([*"ab <>&\"'\n\t\\é東🚀\u2028\x85\x00/\r\b\x1f", "Human: ", "AI: "]),
    max_size=12,
).map("".join)
CALL_ID = st.sampled_from(["call_1", "call_2", "c", ""])


@st.composite
def arguments(draw):
    choice = draw(st.integers(0, 5))
    if choice == 0:
        return "{not json"
    if choice == 1:
        return "[1, 2]"
    if choice == 2:
        return ""
    if choice == 3:
        return json.dumps(json.dumps({"q": draw(TEXT)}))  # double-encoded
    if choice == 4:
        return '{"a": NaN, "b": 1}'
    return json.dumps(
        {"q": draw(TEXT), "n": draw(st.integers(-5, 5))}, ensure_ascii=draw(st.booleans())
    )


@st.composite
def tool_call(draw):
    call = {
        "id": draw(CALL_ID),
        "type": "function",
        "function": {
            "name": draw(st.sampled_from(["search", "get"])),
            "arguments": draw(arguments()),
        },
    }
    if draw(st.integers(0, 6)) == 0:
        del call["id"]
    if draw(st.integers(0, 8)) == 0:
        call["extra"] = 1
    return call


@st.composite
def message(draw):
    role = draw(
        st.sampled_from(
            ["user", "assistant", "system", "tool", "human", "ai", "developer", "critic"]
        )
    )
    content = draw(
        st.one_of(
            TEXT,
            st.none(),
            st.lists(
                st.one_of(
                    TEXT,
                    st.builds(lambda t: {"type": "text", "text": t}, TEXT),
                    st.just({"type": "image_url", "image_url": {"url": "https://x/y.png"}}),
                ),
                max_size=3,
            ),
        )
    )
    value = {"role": role, "content": content}
    if role == "tool" and draw(st.integers(0, 4)):
        value["tool_call_id"] = draw(CALL_ID)
    if role == "assistant" and draw(st.booleans()):
        value["tool_calls"] = draw(st.lists(tool_call(), max_size=3))
        if draw(st.booleans()):
            value["content"] = None
    if draw(st.integers(0, 8)) == 0:
        value["name"] = "bob"
    if draw(st.integers(0, 10)) == 0:
        del value["content"]
    return value


@st.composite
def line(draw):
    kind = draw(st.integers(0, 30))
    if kind == 0:
        return "{bad json"
    if kind == 1:
        return draw(st.sampled_from(["", "   ", "\r"]))
    if kind == 2:
        return json.dumps(["user", draw(TEXT)])
    if kind == 3:
        return json.dumps(draw(TEXT))
    if kind == 4:
        return json.dumps({"role": "user", "content": [[[[[[["deep"]]]]]]]})
    if kind == 5:
        return "7"
    value = draw(message())
    if draw(st.integers(0, 4)) == 0:  # keys in another order (content first, say)
        value = dict(draw(st.permutations(list(value.items()))))
    if draw(st.integers(0, 8)) == 0:  # a duplicate key: the last one counts
        text = json.dumps(value)[:-1] + ', "content": "dup"}'
    else:
        separators = draw(st.sampled_from([(", ", ": "), (",", ":"), (", ", " : ")]))
        text = json.dumps(value, ensure_ascii=draw(st.booleans()), separators=separators)
    return text + ("\r" if draw(st.integers(0, 10)) == 0 else "")


@st.composite
def turn(draw):
    """An assistant turn of calls and its results, some paired by id and some by order."""
    count = draw(st.integers(1, 3))
    ids = [f"t{draw(st.integers(0, 3))}" for _ in range(count)]
    calls = [
        {"id": i, "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
        for i in ids
    ]
    if draw(st.integers(0, 3)) == 0:
        del calls[0]["id"]
    lines = [json.dumps({"role": "assistant", "content": None, "tool_calls": calls})]
    for i in ids[: draw(st.integers(0, count + 1))]:
        result = {"role": "tool", "content": "r"}
        if draw(st.booleans()):
            result["tool_call_id"] = i
        lines.append(json.dumps(result))
    return lines


# the first 20 records are read for detection before the lane takes over: a prefix of
# plain lines puts the generated ones in the lane's own batches
FILLER = [json.dumps({"role": "user", "content": f"filler {i}"}) for i in range(20)]
LOGS = st.tuples(
    st.sampled_from([[], FILLER]),
    st.lists(st.one_of(line().map(lambda x: [x]), turn()), min_size=1, max_size=20),
).map(lambda drawn: drawn[0] + [x for group in drawn[1] for x in group])

COMMANDS = [
    ["convert"],
    ["convert", "--to", "openai"],
    ["openai"],
    ["openai", "--text-format", "keep"],
    ["openai", "--text-format", "block"],
    ["buffer"],
    ["buffer", "--format", "xml"],
    ["buffer", "--tool-calls", "json"],
    ["count"],
    ["trim", "--max-tokens", "40"],
    ["trim", "--max-tokens", "25", "--allow-partial"],
    ["trim", "--max-tokens", "30", "--start-on", "human", "--keep-tool-pairs"],
    ["trim", "--max-tokens", "1"],  # (the smallest budget: 0 and less are refused)
    ["trim", "--max-tokens", "30", "--include-system", "--end-on", "ai"],
    ["trim", "--max-tokens", "40", "--strategy", "first"],
    ["stats"],
    ["filter", "--exclude-types", "tool"],
    ["merge"],
]


def _run(monkeypatch, args, data, lane, batch_bytes, depth=6):
    monkeypatch.setattr(chatpipe.pipeline.fast_hooks, "ENABLED", lane)
    monkeypatch.setattr(chatpipe.io.readers, "BATCH_BYTES", batch_bytes)
    root = ["--max-depth", str(depth)]
    result = runner.invoke(app, [*root, *args, "--on-error", "skip", "-"], input=data)
    return result.exit_code, result.stdout, result.stderr


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    logs=LOGS,
    batch=st.sampled_from([1, 7, 64, 1 << 16]),
    command=st.sampled_from(COMMANDS),
    depth=st.sampled_from([6, 6, 4, 3]),  # a turn of calls nests 4 deep
)
def test_the_lane_writes_what_the_message_path_writes(monkeypatch, logs, batch, command, depth):
    data = "\n".join(logs) + random.choice(["", "\n"])
    expected = _run(monkeypatch, command, data, False, batch, depth)
    assert _run(monkeypatch, command, data, True, batch, depth) == expected


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(logs=LOGS, batch=st.sampled_from([1, 64]))
def test_a_bad_line_stops_the_lane_where_it_stops_the_message_path(monkeypatch, logs, batch):
    """With --on-error fail, the same lines are written before the same error."""
    data = "\n".join(logs)
    outcomes = []
    for lane in (False, True):
        monkeypatch.setattr(chatpipe.pipeline.fast_hooks, "ENABLED", lane)
        monkeypatch.setattr(chatpipe.io.readers, "BATCH_BYTES", batch)
        result = runner.invoke(app, ["--max-depth", "6", "convert", "-"], input=data)
        outcomes.append((result.exit_code, result.stdout, result.stderr))
    assert outcomes[0] == outcomes[1]


@given(value=message())
def test_plain_lines_give_the_canonical_dict_of_their_message(value):
    plain = plain_canonical(value)
    if plain is not None:
        assert plain == message_to_canonical(message_from_dict(value))
        assert list(plain) == list(message_to_canonical(message_from_dict(value)))


def test_the_common_shapes_are_plain():
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
    assert plain_canonical({"role": "user", "content": "hi"}) == {"type": "human", "content": "hi"}
    assert plain_canonical({"role": "tool", "content": "r", "tool_call_id": "c1"})["type"] == "tool"
    assert plain_canonical({"role": "assistant", "content": None, "tool_calls": [call]}) == {
        "type": "ai",
        "content": "",
        "tool_calls": [{"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}],
    }
    # an agent's step: a few words before its calls
    assert plain_canonical({"role": "assistant", "content": "Looking.", "tool_calls": [call]}) == {
        "type": "ai",
        "content": "Looking.",
        "tool_calls": [{"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}],
    }
    for other in (
        {"role": "user", "content": "hi", "name": "x"},
        {"role": "user", "content": ""},
        {"role": "developer", "content": "x"},
        {"role": "tool", "content": "r"},
        {"role": ["user"], "content": "x"},
        {"role": "assistant", "content": None, "tool_calls": []},
        {"role": "assistant", "name": "bob", "tool_calls": [call]},
    ):
        assert plain_canonical(other) is None


def test_an_oversized_line_is_reported_in_its_place(monkeypatch, tmp_path):
    log = tmp_path / "log.jsonl"
    lines = [json.dumps({"role": "user", "content": f"m{i}"}) for i in range(30)]
    lines[25] = json.dumps({"role": "user", "content": "x" * 500})
    log.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(chatpipe.io.readers, "BATCH_BYTES", 64)
    result = runner.invoke(
        app, ["--max-record-bytes", "200", "convert", "--on-error", "skip", str(log)]
    )
    assert result.exit_code == 0
    assert len(result.stdout.splitlines()) == 29
    assert f"{log}:26:1: a record larger than 200 bytes" in result.stderr


@pytest.mark.parametrize("command", [["buffer"], ["convert"], ["openai"]])
def test_the_lane_keeps_order_on_a_large_log(command, tmp_path):
    """Many batches, in order, and the same output as the message path."""
    log = tmp_path / "big.jsonl"
    rows = []
    for i in range(5000):
        rows.append({"role": "user", "content": f"question {i}"})
        rows.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"c{i}",
                        "type": "function",
                        "function": {"name": "f", "arguments": json.dumps({"i": i})},
                    }
                ],
            }
        )
        rows.append({"role": "tool", "content": f"result {i}", "tool_call_id": f"c{i}"})
    log.write_text("\n".join(map(json.dumps, rows)) + "\n")
    lane = runner.invoke(app, [*command, str(log)])
    chatpipe.pipeline.fast_hooks.ENABLED = False
    try:
        slow = runner.invoke(app, [*command, str(log)])
    finally:
        chatpipe.pipeline.fast_hooks.ENABLED = True
    assert lane.exit_code == slow.exit_code == 0
    assert lane.stdout == slow.stdout
    assert "question 4999" in lane.stdout


@pytest.fixture(scope="module")
def agent_log(tmp_path_factory):
    """A log of bench/agent_corpus.py: real texts, code, escapes, parallel calls with
    content, refusals, reasoning fields, parts with images, developer turns."""
    log = tmp_path_factory.mktemp("agent") / "agent.jsonl"
    script = ROOT / "bench" / "agent_corpus.py"
    subprocess.run([sys.executable, str(script), "1500", str(log), "--seed", "3"], check=True)
    return log


# the commands with budgets that keep some of these long messages (0 keeps none)
AGENT_COMMANDS = [[str(int(a) * 200) if a.isdigit() else a for a in c] for c in COMMANDS]


@pytest.mark.parametrize("command", AGENT_COMMANDS, ids=" ".join)
def test_the_lane_writes_what_the_message_path_writes_on_agent_sessions(
    monkeypatch, agent_log, command
):
    data = agent_log.read_text(encoding="utf-8")
    expected = _run(monkeypatch, command, data, False, 1 << 16)
    smallest = command[:3] == ["trim", "--max-tokens", "200"]  # (may keep no message)
    assert expected[0] == 0 and (expected[1].strip() or smallest)
    assert _run(monkeypatch, command, data, True, 1 << 16) == expected


@st.composite
def batches(draw):
    """Plain items and messages, cut into batches at random places."""
    from chatpipe.fast.lane import Batch

    values = draw(st.lists(message(), min_size=1, max_size=40))
    items = []
    for value in values:
        plain = plain_canonical(value)
        if plain is not None:
            items.append(plain)
        else:
            try:
                items.append(message_from_dict(value))
            except chatpipe.errors.ChatpipeError:
                continue
    cuts = sorted(draw(st.lists(st.integers(0, len(items)), max_size=8)))
    out, start = [], 0
    for cut in [*cuts, len(items)]:
        if cut > start:
            part = items[start:cut]
            out.append(Batch(part, all(type(i) is dict for i in part)))
            start = cut
    return out


@settings(max_examples=400, deadline=None)
@given(
    parts=batches(),
    budget=st.integers(0, 120),
    partial=st.booleans(),
    start_on=st.sampled_from([None, "human", "ai"]),
)
def test_the_budget_suffix_holds_what_trimming_keeps(parts, budget, partial, start_on):
    from chatpipe.fast.budget import batches_within
    from chatpipe.fast.plain import message_from_plain
    from chatpipe.ops.count import resolve_counter
    from chatpipe.ops.trim_stream import trim_last_stream

    counter = resolve_counter("approximate")
    every = [message_from_plain(i) if type(i) is dict else i for part in parts for i in part]
    options = {
        "max_tokens": budget,
        "counter": counter,
        "allow_partial": partial,
        "start_on": start_on,
    }
    try:
        expected = trim_last_stream(every, **options)
    except chatpipe.errors.ChatpipeError as exc:
        expected = str(exc)
    try:
        got = trim_last_stream(list(batches_within(iter(parts), counter, budget)), **options)
    except chatpipe.errors.ChatpipeError as exc:
        got = str(exc)
    assert got == expected


def test_a_lane_stream_is_read_once(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('{"role": "user", "content": "hi"}\n')
    (conversation,) = chatpipe.pipeline.reading.read([str(log)])
    assert [m.content for m in conversation.messages] == ["hi"]
    with pytest.raises(RuntimeError, match="read once"):
        next(iter(conversation.messages.lane.batches()))
    with pytest.raises(RuntimeError, match="read once"):
        next(iter(conversation.messages.lane.write(LaneWriter(dict, lambda _, message: [message]))))


@pytest.mark.parametrize("depth", [3, 4])
def test_a_turn_of_calls_past_the_depth_limit_is_reported(monkeypatch, depth):
    """Plain turns of calls nest 4 deep: below that limit they are errors on both paths."""
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    turn = json.dumps({"role": "assistant", "content": None, "tool_calls": [call]})
    data = "\n".join([*FILLER, *FILLER, turn]) + "\n"
    outcomes = [_run(monkeypatch, ["convert"], data, lane, 1 << 16, depth) for lane in (0, 1)]
    assert outcomes[0] == outcomes[1]
    assert ("deeper than 3 levels" in outcomes[1][2]) == (depth == 3)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    logs=LOGS,
    batch=st.sampled_from([1, 3, 1024]),
    command=st.sampled_from(COMMANDS),
    depth=st.sampled_from([6, 6, 4, 3]),
)
def test_a_json_array_of_messages_takes_the_lane_and_writes_the_same(
    monkeypatch, logs, batch, command, depth
):
    """A JSON document's array of messages is handed to the lane in batches of values:
    the same output (and the same errors, at the same element positions) as without."""
    values = []
    for line in logs:
        try:
            values.append(json.loads(line))
        except ValueError:
            continue  # a line that is not JSON has no place in a document
    data = json.dumps(values)
    monkeypatch.setattr(chatpipe.io.documents, "DOCUMENT_BATCH", batch)
    expected = _run(monkeypatch, command, data, False, 1 << 16, depth)
    assert _run(monkeypatch, command, data, True, 1 << 16, depth) == expected


def test_a_json_array_of_messages_is_read_by_the_lane(tmp_path):
    from chatpipe.io.readers import DocumentReader
    from chatpipe.pipeline.reading import read

    doc = tmp_path / "log.json"
    doc.write_text(json.dumps([{"role": "user", "content": f"m{i}"} for i in range(50)]))
    [conversation] = read([str(doc)])
    assert isinstance(conversation.messages.lane.reader, DocumentReader)
    assert [m.content for m in conversation.messages] == [f"m{i}" for i in range(50)]


def _peak_rss_kib(argv: list[str]) -> int:
    """The peak resident memory of a chatpipe run in its own process."""
    import subprocess
    import sys

    # a helper process whose only child is the run: its children's peak is the run's
    code = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    run = [sys.executable, "-m", "chatpipe", *argv]
    done = subprocess.run([sys.executable, "-c", code, *run], capture_output=True, check=True)
    return int(done.stdout)


@pytest.mark.parametrize("command", [["buffer"], ["convert"], ["openai"]])
def test_the_lane_holds_the_same_memory_for_a_log_ten_times_larger(command, tmp_path):
    rows = []
    for i in range(2000):
        rows.append(json.dumps({"role": "user", "content": f"question {i} " + "x" * 80}))
        rows.append(json.dumps({"role": "assistant", "content": f"answer {i} " + "y" * 80}))
    small, large = tmp_path / "small.jsonl", tmp_path / "large.jsonl"
    small.write_text("\n".join(rows) + "\n")
    large.write_text("\n".join(rows * 10) + "\n")  # about 5 MB
    grown = _peak_rss_kib([*command, str(large)]) - _peak_rss_kib([*command, str(small)])
    assert large.stat().st_size > 4_500_000
    assert grown < 4_000  # KiB: streamed, not held (holding it would add tens of MB)
