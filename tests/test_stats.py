"""``chatpipe stats``: figures checked by hand on fixtures; JSON and a width-pinned table."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()


def cli(*args, env=None):
    return runner.invoke(app, list(args), env=env)


def test_json_figures_of_the_tool_call_log():
    result = cli("stats", str(FIXTURES / "openai_tool_calls.jsonl"))
    conversation, overall = (json.loads(line) for line in result.stdout.splitlines())
    assert conversation == {
        "conversation": 1,
        "messages": 8,
        "tool_calls": 2,
        "images": 1,
        "audio": 0,
        "video": 0,
        "files": 0,
        "characters": 201,
        "tokens": 226,
        "by_type": {"system": 1, "human": 2, "ai": 3, "tool": 2},
    }
    assert overall["overall"]["length"] == {"min": 8, "median": 8, "max": 8}


def test_overall_over_conversation_rows():
    result = cli(
        "stats",
        "--json",
        "--token-counter",
        "messages",
        str(FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"),
    )
    *rows, overall = (json.loads(line) for line in result.stdout.splitlines())
    assert [r["messages"] for r in rows] == [3, 9, 2, 2, 3]
    assert overall["overall"]["messages"] == 19
    assert overall["overall"]["tokens"] == 19
    assert overall["overall"]["length"] == {"min": 2, "median": 3, "max": 9}
    assert overall["overall"]["by_type"] == {"system": 4, "human": 7, "ai": 8}


def test_table_with_pinned_width():
    result = cli(
        "stats",
        "--table",
        "--token-counter",
        "messages",
        str(FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"),
        env={"COLUMNS": "100", "NO_COLOR": "1"},
    )
    assert result.exit_code == 0
    shown = "\n".join(line.rstrip() for line in result.stdout.splitlines()) + "\n"
    assert (
        shown
        == """\
5 conversations
┏━━━━━┳━━━━━━━━━━┳━━━━┳━━━━━━━┳━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━┳━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━┓
┃   # ┃ messages ┃ ai ┃ human ┃ system ┃ tool calls ┃ images ┃ files ┃ characters ┃ tokens ┃
┡━━━━━╇━━━━━━━━━━╇━━━━╇━━━━━━━╇━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━╇━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━┩
│   1 │        3 │  1 │     1 │      1 │          0 │      0 │     0 │        140 │      3 │
│   2 │        9 │  4 │     4 │      1 │          0 │      0 │     0 │        273 │      9 │
│   3 │        2 │  1 │     1 │      0 │          0 │      0 │     0 │         66 │      2 │
│   4 │        2 │  1 │     0 │      1 │          0 │      0 │     0 │         79 │      2 │
│   5 │        3 │  1 │     1 │      1 │          0 │      0 │     0 │     26,077 │      3 │
│ all │       19 │  8 │     7 │      4 │          0 │      0 │     0 │     26,635 │     19 │
└─────┴──────────┴────┴───────┴────────┴────────────┴────────┴───────┴────────────┴────────┘
conversation length: min 2, median 3, max 9 messages
"""
    )
    assert (
        cli("stats", "--table", "--json", str(FIXTURES / "openai_tool_calls.jsonl")).exit_code == 2
    )
