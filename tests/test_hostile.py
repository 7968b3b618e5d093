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
from conftest import FIXTURES, unmeasured

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
    from chatpipe.io import sink as output
    from chatpipe.io.sink import Sink

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
    from chatpipe.errors import OutputError
    from chatpipe.io.sink import Sink

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
    import chatpipe.io.documents
    import chatpipe.io.records

    walked = []

    def counting(value, limit=None):
        walked.append(value)
        return False

    # the scan that finds an element measures its nesting: no value is walked again
    monkeypatch.setattr(chatpipe.io.documents, "too_deep", counting)
    monkeypatch.setattr(chatpipe.io.records, "too_deep", counting)
    messages = [
        {"role": "user", "content": [{"type": "text", "text": f"m{n}"}]} for n in range(300)
    ]
    doc = tmp_path / "log.json"
    doc.write_bytes(orjson.dumps(messages))
    result = cli("convert", str(doc))
    assert result.exit_code == 0, result.stderr
    assert len(result.stdout.splitlines()) == 300
    assert walked == []  # was one walk of each of the 300 elements' values


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
    # (refused from its first bytes: NUL is no text)
    assert done.stderr == (
        b"chatpipe: error: /dev/zero: binary data, not a text chat log (chatpipe reads JSON, "
        b"JSONL, YAML and SSE text and Parquet, compressed or in a zip; UTF-16 text needs its "
        b"byte order mark)\n"
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
    from chatpipe.pipeline.opening import ErrorLog

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
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": args}}
        ],
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
    log.write_text(
        '{"role":"user","content":"ok"}\n{"role":"user","content":"x","n":' + "9" * 5000 + "}\n"
    )
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
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": args}}
        ],
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
        (
            '{"messages":[{"role":"user","content":"' + "x" * 3000 + '"}]}',
            ["--max-record-bytes", "2000"],
        ),
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
    if "9" * 40 in bad:
        assert f'"n":{"9" * 40}' in parallel.stdout


# -- 10. a YAML alias bomb of long strings ---------------------------------------------


def test_yaml_aliases_of_a_long_string_are_bounded_by_their_expanded_text(tmp_path):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text('a: &a "' + "x" * 100_000 + '"\nb: [' + ",".join(["*a"] * 3_000) + "]\n")
    result = cli("convert", str(bomb))
    assert result.exit_code == 1
    assert result.stderr == (
        f"chatpipe: error: {bomb}:1:1: YAML aliases expand to more than 268,435,456 "
        "characters of text (raise the limit with chatpipe --max-record-bytes N)\n"
    )
    # an alias used as aliases are meant (a system prompt shared by rows) is read
    shared = tmp_path / "shared.yaml"
    shared.write_text(
        "- messages:\n  - &sys {role: system, content: be brief}\n  - {role: user, content: a}\n"
        "- messages:\n  - *sys\n  - {role: user, content: b}\n"
    )
    assert cli("convert", str(shared)).stdout.count("be brief") == 2


# -- 12. no segfault: deep YAML, a text near 2 GiB ---------------------------------------


@pytest.mark.parametrize(
    ("text", "where"),
    [("[" * 30_000, "1:201"), ("- " * 30_000 + "x", "1:401"), ("{a: " * 30_000, "1:801")],
    ids=["flow-sequences", "block-sequences", "flow-mappings"],
)
def test_deep_yaml_is_refused_before_the_loader_recurses(tmp_path, text, where):
    deep = tmp_path / "deep.yaml"
    deep.write_text(text + "\n")
    done = chatpipe("convert", str(deep), timeout=60)
    assert done.returncode == 1  # was 139, a segfault
    assert done.stderr.decode() == (
        f"chatpipe: error: {deep}:{where}: a record nested deeper than 200 levels "
        "(raise the limit with chatpipe --max-depth N)\n"
    )


def test_a_text_too_long_for_orjson_is_written_by_the_standard_library(monkeypatch):
    from chatpipe.io import encode as canonical

    texts = ["plain", 'quote " back \\ slash', "".join(map(chr, range(0, 0x900))), "😀\u2028"]
    expected = [orjson.dumps(t) for t in texts]
    monkeypatch.setattr(canonical, "LONGEST_FOR_ORJSON", 3)  # as 1 GiB is to a real text
    assert [canonical.dumps_text(t) for t in texts] == expected


# -- 13. internal errors that are clean errors -----------------------------------------------


