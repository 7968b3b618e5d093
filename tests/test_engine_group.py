"""``--jobs N`` on the commands that gained the engine group: the output of one process,
in parts where a conversation's output depends on it alone (select, sample --fraction),
on what parts gather and the run adds up (redact's counts, dedupe's and sample -n's two
passes, split's sides), and in one process, said once, where it depends on the run in
order (places, numbers: grep, select --ids, head); split, sample -n, dedupe and redact
give the same bytes on --engine dask too."""

from __future__ import annotations

import json
import random
import re

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.pipeline import assemble
from conftest import noting_pids

runner = CliRunner()
ONE_PROCESS = "chatpipe: --jobs 2: this command reads its inputs in one process\n"


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    """About 1.5 MB of fine-tuning rows (two parts of --jobs work), some repeated, some
    with tool calls and a key to redact."""
    path = tmp_path_factory.mktemp("rows") / "rows.jsonl"
    lines = []
    for i in range(3000):
        n = i % 700  # rows 700 apart repeat
        messages = [
            {"role": "system", "content": "You answer briefly."},
            {"role": "user", "content": f"question {n}: " + "why " * 60},
        ]
        if n % 5 == 0:
            call = {"id": f"c{n}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
            messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": "ok"})
        key = f" sk-proj-{'A1b2C3d4E5' * 4}" if n % 7 == 0 else ""
        messages.append({"role": "assistant", "content": f"answer {n}{key}"})
        lines.append(json.dumps({"messages": messages}))
    path.write_text("\n".join(lines) + "\n")
    assert path.stat().st_size > 1_300_000
    return str(path)


def _both(*args):
    serial = runner.invoke(app, list(args))
    parallel = runner.invoke(app, [*args, "--jobs", "2"])
    assert serial.exit_code == parallel.exit_code == 0, parallel.stderr
    assert serial.stdout and parallel.stdout == serial.stdout
    return serial, parallel


@pytest.mark.parametrize(
    "command",
    [
        ("select", "--has", "tool-calls", "--min-messages", "5"),
        ("sample", "--fraction", "0.3"),
        ("sample", "-n", "40", "--seed", "3"),
        ("dedupe",),
        ("dedupe", "--by", "prompt"),
        ("redact",),
    ],
    ids=" ".join,
)
def test_commands_run_in_parts_on_workers(rows, command, tmp_path, monkeypatch):
    pids = noting_pids(monkeypatch, assemble, "run_part", tmp_path / "pids")
    serial, parallel = _both(*command, rows)
    assert parallel.stderr == serial.stderr
    workers = set(pids.read_text().split())  # (two workers a pass: dedupe, sample -n make two)
    assert len(workers) in (2, 4) and str(__import__("os").getpid()) not in workers


@pytest.mark.parametrize(
    "command",
    [("select", "--ids"), ("grep", "-c", "answer 1"), ("head", "-n", "3")],
    ids=" ".join,
)
def test_commands_whose_output_depends_on_the_run_are_one_process(rows, command):
    serial, parallel = _both(*command, rows)
    assert parallel.stderr == ONE_PROCESS + serial.stderr


def _lines(*paths) -> list[str]:
    return [line for path in paths for line in open(path).read().splitlines()]


def _said(line: str) -> list[tuple]:
    """What a row says, however it is written (an input row, or chatpipe's rewrite of
    one: compact, keys reordered, a tool call's null content as ""): each message's role,
    text, and the names of its tool calls."""
    return [
        (
            m["role"],
            m.get("content") or "",
            tuple(c["function"]["name"] for c in m.get("tool_calls", ())),
        )
        for m in json.loads(line)["messages"]
    ]


def _dedupe_said(lines) -> str:
    """dedupe's stderr for these input lines, counted here: rows written alike are copies."""
    return (
        f"chatpipe: dedupe: dropped {len(lines) - len(set(lines))} duplicates of "
        f"{len(lines)} conversations (by conversation)\n"
    )


def _redact_said(lines) -> str:
    keys = sum(line.count("sk-proj-") for line in lines)
    return f"chatpipe: redact: replaced {keys} values: OPENAI_KEY {keys}\n"


def test_dedupe_and_redact_count_across_parts(rows):
    lines = _lines(rows)
    serial, parallel = _both("dedupe", rows)
    assert serial.stderr == _dedupe_said(lines)
    assert parallel.stderr == serial.stderr
    serial, parallel = _both("redact", rows)
    assert serial.stderr == _redact_said(lines)
    assert parallel.stderr == serial.stderr


def test_split_writes_the_sides_of_one_process(rows, tmp_path):
    for out, jobs in ((tmp_path / "one", "1"), (tmp_path / "two", "2")):
        done = runner.invoke(
            app, ["split", "--ratio", "a=0.5,b=0.5", "--output-dir", str(out), "-j", jobs, rows]
        )
        assert done.exit_code == 0, done.stderr
    for side in ("a.jsonl", "b.jsonl"):
        assert (tmp_path / "two" / side).read_bytes() == (tmp_path / "one" / side).read_bytes()


def test_the_dask_engine_runs_them_in_one_process_too(rows):
    serial = runner.invoke(app, ["grep", "-c", "answer 1", rows])
    on_dask = runner.invoke(app, ["grep", "-c", "answer 1", "--engine", "dask", rows])
    assert on_dask.exit_code == 0 and on_dask.stdout == serial.stdout
    assert (
        on_dask.stderr == "chatpipe: --engine dask: this command reads its inputs in one process\n"
    )


def test_a_log_split_by_a_field_is_read_whole_with_jobs(tmp_path):
    """--group-by gathers a conversation's lines from anywhere in the log: a range of it
    cannot be made alone (it gave two conversations of three)."""
    log = tmp_path / "log.jsonl"
    line = '{{"session_id": "s{}", "role": "user", "content": "{} {}"}}\n'
    log.write_text("".join(line.format(i % 3, "word " * 20, i) for i in range(12000)))
    serial, parallel = _both("convert", "--group-by", "session_id", str(log))
    assert len(serial.stdout.splitlines()) == 3
    assert parallel.stderr == (
        f"chatpipe: --jobs 2: {log} is read whole (conversation-per-line JSONL and Parquet "
        "files are cut into parts, and one message log written message "
        "by message); running in one process\n"
    )


@pytest.fixture(scope="module")
def inputs(rows, tmp_path_factory):
    """The rows (two parts on --jobs) and a second file repeating 500 of them: duplicates
    across files and parts, three parts on --jobs 2, two on Dask (a part a file)."""
    more = tmp_path_factory.mktemp("more") / "more.jsonl"
    with open(rows) as lines:
        more.write_text("".join(line for k, line in enumerate(lines) if k % 6 == 1))
    return [rows, str(more)]


def _on_every_engine(arguments, folder=None):
    """(exit code, stdout, stderr, and with ``folder`` the files written there) of one
    process, --jobs 2 and --engine dask --jobs 2 (a local cluster of two workers)."""
    outcomes = []
    for name, engine in (
        ("serial", ()),
        ("jobs", ("--jobs", "2")),
        ("dask", ("--engine", "dask", "--jobs", "2")),
    ):
        extra = ("--output-dir", str(folder / name)) if folder else ()
        done = runner.invoke(app, [*arguments, *extra, *engine])
        files = {p.name: p.read_bytes() for p in (folder / name).iterdir()} if folder else {}
        outcomes.append((done.exit_code, done.stdout_bytes, done.stderr, files))
    return outcomes


def _sample_said(lines, out: bytes, n: int) -> list[str]:
    """A sample of ``n`` rows: input rows, never the first n, and the same rows whatever
    order the input is in (each key comes from a row's content, none from its place)."""
    chosen = out.decode().splitlines()
    assert len(chosen) == n
    said = [_said(line) for line in lines]
    assert all(_said(line) in said for line in chosen)
    assert [_said(line) for line in chosen] != said[:n]
    return sorted(chosen)


@pytest.mark.parametrize(
    "command", [("sample", "-n", "40", "--seed", "3"), ("dedupe",), ("redact",)], ids=" ".join
)
def test_the_same_bytes_serial_on_jobs_and_on_dask(inputs, command, tmp_path):
    serial, jobs, dask = _on_every_engine([*command, *inputs])
    code, out, err, _ = serial
    lines = _lines(*inputs)
    if command[0] == "sample":
        assert (code, err) == (0, "")
        shuffled = tmp_path / "shuffled.jsonl"
        shuffled.write_text(
            "".join(f"{line}\n" for line in random.Random(7).sample(lines, len(lines)))
        )
        again = runner.invoke(app, [*command, str(shuffled)])
        assert _sample_said(lines, out, 40) == sorted(again.stdout.splitlines())
    elif command[0] == "dedupe":
        assert (code, err) == (0, _dedupe_said(lines))
        firsts = list(dict.fromkeys(lines))  # each row's first copy, in input order
        assert [_said(line) for line in out.decode().splitlines()] == [_said(x) for x in firsts]
    else:
        assert (code, err) == (0, _redact_said(lines))
        redacted = [re.sub(r"sk-proj-\w+", "[OPENAI_KEY]", line) for line in lines]
        assert [_said(line) for line in out.decode().splitlines()] == [_said(x) for x in redacted]
    assert jobs == serial and dask == serial


def test_split_writes_the_same_sides_serial_on_jobs_and_on_dask(inputs, tmp_path):
    serial, jobs, dask = _on_every_engine(
        ["split", "--ratio", "train=0.8,test=0.2", "--seed", "5", *inputs], tmp_path
    )
    code, stdout, stderr, files = serial
    assert (code, stdout, stderr, sorted(files)) == (0, b"", "", ["test.jsonl", "train.jsonl"])
    train, test = (files[f"{side}.jsonl"].splitlines() for side in ("train", "test"))
    assert len(train) + len(test) == 3500 and 500 < len(test) < 900
    assert jobs == serial and dask == serial
