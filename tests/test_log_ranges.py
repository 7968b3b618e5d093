"""--jobs on one message log (LOG parts, pipeline/plan.py and parts.py): the log's lines cut into ranges that
forked workers read and write, put back in order. Every test compares the bytes and the
stderr of --jobs 2 with those of one process, on logs of several ranges, and checks that
the workers did run (a run that fell back to one process would compare equal too)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.pipeline import fast_hooks, log_parts
from chatpipe.pipeline.plan import JOB_BLOCKSIZE, LOG, plan
from conftest import FIXTURES, noting_pids

ROOT = FIXTURES.parent
runner = CliRunner()


def cli(*args):
    return runner.invoke(app, list(args))


@pytest.fixture(scope="module")
def agent_log(tmp_path_factory):
    """About 4 MB of agent sessions built from the fixtures' real texts (code, escapes,
    parallel calls, list content, reasoning, refusals): four ranges or so."""
    path = tmp_path_factory.mktemp("log") / "agent.jsonl"
    script = ROOT / "bench" / "agent_corpus.py"
    subprocess.run([sys.executable, str(script), "4000", str(path)], check=True)
    assert path.stat().st_size > 3 << 20
    return path


def _noting(tmp_path, monkeypatch):
    """A file each process that reads a range writes its pid into."""
    return noting_pids(monkeypatch, log_parts, "log_range", tmp_path / "pids")


def _same(tmp_path, monkeypatch, command, path, code=0):
    """--jobs 2 gives one process's stdout and stderr, from ranges read by workers."""
    one = cli(*command, str(path))
    pids = _noting(tmp_path, monkeypatch)
    pids.unlink(missing_ok=True)
    two = cli(*command, "--jobs", "2", str(path))
    assert one.exit_code == code, one.stderr
    assert (two.exit_code, two.stdout, two.stderr) == (one.exit_code, one.stdout, one.stderr)
    workers = set(pids.read_text().split())
    assert len(workers) == 2 and str(os.getpid()) not in workers
    return one


