"""The command line, driven for real: exact stdout, stderr and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES, noting_pids, unmeasured

runner = CliRunner()
TOOL_LOG = str(FIXTURES / "openai_tool_calls.jsonl")


def cli(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def test_convert_openai_log_to_canonical_lines():
    result = cli("convert", TOOL_LOG)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert len(lines) == 8
    assert lines[2] == (
        '{"type":"ai","content":"","tool_calls":['
        '{"name":"get_weather","args":{"city":"Paris"},"id":"call_paris","type":"tool_call"},'
        '{"name":"get_weather","args":{"city":"Köln"},"id":"call_koeln","type":"tool_call"}]}'
    )
    assert lines[3] == '{"type":"tool","content":"18°C, light rain","tool_call_id":"call_paris"}'


def test_stdin_and_dash_read_the_same(tmp_path):
    data = '{"role":"user","content":"hi"}\n["assistant","hello"]\n"bare"\n'
    expected = (
        '{"type":"human","content":"hi"}\n{"type":"ai","content":"hello"}\n'
        '{"type":"human","content":"bare"}\n'
    )
    assert cli("convert", input=data).stdout == expected
    assert cli("convert", "-", input=data).stdout == expected


def test_canonical_in_is_canonical_out_byte_for_byte(tmp_path):
    first = cli("convert", TOOL_LOG).stdout
    path = tmp_path / "canonical.jsonl"
    path.write_text(first, encoding="utf-8")
    result = cli("convert", "-v", str(path))
    assert result.stdout == first
    assert result.stderr == f"chatpipe: read {path}: canonical (jsonl, message per record)\n"


def test_to_langchain_writes_type_and_data():
    result = cli(
        "convert", "--to", "langchain", input='{"role":"developer","content":"be brief"}\n'
    )
    assert json.loads(result.stdout) == {
        "type": "system",
        "data": {
            "content": "be brief",
            "additional_kwargs": {"__openai_role__": "developer"},
            "response_metadata": {},
            "type": "system",
            "name": None,
            "id": None,
        },
    }


def test_conversation_records_keep_their_other_fields():
    row = {
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "a", "weight": 0},
        ],
        "tools": [{"type": "function", "function": {"name": "f"}}],
        "parallel_tool_calls": False,
    }
    result = cli("convert", input=json.dumps(row) + "\n" + json.dumps(row) + "\n")
    assert (
        result.stdout.splitlines()
        == [
            '{"messages":[{"type":"human","content":"q"},{"type":"ai","content":"a",'
            '"additional_kwargs":{"weight":0}}],"tools":[{"type":"function","function":{"name":"f"}}],'
            '"parallel_tool_calls":false}'
        ]
        * 2
    )


def test_json_flag_prints_one_document():
    result = cli("convert", "--json", input='"a"\n"b"\n')
    assert result.stdout == '[{"type":"human","content":"a"},{"type":"human","content":"b"}]\n'


def test_group_by_splits_a_message_stream():
    data = (
        '{"session":"s1","role":"user","content":"a"}\n'
        '{"session":"s2","role":"user","content":"b"}\n'
        '{"session":"s1","role":"assistant","content":"c"}\n'
    )
    result = cli("convert", "--group-by", "session", input=data)
    assert result.stdout == (
        '{"messages":[{"type":"human","content":"a"},{"type":"ai","content":"c"}],"session":"s1"}\n'
        '{"messages":[{"type":"human","content":"b"}],"session":"s2"}\n'
    )


def test_bad_line_fails_with_one_located_line_and_keeps_what_came_before(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text('{"role":"user","content":"ok"}\n{"role": "user", "content": \n')
    result = cli("convert", str(path))
    assert result.exit_code == 1
    assert result.stdout == '{"type":"human","content":"ok"}\n'
    assert result.stderr == f"chatpipe: error: {path}:2:29: invalid JSON: unexpected end of data\n"


def test_bad_message_names_file_line_and_message(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text(
        '{"messages":[{"role":"user","content":"ok"},{"role":"function","content":"x"}]}\n'
    )
    result = cli("convert", str(path))
    assert result.exit_code == 1
    assert result.stderr == (
        f"chatpipe: error: {path}:1:1: message 2: a function message needs a name\n"
    )


def test_on_error_skip_keeps_good_records_and_reports(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text(
        '{"role":"user","content":"a"}\nnot json\n{"role":"user","content":"b"}\n'
        '{"role":"tool","content":"r","tool_call_id":{"x":1}}\n'
    )
    result = cli("convert", "--on-error", "skip", str(path))
    assert result.exit_code == 0
    assert result.stdout == '{"type":"human","content":"a"}\n{"type":"human","content":"b"}\n'
    assert result.stderr == (
        f"chatpipe: skipped: {path}:2:1: invalid JSON: invalid literal, expected 'null'\n"
        f"chatpipe: skipped: {path}:4:1: tool_call_id must be a string\n"
        "chatpipe: warning: skipped 2 bad records\n"
    )


def test_unknown_format_says_what_it_saw():
    result = cli("convert", input='{"foo": 1, "bar": 2}\n')
    assert result.exit_code == 1
    from chatpipe.formats.registry import readable

    assert result.stderr == (
        "chatpipe: error: <stdin>:1:1: cannot tell what chat format this is (top-level keys: "
        f"foo, bar; name it with --from ({', '.join(readable())}))\n"
    )
    assert "--from (openai, " in result.stderr


def test_usage_errors_exit_2():
    assert cli("convert", "--to", "chatgpt-export", input="").exit_code == 2
    result = cli("convert", "--from", "nope", input='"x"\n')
    assert result.exit_code == 2
    assert result.stderr.startswith("chatpipe: error: --from 'nope' is not a dialect (")


def test_output_file_is_atomic_and_never_an_input(tmp_path):
    out = tmp_path / "out.jsonl"
    assert cli("convert", "-o", str(out), TOOL_LOG).exit_code == 0
    assert out.read_text(encoding="utf-8") == cli("convert", TOOL_LOG).stdout
    bad = tmp_path / "bad.jsonl"
    bad.write_text('"a"\n{\n')
    failed = tmp_path / "failed.jsonl"
    assert cli("convert", "-o", str(failed), str(bad)).exit_code == 1
    assert not failed.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".chatpipe-")] == []
    same = cli("convert", "-o", str(bad), str(bad))
    assert same.exit_code == 2
    assert "is also an input file" in same.stderr
    assert bad.read_text() == '"a"\n{\n'


@pytest.mark.parametrize("lines", [1, 50_000])  # flushed at the end / while converting
def test_a_full_disk_is_one_error_line(tmp_path, lines):
    log = tmp_path / "log.jsonl"
    log.write_text('{"role":"user","content":"hi"}\n' * lines)
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "chatpipe", "convert", str(log)],
            stdout=full,
            stderr=subprocess.PIPE,
        )
    assert done.returncode == 1
    assert done.stderr == b"chatpipe: error: cannot write the output: No space left on device\n"


def test_an_output_file_that_cannot_be_written_is_one_error_line(tmp_path):
    missing = tmp_path / "no" / "out.jsonl"
    done = cli("convert", "-o", str(missing), TOOL_LOG)
    assert (done.exit_code, done.stderr) == (
        1,
        f"chatpipe: error: {missing}: cannot write: No such file or directory\n",
    )
    folder = tmp_path / "folder"
    folder.mkdir()
    done = cli("convert", "-o", str(folder), TOOL_LOG)
    assert (done.exit_code, done.stderr) == (
        2,
        f"chatpipe: error: -o {folder} is a directory, not a file\n",
    )
    assert list(folder.iterdir()) == []
    assert [p.name for p in tmp_path.iterdir()] == ["folder"]  # no temporary file left


def test_a_failed_rename_leaves_no_temporary_file(tmp_path, monkeypatch):
    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    out = tmp_path / "out.jsonl"
    done = cli("convert", "-o", str(out), TOOL_LOG)
    assert (done.exit_code, done.stderr) == (
        1,
        f"chatpipe: error: {out}: cannot write: Permission denied\n",
    )
    assert list(tmp_path.iterdir()) == []


def test_closed_pipe_is_quiet():
    script = "import chatpipe.cli as c; c.main()"
    lines = "".join(f'{{"role":"user","content":"{i}"}}\n' for i in range(200_000))
    proc = subprocess.run(
        f"{sys.executable} -c '{script}' convert | head -1",
        shell=True,
        input=lines.encode(),
        capture_output=True,
        env={**os.environ, "PYTHONPATH": "src"},
    )
    assert proc.stdout == b'{"type":"human","content":"0"}\n'
    assert proc.stderr == b""


def test_python_m_chatpipe_and_version():
    proc = subprocess.run(
        [sys.executable, "-m", "chatpipe", "--version"], capture_output=True, text=True
    )
    import tomllib

    with open(FIXTURES.parent / "pyproject.toml", "rb") as project:
        version = tomllib.load(project)["project"]["version"]
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"chatpipe {version}\n", "")


def test_every_command_teaches_itself():
    """A one-line summary and a worked example in every command's --help."""
    names = sorted(c.name for c in app.registered_commands)
    assert names == [
        "buffer",
        "convert",
        "count",
        "dedupe",
        "filter",
        "grep",
        "head",
        "merge",
        "openai",
        "redact",
        "sample",
        "select",
        "show",
        "split",
        "stats",
        "template",
        "tokenize",
        "trim",
        "validate",
    ]
    for name in names:
        result = runner.invoke(app, [name, "-h"], env={"COLUMNS": "120"})
        assert result.exit_code == 0, name
        text = result.stdout
        assert "Example" in text and f"chatpipe {name}" in text, name
        for flag in ("-v", "-q", "--help"):
            assert flag in text, (name, flag)


