"""``chatpipe stats``: figures checked by hand on fixtures; JSON and a width-pinned table
with its histograms (messages per conversation 3, 9, 2, 2, 3: p10 2, median 3, p90
3 + 0.6 * (9 - 3) = 6.6 as NumPy interpolates)."""

from __future__ import annotations

import json

import langchain_core.messages as lc
from langchain_core.messages.utils import count_tokens_approximately as lc_count
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()


def cli(*args, env=None):
    return runner.invoke(app, list(args), env=env)


def _log_figures(path) -> tuple[int, int]:
    """The characters of a message log's texts, counted here, and langchain-core's
    approximate count of its messages (the default counter's oracle)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    characters = 0
    for row in rows:
        content = row.get("content")
        if isinstance(content, str):
            characters += len(content)
        elif isinstance(content, list):
            characters += sum(len(p["text"]) for p in content if p.get("type") == "text")
    return characters, lc_count(lc.convert_to_messages(rows))


def test_json_figures_of_the_tool_call_log():
    characters, tokens = _log_figures(FIXTURES / "openai_tool_calls.jsonl")
    result = cli("stats", str(FIXTURES / "openai_tool_calls.jsonl"))
    conversation, overall = (json.loads(line) for line in result.stdout.splitlines())
    assert conversation == {
        "conversation": 1,
        "file": str(FIXTURES / "openai_tool_calls.jsonl"),
        "title": None,
        "messages": 8,
        "tool_calls": 2,
        "images": 1,
        "audio": 0,
        "video": 0,
        "files": 0,
        "characters": characters,
        "tokens": tokens,
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

tokens per conversation
 tokens                            conversations
      2  ████████████████████████              2
      3  ████████████████████████              2
      4                                        0
      5                                        0
      6                                        0
      7                                        0
      8                                        0
      9  ████████████                          1
min 2 · p10 2 · median 3 · p90 6.6 · max 9
messages per conversation
 messages                            conversations
        2  ████████████████████████              2
        3  ████████████████████████              2
        4                                        0
        5                                        0
        6                                        0
        7                                        0
        8                                        0
        9  ████████████                          1
min 2 · p10 2 · median 3 · p90 6.6 · max 9
"""
    )
    assert (
        cli("stats", "--table", "--json", str(FIXTURES / "openai_tool_calls.jsonl")).exit_code == 2
    )


