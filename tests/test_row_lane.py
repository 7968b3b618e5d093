"""The row lane (fast/rows.py, fast/row_ops.py) against the message path, run for run.

Every command the lane speeds up runs on conversation-per-line rows with the fast paths
on and off (``fast_hooks.ENABLED``) and must give the same exit code, the same bytes on
stdout (and in split's files) and the same stderr: on generated rows (hypothesis: plain
messages mixed with every shape the lane leaves to the ordinary reader, rows of other
shapes, bad JSON, ids, tools, times, duplicates), on the rows of bench/corpus.py, and on
every fixture the lane reads.
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

import chatpipe.pipeline.fast_hooks
from chatpipe.cli import app
from chatpipe.pipeline.job import Inputs, Job
from chatpipe.pipeline.opening import detect_file
from conftest import FIXTURES, ROOT
from test_lane import TEXT, message

runner = CliRunner()

# what the lane says under -v (the one line that differs between the two ways)
NOTE = "chatpipe: row lane: "

COMMANDS = [
    ["head", "-n", "3"],
    ["head", "-n", "1000", "--to", "canonical"],
    ["sample", "-n", "2", "--seed", "3"],
    ["sample", "--fraction", "0.5", "--seed", "1"],
    ["select", "--max-tokens", "40"],
    ["select", "--min-tokens", "20", "--invert"],
    ["select", "--min-messages", "2", "--max-messages", "5"],
    ["select", "--has", "tool-calls"],
    ["select", "--has", "system", "--has", "images"],
    ["select", "--has", "reasoning"],
    ["select", "--has", "attachments", "--invert"],
    ["select", "--role", "tool"],
    ["select", "--role", "system", "--role", "user"],
    ["select", "--grep", "a.b", "-i"],
    ["select", "--grep", "é", "--grep-role", "user"],
    ["select", "--id", "r1", "--id", "7"],
    ["select", "--title", "^T"],
    ["select", "--model", "gpt"],
    ["select", "--after", "2024-01-01", "--before", "2025-01-01"],
    ["select", "--max-tokens", "30", "--token-counter", "messages"],
    ["select", "--ids", "--max-tokens", "60"],
    ["dedupe"],
    ["dedupe", "--by", "prompt"],
    ["dedupe", "--by", "messages"],
    ["convert"],
    ["convert", "--to", "canonical"],
    ["convert", "--to", "openai"],
    ["convert", "--to", "sharegpt"],
    ["convert", "--json"],
    ["openai"],
    ["openai", "--text-format", "block"],
    ["buffer"],
    ["buffer", "--format", "xml"],
    ["count"],
    ["count", "--json"],
    ["count", "--extra-tokens-per-message", "2.5"],
    ["trim", "--max-tokens", "40"],
    ["trim", "--max-tokens", "400"],
    ["trim", "--max-tokens", "400", "--keep-tool-pairs"],
    ["trim", "--max-tokens", "400", "--start-on", "human"],
    ["stats"],
    ["grep", "Paris"],
    ["grep", "-i", "é|B"],
    ["grep", "--in", "all", "-c", "x"],
    ["grep", "--in", "tools", "--json", "q"],
    ["grep", "--role", "user", "a b"],
    ["grep", "-C", "1", "hi"],
    ["redact"],
    ["redact", "--mask", "hash", "--mask-key", "k", "--skip", "EMAIL"],
    ["redact", "--dry-run"],
]


def _row(draw) -> object:
    """A row: {messages} of generated messages (a few of every shape), with fields."""
    messages = draw(st.lists(message(), max_size=6))
    if draw(st.integers(0, 3)) == 0:  # a turn of calls and its result, paired by id
        call = {"id": "c9", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c9", "content": draw(TEXT) or "r"},
        ]
    row: dict = {"messages": messages}
    for key, values in (
        ("id", st.sampled_from(["r1", "r2", 7, True, None])),
        ("title", st.sampled_from(["Trip", "notes", ""])),
        ("model", st.sampled_from(["gpt-4o", "claude"])),
        ("created_at", st.sampled_from(["2024-05-01", 1.7e9, "never"])),
        ("tools", st.just([{"type": "function", "function": {"name": "f", "parameters": {}}}])),
    ):
        if draw(st.integers(0, 4)) == 0:
            row[key] = draw(values)
    if draw(st.integers(0, 5)) == 0:  # the messages elsewhere among the fields
        row = {"id": row.pop("id", "x"), **row}
    return row


@st.composite
def line(draw) -> str:
    kind = draw(st.integers(0, 24))
    if kind == 0:
        return "{bad json"
    if kind == 1:
        return json.dumps({"messages": "not a list"})
    if kind == 2:
        return json.dumps({"messages": [{"role": "user", "content": [[[[[["deep"]]]]]]}]})
    if kind == 3:  # a response, and a preference row: other ways of the same dialect
        return json.dumps({"choices": [{"message": {"role": "assistant", "content": "x"}}]})
    if kind == 4:
        return json.dumps({"prompt": [{"role": "user", "content": "q"}], "chosen": []})
    separators = draw(st.sampled_from([(", ", ": "), (",", ":")]))
    text = json.dumps(_row(draw), ensure_ascii=draw(st.booleans()), separators=separators)
    return text + ("\r" if draw(st.integers(0, 10)) == 0 else "")


# the first rows are read for detection: a plain one first makes the input OpenAI rows
FIRST = json.dumps({"messages": [{"role": "user", "content": "hello"}]})
ROWS = st.lists(line(), min_size=1, max_size=12).map(lambda lines: [FIRST, *lines])


def _run(monkeypatch, args, data, lane):
    monkeypatch.setattr(chatpipe.pipeline.fast_hooks, "ENABLED", lane)
    result = runner.invoke(app, [*args, "-"], input=data)
    err = "".join(line for line in result.stderr.splitlines(True) if not line.startswith(NOTE))
    return result.exit_code, result.stdout, err


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=ROWS,
    command=st.sampled_from(COMMANDS),
    skip=st.booleans(),
    verbose=st.booleans(),
    repeat=st.booleans(),
)
def test_the_row_lane_gives_what_the_message_path_gives(
    monkeypatch, rows, command, skip, verbose, repeat
):
    if repeat:  # duplicates, for dedupe and the keys
        rows = rows + random.Random(len(rows)).sample(rows, len(rows) // 2)
    args = [*command, *(["--on-error", "skip"] if skip else []), *(["-v"] if verbose else [])]
    data = "\n".join(rows) + "\n"
    expected = _run(monkeypatch, args, data, False)
    assert _run(monkeypatch, args, data, True) == expected


# -- a corpus of every shape, each command run on it whole ------------------------------

_TEXTS = [
    "hi",
    "a b",
    "  spaced\n\nout  ",
    "é東🚀",
    "Paris\tnoon",
    "",
    "x\u2028y",
    "é\u0301",
    "mail bob@example.com now",
    "key sk-proj-" + "a1B2" * 12,
    "call +1 415 555 0100",
    "https://user:hunter2@example.com/x",
]


def _message(rng: random.Random) -> object:
    kind = rng.randrange(14)
    text = rng.choice(_TEXTS)
    role = rng.choice(["user", "assistant", "system", "human", "ai", "developer", "critic"])
    if kind < 6:
        return {"role": role, "content": text or "t"}
    if kind == 6:
        return {"role": "tool", "tool_call_id": rng.choice(["c1", "c2"]), "content": text or "r"}
    if kind == 7:
        arguments = rng.choice(
            [
                '{"q": "x", "n": 2}',
                "{bad",
                '"{\\"q\\": 1}"',
                "{}",
                '{"to": "bob@example.com", "ann@example.org": ["+44 20 7946 0958"]}',
            ]
        )
        calls = [
            {"id": f"c{k}", "type": "function", "function": {"name": "f", "arguments": arguments}}
            for k in range(1, rng.randint(1, 3))
        ]
        return {
            "role": "assistant",
            "content": rng.choice([None, "", "Let me look."]),
            "tool_calls": calls,
        }
    if kind == 8:
        parts = [{"type": "text", "text": text}, "bare"]
        if rng.random() < 0.5:
            parts.append({"type": "image_url", "image_url": {"url": "https://x/y.png"}})
        if rng.random() < 0.2:
            parts.append({"type": "image", "url": "https://x/z.png"})  # a processor's media
        return {"role": rng.choice(["user", "assistant", "system"]), "content": parts}
    if kind == 9:
        return {"role": role, "content": text, "name": "bob"}
    if kind == 10:
        return {"role": "assistant", "content": text, "reasoning_content": "hmm", "model": "gpt"}
    if kind == 11:
        return {"role": "tool", "content": "unlinked"}  # paired by order: the ordinary way
    if kind == 12:
        return {"role": "user", "content": "", "message": "text it does not know"}
    return rng.choice([["user", "pair"], "bare", 7, {"content": "no role"}])


def _corpus(rng: random.Random, rows: int) -> str:
    lines = [FIRST]
    for n in range(rows):
        kind = rng.randrange(20)
        if kind == 0:
            lines.append(rng.choice(["{bad", "", "[1, 2]", '{"messages": 3}']))
            continue
        row: dict = {"messages": [_message(rng) for _ in range(rng.randint(0, 7))]}
        if kind < 6:  # plain rows, most of a dataset
            row["messages"] = [
                {"role": r, "content": rng.choice(_TEXTS) or "t"}
                for r in rng.sample(["system", "user", "assistant"], rng.randint(1, 3))
            ]
        if rng.random() < 0.3:
            row["id"] = rng.choice([f"r{n % 7}", n, None, ""])
        if rng.random() < 0.2:
            row["tools"] = [{"type": "function", "function": {"name": "f", "parameters": {}}}]
        if rng.random() < 0.2:
            row["created_at"] = rng.choice(["2024-05-01", 1.7e9, "?"])
        if rng.random() < 0.2:
            row["title"] = rng.choice(["Trip", "notes"])
        if rng.random() < 0.2:
            row["model"] = "gpt-4o"
        lines.append(json.dumps(row, ensure_ascii=rng.random() < 0.3))
    lines += rng.sample(lines[1:], len(lines) // 5)  # duplicates
    return "\n".join(lines) + "\n"


CORPUS = _corpus(random.Random(5), 400)


def _sharegpt_turn(rng: random.Random) -> object:
    kind = rng.randrange(10)
    text = rng.choice(_TEXTS)
    if kind < 6:
        return {"from": rng.choice(["human", "gpt", "user", "assistant", "system"]), "value": text}
    if kind == 6:
        return {"from": "function_call", "value": '{"name": "f", "arguments": {"a": 1}}'}
    if kind == 7:
        return {"from": "observation", "value": text or "r"}
    if kind == 8:
        return {"from": "gpt", "value": text, "weight": 0}
    return rng.choice([{"human": "q", "assistant": "a"}, {"from": "critic", "value": "x"}, 7])


def _sharegpt(rng: random.Random, rows: int) -> str:
    lines = [json.dumps({"conversations": [{"from": "human", "value": "hello"}]})]
    for n in range(rows):
        if rng.randrange(15) == 0:
            lines.append(rng.choice(["{bad", '{"conversations": 3}']))
            continue
        turns = [
            {"from": speaker, "value": rng.choice(_TEXTS) or "t"}
            for speaker in rng.sample(["human", "gpt", "human", "gpt"], rng.randint(1, 4))
        ]
        if rng.random() < 0.4:
            turns = [_sharegpt_turn(rng) for _ in range(rng.randint(0, 5))]
        row: dict = {"conversations": turns}
        if rng.random() < 0.3:
            row["system"] = rng.choice(["Be brief.", "", ["not text"]])
        if rng.random() < 0.2:
            row["id"] = f"s{n % 5}"
        if rng.random() < 0.1:
            row["tools"] = '[{"name": "f", "parameters": {}}]'
        if rng.random() < 0.05:
            row["chosen"] = {"from": "gpt", "value": "yes"}
        lines.append(json.dumps(row, ensure_ascii=rng.random() < 0.3))
    lines += rng.sample(lines[1:], len(lines) // 5)
    return "\n".join(lines) + "\n"


SHAREGPT = _sharegpt(random.Random(6), 300)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_gives_the_same_on_sharegpt_rows(monkeypatch, command):
    args = [*command, "--on-error", "skip"]
    expected = _run(monkeypatch, args, SHAREGPT, False)
    assert _run(monkeypatch, args, SHAREGPT, True) == expected


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_gives_the_same_on_rows_of_every_shape(monkeypatch, command):
    args = [*command, "--on-error", "skip"]
    expected = _run(monkeypatch, args, CORPUS, False)
    assert _run(monkeypatch, args, CORPUS, True) == expected
    verbose = _run(monkeypatch, [*args, "-v"], CORPUS, True)
    assert verbose == _run(monkeypatch, [*args, "-v"], CORPUS, False)


@pytest.fixture(scope="module")
def bench_rows(tmp_path_factory):
    """Rows of bench/corpus.py: agent sessions, calls, list content with images."""
    rows = tmp_path_factory.mktemp("rows") / "rows.jsonl"
    script = ROOT / "bench" / "corpus.py"
    subprocess.run([sys.executable, str(script), "3000", str(rows), "--rows"], check=True)
    return rows.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "command",
    [c for c in COMMANDS if c[0] in ("sample", "select", "dedupe", "convert", "trim", "count")],
    ids=" ".join,
)
def test_every_command_gives_the_same_on_the_benchmark_rows(monkeypatch, bench_rows, command):
    expected = _run(monkeypatch, [*command, "-v"], bench_rows, False)
    got = _run(monkeypatch, [*command, "-v"], bench_rows, True)
    assert got == expected
    assert expected[0] == 0


def test_the_lane_reads_the_benchmark_rows_and_says_so(monkeypatch, bench_rows):
    monkeypatch.setattr(chatpipe.pipeline.fast_hooks, "ENABLED", True)
    result = runner.invoke(app, ["select", "-v", "--max-tokens", "4000", "-"], input=bench_rows)
    rows = len(bench_rows.splitlines())
    assert f"{NOTE}{rows:,} rows read without messages\n" in result.stderr
    monkeypatch.setattr(chatpipe.pipeline.fast_hooks, "ENABLED", False)
    result = runner.invoke(app, ["select", "-v", "--max-tokens", "4000", "-"], input=bench_rows)
    assert NOTE not in result.stderr


def _lane_fixtures() -> list[str]:
    """The fixtures of conversation-per-record OpenAI and ShareGPT rows: those the lane
    reads."""
    found = []
    for path in sorted(FIXTURES.iterdir()):
        if path.suffix == ".md":
            continue
        try:
            detected = detect_file(str(path), None)
        except Exception:  # (a fixture of bad input: not rows)
            continue
        if (
            detected
            and detected[1].name in ("openai", "sharegpt")
            and detected[2] == "conversations"
        ):
            found.append(path.name)
    return found


# a command of each kind, for each fixture of rows
FIXTURE_COMMANDS = [
    ["head", "-n", "3"],
    ["sample", "-n", "2", "--seed", "3"],
    ["select", "--max-tokens", "40", "--has", "tool-calls"],
    ["select", "--role", "system", "--grep", "e", "--after", "2024-01-01"],
    ["dedupe", "--by", "prompt"],
    ["convert"],
    ["openai"],
    ["buffer"],
    ["count"],
    ["trim", "--max-tokens", "400"],
]


@pytest.mark.parametrize("name", _lane_fixtures())
def test_every_command_gives_the_same_on_the_fixtures_of_rows(monkeypatch, name):
    for command in FIXTURE_COMMANDS:
        args = [*command, str(FIXTURES / name)]
        outcomes = []
        for lane in (False, True):
            monkeypatch.setattr(chatpipe.pipeline.fast_hooks, "ENABLED", lane)
            result = runner.invoke(app, [*args, "-v"])
            err = [x for x in result.stderr.splitlines() if not x.startswith(NOTE)]
            outcomes.append((result.exit_code, result.stdout, err))
        assert outcomes[0] == outcomes[1], command


@pytest.mark.parametrize("seed", [1, 2])
def test_split_writes_the_same_files(monkeypatch, tmp_path, bench_rows, seed):
    source = tmp_path / "rows.jsonl"
    source.write_text(bench_rows + CORPUS, encoding="utf-8")
    sides = []
    for lane in (False, True):
        monkeypatch.setattr(chatpipe.pipeline.fast_hooks, "ENABLED", lane)
        out = tmp_path / f"out{lane}"
        args = ["split", "--ratio", "a=0.7,b=0.3", "--seed", str(seed), "--on-error", "skip"]
        result = runner.invoke(app, [*args, "--output-dir", str(out), str(source)])
        assert result.exit_code == 0, result.stderr
        sides.append([(out / f"{s}.jsonl").read_bytes() for s in "ab"])
    assert sides[0] == sides[1]
    assert all(sides[0])


@pytest.mark.parametrize(
    "command",
    [
        ["select", "--max-tokens", "40"],
        ["sample", "-n", "7", "--seed", "2"],
        ["dedupe", "--by", "prompt"],
        ["redact"],
        ["count"],
        ["trim", "--max-tokens", "400"],
    ],
    ids=" ".join,
)
def test_workers_give_what_one_process_gives_without_the_lane(monkeypatch, tmp_path, command):
    """--jobs 2 reads its parts with the lane, in two passes where the command has them."""
    from chatpipe.pipeline import plan as planning

    monkeypatch.setattr(planning, "JOB_BLOCKSIZE", 4096)  # (parts of a few rows each)
    source = tmp_path / "rows.jsonl"
    source.write_text(CORPUS, encoding="utf-8")
    assert len(planning.plan(Job(Inputs((str(source),))), 4096).parts) > 8
    outcomes = []
    for lane, jobs in ((False, []), (True, ["--jobs", "2"])):
        monkeypatch.setattr(chatpipe.pipeline.fast_hooks, "ENABLED", lane)
        result = runner.invoke(app, [*command, "--on-error", "skip", *jobs, str(source)])
        outcomes.append((result.exit_code, result.stdout, result.stderr))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][1]


@pytest.mark.parametrize(
    "command",
    [["convert", "--to", "canonical"], ["openai"], ["buffer"]],
)
def test_plain_rows_are_written_without_message_objects(monkeypatch, command):
    """The writer takes a row's plain dicts: no message object is made. (Writing listed
    every conversation's messages first, for a check that only an API's requests need,
    which made every row's messages and turned the lane off for convert.)"""
    from chatpipe.fast import rows as lane_rows

    def made(self):
        raise AssertionError("a row's messages were made")

    monkeypatch.setattr(lane_rows.RowMessages, "messages", made)
    data = "".join(
        json.dumps(
            {
                "messages": [
                    {"role": "user", "content": f"q{k}"},
                    {"role": "assistant", "content": "a"},
                ]
            }
        )
        + "\n"
        for k in range(5)
    )
    result = runner.invoke(app, [*command, "-"], input=data)
    assert result.exit_code == 0, result.stderr
    assert len(result.stdout.splitlines()) == 5