def test_version_and_root_help():
    assert runner.invoke(app, ["--version"]).stdout.startswith("chatpipe ")
    root = runner.invoke(app, ["--help"], env={"COLUMNS": "120"}).stdout
    for name in ("buffer", "convert", "trim", "show"):
        assert name in root


def test_limits_have_clear_errors_and_options_to_raise_them(tmp_path):
    big = tmp_path / "big.jsonl"
    big.write_text(
        '{"role":"user","content":"' + "x" * 500 + '"}\n{"role":"user","content":"ok"}\n'
    )
    result = runner.invoke(app, ["--max-record-bytes", "100", "convert", str(big)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"chatpipe: error: {big}:1:1: a record larger than 100 bytes "
        "(raise the limit with chatpipe --max-record-bytes N)\n"
    )
    skipped = runner.invoke(
        app, ["--max-record-bytes", "100", "convert", "--on-error", "skip", str(big)]
    )
    assert skipped.stdout == '{"type":"human","content":"ok"}\n'
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"role":"user","content":[' + '{"k":' * 300 + "1" + "}" * 300 + "]}\n")
    result = runner.invoke(app, ["convert", str(deep)])
    assert result.stderr == (
        f"chatpipe: error: {deep}:1:1: a record nested deeper than 200 levels "
        "(raise the limit with chatpipe --max-depth N)\n"
    )
    raised = runner.invoke(app, ["--max-depth", "400", "convert", str(deep)])
    assert raised.exit_code == 0 and raised.stdout.count('{"k":') == 300
    from chatpipe.io.limits import LIMITS

    LIMITS.depth, LIMITS.record_bytes = 200, 256 << 20  # the root options set them for the run


def test_deep_tool_arguments_become_invalid_calls_not_crashes():
    args = '{"k":' * 900 + "1" + "}" * 900
    line = json.dumps(
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": args}}
            ],
        }
    )
    result = runner.invoke(app, ["convert"], input=line + "\n")
    assert result.exit_code == 0
    assert (
        json.loads(result.stdout)["invalid_tool_calls"][0]["error"]
        == "arguments nest deeper than 200 levels"
    )


def test_progress_bar_on_a_terminal_polls_the_bytes_read(monkeypatch, tmp_path):
    import time

    import rich.progress

    import chatpipe.cli.diagnostics as diagnostics
    import chatpipe.cli.report as report
    import chatpipe.cli.runtime as runtime
    from chatpipe.cli.command import ReadingOptions

    monkeypatch.setattr(report, "_PROGRESS_FROM", 1)
    monkeypatch.setattr(report.sys.stderr, "isatty", lambda: True, raising=False)
    seen: list[float] = []
    update = rich.progress.Progress.update

    def recorded(self, task, **fields):
        if "completed" in fields:
            seen.append(fields["completed"])
        return update(self, task, **fields)

    monkeypatch.setattr(rich.progress.Progress, "update", recorded)
    path = tmp_path / "log.jsonl"
    path.write_bytes((FIXTURES / "agent_session.jsonl").read_bytes() * 40)
    inputs = runtime.Conversations(ReadingOptions([str(path)]))
    count = conversations = 0
    for conversation in inputs:  # the bar lives while the conversations are read
        conversations += 1
        for _ in conversation.messages:  # read slowly: the poller runs every 0.2 s
            count += 1
            if count % 260 == 0:
                time.sleep(0.25)
    assert (conversations, count) == (1, 26 * 40)
    assert seen and all(0 <= done <= path.stat().st_size for done in seen)
    assert seen == sorted(seen)
    seen.clear()
    monkeypatch.setattr(diagnostics, "quiet", True)  # -q: no bar at all
    assert len(list(runtime.Conversations(ReadingOptions([TOOL_LOG])))) == 1
    assert seen == []


def test_sharegpt_to_openai_fine_tuning_rows():
    path = FIXTURES / "sharegpt__llamafactory_glaive_toolcall_first12.json"
    rows = [
        json.loads(line)
        for line in runner.invoke(app, ["convert", "--to", "openai", str(path)]).stdout.splitlines()
    ]
    assert len(rows) == 12
    assert all(list(row)[:2] == ["messages", "tools"] for row in rows)
    # the first row, whole, from the fixture's own texts: the call's arguments as JSON text,
    # the observation as the tool result, the tools as OpenAI function tools
    [first, *_] = json.loads(path.read_text(encoding="utf-8"))
    turns = [turn["value"] for turn in first["conversations"]]
    assert [turn["from"] for turn in first["conversations"]] == (
        ["human", "gpt", "human", "function_call", "observation", "gpt", "human", "gpt"]
    )
    call = json.loads(turns[3])
    assert call["name"] == "search_recipes"
    assert rows[0] == {
        "messages": [
            {"role": "user", "content": turns[0]},
            {"role": "assistant", "content": turns[1]},
            {"role": "user", "content": turns[2]},
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "type": "function",
                        "id": "call_3_0",
                        "function": {
                            "name": "search_recipes",
                            "arguments": json.dumps(call["arguments"]),
                        },
                    }
                ],
                "content": "",
            },
            {"role": "tool", "tool_call_id": "call_3_0", "content": turns[4]},
            {"role": "assistant", "content": turns[5]},
            {"role": "user", "content": turns[6]},
            {"role": "assistant", "content": turns[7]},
        ],
        "tools": [{"type": "function", "function": tool} for tool in json.loads(first["tools"])],
    }
    assert turns[4].startswith('{"recipes": [{"name": "Chicken and Bell Pepper Stir Fry"')