def test_a_lone_surrogate_in_arguments_is_an_invalid_call_not_a_crash(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text(
        '{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function",'
        '"function":{"name":"f","arguments":"{\\"a\\": \\"\\\\ud800\\"}"}}]}\n'
        '{"role":"user","content":"after"}\n'
    )
    for target in ("canonical", "openai"):
        result = cli("convert", "--to", target, str(log))
        assert result.exit_code == 0, result.stderr
        assert "after" in result.stdout and "\\\\ud800" in result.stdout
    assert "invalid_tool_arguments" in cli("validate", str(log)).stdout


def test_an_integer_yaml_cannot_hold_is_a_clean_error(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("- role: user\n  content: x\n  n: " + "9" * 5_000 + "\n")
    result = cli("convert", str(big))
    assert result.exit_code == 1
    assert result.stderr == (
        f"chatpipe: error: {big}:1:1: cannot read a value: exceeds the limit (4300 digits) "
        "for integer string conversion (write such a number as a string)\n"
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--chars-per-token", "0"], "'--chars-per-token': 0.0 is not from 0.001 to 1e+06"),
        (["--chars-per-token", "-1"], "'--chars-per-token': -1.0 is not from 0.001 to 1e+06"),
        (["--chars-per-token", "1e-300"], "1e-300 is not from 0.001 to 1e+06"),
        (["--chars-per-token", "nan"], "'--chars-per-token': nan is not a finite number"),
        (["--extra-tokens-per-message", "inf"], "inf is not a finite number"),
        (["--extra-tokens-per-message", "2e307"], "2e+307 is not from 0 to 1e+06"),
        (["--tokens-per-image", "-3"], "-3 is not in the range 0<=x<=1000000000"),
    ],
)
def test_count_options_out_of_range_are_usage_errors(args, said):
    result = cli("count", *args, TOOL_LOG)
    assert result.exit_code == 2 and result.stdout == ""
    assert said in " ".join(result.stderr.replace("│", " ").split())


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("yaml", "is a container, recognised by itself"),
        ("markdown", "is written only"),
        ("nope", "is not a dialect"),
    ],
)
def test_from_a_dialect_that_cannot_be_read_is_a_usage_error(name, why):
    for command in ("convert", "buffer", "validate"):
        result = cli(command, "--from", name, TOOL_LOG)
        assert result.exit_code == 2
        assert result.stderr.startswith(
            f"chatpipe: error: --from '{name}' {why} (--from takes auto, "
        )


def test_names_and_option_values_that_are_not_utf8(tmp_path):
    odd = os.fsdecode(bytes(tmp_path) + b"/\xff.jsonl")
    done = chatpipe("convert", odd)
    assert done.returncode == 1
    assert done.stderr == b"chatpipe: error: " + bytes(tmp_path) + b"/\\xff.jsonl: no such file\n"
    rows = str(FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl")
    done = chatpipe("buffer", "--separator", os.fsdecode(b"\xff"), rows)
    assert done.returncode == 0, done.stderr
    # the byte the user typed, back, between the conversations
    assert done.stdout.count(b"\xffSystem: ") == done.stdout.count(b"System: ") - 1 > 0


def test_jobs_are_capped_at_the_processors_this_process_may_use(tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"messages":[{"role":"user","content":"a"}]}\n' * 100)
    cores = len(os.sched_getaffinity(0))
    result = cli("convert", "--jobs", "1000", str(rows))
    assert result.exit_code == 0
    assert result.stdout == cli("convert", str(rows)).stdout
    assert result.stderr.splitlines()[0] == (
        f"chatpipe: --jobs 1000: this machine runs {cores} at once; using {cores} workers"
    )
    assert cli("convert", "--jobs", "0", str(rows)).exit_code == 2


# -- 14. one rule for every container: UTF-8, or UTF-16/32 with a byte order mark -----------


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".yaml", ".txt"])
def test_wide_encodings_with_a_bom_read_as_utf8_in_every_container(tmp_path, encoding, suffix):
    source = FIXTURES / (
        "openai_chat__pydanticai_req_tool_roundtrip.yaml"
        if suffix == ".yaml"
        else "openai_tool_calls.jsonl"
    )
    text = source.read_text(encoding="utf-8")
    path = tmp_path / f"log{suffix}"
    bom = {"utf-16-be": b"\xfe\xff"}.get(encoding, b"")
    path.write_bytes(bom + text.encode(encoding))
    result = cli("convert", str(path))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == cli("convert", str(source)).stdout


