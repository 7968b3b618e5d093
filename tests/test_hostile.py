"""Hostile and huge inputs (issue #23): nothing lost silently, no crash, bounded memory.

The cases that would need gigabytes (a 2 GiB output, /dev/zero) run under a lowered
limit or an injected write size, so the suite stays fast and safe.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys

import orjson
import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()
TOOL_LOG = str(FIXTURES / "openai_tool_calls.jsonl")


def cli(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def chatpipe(*args, input=None, env=None, **kwargs):
    """chatpipe in a real process (signals, file descriptors, resource limits)."""
    return subprocess.run(
        [sys.executable, "-m", "chatpipe", *args],
        input=input,
        capture_output=True,
        env={**os.environ, **(env or {})},
        **kwargs,
    )


# -- 1. every write complete --------------------------------------------------------


class Trickle(io.RawIOBase):
    """A raw stream that takes at most ``most`` bytes a call, as an unbuffered stdout
    takes at most 2 GiB - 4 KiB; and refuses a call handed more than ``largest``."""

    def __init__(self, most: int, largest: int | None = None) -> None:
        self.most, self.largest, self.data = most, largest, bytearray()

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        if self.largest is not None:
            assert len(data) <= self.largest, f"one write() handed {len(data)} bytes"
        taken = bytes(data[: self.most])
        self.data += taken
        return len(taken)


def test_partial_writes_are_continued_until_every_byte_is_written(monkeypatch):
    from chatpipe import output
    from chatpipe.cli.runtime import Sink

    monkeypatch.setattr(output, "WRITE_CHUNK", 50_000)  # as 1 GiB is to a real write
    stream = Trickle(most=7_777, largest=50_000)
    sink = Sink(None, [])
    sink.stream = stream
    big = bytes(range(256)) * 1_000  # 256,000 bytes: one direct write
    sink.raw(big)
    for n in range(3_000):
        sink.line(b"line %d" % n)
    sink.close(True)
    expected = big + b"".join(b"line %d\n" % n for n in range(3_000))
    assert bytes(stream.data) == expected


def test_a_write_that_takes_nothing_is_an_error_not_a_short_output():
    from chatpipe.cli.runtime import Sink
    from chatpipe.errors import OutputError

    sink = Sink(None, [])
    sink.stream = Trickle(most=0)
    with pytest.raises(OutputError, match="cannot write the output: the output took no more"):
        sink.raw(b"x" * 100_000)


def test_unbuffered_stdout_gets_the_whole_output(tmp_path):
    """PYTHONUNBUFFERED=1 makes stdout a raw FileIO: the real process, its real output."""
    log = tmp_path / "log.jsonl"
    log.write_bytes(
        b"".join(
            orjson.dumps({"role": "user", "content": f"{n} " + "w" * 300}) + b"\n"
            for n in range(2_000)
        )
    )
    expected = chatpipe("convert", "--json", str(log)).stdout
    done = chatpipe("convert", "--json", str(log), env={"PYTHONUNBUFFERED": "1"})
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected and len(expected) > 600_000


# -- 6. limits take positive values only ------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value", "shown"),
    [
        ("--max-record-bytes", "-1", "-1 is not in the range 1<=x<=1073741824"),
        ("--max-record-bytes", "0", "0 is not in the range 1<=x<=1073741824"),
        ("--max-depth", "0", "0 is not in the range 1<=x<=1000"),
        ("--max-depth", "1000000000", "1000000000 is not in the range 1<=x<=1000"),
        ("--max-yaml-values", "-5", "-5 is not in the range 1<=x<=1000000000"),
    ],
)
def test_limits_out_of_range_are_usage_errors(option, value, shown):
    result = cli(option, value, "convert", TOOL_LOG)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert shown in " ".join(result.stderr.replace("│", " ").split())
    assert "Traceback" not in result.stderr


# -- 7. a JSON array is read in linear time ---------------------------------------------


def test_a_json_array_is_measured_for_depth_once_not_once_per_element(tmp_path, monkeypatch):
    import chatpipe.io as cio

    scanned = []
    real = cio.bytes_may_be_too_deep

    def counting(data, limit=None):
        scanned.append(len(data))
        return real(data, limit)

    monkeypatch.setattr(cio, "bytes_may_be_too_deep", counting)
    # brackets enough to pass the cheap look, so every element would be measured
    messages = [
        {"role": "user", "content": [{"type": "text", "text": f"m{n}"}]} for n in range(300)
    ]
    doc = tmp_path / "log.json"
    doc.write_bytes(orjson.dumps(messages))
    result = cli("convert", str(doc))
    assert result.exit_code == 0, result.stderr
    assert len(result.stdout.splitlines()) == 300
    assert sum(scanned) <= 2 * doc.stat().st_size  # was 300 × the document


def test_a_too_deep_element_of_a_json_array_is_still_found(tmp_path):
    deep = {"role": "user", "content": [{"k": 1}], "x": orjson.loads("[" * 250 + "]" * 250)}
    doc = tmp_path / "log.json"
    doc.write_bytes(orjson.dumps([{"role": "user", "content": "ok"}, deep]))
    result = cli("convert", "--on-error", "skip", str(doc))
    assert result.stdout == '{"type":"human","content":"ok"}\n'
    assert f"{doc}:1:33: a record nested deeper than 200 levels" in result.stderr


# -- 8. a stream with no line break is never read past the record limit -----------------


def test_dev_zero_is_refused_within_the_record_limit():
    limit = 64 << 20  # address space: far less than /dev/zero would take
    code = (
        "import resource, sys, runpy\n"
        f"resource.setrlimit(resource.RLIMIT_AS, ({limit * 4}, {limit * 4}))\n"
        "sys.argv = ['chatpipe', '--max-record-bytes', '1000000', 'convert', '/dev/zero']\n"
        "runpy.run_module('chatpipe', run_name='__main__')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert done.returncode == 1
    assert done.stdout == b""
    assert done.stderr == (
        b"chatpipe: error: /dev/zero:1:1: no line break in the first 1,000,000 bytes: not a "
        b"chat log (a JSON document starts with { or [; raise chatpipe --max-record-bytes N "
        b"for longer lines)\n"
    )


def test_an_sse_event_past_the_record_limit_is_skipped_not_held(tmp_path):
    def event(text):
        chunk = {
            "id": "c1",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": text}}],
        }
        return b"data: " + orjson.dumps(chunk) + b"\n\n"

    sse = tmp_path / "cap.sse"
    sse.write_bytes(event("hi") + event("x" * 5_000) + event(" there") + b"data: [DONE]\n\n")
    failed = cli("--max-record-bytes", "1000", "convert", str(sse))
    assert failed.exit_code == 1
    assert failed.stderr == (
        f"chatpipe: error: {sse}:3:1: a record larger than 1,000 bytes "
        "(raise the limit with chatpipe --max-record-bytes N)\n"
    )
    skipped = cli("--max-record-bytes", "1000", "convert", "--on-error", "skip", str(sse))
    assert skipped.exit_code == 0
    assert orjson.loads(skipped.stdout)["messages"][0]["content"] == "hi there"
    # the first event too long: the same error, not "invalid JSON"
    sse.write_bytes(event("x" * 5_000) + event("hi"))
    first = cli("--max-record-bytes", "1000", "convert", str(sse))
    assert first.stderr.startswith(f"chatpipe: error: {sse}:1:1: a record larger than 1,000")


# -- 9. skipped errors are counted, not kept ---------------------------------------------


def test_skip_counts_every_bad_record_but_keeps_only_those_shown(tmp_path):
    from chatpipe.errors import DataError
    from chatpipe.formats import ErrorLog

    log = ErrorLog("skip")
    for n in range(5_000):
        log.handle(DataError(f"bad {n}"))
    assert log.count == 5_000
    assert [str(e) for e in log.skipped] == [f"bad {n}" for n in range(20)]

    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"role":"user","content":"ok"}\n' + b"{oops\n" * 500)
    result = cli("convert", "--on-error", "skip", str(bad))
    assert result.exit_code == 0
    assert result.stdout == '{"type":"human","content":"ok"}\n'
    lines = result.stderr.splitlines()
    assert len(lines) == 22
    assert lines[0].startswith(f"chatpipe: skipped: {bad}:2:2: invalid JSON")
    assert lines[-2:] == [
        "chatpipe: ... and 480 more",
        "chatpipe: warning: skipped 500 bad records",
    ]


# -- 2. unparseable tool-call arguments round-trip ----------------------------------------


def test_unparseable_arguments_are_written_back_as_they_came_and_said(tmp_path):
    line = (
        '{"role":"assistant","content":"","tool_calls":['
        '{"id":"c0","type":"function","function":{"name":"ok","arguments":"{\\"a\\": 1}"}},'
        '{"id":"c1","type":"function","function":{"name":"f","arguments":"{oops"}}]}\n'
    )
    log = tmp_path / "log.jsonl"
    log.write_text(line)
    result = cli("convert", "--to", "openai", str(log))
    assert result.exit_code == 0
    assert orjson.loads(result.stdout) == {
        "role": "assistant",
        "tool_calls": [
            {"type": "function", "id": "c0", "function": {"name": "ok", "arguments": '{"a": 1}'}},
            {"type": "function", "id": "c1", "function": {"name": "f", "arguments": "{oops"}},
        ],
        "content": "",
    }
    assert result.stderr == (
        "chatpipe: warning: tool-call arguments that are not valid JSON in 1 message: "
        "written as they came (-v lists them)\n"
    )
    # langchain's convert_to_openai_messages (chatpipe openai) drops them, as it does
    assert "oops" not in cli("openai", str(log)).stdout


# -- 3. integers past 64 bits stay exact ----------------------------------------------------

BIG = 123456789012345678901234567890


@pytest.mark.parametrize("container", ["jsonl", "json", "sse", "lane"])
def test_big_integers_stay_exact_in_records_and_arguments(tmp_path, container):
    args = orjson.dumps({"a": 1}).decode().replace("1", str(BIG))
    record = {
        "role": "assistant",
        "content": "",
        "n": 1,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": args}}],
    }
    text = orjson.dumps(record).decode().replace('"n":1', f'"n":{BIG}')
    plain = '{"role":"user","content":"hi"}\n'
    if container == "jsonl":
        path, data = tmp_path / "log.jsonl", text + "\n"
    elif container == "json":
        path, data = tmp_path / "log.json", "[" + text + "]"
    elif container == "sse":  # a chat.completion response as one event
        response = '{"object":"chat.completion","choices":[{"index":0,"message":' + text + "}]}"
        path, data = tmp_path / "log.sse", "data: " + response + "\n\n"
    else:  # past the detection window, in the fast lane's batches
        path, data = tmp_path / "log.jsonl", plain * 50 + text + "\n"
    path.write_text(data)
    result = cli("convert", str(path))
    assert result.exit_code == 0, result.stderr
    out = result.stdout.splitlines()[-1]  # (orjson.loads here would lose the digits)
    assert f'"n":{BIG}' in out
    assert f'"args":{{"a":{BIG}}}' in out
    back = cli("convert", "--to", "openai", str(path))
    assert f'\\"a\\": {BIG}' in back.stdout


def test_an_integer_of_more_digits_than_python_reads_is_a_clean_error(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('{"role":"user","content":"ok"}\n{"role":"user","content":"x","n":' + "9" * 5000 + "}\n")
    result = cli("convert", str(log))
    assert result.exit_code == 1
    assert result.stdout == '{"type":"human","content":"ok"}\n'
    assert "Error" not in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"chatpipe: error: {log}:2:1: ")


# -- 4. non-finite numbers in tool arguments are invalid ------------------------------------


@pytest.mark.parametrize("number", ["1e999", "NaN", "Infinity", "-Infinity"])
def test_non_finite_arguments_are_invalid_and_reported(tmp_path, number):
    args = '{"a": ' + number + "}"
    record = {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": args}}],
    }
    log = tmp_path / "log.jsonl"
    log.write_bytes(orjson.dumps(record) + b"\n")
    canonical = orjson.loads(cli("convert", str(log)).stdout)
    assert "tool_calls" not in canonical
    [invalid] = canonical["invalid_tool_calls"]
    assert invalid["args"] == args and number in invalid["error"]
    openai = cli("convert", "--to", "openai", str(log))
    assert orjson.loads(openai.stdout)["tool_calls"][0]["function"]["arguments"] == args
    checked = cli("validate", str(log))
    assert checked.exit_code == 1
    assert checked.stdout == (
        f"{log}:1:1: invalid_tool_arguments: tool call 'f' (c1): arguments are not valid "
        f"JSON: {number} {'is past the range of' if number == '1e999' else 'is not'} a JSON "
        "number (write arguments as a JSON object in JSON text)\n"
    )


# -- 5. a record that does not fit the dialect is an error -------------------------------


def test_a_langchain_record_in_an_openai_log_is_an_error_not_an_empty_message(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('{"role":"user","content":"hi"}\n{"type":"human","data":{"content":"buried"}}\n')
    result = cli("convert", str(log))
    assert result.exit_code == 1
    assert result.stdout == '{"type":"human","content":"hi"}\n'
    assert result.stderr == (
        f"chatpipe: error: {log}:2:1: a 'human' message needs 'content' (this is langchain's "
        "{type, data} shape: read it with --from langchain)\n"
    )


@pytest.mark.parametrize(
    ("bad", "root"),
    [
        ('{"messages":[{"role":"user","content":"a","x":' + "[" * 250 + "]" * 250 + "}]}", []),
        ('{"messages":[{"role":"user","content":"' + "x" * 3000 + '"}]}', ["--max-record-bytes", "2000"]),
        ('{"messages":[{"role":"user","content":"a","n":' + "9" * 40 + "}]}", []),
    ],
    ids=["too-deep", "too-long", "big-int"],
)
def test_jobs_workers_apply_every_check_one_process_does(tmp_path, bad, root):
    path = tmp_path / "rows.jsonl"
    good = '{"messages":[{"role":"user","content":"a"}]}\n'
    path.write_text(good * 30 + bad + "\n" + good * 30)
    for mode in ("skip", "fail"):
        serial = cli(*root, "convert", "--on-error", mode, str(path))
        parallel = cli(*root, "convert", "--jobs", "2", "--on-error", mode, str(path))
        assert (parallel.exit_code, parallel.stdout, parallel.stderr) == (
            serial.exit_code,
            serial.stdout,
            serial.stderr,
        )
        written = len(serial.stdout.splitlines())
        assert written == (61 if "9" * 40 in bad else 60 if mode == "skip" else 30)