@pytest.mark.parametrize("entry", ["-m chatpipe", "-c from chatpipe.entry import main; main()"])
def test_ctrl_c_while_starting_is_one_line(tmp_path, entry):
    # Ctrl-C during the imports, made certain: a typer module that is interrupted
    (tmp_path / "typer.py").write_text("raise KeyboardInterrupt\n")
    option, code = entry.split(" ", 1)
    done = subprocess.run(
        [sys.executable, option, code, "buffer", TOOL_LOG],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert (done.returncode, done.stderr) == (130, b"chatpipe: interrupted\n")


def _wait_reading_stdin(pid: int) -> None:
    """Until the process is blocked in read(0, ...): a signal sent during start-up (a
    loaded machine can take a second to start) lands in the interpreter's imports, not
    in chatpipe."""
    import time

    wchan = f"/proc/{pid}/wchan"  # where in the kernel it waits (Linux)
    if not os.path.exists(wchan):  # elsewhere: give it time
        time.sleep(1.0)
        return
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with open(wchan) as state:
            if "pipe" in state.read():  # its only pipe is stdin
                return
        time.sleep(0.01)
    raise AssertionError("chatpipe never blocked reading stdin")


def test_ctrl_c_exits_130_without_a_traceback():
    import signal

    proc = subprocess.Popen(
        [sys.executable, "-m", "chatpipe", "convert"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=unmeasured(),
        # as in a terminal: a suite run in the background (`pytest &`) ignores SIGINT, and
        # a child inherits that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    proc.stdin.write(b'{"role":"user","content":"waiting for more"}\n')
    proc.stdin.flush()
    _wait_reading_stdin(proc.pid)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=20)
    assert proc.returncode == 130, stderr
    assert stderr == b"chatpipe: interrupted\n"


def _on_a_terminal(*argv: str) -> bytes:
    """What chatpipe prints with its stdout on a pseudo-terminal."""
    import pty

    master, slave = pty.openpty()
    environ = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100"}
    environ.pop("NO_COLOR", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "chatpipe", *argv], stdout=slave, stderr=subprocess.PIPE, env=environ
    )
    os.close(slave)
    out = _read_terminal(master)
    assert proc.wait(timeout=30) == 0, proc.stderr.read()
    return out


def _read_terminal(master: int) -> bytes:
    """All a pseudo-terminal shows until its process is done; its end closed after."""
    shown = b""
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:  # the terminal closed: the process is done
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    return shown


def test_colour_only_on_a_terminal():
    path = str(FIXTURES / "openai_tool_calls.jsonl")
    result = runner.invoke(app, ["stats", "--table", path], env={"COLUMNS": "100"})
    assert result.stdout.startswith("1 conversation ") and "\x1b[" not in result.stdout
    on_a_terminal = _on_a_terminal("stats", path)
    assert b"\x1b[3m1 conversation " in on_a_terminal  # the title, in italics
    assert b"min \x1b[1;36m8\x1b[0m" in on_a_terminal  # numbers highlighted, bold cyan


def test_the_bar_of_parts_runs_no_thread_so_jobs_forks(monkeypatch):
    """On a terminal, --jobs shows a bar of parts; a bar redrawn by a thread of its own made
    every --jobs run on a terminal fall back to one process (forking a process with other
    threads is refused). The bar is redrawn from the main thread, as parts finish."""
    import io
    import threading

    from chatpipe.cli import report

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stderr", Terminal())
    monkeypatch.setattr(report.diagnostics, "quiet", False)
    before = threading.active_count()
    with report.parts_progress() as done:
        assert done is not None
        for number in range(1, 4):
            done(number, 3)
            assert threading.active_count() == before
    assert "3/3" in sys.stderr.getvalue()


def test_jobs_on_a_terminal_runs_in_workers(tmp_path):
    import pty

    rows = tmp_path / "rows.jsonl"
    line = json.dumps({"messages": [{"role": "user", "content": "x" * 200}]})
    rows.write_text((line + "\n") * 30000)
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "chatpipe",
            "count",
            "--jobs",
            "2",
            "-o",
            str(tmp_path / "n"),
            str(rows),
        ],
        stderr=slave,
        env={**os.environ, "TERM": "xterm-256color"},
    )
    os.close(slave)
    shown = _read_terminal(master)
    assert proc.wait(timeout=60) == 0, shown
    assert b"one process" not in shown and b"threads" not in shown, shown
    import re

    assert re.search(rb"(?<!\d)(\d+)/\1(?!\d)", shown), shown  # the bar drawn to its end: N/N parts
    alone = subprocess.run(
        [sys.executable, "-m", "chatpipe", "count", str(rows)], capture_output=True, check=True
    )
    assert (tmp_path / "n").read_bytes() == alone.stdout and alone.stdout.count(b"\n") == 30000


EMPTY_STATS = (
    '{"overall":{"conversations":0,"messages":0,"tool_calls":0,"images":0,"audio":0,'
    '"video":0,"files":0,"characters":0,"tokens":0,"by_type":{},'
    '"length":{"min":0,"median":0,"max":0},"spread":{'
    '"tokens":{"min":0,"p10":0,"median":0,"p90":0,"max":0,"mean":0},'
    '"messages":{"min":0,"p10":0,"median":0,"p90":0,"max":0,"mean":0}}}}\n'
)


@pytest.mark.parametrize(
    ("command", "stdout"),
    [
        (["convert"], ""),
        (["buffer"], ""),
        (["openai"], ""),
        (["count"], ""),
        (["stats"], EMPTY_STATS),  # the figures of no conversation
        (["trim", "--max-tokens", "9"], ""),
    ],
    ids=" ".join,
)
def test_empty_input_is_an_empty_result(command, stdout):
    """An empty result, and said: an empty input left an empty -o file and said nothing."""
    said = "chatpipe: warning: no conversations read from <stdin>\n"
    result = runner.invoke(app, command, input="")
    assert (result.exit_code, result.stdout, result.stderr) == (0, stdout, said)
    blank = runner.invoke(app, command, input="\n\n  \n")
    assert (blank.exit_code, blank.stdout, blank.stderr) == (0, stdout, said)


# every command that reads conversations, with what it needs besides its input
READERS = [
    ["convert"],
    ["convert", "--to", "html"],
    ["buffer"],
    ["openai"],
    ["trim", "--max-tokens", "9"],
    ["count"],
    ["filter", "--include-types", "human"],
    ["merge"],
    ["stats"],
    ["select", "--ids"],
    ["head"],
    ["sample", "-n", "2"],
    ["dedupe"],
    ["redact"],
    ["show"],
    ["template", "--chat-template", str(FIXTURES / "chat_templates" / "Qwen-Qwen3-0.6B.jinja")],
]


