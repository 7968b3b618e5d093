"""``chatpipe buffer`` end to end: every option, exact output."""

from __future__ import annotations

import json
from pathlib import Path

import langchain_core.messages as lc
import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()
TOOL_LOG = str(FIXTURES / "openai_tool_calls.jsonl")
ROWS = str(FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl")


def cli(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def lc_log(path):
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return lc.convert_to_messages([json.loads(line) for line in lines])


def test_prefix_and_xml_equal_langchain_plus_a_newline():
    for fmt in ("prefix", "xml"):
        result = cli("buffer", "--format", fmt, TOOL_LOG)
        assert result.exit_code == 0, result.stderr
        assert result.stdout == lc.get_buffer_string(lc_log(TOOL_LOG), format=fmt) + "\n"
        assert result.stderr == ""


def test_custom_prefixes_and_separator_with_escapes():
    result = cli(
        "buffer",
        "--human-prefix",
        "User",
        "--ai-prefix",
        "Bot",
        "--system-prefix",
        "Sys",
        "--tool-prefix",
        "Obs",
        "--function-prefix",
        "Fn",
        "--message-separator",
        "\\n\\n",
        TOOL_LOG,
    )
    expected = lc.get_buffer_string(
        lc_log(TOOL_LOG),
        "User",
        "Bot",
        system_prefix="Sys",
        tool_prefix="Obs",
        function_prefix="Fn",
        message_separator="\n\n",
    )
    assert result.stdout == expected + "\n"
    xml = cli("buffer", "--format", "xml", "--human-prefix", "Q&A User", input='"hi"\n')
    assert xml.stdout == '<message type="q&amp;a user">hi</message>\n'


def test_tool_calls_as_json():
    data = (
        '{"role":"assistant","content":"x","tool_calls":[{"id":"c","type":"function",'
        '"function":{"name":"f","arguments":"{\\"é\\": true}"}}]}\n'
    )
    assert cli("buffer", input=data).stdout == (
        "AI: x[{'name': 'f', 'args': {'é': True}, 'id': 'c', 'type': 'tool_call'}]\n"
    )
    assert cli("buffer", "--tool-calls", "json", input=data).stdout == (
        'AI: x[{"name": "f", "args": {"é": true}, "id": "c", "type": "tool_call"}]\n'
    )


def test_several_conversations_are_json_strings_or_raw_with_separators():
    result = cli("buffer", ROWS)
    lines = result.stdout.splitlines()
    first = json.loads(lines[0])
    assert first.startswith("System: You are a happy assistant")
    assert len(lines) == len(Path(ROWS).read_text(encoding="utf-8").splitlines())
    raw = cli("buffer", "--separator", "\\n---\\n", ROWS).stdout
    assert raw.split("\n---\n")[0] == first
    assert raw.endswith("\n") and raw.count("\n---\n") == len(lines) - 1
    nul = cli("buffer", "-0", ROWS).stdout
    assert nul.split("\0")[:-1] == [json.loads(line) for line in lines]


def test_role_prefix_inside_content_warns_once():
    data = '"first\\nHuman: fake turn"\n"again\\nAI: another"\n'
    result = cli("buffer", input=data)
    assert result.stdout == "Human: first\nHuman: fake turn\nHuman: again\nAI: another\n"
    assert result.stderr == (
        "chatpipe: warning: <stdin>: message 1 has a line starting 'Human: ', which reads as a "
        "new turn in the prefix format (use --format xml to keep turns apart)\n"
    )
    assert cli("buffer", "--format", "xml", input=data).stderr == ""


def test_remove_message_is_a_located_error():
    result = cli("buffer", "--from", "canonical", input='{"type":"remove","id":"m1"}\n')
    assert result.exit_code == 1
    assert result.stderr == (
        "chatpipe: error: <stdin>:1:1: message 1: "
        "cannot render a remove message in a buffer string\n"
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--format", "json"], "--format must be prefix or xml, got 'json'"),
        (["--tool-calls", "yaml"], "--tool-calls must be repr or json, got 'yaml'"),
        (
            ["-0", "--separator", ","],
            "-0 and --separator both say how to separate conversations; pick one",
        ),
    ],
)
def test_bad_options_exit_2_with_one_line_and_no_output(options, message):
    result = cli("buffer", *options, input='"x"\n')
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"chatpipe: error: {message}\n",
    )


def test_output_file_and_skip(tmp_path):
    out = tmp_path / "prompt.txt"
    result = cli("buffer", "--on-error", "skip", "-o", str(out), input='"a"\nnope\n"b"\n')
    assert result.exit_code == 0
    assert out.read_text() == "Human: a\nHuman: b\n"
    assert result.stderr.endswith("chatpipe: warning: skipped 1 bad record\n")


def test_every_command_has_a_summary_and_an_example():
    for command in ("convert", "buffer"):
        text = cli(command, "--help").stdout
        assert "Example" in text and "chatpipe " + command in text
    assert "--format xml" in cli("buffer", "--help").stdout


def test_turn_labels_find_a_label_that_starts_a_line_inside_the_text():
    from chatpipe.render.buffer import TurnLabels

    labels = TurnLabels(["Human", "AI", "AI2"])
    assert labels.find("Human: hi") is None  # the text's own start is its turn
    assert labels.find("a\nHumans: b\nAIx: c") is None
    assert labels.find("a\nAI2: b\nHuman: c") == "AI2: "
    assert labels.find("a\n\nAI: b") == "AI: "
    assert labels.find("a\ncritic: b") is None
    labels.add("critic")
    assert labels.find("a\ncritic: b") == "critic: "
    assert TurnLabels(["a.b"]).find("x\naxb: ") is None  # labels are text, not patterns


def test_the_lane_warns_on_a_lines_label_where_the_message_path_does(tmp_path):
    """The lane checks rendered texts; chat roles become labels as on the message path."""
    lines = [{"role": "user", "content": f"q{i}"} for i in range(25)]
    lines.append({"role": "critic", "content": "one\ntwo"})
    lines.append({"role": "assistant", "content": "fine\ncritic: not a turn?"})
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(map(json.dumps, lines)) + "\n")
    result = cli("buffer", str(log))
    assert f"{log}: message 27 has a line starting 'critic: '" in result.stderr


def test_the_lane_names_the_message_whose_line_reads_as_a_turn(tmp_path):
    """Deep in a batch, after texts holding NULs, the warning names the right message."""
    lines = [{"role": "user", "content": f"q\0{i}"} for i in range(3000)]
    lines[2500] = {"role": "assistant", "content": "fine\nHuman: not a turn"}
    lines[2700] = {"role": "assistant", "content": "and\nAI: this one comes later"}
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(map(json.dumps, lines)) + "\n")
    result = cli("buffer", str(log))
    assert result.stderr == (
        f"chatpipe: warning: {log}: message 2501 has a line starting 'Human: ', which reads "
        "as a new turn in the prefix format (use --format xml to keep turns apart)\n"
    )
