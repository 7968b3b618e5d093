"""``chatpipe show``: panels for people, checked with Rich's width pinned."""

from __future__ import annotations

from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()
ENV = {"COLUMNS": "60", "NO_COLOR": "1", "TERM": "dumb"}


def test_panels_tool_calls_and_placeholders():
    result = runner.invoke(app, ["show", str(FIXTURES / "openai_tool_calls.jsonl")], env=ENV)
    assert result.exit_code == 0
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    assert lines[:4] == [
        "────────────────────── conversation 1 ──────────────────────",
        "╭─ System ─────────────────────────────────────────────────╮",
        "│ You are a weather assistant. Answer briefly.             │",
        "╰───────────────────────────────────────────────────── #1 ─╯",
    ]
    text = "\n".join(lines)
    assert "│ → get_weather  (call_paris)" in text
    assert '"city": "Köln"' in text
    assert "╭─ Tool · result of call_koeln" in text
    assert "│ [image: https://example.com/sky.jpg]" in text


def test_long_messages_fold_unless_full():
    long = "\n".join(f"line {i}" for i in range(40))
    data = '{"role":"user","content":' + __import__("json").dumps(long) + "}\n"
    folded = runner.invoke(app, ["show"], input=data, env=ENV).stdout
    assert "line 11" in folded and "line 12" not in folded
    assert "… 28 more lines (--full shows them)" in folded
    full = runner.invoke(app, ["show", "--full"], input=data, env=ENV).stdout
    assert "line 39" in full and "more lines" not in full


def test_export_title_and_json_tool_results():
    result = runner.invoke(
        app,
        ["show", str(FIXTURES / "chatgpt_export__realazthat_2024_code_interpreter.json")],
        env=ENV,
    )
    assert result.exit_code == 0
    assert "Average Distance in U(0,1)" in result.stdout.splitlines()[0]


def test_names_roles_and_titles_are_never_markup(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text(
        '{"role":"user","name":"[/bold]","content":"hi"}\n'
        '{"role":"[red]x[/red]","content":"c"}\n'
        '{"role":"tool","tool_call_id":"[/]","content":"r"}\n'
    )
    result = runner.invoke(app, ["show", str(log)], env=ENV)
    assert result.exit_code == 0, result.stderr
    assert "User · [/bold]" in result.stdout
    assert "[red]x[/red]" in result.stdout
    assert "result of [/]" in result.stdout


def test_show_on_a_full_disk_is_one_error_line():
    import subprocess
    import sys

    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "chatpipe", "show", str(FIXTURES / "openai_tool_calls.jsonl")],
            stdout=full,
            stderr=subprocess.PIPE,
        )
    assert done.returncode == 1
    assert done.stderr == b"chatpipe: error: cannot write the output: No space left on device\n"


SHOW_BLOCKS = (
    '{"messages":[{"type":"human","content":["plain part",{"type":"text","text":"a block"},'
    '{"type":"image_url","image_url":{"url":"data:image/png;base64,QUJD"}},'
    '{"type":"image_url","image_url":"https://e.x/i.png"},'
    '{"type":"file","file_id":"f1","extras":{"file_name":"r.pdf"}},'
    '{"type":"input_audio","input_audio":{"data":"QUJD","format":"wav"}},'
    '{"type":"thinking","thinking":"deep thought"},{"type":"mystery","x":1}]},'
    '{"type":"tool","content":"[not json","tool_call_id":"c1","status":"error"}]}\n'
)


def test_every_kind_of_block_has_its_line(tmp_path):
    path = tmp_path / "blocks.jsonl"
    path.write_text(SHOW_BLOCKS)
    result = runner.invoke(app, ["show", str(path)], env=ENV)
    assert (result.exit_code, result.stderr) == (0, "")
    body = [line.rstrip()[2:].rstrip(" │") for line in result.stdout.splitlines()[2:13]]
    assert body == [
        "plain part",
        "a block",
        "[image: inline data]",
        "[image: https://e.x/i.png]",
        "[file: r.pdf]",
        "[audio: inline data]",
        "thinking: deep thought",
        "{",
        '  "type": "mystery",',
        '  "x": 1',
        "}",
    ]
    # a tool result that only looks like JSON is shown as its text; an error is said
    assert "╭─ Tool · result of c1 · error" in result.stdout
    assert "│ [not json" in result.stdout