@pytest.mark.parametrize("command", READERS, ids=" ".join)
def test_an_empty_file_is_said_and_a_full_one_not(command, tmp_path):
    """'no conversations read' on stderr for an empty input, exit 0 (#51); never for an
    input that has some, read in one process or in parts."""
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    done = runner.invoke(app, [*command, str(empty)])
    assert done.exit_code == 0
    assert f"chatpipe: warning: no conversations read from {empty}" in done.stderr.splitlines()
    some = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
    # (two files: two parts at least, on two workers, put together)
    for more in (["--jobs", "2", str(some)], []) if command[0] != "show" else ([],):
        full = runner.invoke(app, [*command, *more, str(some)])
        assert full.exit_code == 0 and "no conversations" not in full.stderr, full.stderr


def test_shell_completion_is_offered():
    assert "--install-completion" in runner.invoke(app, ["--help"], env={"COLUMNS": "120"}).stdout


def test_jobs_gives_the_serial_output_in_order(tmp_path):
    rows = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
    big = tmp_path / "rows.jsonl"
    big.write_bytes(rows.read_bytes() * 40)
    serial = runner.invoke(app, ["convert", str(big)]).stdout
    parallel = runner.invoke(app, ["convert", "--jobs", "2", str(big)])
    assert parallel.exit_code == 0
    assert parallel.stdout == serial
    to_sharegpt = runner.invoke(app, ["convert", "--jobs", "2", "--to", "sharegpt", str(big)])
    assert (
        to_sharegpt.stdout == runner.invoke(app, ["convert", "--to", "sharegpt", str(big)]).stdout
    )


def test_jobs_writes_to_a_pipe_and_to_a_file(tmp_path):
    """In a real process the output is a file descriptor written from shared memory."""
    rows = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
    big = tmp_path / "rows.jsonl"
    big.write_bytes(rows.read_bytes() * 200)
    serial = runner.invoke(app, ["convert", str(big)]).stdout.encode()
    command = [sys.executable, "-m", "chatpipe", "convert", "--jobs", "2", str(big)]
    piped = subprocess.run(command, capture_output=True, check=True)
    assert piped.stdout == serial
    subprocess.run([*command, "-o", str(tmp_path / "out.jsonl")], check=True)
    assert (tmp_path / "out.jsonl").read_bytes() == serial


def test_jobs_reports_bad_lines_with_their_place(tmp_path):
    path = tmp_path / "rows.jsonl"
    good = '{"messages":[{"role":"user","content":"a"}]}\n'
    path.write_text(good * 30 + "not json\n" + good * 30)
    result = runner.invoke(app, ["convert", "--jobs", "2", "--on-error", "skip", str(path)])
    assert result.exit_code == 0
    assert len(result.stdout.splitlines()) == 60
    assert result.stderr.splitlines()[0] == (
        f"chatpipe: skipped: {path}:31:1: invalid JSON: invalid literal, expected 'null'"
    )
    failed = runner.invoke(app, ["convert", "--jobs", "2", str(path)])
    assert failed.exit_code == 1 and failed.stderr.startswith(f"chatpipe: error: {path}:31:")
    # the lines before the bad one are written, as one process writes them
    serial = runner.invoke(app, ["convert", str(path)]).stdout
    assert failed.stdout == serial and len(serial.splitlines()) == 30


def test_jobs_reports_a_bad_message_as_one_process_does(tmp_path):
    """The message index and hint of an error survive the trip from a worker."""
    path = tmp_path / "rows.jsonl"
    good = {"messages": [{"role": "user", "content": "a"}]}
    bad = {"messages": [{"role": "user", "content": "a"}, {"role": 5, "content": "b"}]}
    path.write_text("".join(json.dumps(row) + "\n" for row in [good] * 30 + [bad] + [good] * 30))
    for mode in ("skip", "fail"):
        serial = runner.invoke(app, ["convert", "--on-error", mode, str(path)])
        parallel = runner.invoke(app, ["convert", "--jobs", "2", "--on-error", mode, str(path)])
        assert (parallel.exit_code, parallel.stdout, parallel.stderr) == (
            serial.exit_code,
            serial.stdout,
            serial.stderr,
        )
    assert f"{path}:31:1: message 2: a message role must be a string" in serial.stderr


def test_jobs_workers_take_ranges_as_they_get_free_and_give_them_back_in_order():
    import time

    from chatpipe.pipeline import workers as parallel

    def work(span):
        time.sleep(0.03 if span[0] % 7 == 0 else 0)  # later ranges finish first
        return b"%d;" % span[0] * span[0], [span[1], None]

    ranges = [(k, k + 1) for k in range(40)]
    with parallel._Workers(work, ranges, 3) as results:
        # more ranges than a worker has slots: slots are handed back once taken
        assert [(bytes(data), result) for data, result in results] == [
            (b"%d;" % k * k, [k + 1, None]) for k in range(40)
        ]


def test_jobs_output_larger_than_a_slot_is_piped(monkeypatch):
    from chatpipe.pipeline import workers as parallel

    monkeypatch.setattr(parallel, "_SLOT", 100)
    sizes = [10, 250, 100, 101, 0, 7]
    ranges = [(k, k + 1) for k in range(len(sizes))]
    with parallel._Workers(
        lambda span: (bytes([65 + span[0]]) * sizes[span[0]], 0), ranges, 2
    ) as results:
        assert [bytes(data) for data, _ in results] == [
            bytes([65 + k]) * n for k, n in enumerate(sizes)
        ]


def test_jobs_worker_failure_reaches_the_main_process():
    from chatpipe.pipeline.workers import _Workers

    def work(span):
        if span[0] == 5:
            raise RecursionError("too deep")
        return b"", span[0]

    with (
        pytest.raises(RecursionError, match="too deep"),
        _Workers(work, [(k, k + 1) for k in range(10)], 2) as results,
    ):
        assert [result for _, result in (next(results) for _ in range(5))] == list(range(5))
        next(results)


def test_jobs_on_a_message_stream_falls_back_to_one_process(tmp_path, monkeypatch):
    """A small message log is one part: one process reads it, as without --jobs; a large
    one that its command cannot cut is read whole, and the run says why."""
    pids = _noting_workers(tmp_path, monkeypatch)
    result = runner.invoke(app, ["convert", "--jobs", "2", TOOL_LOG])
    serial = runner.invoke(app, ["convert", TOOL_LOG])
    assert (result.stdout, result.stderr) == (serial.stdout, serial.stderr)
    assert not pids.exists()
    big = tmp_path / "log.jsonl"
    big.write_bytes(Path(TOOL_LOG).read_bytes() * 1500)
    assert big.stat().st_size > 1 << 20
    trimmed = runner.invoke(app, ["trim", "--max-tokens", "99", "--jobs", "2", str(big)])
    assert trimmed.stdout == runner.invoke(app, ["trim", "--max-tokens", "99", str(big)]).stdout
    assert trimmed.stderr == (
        f"chatpipe: --jobs 2: {big} is read whole (conversation-per-line JSONL and Parquet "
        "files are cut into parts, and one message log written message "
        "by message); running in one process\n"
    )


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_jobs_reads_a_file_with_a_byte_order_mark_as_one_process_does(tmp_path, encoding):
    """Cut into ranges of bytes, a file keeps its byte order mark out of its first line
    (UTF-8), or is read whole (UTF-16, whose lines are not found in its bytes); one
    output or a shard a file (--output-dir)."""
    line = (
        '{"messages":[{"role":"user","content":"question %d"},{"role":"assistant","content":"é"}]}'
    )
    path = tmp_path / "rows.jsonl"
    path.write_bytes("".join(line % k + "\n" for k in range(25000)).encode(encoding))
    assert path.stat().st_size > 2 << 20
    one = cli("convert", str(path))
    assert one.exit_code == 0, one.stderr
    assert one.stdout.count("\n") == 25000
    two = cli("convert", "--jobs", "2", str(path))
    assert (two.exit_code, two.stdout) == (0, one.stdout), two.stderr
    for jobs in ("1", "2"):
        out = tmp_path / f"out-{jobs}"
        done = cli("convert", "--jobs", jobs, "--output-dir", str(out), str(path))
        assert done.exit_code == 0, done.stderr
        assert (out / "rows.jsonl").read_text() == one.stdout