def test_bad_utf16_and_latin1_yaml_name_the_problem_and_place(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe{\x00\x00\xd8")
    assert cli("convert", str(bad)).stderr == (
        f"chatpipe: error: {bad}: invalid UTF-16 text (convert it to UTF-8, e.g. with iconv -t UTF-8)\n"
    )
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"- role: user\n  content: caf\xe9\n")
    assert cli("convert", str(latin)).stderr == (
        f"chatpipe: error: {latin}:2:15: invalid UTF-8: byte 0xe9 (column counts bytes) "
        "(the input must be UTF-8 text)\n"
    )


# -- 15. -o writes into what it names, as > does -------------------------------------------


def test_dash_o_dash_is_stdout(tmp_path):
    done = chatpipe("convert", TOOL_LOG, "-o", "-", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.count(b"\n") == 8
    assert list(tmp_path.iterdir()) == []


def test_devices_and_fifos_are_written_into_never_replaced(tmp_path):
    # (not /dev/null itself: run against a chatpipe without the fix, as root, this test
    # would replace the machine's /dev/null; a FIFO takes the same path, not a regular file)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    done = chatpipe("convert", TOOL_LOG, "-o", str(fifo))
    assert done.returncode == 0, done.stderr
    assert reader.communicate(timeout=30)[0].count(b"\n") == 8
    assert os.path.exists(fifo) and not os.path.isfile(fifo)
    # /dev/stdout is the pipe chatpipe was given
    piped = subprocess.run(
        [sys.executable, "-m", "chatpipe", "convert", TOOL_LOG, "-o", "/dev/stdout"],
        capture_output=True,
    )
    assert piped.returncode == 0 and piped.stdout.count(b"\n") == 8


def test_a_symlink_is_written_through_and_modes_are_as_a_redirection_gives(tmp_path):
    real, link = tmp_path / "real.jsonl", tmp_path / "link.jsonl"
    real.write_text("old\n")
    real.chmod(0o640)
    link.symlink_to(real.name)
    assert chatpipe("convert", TOOL_LOG, "-o", str(link)).returncode == 0
    assert link.is_symlink() and real.read_text().count("\n") == 8
    assert real.stat().st_mode & 0o777 == 0o640  # the old file's mode kept
    new = tmp_path / "new.jsonl"
    code = f"import os, runpy, sys; os.umask(0o027); sys.argv = ['chatpipe', 'convert', {TOOL_LOG!r}, '-o', {str(new)!r}]; runpy.run_module('chatpipe', run_name='__main__')"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
    assert new.stat().st_mode & 0o777 == 0o640  # 0666 less the umask, not mkstemp's 0600


# -- 16. SIGTERM and SIGHUP clean up as Ctrl-C does ------------------------------------------


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_terminating_signal_leaves_no_temporary_file(tmp_path, signame):
    import signal
    import time

    log = tmp_path / "big.jsonl"
    log.write_bytes(b'{"role":"user","content":"' + b"w " * 200 + b'"}\n' * 1)
    log.write_bytes(log.read_bytes() * 100_000)
    out = tmp_path / "out" / "out.yaml"
    out.parent.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "chatpipe", "convert", "--to", "yaml", str(log), "-o", str(out)],
        stderr=subprocess.PIPE,
        env=unmeasured(),
    )
    deadline = time.monotonic() + 30
    while not list(out.parent.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.02)  # until the temporary file exists
    assert list(out.parent.iterdir()), "the temporary file never appeared"
    proc.send_signal(getattr(signal, signame))
    _, err = proc.communicate(timeout=30)
    number = getattr(signal, signame)
    assert (proc.returncode, err) == (128 + number, b"chatpipe: terminated\n")
    assert list(out.parent.iterdir()) == []


# -- 17. a closed pipe ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["buffer"],
        ["convert"],
        ["convert", "--to", "yaml"],
        ["convert", "--to", "markdown"],
        ["show", "--no-pager"],
        ["convert", "--json"],
    ],
    ids=lambda c: " ".join(c),
)
def test_a_closed_pipe_ends_the_run_quietly_and_at_once(tmp_path, command):
    import time

    log = tmp_path / "big.jsonl"
    line = b'{"role":"user","content":"' + b"w " * 100 + b'"}\n'
    log.write_bytes(line * 200_000)  # about 40 MB: minutes of YAML, were it all written
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "chatpipe", *command, str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0
    assert err == b""
    assert time.monotonic() - start < 20


# -- 11. whole-document writers hold at most one conversation ------------------------------


