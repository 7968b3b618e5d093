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