def test_jobs_without_fork_converts_in_one_process(monkeypatch, tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"messages":[{"role":"user","content":"a"}]}\n' * 3)
    monkeypatch.delattr(os, "fork")
    result = runner.invoke(app, ["convert", "--jobs", "2", str(rows)])
    assert result.exit_code == 0
    assert result.stdout == runner.invoke(app, ["convert", str(rows)]).stdout
    assert "needs a system that can fork" in result.stderr


def test_a_real_process_flushes_its_output_and_keeps_its_exit_code(tmp_path):
    """``main`` ends the process without Python's teardown: output and codes are kept."""
    command = [sys.executable, "-m", "chatpipe"]
    done = subprocess.run([*command, "buffer", TOOL_LOG], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, cli("buffer", TOOL_LOG).stdout)
    bad = subprocess.run([*command, "buffer"], input="{bad\n", capture_output=True, text=True)
    assert bad.returncode == 1 and bad.stderr.startswith("chatpipe: error: <stdin>:1:")
    usage = subprocess.run([*command, "buffer", "--format", "nope", TOOL_LOG], capture_output=True)
    assert usage.returncode == 2
    # what is still in stdout's buffer at the end is written before the process ends
    script = (
        "import sys, chatpipe.cli as c; sys.stdout.write('kept');"
        f" sys.argv = ['chatpipe', 'buffer', '--format', 'nope', {TOOL_LOG!r}]; c.main()"
    )
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    held = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=buffered
    )
    assert (held.returncode, held.stdout) == (2, "kept")


def test_a_failed_conversion_says_one_thing_its_error():
    """Losses are reported after a run that ends well, not before a fatal error."""
    data = '{"role": "critic", "content": "a"}\nnull\n'
    failed = runner.invoke(app, ["convert", "--to", "anthropic", "-"], input=data)
    assert failed.exit_code == 1
    assert failed.stderr == "chatpipe: error: <stdin>:2:1: not a openai message (got null)\n"
    kept = runner.invoke(app, ["convert", "--to", "anthropic", "-"], input=data.split("\n")[0])
    assert kept.exit_code == 0 and "anthropic cannot hold chat and function roles" in kept.stderr


def test_a_stream_dialect_forced_on_a_file_of_other_records_is_an_error():
    """#18: --from openai-stream on a chat log printed nothing and exited 0. (gemini-stream
    still reads any record as a chunk: an empty AI message; left for #18.)"""
    for dialect in ("openai-stream", "anthropic-stream", "openai-responses-stream"):
        result = cli("convert", "--from", dialect, TOOL_LOG)
        assert result.exit_code == 1 and result.stdout == ""
        assert result.stderr == (
            f"chatpipe: error: {TOOL_LOG}:1:1: no {dialect} events here: nothing to read "
            "(leave --from out to detect the dialect)\n"
        )


def test_trim_to_a_document_dialect_writes_the_document():
    # the operation commands write what convert --to writes: Markdown is a document,
    # not JSON records holding Markdown strings
    path = str(FIXTURES / "agent_session.jsonl")
    result = cli("trim", "--max-tokens", "300", "--to", "markdown", path)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("# ")
    assert not result.stdout.lstrip().startswith("{")
    trimmed = cli("trim", "--max-tokens", "300", path).stdout
    expected = runner.invoke(app, ["convert", "--to", "markdown"], input=trimmed).stdout
    assert result.stdout == expected


def test_trim_to_a_dialect_says_what_it_cannot_hold_as_convert_does():
    rows = FIXTURES / "hf_messages__llamafactory_v1_reason_tool_use_first8.jsonl"
    result = cli("trim", "--max-tokens", "800", "--to", "sharegpt", str(rows))
    assert result.exit_code == 0, result.stderr
    assert "warning: sharegpt cannot hold tool call ids" in result.stderr
    assert "cannot hold" not in cli("trim", "--max-tokens", "800", str(rows)).stderr


def test_a_template_that_cannot_take_a_block_names_the_conversation():
    template = str(FIXTURES / "chat_templates" / "Qwen-Qwen2.5-7B-Instruct.jinja")
    path = FIXTURES / "gemini__pydanticai_req_file_data_youtube.json"
    result = cli("template", "--chat-template", template, str(path))
    assert result.exit_code == 1
    assert result.stderr == (
        f"chatpipe: error: {path}:1:1: Block of type video is not supported.\n"
    )


@pytest.mark.parametrize(
    "command",
    [
        ["trim", "--max-tokens", "800", "--to", "sharegpt"],
        ["filter", "--exclude-types", "system"],
        ["merge"],
        ["openai", "--text-format", "block"],
        ["count", "--json"],
    ],
)
def test_every_data_command_gives_one_process_output_with_jobs(tmp_path, command):
    rows = []
    for name in (
        "hf_messages__llamafactory_v1_reason_tool_use_first8.jsonl",
        "openai_chat__cookbook_toy_chat_fine_tuning.jsonl",
    ):
        rows += cli("convert", "--to", "openai", str(FIXTURES / name)).stdout.splitlines()
    rows = rows * 100
    rows.insert(700, '{"messages": [{"role": "user", "content": 1.5e999999}]}')
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(rows) + "\n")
    one = cli(*command, "--on-error", "skip", str(path))
    many = cli(*command, "--on-error", "skip", "--jobs", "2", str(path))
    assert one.exit_code == many.exit_code == 0, many.stderr
    assert len(one.stdout.splitlines()) == 1300
    assert many.stdout == one.stdout
    assert many.stderr == one.stderr
    assert f"{path}:701:" in one.stderr and "one process" not in many.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["stats"],
        ["stats", "--max-tokens", "300", "--table", "-o", "{out}"],
        ["validate"],
        ["validate", "--json", "--rules", "openai-finetune", "--max-tokens", "200"],
    ],
)
def test_stats_and_validate_give_one_process_output_with_jobs(tmp_path, command):
    big = FIXTURES / "hf_messages__llamafactory_v1_reason_tool_use_first8.jsonl"
    rows = cli("convert", "--to", "openai", str(big)).stdout.splitlines()
    rows = rows * 400
    rows.insert(700, '{"messages": [{"role": "user", "content": 1.5e999999}]}')
    rows.insert(2500, '{"messages": [{"role": "tool", "content": "r"}]}')
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(rows) + "\n")
    assert path.stat().st_size > 3 << 20  # parts for both workers, several each
    outputs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}.txt"
        argv = [arg.replace("{out}", str(out)) for arg in command]
        skip = ["--on-error", "skip"] if command[0] == "stats" else []  # validate never stops
        result = cli(*argv, *skip, "--jobs", jobs, str(path))
        written = out.read_text(encoding="utf-8") if out.exists() else result.stdout
        outputs.append((result.exit_code, written, result.stderr))
    assert outputs[1] == outputs[0]
    code, written, stderr = outputs[0]
    if command[0] == "validate":
        for line in (701, 2501):  # as text, or as JSON
            assert f"{path}:{line}:" in written or f'"line":{line},' in written
        assert code == 1
    else:
        assert code == 0 and f"{path}:701:" in stderr and len(written.splitlines()) > 10
    assert "one process" not in stderr