def _peak_rss_mb(args, log):
    """Peak RSS of a chatpipe run (its own child process), in MB."""
    code = (
        "import resource, subprocess, sys\n"
        f"subprocess.run([sys.executable, '-m', 'chatpipe', *{args!r}, {str(log)!r}], "
        "stdout=subprocess.DEVNULL, check=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    return int(done.stdout) / 1024


@pytest.mark.parametrize(
    "args",
    [
        ["convert", "--to", "markdown"],
        ["convert", "--to", "yaml"],
        ["convert", "--json"],
        ["openai", "--json"],
        ["show", "--no-pager"],
    ],
    ids=lambda a: " ".join(a),
)
def test_whole_document_writers_stream_a_message_log(tmp_path, args):
    line = b'{"role":"user","content":"' + b"w " * 150 + b'"}\n'
    small, large = tmp_path / "small.jsonl", tmp_path / "large.jsonl"
    small.write_bytes(line * 2_000)
    large.write_bytes(line * (8_000 if "yaml" in args or "show" in args else 60_000))
    grown = _peak_rss_mb(args, large) - _peak_rss_mb(args, small)
    # held whole, the large log's output is 5 to 18 MB more; streamed, it is not held
    assert grown < 4, f"peak RSS grew {grown:.1f} MB with the input"


# -- 18. help and options as a user reads them ---------------------------------------------


@pytest.mark.parametrize("columns", ["80", "110"])
def test_help_names_every_option_whole(columns):
    done = chatpipe("openai", "--help", env={"COLUMNS": columns})
    text = done.stdout.decode()
    assert "--pass-through-unknown-blocks / --no-pass-through-unknown-blocks" in text
    assert "…" not in text
    assert "Usage: chatpipe openai [OPTIONS] [FILE]..." in text
    verbose = text[text.index("-v, --verbose") :].split("\n  -", 1)[0]
    assert "Takes no value" in verbose and "[default" not in verbose and "INT" not in verbose


def test_root_limits_after_the_command_and_talk_flags_before_it(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('{"role":"user","content":"' + "x" * 500 + '"}\n')
    after = chatpipe("convert", "--max-record-bytes", "100", str(log))
    before = chatpipe("--max-record-bytes", "100", "convert", str(log))
    assert after.returncode == before.returncode == 1
    assert after.stderr == before.stderr and b"larger than 100 bytes" in after.stderr
    said = chatpipe("-v", "convert", TOOL_LOG)
    assert said.returncode == 0
    assert (
        said.stderr == f"chatpipe: read {TOOL_LOG}: openai (jsonl, message per record)\n".encode()
    )
    equals = chatpipe("convert", "--max-depth=3", "-q", TOOL_LOG)
    assert equals.returncode == 1 and b"nested deeper than 3 levels" in equals.stderr
    # after --, every argument is a file
    dashed = chatpipe("convert", "--", "--max-depth")
    assert dashed.stderr == b"chatpipe: error: --max-depth: no such file\n"


def test_arrange_moves_each_option_where_click_takes_it():
    from chatpipe.cli import arrange

    assert arrange(["convert", "--max-depth", "5", "-v", "f"]) == [
        "--max-depth",
        "5",
        "convert",
        "-v",
        "f",
    ]
    assert arrange(["-vv", "-q", "buffer", "f"]) == ["buffer", "-vv", "-q", "f"]
    assert arrange(["--max-depth", "convert", "trim"]) == ["--max-depth", "convert", "trim"]
    assert arrange(["--help"]) == ["--help"]


def test_json_with_a_document_dialect_is_a_usage_error():
    result = cli("convert", "--json", "--to", "markdown", TOOL_LOG)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        "chatpipe: error: --json writes one JSON document; markdown is a document of its own "
        "(drop --json, or write --to canonical or openai)\n"
    )


def test_dialect_options_complete_dialect_names():
    from chatpipe.cli import options
    from chatpipe.formats import registry

    assert sorted(options.READABLE) == sorted(registry.readable())
    assert sorted(options.WRITABLE) == sorted(registry.writable())
    env = {
        "_CHATPIPE_COMPLETE": "complete_bash",
        "COMP_WORDS": "chatpipe convert --to ",
        "COMP_CWORD": "3",
    }
    assert chatpipe(env=env).stdout.decode().split() == registry.writable()
    env = {
        "_CHATPIPE_COMPLETE": "complete_bash",
        "COMP_WORDS": "chatpipe buffer --from gem",
        "COMP_CWORD": "3",
    }
    assert chatpipe(env=env).stdout.decode().split() == ["gemini", "gemini-stream", "gemini-cli"]


def test_types_are_checked_and_listed_without_class_names():
    for args in (
        ["filter", "--include-types", "robot"],
        ["trim", "--max-tokens", "9", "--start-on", "robot"],
    ):
        result = cli(*args, TOOL_LOG)
        assert result.exit_code == 2 and result.stdout == ""
        assert result.stderr.endswith(
            "'robot' is not a message type (types: ai, chat, function, human, remove, system, tool)\n"
        )


def test_people_count_from_one(tmp_path):
    skip = cli("convert", "--to", "sharegpt", "-v", TOOL_LOG)
    assert "chatpipe:   conversation 1, message 7" in skip.stderr.splitlines()  # the image
    log = tmp_path / "log.jsonl"
    log.write_text('{"role":"user","content":"a"}\n{"role":"function","content":"x"}\n')
    assert f"{log}:2:1: " in cli("convert", str(log)).stderr
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        '{"messages":[{"role":"user","content":"ok"},{"role":"function","content":"x"}]}\n'
    )
    assert cli("convert", str(rows)).stderr.endswith(
        ": message 2: a function message needs a name\n"
    )
    assert (
        orjson.loads(cli("stats", "--json", TOOL_LOG).stdout.splitlines()[0])["conversation"] == 1
    )