def test_spread_and_count_over_max_tokens_in_json():
    result = cli(
        "stats",
        "--json",
        "--token-counter",
        "messages",
        "--max-tokens",
        "2",
        str(FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"),
    )
    overall = json.loads(result.stdout.splitlines()[-1])["overall"]
    # tokens = messages here: 3, 9, 2, 2, 3
    expected = {"min": 2, "p10": 2, "median": 3, "p90": 6.6, "max": 9, "mean": 3.8}
    assert overall["spread"] == {"tokens": expected, "messages": expected}
    assert overall["over_max_tokens"] == {"max_tokens": 2, "conversations": 3}


def test_quantiles_interpolate_as_numpy_does():
    from chatpipe.ops.stats import quantile

    assert quantile([1, 2, 3, 4], 0.5) == 2.5
    assert quantile([10, 20], 0.1) == 11
    assert quantile([0, 100], 0.9) == 90
    assert quantile([7], 0.9) == 7
    assert quantile([], 0.5) == 0


def test_histogram_bins_are_round_and_hold_every_value():
    from chatpipe.render.charts import bar, bins

    values = [5, 17, 230, 231, 999, 1000]
    binned = bins(values)
    # 5..1000 over about ten bins: a width of 100 (not 99.6)
    assert binned[0] == (0, 100, 2) and binned[2] == (200, 300, 2)
    assert all(high - low == 100 for low, high, _ in binned)
    assert sum(n for _, _, n in binned) == len(values)
    assert binned[-2:] == [(900, 1000, 1), (1000, 1100, 1)]
    assert bar(8, 8, 3) == "███" and bar(1, 8, 3) == "▍" and bar(0, 8, 3) == ""


def test_html_report_has_its_figures_and_two_charts(tmp_path):
    out = tmp_path / "report.html"
    result = cli(
        "stats",
        "--to",
        "html",
        "--token-counter",
        "messages",
        "--max-tokens",
        "2",
        "-o",
        str(out),
        str(FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"),
    )
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert page.startswith("<!doctype html>")
    assert "<h1>5 conversations</h1>" in page
    assert page.count("<svg ") == 2
    assert "<tr><td>tokens</td><td>2</td><td>2</td><td>3</td><td>6.6</td><td>9</td>" in page
    assert "3 of 5 conversations are over 2 tokens." in page
    assert "<script" not in page  # a report needs no script, and the policy allows none
    assert "script-src" not in page and "default-src 'none'" in page


def test_stats_to_takes_only_html():
    result = cli("stats", "--to", "csv", str(FIXTURES / "openai_tool_calls.jsonl"))
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        "chatpipe: error: stats --to takes html, got 'csv' (or --json, or --table)\n",
    )


def test_table_says_one_conversation_and_every_number_with_separators(tmp_path):
    log = tmp_path / "long.jsonl"
    roles = ("user", "assistant")
    log.write_text(
        "".join(
            json.dumps({"role": roles[i % 2], "content": "a b c d e "}) + "\n" for i in range(1140)
        )
    )
    result = cli(
        "stats",
        "--table",
        "--token-counter",
        "messages",
        str(log),
        env={"COLUMNS": "100", "NO_COLOR": "1"},
    )
    shown = [line.rstrip() for line in result.stdout.splitlines()]
    assert shown[:8] == [
        "1 conversation",
        "┏━━━━━┳━━━━━━━━━━┳━━━━━┳━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━┳━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━┓",
        "┃   # ┃ messages ┃  ai ┃ human ┃ tool calls ┃ images ┃ files ┃ characters ┃ tokens ┃",
        "┡━━━━━╇━━━━━━━━━━╇━━━━━╇━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━╇━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━┩",
        "│   1 │    1,140 │ 570 │   570 │          0 │      0 │     0 │     11,400 │  1,140 │",
        "│ all │    1,140 │ 570 │   570 │          0 │      0 │     0 │     11,400 │  1,140 │",
        "└─────┴──────────┴─────┴───────┴────────────┴────────┴───────┴────────────┴────────┘",
        "conversation length: min 1,140, median 1,140, max 1,140 messages",
    ]


def test_json_rows_name_their_file_and_title():
    export = str(FIXTURES / "chatgpt_export__pkuppens_2023_conversations_subset.json")
    log = str(FIXTURES / "openai_tool_calls.jsonl")
    result = cli("stats", "--json", "--token-counter", "messages", export, log)
    *rows, _ = (json.loads(line) for line in result.stdout.splitlines())
    assert [(row["file"], row["title"]) for row in rows] == [
        (export, "Offerte software project"),
        (export, "Logo design for Pieterkuppens.net."),
        (export, "Improve Website Recommendations."),
        (export, "GitHub Wikis & Source Code"),
        (log, None),
    ]
    assert list(rows[0])[:4] == ["conversation", "id", "file", "title"]


def test_a_table_of_several_files_says_which_file_and_conversation_a_row_is(tmp_path):
    """With several inputs the table's rows were numbers only (#51): a file column (each
    file's name) and a conversation column (its title), never markup or escapes."""
    odd = tmp_path / "odd.jsonl"
    odd.write_text(
        json.dumps(
            {"title": "[red]x[/red] \x1b]0;t\x07", "messages": [{"role": "user", "content": "hi"}]}
        )
        + "\n"
    )
    export = FIXTURES / "chatgpt_export__pkuppens_2023_conversations_subset.json"
    tool_log = FIXTURES / "openai_tool_calls.jsonl"
    result = cli(
        "stats",
        "--table",
        str(tool_log),
        str(export),
        str(odd),
        env={"COLUMNS": "200", "NO_COLOR": "1"},
    )
    assert result.exit_code == 0
    rows = [
        [c.strip() for c in line.split("│")[1:-1]]
        for line in result.stdout.splitlines()
        if line.startswith("│")
    ]
    header = next(line for line in result.stdout.splitlines() if line.startswith("┃"))
    assert [c.strip() for c in header.split("┃")[1:4]] == ["#", "file", "conversation"]
    cut = export.name[:39] + "…"  # (a name column is 40 wide at most)
    assert [r[:3] for r in rows[:3]] == [
        ["1", "openai_tool_calls.jsonl", ""],
        ["2", cut, "Offerte software project"],
        ["3", cut, "Logo design for Pieterkuppens.net."],
    ]
    assert rows[5][1:3] == ["odd.jsonl", "[red]x[/red] \\x1b]0;t\\x07"]
    assert rows[-1][:3] == ["all", "", ""]
    # one file: no file column; no title anywhere: no conversation column
    one = cli("stats", "--table", str(tool_log), env={"COLUMNS": "200", "NO_COLOR": "1"}).stdout
    assert [c.strip() for c in one.splitlines()[2].split("┃")[1:3]] == ["#", "messages"]