QWEN = str(FIXTURES / "chat_templates" / "Qwen-Qwen2.5-7B-Instruct.jinja")


@pytest.mark.parametrize(
    "command",
    [
        ["buffer"],
        ["buffer", "--format", "xml"],
        ["buffer", "--separator", "\\n---\\n"],
        ["buffer", "-0"],
        ["template", "--chat-template", QWEN],
    ],
    ids=" ".join,
)
def test_texts_give_one_process_output_with_jobs(tmp_path, command):
    """buffer and template on parts: the same texts, separators, errors, and the one
    turn-label warning of the run, found in a later part than the first."""
    big = FIXTURES / "hf_messages__llamafactory_v1_reason_tool_use_first8.jsonl"
    rows = cli("convert", "--to", "openai", str(big)).stdout.splitlines() * 400
    rows.insert(700, '{"messages": [{"role": "user", "content": 1.5e999999}]}')
    for at in range(3000, 1000, -250):  # in every part after the first: each worker finds one
        turn = {"messages": [{"role": "user", "content": f"hi\nHuman: turn {at}"}]}
        rows.insert(at, json.dumps(turn))
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(rows) + "\n")
    assert path.stat().st_size > 3 << 20
    one = cli(*command, "--on-error", "skip", str(path))
    many = cli(*command, "--on-error", "skip", "--jobs", "2", str(path))
    assert (many.exit_code, many.stdout, many.stderr) == (one.exit_code, one.stdout, one.stderr)
    assert one.exit_code == 0 and len(one.stdout) > 1 << 20
    assert f"{path}:701:" in one.stderr and "one process" not in many.stderr
    if command == ["buffer"]:
        assert one.stderr.count("reads as a new turn") == 1
        assert "message 1 has a line starting 'Human: '" in one.stderr


def _noting_workers(tmp_path, monkeypatch):
    """A file that every process running a part of a job writes its pid into."""
    from chatpipe.pipeline import assemble

    return noting_pids(monkeypatch, assemble, "run_part", tmp_path / "pids")