def test_stats_table_goes_to_the_file_given(tmp_path):
    out = tmp_path / "table.txt"
    result = cli("stats", "--table", "-o", str(out), TOOL_LOG)
    assert result.exit_code == 0 and result.stdout == ""
    table = out.read_text()
    assert table.startswith("1 conversation ") and "│ all │" in table


# -- 19. the README's commands work on a fresh clone ---------------------------------------


def test_the_corpus_generator_makes_its_folder(tmp_path):
    from conftest import ROOT

    target = tmp_path / "bench" / "corpus" / "log.jsonl"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "corpus.py"), "50", str(target)], capture_output=True
    )
    assert done.returncode == 0, done.stderr
    assert len(target.read_text().splitlines()) == 50


# -- terminal escapes from the data (#44) ---------------------------------------------------


def test_escapes_in_error_and_warning_lines_are_shown_written_out(tmp_path):
    """A key, a name, a template's own message: what stderr prints from the data has its
    control characters written out; the terminal never gets an escape to act on."""
    keys = tmp_path / "keys.jsonl"
    keys.write_bytes(b'{"\\u001b]0;PWNED\\u0007x": 1}\n')
    done = chatpipe("convert", str(keys))
    assert done.returncode == 1
    assert done.stderr.decode().startswith(
        f"chatpipe: error: {keys}:1:1: cannot tell what chat format this is "
        "(top-level keys: \\x1b]0;PWNED\\x07x; name it with --from"
    )
    assert b"\x1b" not in done.stderr and b"\x07" not in done.stderr
    template = tmp_path / "t.jinja"
    template.write_text("{{ raise_exception('\\x1b]0;PWNED\\x07 \\x9b2J\\u202egnp.exe') }}")
    log = tmp_path / "log.jsonl"
    log.write_text('{"role": "user", "content": "hi"}\n')
    done = chatpipe("template", "--chat-template", str(template), str(log))
    assert done.returncode == 1
    assert done.stderr.decode() == (
        f"chatpipe: error: {log}:1:1: the chat template refused this conversation: "
        "\\x1b]0;PWNED\\x07 \\x9b2J\\u202egnp.exe\n"
    )
    skipped = chatpipe("template", "--chat-template", str(template), "--on-error", "skip", str(log))
    assert skipped.returncode == 0
    assert skipped.stderr.decode().splitlines()[0] == (
        f"chatpipe: skipped: {log}:1:1: the chat template refused this conversation: "
        "\\x1b]0;PWNED\\x07 \\x9b2J\\u202egnp.exe"
    )


def test_terminal_safe_writes_out_every_control_but_tab_and_line_feed():
    from chatpipe.render.markup import terminal_safe

    assert terminal_safe("plain: é, 中文, 👍🏽, a\tb\nc") == "plain: é, 中文, 👍🏽, a\tb\nc"
    every = "".join(map(chr, range(0x20))) + "\x7f\x80\x9b\x9f\u202a\u202e\u2066\u2069\u200d"
    assert terminal_safe(every) == (
        "\\x00\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08\t\n\\x0b\\x0c\\r\\x0e\\x0f"
        "\\x10\\x11\\x12\\x13\\x14\\x15\\x16\\x17\\x18\\x19\\x1a\\x1b\\x1c\\x1d\\x1e\\x1f"
        "\\x7f\\x80\\x9b\\x9f\\u202a\\u202e\\u2066\\u2069\u200d"  # a ZWJ joins emoji: kept
    )