COMMANDS = [
    ["buffer"],
    ["buffer", "--format", "xml"],
    ["buffer", "--tool-calls", "json", "--message-separator", "\\n---\\n"],
    ["buffer", "-0"],
    ["openai"],
    ["openai", "--text-format", "block"],
    ["convert"],
    ["convert", "--to", "canonical"],
    ["convert", "--to", "openai"],
    ["filter", "--exclude-types", "system", "--exclude-types", "tool"],
    ["filter", "--exclude-all-tool-calls", "--to", "canonical"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_log_in_ranges_gives_one_process_bytes(tmp_path, monkeypatch, agent_log, command):
    result = _same(tmp_path, monkeypatch, command, agent_log)
    assert len(result.stdout) > 1 << 20


@pytest.mark.parametrize("command", [["buffer"], ["convert"]], ids=" ".join)
def test_the_ordinary_reader_too(tmp_path, monkeypatch, agent_log, command):
    """With the fast lane off, the ranges are read by the ordinary reader, which links
    tool results from a state and numbers messages from a start in the same way."""
    monkeypatch.setattr(fast_hooks, "ENABLED", False)
    result = _same(tmp_path, monkeypatch, command, agent_log)
    assert len(result.stdout) > 1 << 20


def _log(tmp_path, lines, name="log.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert path.stat().st_size > 3 << 20
    return path


def _turns(count, results_named=True, calls_named=True):
    """A log of ``count`` turns of a question, a call, its result and an answer."""
    text = "a line of some length to make the log long enough to cut " * 8
    for k in range(count):
        call = {"type": "function", "function": {"name": "look", "arguments": '{"k": 1}'}}
        if calls_named:
            call["id"] = f"c{k}"
        result = {"role": "tool", "content": f"result {k} {text}"}
        if results_named:
            result["tool_call_id"] = f"c{k}"
        yield {"role": "user", "content": f"question {k} {text}"}
        yield {"role": "assistant", "content": None, "tool_calls": [call]}
        yield result
        yield {"role": "assistant", "content": f"answer {k} {text}"}


def test_results_paired_by_order_across_ranges(tmp_path, monkeypatch):
    """Results with no tool_call_id take their call's id, and calls with none a number
    of their message in the whole log, wherever the ranges are cut."""
    path = _log(tmp_path, _turns(2500, results_named=False, calls_named=False))
    result = _same(tmp_path, monkeypatch, ["convert", "--to", "canonical"], path)
    assert '"tool_call_id":"call_9997_0"' in result.stdout  # the last call: message 9998


def test_results_by_order_after_a_call_in_the_range_before(tmp_path, monkeypatch):
    """A range that starts with results, given no id, of a call made at the end of the
    range before (which needed nothing from before it)."""
    from chatpipe.io.ranges import line_ranges

    lines = [{"role": "user", "content": "q" * 1000} for _ in range(900)]
    calls = [
        {"type": "function", "id": f"x{n}", "function": {"name": "f", "arguments": "{}"}}
        for n in range(3000)
    ]
    lines.append({"role": "assistant", "content": "", "tool_calls": calls})
    lines.extend({"role": "tool", "content": "r" * 500} for _ in range(3000))
    lines.extend(_turns(1000))
    path = _log(tmp_path, lines)
    first = line_ranges(str(path), JOB_BLOCKSIZE)[1][0]
    assert path.read_bytes()[first:].startswith(b'{"role": "tool"')  # (the cut)
    result = _same(tmp_path, monkeypatch, ["convert"], path)
    assert result.stdout.count('"tool_call_id":"x2999"') == 1


def test_results_by_order_after_ranges_of_results_named(tmp_path, monkeypatch):
    """Results given no id in a third range answer the calls that the results of the
    first two (whose ids were given) left unanswered."""
    from chatpipe.io.ranges import line_ranges

    lines = [{"role": "user", "content": "q" * 1000} for _ in range(500)]
    calls = [
        {"type": "function", "id": f"x{n}", "function": {"name": "f", "arguments": "{}"}}
        for n in range(3000)
    ]
    lines.append({"role": "assistant", "content": "", "tool_calls": calls})
    for n in range(3000):
        named = {"tool_call_id": f"x{n}"} if n < 2600 else {}
        lines.append({"role": "tool", "content": "r" * 500, **named})
    lines.extend(_turns(1000))
    path = _log(tmp_path, lines)
    data = path.read_bytes()
    (_, one), (_, two), *_ = line_ranges(str(path), JOB_BLOCKSIZE)
    second = data[one:two].splitlines()
    assert all(b'"tool_call_id": "x' in line for line in second)  # (the cuts)
    assert data[two:].startswith(b'{"role": "tool", "content": "rrr')
    result = _same(tmp_path, monkeypatch, ["convert"], path)
    assert result.stdout.count('"tool_call_id":"x2600"') == 1
    assert result.stdout.count('"tool_call_id":"x0"') == 1


def test_a_turn_label_inside_a_later_range_warns_with_its_number(tmp_path, monkeypatch):
    lines = list(_turns(2500))
    lines[9000] = {"role": "user", "content": "first line\nAI: a second turn?"}
    path = _log(tmp_path, lines)
    result = _same(tmp_path, monkeypatch, ["buffer"], path)
    assert "message 9001 has a line starting 'AI: '" in result.stderr


@pytest.mark.parametrize("on_error", ["fail", "skip"])
def test_a_bad_line_in_a_later_range(tmp_path, monkeypatch, on_error):
    """The same error line (file:line) and, when it stops the run, the same output
    before it; skipped, the same output and report."""
    path = tmp_path / "log.jsonl"
    lines = [json.dumps(line) for line in _turns(2500)]
    lines[7000] = '{"role": "user", "content": "cut short'
    lines[8000] = '{"role": "user", "content": 1e999999}'
    path.write_text("\n".join(lines) + "\n")
    code = 1 if on_error == "fail" else 0
    for command in (["buffer"], ["convert", "--to", "openai"]):
        result = _same(tmp_path, monkeypatch, [*command, "--on-error", on_error], path, code)
        assert "log.jsonl:7001" in result.stderr
        if on_error == "skip":
            assert "log.jsonl:8001" in result.stderr


def test_a_log_with_a_byte_order_mark(tmp_path, monkeypatch):
    """UTF-8's mark stays out of the first range's first line; UTF-16 text, whose lines
    are not found in its bytes, is read in one process."""
    text = "".join(json.dumps(line) + "\n" for line in _turns(2500))
    path = tmp_path / "log.jsonl"
    path.write_bytes(text.encode("utf-8-sig"))
    _same(tmp_path, monkeypatch, ["buffer"], path)
    path.write_bytes(text.encode("utf-16"))
    one, two = cli("convert", str(path)), cli("convert", "--jobs", "2", str(path))
    assert two.exit_code == 0 and two.stdout == one.stdout and one.stdout.count("\n") == 10000
    assert "running in one process" in two.stderr


def test_losses_keep_their_message_numbers(tmp_path):
    """What the output dialect cannot hold is counted at the messages where it was."""
    from chatpipe.pipeline.executors import Engine, execute
    from chatpipe.pipeline.job import Inputs, Job
    from chatpipe.pipeline.targets import ToDialect

    lines = list(_turns(2500))
    for k in (5, 6000, 9990):
        call = {"type": "function", "id": f"b{k}", "function": {"name": "f", "arguments": "{no"}}
        lines[k] = {"role": "assistant", "content": "", "tool_calls": [call]}
    del lines[6002]["tool_call_id"]  # its range is read again, knowing the calls before
    path = _log(tmp_path, lines)
    found = []
    for jobs in (1, 2):
        job = Job(Inputs(files=(str(path),)), None, ToDialect("sharegpt"))
        kinds = {part.kind for part in plan(job, JOB_BLOCKSIZE, logs=True).parts}
        assert kinds == {"file"}  # sharegpt writes a whole conversation
        job = Job(Inputs(files=(str(path),)), None, ToDialect("openai"))
        assert {part.kind for part in plan(job, JOB_BLOCKSIZE, logs=True).parts} == {LOG}
        run = execute(job, _Sink(), Engine(jobs))
        found.append(run.losses.cases)
    assert found[0] == found[1] and found[0]
    assert [index for _, index, _ in next(iter(found[0].values()))] == [5, 6000, 9990]


class _Sink:
    def __init__(self):
        self.data = bytearray()

    def line(self, data):
        self.data += data + b"\n"

    def raw(self, data):
        self.data += data

    def borrowed(self, data):
        self.data += data

    def flush(self):
        pass


@pytest.mark.parametrize(
    "command",
    [
        ["trim", "--max-tokens", "1000"],
        ["merge"],
        ["stats"],
        ["convert", "--to", "sharegpt"],
        ["filter", "--exclude-types", "system", "--to", "openai"],  # (losses number filtered)
    ],
    ids=" ".join,
)
def test_jobs_that_need_the_whole_log_run_in_one_process(tmp_path, command, agent_log):
    result = cli(*command, "--jobs", "2", str(agent_log))
    assert result.exit_code == 0, result.stderr
    assert "running in one process" in result.stderr
    assert result.stdout == cli(*command, str(agent_log)).stdout


def test_a_small_log_is_one_part(tmp_path, monkeypatch):
    """A megabyte or less: read by one process, as without --jobs, and nothing said."""
    log = str(FIXTURES / "openai_tool_calls.jsonl")
    pids = _noting(tmp_path, monkeypatch)
    result = cli("buffer", "--jobs", "2", log)
    assert (result.exit_code, result.stdout, result.stderr) == (0, cli("buffer", log).stdout, "")
    assert not pids.exists()