def test_jobs_with_output_dir_runs_the_parts_on_workers(tmp_path, monkeypatch):
    """--output-dir with --jobs 2: every file's shard, the errors and their places as one
    process writes them, the parts worked on by forked workers (not this process)."""
    rows = cli("convert", "--to", "openai", str(FIXTURES / "agent_session.jsonl")).stdout
    inputs = []
    for k in range(5):
        path = tmp_path / f"in-{k}.jsonl"
        lines = (rows * (k + 1)).splitlines()
        if k == 3:
            lines.insert(1, '{"messages": [{"role": "user", "content": 1.5e999999}]}')
        path.write_text("\n".join(lines) + "\n")
        inputs.append(str(path))
    inputs.append(TOOL_LOG)  # a message-per-line log: one conversation, a file
    pids = _noting_workers(tmp_path, monkeypatch)
    command = ["trim", "--max-tokens", "300", "--on-error", "skip"]
    one = cli(*command, "--output-dir", str(tmp_path / "one"), *inputs)
    assert set(pids.read_text().split()) == {str(os.getpid())}
    pids.unlink()
    many = cli(*command, "--jobs", "2", "--output-dir", str(tmp_path / "many"), *inputs)
    assert (many.exit_code, many.stdout, many.stderr) == (one.exit_code, one.stdout, one.stderr)
    workers = set(pids.read_text().split())
    assert workers and len(workers) <= 2 and str(os.getpid()) not in workers  # forked ones
    assert f"{inputs[3]}:2:" in one.stderr
    written = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert written == sorted(p.name for p in (tmp_path / "many").iterdir())
    assert len(written) == 6
    for name in written:
        assert (tmp_path / "many" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()
        assert (tmp_path / "one" / name).stat().st_size > 0
    alone = cli("convert", "--jobs", "2", "--output-dir", str(tmp_path / "alone"), inputs[0])
    assert alone.exit_code == 0
    assert alone.stderr == ""  # one part: one process, as without --jobs


@pytest.mark.parametrize(
    "command",
    [
        ["buffer"],
        ["buffer", "--format", "xml"],
        ["buffer", "--separator", "\\n---\\n"],
        ["buffer", "-0"],
        ["template", "--chat-template", QWEN],
        ["openai"],
        ["convert"],
        ["convert", "--to", "sharegpt"],
        ["filter", "--exclude-types", "system"],
        ["trim", "--max-tokens", "300"],
        ["count", "--json"],
        ["stats", "--json"],
    ],
    ids=" ".join,
)
def test_jobs_on_several_message_logs_works_a_file_a_worker(tmp_path, monkeypatch, command):
    """Message-per-line logs, a conversation each: the files on forked workers, the
    output, errors and the turn-label warning (said once, for the first file that has
    it) those of one process."""
    logs = []
    lines = (FIXTURES / "agent_session.jsonl").read_text().splitlines()
    for k in range(6):
        body = list(lines)
        if k == 2:
            body.insert(3, '{"role": "user", "content": "cut')  # a bad line: skipped
        if k in (3, 5):
            body.insert(1, json.dumps({"role": "user", "content": f"a\nHuman: {k}"}))
        path = tmp_path / f"session-{k}.jsonl"
        path.write_text("\n".join(body * (k + 1)) + "\n")
        logs.append(str(path))
    pids = _noting_workers(tmp_path, monkeypatch)
    one = cli(*command, "--on-error", "skip", *logs)
    assert not pids.exists()  # one process reads the files in turn
    many = cli(*command, "--on-error", "skip", "--jobs", "2", *logs)
    assert (many.exit_code, many.stdout, many.stderr) == (one.exit_code, one.stdout, one.stderr)
    workers = set(pids.read_text().split())
    assert workers and len(workers) <= 2 and str(os.getpid()) not in workers  # forked ones
    assert one.exit_code == 0 and f"{logs[2]}:4:" in one.stderr
    assert "one process" not in many.stderr
    if command == ["buffer"]:
        assert one.stderr.count("reads as a new turn") == 1 and f"{logs[3]}:" in one.stderr
    stopped, failed = cli(*command, *logs), cli(*command, "--jobs", "2", *logs)
    assert (failed.exit_code, failed.stdout, failed.stderr) == (
        stopped.exit_code,
        stopped.stdout,
        stopped.stderr,
    )
    assert stopped.exit_code != 0 and f"{logs[2]}:4:" in stopped.stderr


MIXED = [
    "chatgpt_export__mitkury_handmade_user_edit_branch.json",
    "sharegpt__axolotl_missing_turns_empty_value.json",
    "agent_session.jsonl",
    "anthropic_messages__vercel_stream_tool_use_input_json_delta.jsonl",
    "gemini__pydanticai_req_function_call_response.yaml",
    "openai_chat__cookbook_toy_chat_fine_tuning.jsonl",
]


@pytest.mark.parametrize(
    "command",
    [
        ["convert"],
        ["openai"],
        ["buffer", "--format", "xml"],
        ["trim", "--max-tokens", "200"],
        ["filter", "--exclude-types", "system"],
        ["count", "--json"],
        ["stats", "--json"],
    ],
    ids=" ".join,
)
def test_jobs_on_inputs_of_several_kinds_runs_their_parts(tmp_path, monkeypatch, command):
    """Exports, JSON documents, a message log, a captured stream, YAML, rows and a
    Parquet file of several row groups, together: the parts (files whole, row groups,
    line ranges) on forked workers, output and messages those of one process."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    texts = [
        value["content"]
        for value in map(json.loads, (FIXTURES / "agent_session.jsonl").read_text().splitlines())
        if isinstance(value.get("content"), str)
    ]
    turns = [
        [{"role": role, "content": f"{k}: {texts[(k + i) % len(texts)]}"} for i, role in roles]
        for k in range(1500)
        for roles in [list(enumerate(["system", "user", "assistant", "user", "assistant"]))]
    ]
    table = pa.table({"messages": turns})
    parquet = tmp_path / "train.parquet"
    pq.write_table(table, parquet, row_group_size=100)
    inputs = [str(FIXTURES / name) for name in MIXED[:3]] + [str(parquet)]
    inputs += [str(FIXTURES / name) for name in MIXED[3:]]
    pids = _noting_workers(tmp_path, monkeypatch)
    one = cli(*command, *inputs)
    many = cli(*command, "--jobs", "2", *inputs)
    assert (many.exit_code, many.stdout, many.stderr) == (one.exit_code, one.stdout, one.stderr)
    assert one.exit_code == 0 and len(one.stdout) > 10_000
    workers = pids.read_text().split()
    assert len(workers) > len(inputs)  # the Parquet file in parts of its row groups
    assert str(os.getpid()) not in workers and len(set(workers)) <= 2


def test_jobs_writes_the_dialect_of_the_first_input_as_one_process_does(tmp_path):
    """filter writes the input's dialect: one process settles it at its first
    conversation (OpenAI rows here), and the workers on the ShareGPT file write it too."""
    openai_rows, sharegpt_rows = tmp_path / "openai.jsonl", tmp_path / "sharegpt.jsonl"
    openai_rows.write_text(
        "".join(
            json.dumps(
                {
                    "messages": [
                        {"role": "system", "content": "s"},
                        {"role": "user", "content": f"q{i}"},
                    ]
                }
            )
            + "\n"
            for i in range(20000)
        )
    )
    sharegpt_rows.write_text(
        "".join(
            json.dumps({"conversations": [{"from": "human", "value": f"q{i}"}]}) + "\n"
            for i in range(20000)
        )
    )
    assert sharegpt_rows.stat().st_size > 1 << 20  # ranges for both workers
    command = ["filter", "--exclude-types", "system", str(openai_rows), str(sharegpt_rows)]
    one, many = cli(*command), cli(*command, "--jobs", "2")
    assert (many.exit_code, many.stdout, many.stderr) == (one.exit_code, one.stdout, one.stderr)
    last = json.loads(one.stdout.splitlines()[-1])
    assert last == {"messages": [{"role": "user", "content": "q19999"}]}


def test_jobs_says_the_newest_branches_written_as_one_process_does(tmp_path):
    """Exports whose trees name no current leaf, as conversation-per-line JSONL: the
    workers count the newest branches they write, and the run says the total once."""
    export = FIXTURES / "claude_export__documented_retried_answer_no_current_leaf.json"
    items = json.loads(export.read_text())
    items = items if isinstance(items, list) else [items]
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in items * 3000))
    one, many = cli("convert", str(path)), cli("convert", "--jobs", "2", str(path))
    assert (many.exit_code, many.stdout, many.stderr) == (one.exit_code, one.stdout, one.stderr)
    taken = 3000 * len(items)
    assert one.stderr.startswith(f"chatpipe: {taken} conversations branch and name no current")
    assert "one process" not in many.stderr


def test_jobs_with_verbose_runs_one_process_and_says_so(tmp_path):
    rows = [json.dumps({"messages": [{"role": "user", "content": f"hi {i}"}]}) for i in range(9)]
    rows.insert(5, json.dumps({"messages": [], "title": "empty one"}))
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(rows) + "\n")
    one, many = cli("convert", "-v", str(path)), cli("convert", "-v", "--jobs", "2", str(path))
    assert many.stdout == one.stdout
    said = "chatpipe: --jobs 2 with -v: -v notes each conversation as one process reads it"
    assert many.stderr.startswith(said) and many.stderr.endswith(one.stderr)
    assert f"{path}:6:1: conversation 'empty one' has no messages" in one.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("to_format", ["jsonl", "parquet"])
def test_output_dir_puts_a_large_file_together_from_its_parts(tmp_path, jobs, to_format):
    """A file of several parts (about a megabyte each) is one shard, put together in
    order: the bytes -o writes (Parquet: the rows), a bad line skipped in its place."""
    rows = cli("convert", "--to", "openai", str(FIXTURES / "agent_session.jsonl")).stdout
    row = json.dumps({"messages": [json.loads(line) for line in rows.splitlines()]})
    lines = [row.replace("test_line_3", f"test_line_{k}") for k in range(400)]
    lines.insert(250, '{"messages": [')
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert path.stat().st_size > 3 << 20
    command = ["trim", "--max-tokens", "900", "--on-error", "skip", "--to-format", to_format]
    whole = tmp_path / f"whole.{to_format}"
    one = cli(*command, "-o", str(whole), str(path))
    shards = cli(*command, "--jobs", jobs, "--output-dir", str(tmp_path / "out"), str(path))
    assert (shards.exit_code, shards.stderr) == (one.exit_code, one.stderr) == (0, one.stderr)
    assert f"{path}:251:" in one.stderr
    [shard] = (tmp_path / "out").iterdir()
    assert shard.name == f"big.{to_format}"
    if to_format == "jsonl":
        assert shard.read_bytes() == whole.read_bytes()
        assert len(shard.read_bytes().splitlines()) == 400
    else:
        import pyarrow.parquet as pq

        assert pq.read_table(shard).to_pylist() == pq.read_table(whole).to_pylist()
        assert pq.read_table(shard).num_rows == 400


def test_jobs_on_a_file_of_one_conversation_writes_its_text_raw(tmp_path):
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "a\nb"}]}) + "\n")
    assert cli("buffer", "--jobs", "2", str(path)).stdout == "Human: a\nb\n"


class _Exited(Exception):
    def __init__(self, code):
        self.code = code


def _main_exit_code(monkeypatch, capsys) -> tuple[int, str]:
    """chatpipe.cli.main in this process: its os._exit caught, its stderr returned."""
    import chatpipe.cli as cli_module

    def fake_exit(code):
        raise _Exited(code)

    monkeypatch.setattr(cli_module.os, "_exit", fake_exit)
    with pytest.raises(_Exited) as exited:
        cli_module.main()
    return exited.value.code, capsys.readouterr().err


def test_a_bug_outside_a_command_is_one_line_not_a_traceback(monkeypatch, capsys):
    import chatpipe.cli as cli_module

    def broken():
        raise RuntimeError("the wiring came loose")

    monkeypatch.delenv("CHATPIPE_DEBUG", raising=False)
    monkeypatch.setattr(cli_module, "execute", broken)
    code, err = _main_exit_code(monkeypatch, capsys)
    assert (code, err) == (
        1,
        "chatpipe: error: internal error: RuntimeError: the wiring came loose (please report"
        " it; CHATPIPE_DEBUG=1 shows the traceback)\n",
    )
    monkeypatch.setenv("CHATPIPE_DEBUG", "1")
    with pytest.raises(RuntimeError, match="wiring"):
        cli_module.main()


def test_ctrl_c_while_the_command_is_built_exits_130(monkeypatch, capsys):
    import chatpipe.cli as cli_module

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_module, "execute", interrupted)
    assert _main_exit_code(monkeypatch, capsys) == (130, "chatpipe: interrupted\n")


def test_a_full_disk_at_the_last_flush_is_said(monkeypatch, capsys):
    import errno

    import chatpipe.cli as cli_module

    class FullDisk:
        def write(self, text):
            return len(text)

        def flush(self):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cli_module, "execute", lambda: 0)
    monkeypatch.setattr(sys, "stdout", FullDisk())
    code, err = _main_exit_code(monkeypatch, capsys)
    assert code == 1
    assert err.startswith("chatpipe: error: ") and "No space left on device" in err
    assert err.count("\n") == 1


ROWS_LOG = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"


def test_output_dir_again_replaces_its_shards(tmp_path):
    folder = tmp_path / "out"
    first = cli("convert", "--output-dir", str(folder), str(ROWS_LOG))
    assert (first.exit_code, first.stdout, first.stderr) == (0, "", "")
    again = cli("convert", "--to", "openai", "--output-dir", str(folder), str(ROWS_LOG))
    assert (again.exit_code, again.stdout, again.stderr) == (0, "", "")
    assert [p.name for p in folder.iterdir()] == [ROWS_LOG.name]
    assert (folder / ROWS_LOG.name).read_text() == cli(
        "convert", "--to", "openai", str(ROWS_LOG)
    ).stdout
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".chatpipe-")]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["--output-dir", str(ROWS_LOG)],
            f"--output-dir {ROWS_LOG} is a file, not a folder",
        ),
        (["--to-format", "csv"], "--to-format must be jsonl or parquet, got 'csv'"),
        (
            ["--to-format", "parquet", "-o", "/dev/null"],
            "-o /dev/null is not a regular file; Parquet is written to a file",
        ),
        (["--engine", "spark"], "--engine must be serial or dask, got 'spark'"),
        (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler goes with --engine dask"),
        (
            ["--engine", "dask", "--workers", "2", "--jobs", "3"],
            "--workers is another name for --jobs; give one of them",
        ),
    ],
)
def test_output_and_engine_options_that_cannot_work_are_one_line(args, said):
    result = cli("convert", *args, str(ROWS_LOG))
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"chatpipe: error: {said}\n")


@pytest.mark.parametrize(
    ("raised", "said"),
    [
        (RecursionError("deep"), "a record nests too deeply to process (see chatpipe --max-depth)"),
        (
            LookupError("a bug"),
            "internal error: LookupError: a bug (please report it; CHATPIPE_DEBUG=1 shows the traceback)",
        ),
    ],
)
def test_a_command_body_that_fails_unexpectedly_is_one_line(monkeypatch, capsys, raised, said):
    import typer

    from chatpipe.cli import runtime

    def body():
        raise raised

    monkeypatch.delenv("CHATPIPE_DEBUG", raising=False)
    with pytest.raises(typer.Exit) as exited:
        runtime.run(body)
    assert exited.value.exit_code == 1
    assert capsys.readouterr().err == f"chatpipe: error: {said}\n"
    if isinstance(raised, LookupError):
        monkeypatch.setenv("CHATPIPE_DEBUG", "1")
        with pytest.raises(LookupError, match="a bug"):
            runtime.run(body)


# -- -q: nothing on stderr but errors ------------------------------------------------------

QUIET_CASES = {
    # what the run leaves out (sharegpt holds no tool call ids, no images)
    "losses": (
        ["convert", "--to", "sharegpt"],
        ["log.jsonl", "log.jsonl"],
        "chatpipe: warning: sharegpt cannot hold tool call ids (ShareGPT pairs calls and "
        "results by order): left out of 2 messages (-v lists them)\n"
        "chatpipe: warning: sharegpt cannot hold content other than text (images, files, "
        "reasoning, ...): left out of 2 messages (-v lists them)\n",
    ),
    # a bad record skipped
    "skipped records": (
        ["convert", "--on-error", "skip"],
        ["log.jsonl", "cut.jsonl"],
        "chatpipe: skipped: {cut}:2:9: invalid JSON: unexpected end of data\n"
        "chatpipe: warning: skipped 1 bad record\n",
    ),
    # exports with no current leaf: their newest branch written
    "branches": (
        ["convert"],
        ["export.json", "export.json"],
        "chatpipe: 2 conversations branch and name no current leaf: wrote the newest branch"
        " of each, 2 other branches left out (--branch all writes them)\n",
    ),
    # a note a part makes (the turn-label warning), said once by the run
    "notes": (
        ["buffer"],
        ["log.jsonl", "turns.jsonl"],
        "chatpipe: warning: {turns}: message 1 has a line starting 'Human: ', which "
        "reads as a new turn in the prefix format (use --format xml to keep turns apart)\n",
    ),
}


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("case", sorted(QUIET_CASES))
def test_quiet_silences_every_warning(tmp_path, monkeypatch, case, jobs):
    """-q: no warning on stderr, the same output; with --jobs 2 the warnings come back from
    the workers that read the files (losses, skipped records, branches and notes)."""
    files = {
        "log.jsonl": TOOL_LOG,
        "export.json": FIXTURES / "claude_export__documented_retried_answer_no_current_leaf.json",
    }
    for name in ("log.jsonl", "export.json"):
        (tmp_path / name).write_bytes(Path(files[name]).read_bytes())
    (tmp_path / "cut.jsonl").write_text('{"role":"user","content":"hi"}\n{"role":\n')
    (tmp_path / "turns.jsonl").write_text('{"role":"user","content":"hi\\nHuman: there"}\n')
    command, names, said = QUIET_CASES[case]
    paths = [str(tmp_path / name) for name in names]
    said = said.format(cut=tmp_path / "cut.jsonl", turns=tmp_path / "turns.jsonl")
    pids = _noting_workers(tmp_path, monkeypatch)
    loud = cli(*command, "--jobs", jobs, *paths)
    assert (loud.exit_code, loud.stderr) == (0, said)
    assert loud.stdout
    quiet = cli(*command, "-q", "--jobs", jobs, *paths)
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (0, loud.stdout, "")
    workers = set(pids.read_text().split()) if pids.exists() else set()
    if jobs == "2":  # the parts were read by forked workers
        assert workers and str(os.getpid()) not in workers
    else:
        assert workers == set()


def test_a_log_read_in_ranges_is_no_empty_input(tmp_path):
    """A message log cut into byte ranges (--jobs) is one conversation read."""
    log = tmp_path / "log.jsonl"
    line = '{"role":"user","content":"' + "x" * 200 + '"}\n'
    log.write_text(line * 12_000)  # 2.5 MB: ranges of 1 MB
    for command in (["convert"], ["buffer"], ["openai"], ["filter", "--include-types", "ai"]):
        done = runner.invoke(app, [*command, "--jobs", "2", str(log)])
        assert done.exit_code == 0
        assert "no conversations" not in done.stderr, (command, done.stderr)
