"""``chatpipe grep``: hits in texts, tool arguments and results, with context and counts,
for people and for machines; ``chatpipe.ops.grep`` underneath."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.model import AIMessage, Conversation, HumanMessage, ToolMessage
from chatpipe.ops.grep import grep
from conftest import FIXTURES

runner = CliRunner()
LOG = str(FIXTURES / "agent_session.jsonl")
EXPORT = str(FIXTURES / "chatgpt_export__pkuppens_2023_conversations_subset.json")
TOY = str(FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl")


def cli(*args: str):
    return runner.invoke(app, ["grep", *args])


def test_a_line_per_hit_with_the_conversation_title_and_role():
    result = cli("-i", "tennis", TOY, EXPORT)
    assert result.exit_code == 0
    assert result.stdout == (f"{TOY}:2: #2 user: I lost my tennis match today.\n")
    export = cli("source code tree\\?", EXPORT)
    assert export.stdout == (
        f"{EXPORT}:1181: GitHub Wikis & Source Code › #1 user: In GitHub, is there some way to "
        "fill the Wiki with the source code tree?\n"
    )


def test_tools_context_and_colour():
    result = cli("--in", "tools", "-C", "1", "--color", "always", "k line_3", LOG)
    assert result.stdout == (
        f"{LOG}:1- #2 user: Why does test_line_3 fail on CI but not locally?\n"
        f'{LOG}:1: #3 assistant run(): {{"command":"pytest -q tests/test_invoice.py'
        ' -\x1b[01;31mk line_3\x1b[m"}\n'
        f"{LOG}:1- #4 tool: " + _tool_text(3) + "\n"
        f"{LOG}:1: #5 tool: $ pytest -q tests/test_invoice.py -\x1b[01;31mk line_3\x1b[m collected 16"
        " items ...............F FAILED: expected 2.0, got 2.00000001 (float rounding)\n"
        f"{LOG}:1- #6 assistant: " + _text(5) + "\n"
    )
    assert cli("--in", "text", "k line_3", LOG).stdout.count(":1: #") == 1  # the answer only


def _messages():
    with open(LOG, encoding="utf-8") as source:
        return [json.loads(line) for line in source]


def _text(index: int) -> str:
    text = " ".join(_messages()[index]["content"].split())
    return text if len(text) <= 200 else text[:200] + "…"


_tool_text = _text


def test_counts_json_and_exit_status():
    counted = cli("-c", "-i", "(the|de)", EXPORT)
    lines = counted.stdout.splitlines()
    assert [line.split(": ")[-2] for line in lines] == [
        "Offerte software project",
        "Logo design for Pieterkuppens.net.",
        "Improve Website Recommendations.",
        "GitHub Wikis & Source Code",
    ]
    as_json = cli("-c", "--json", "tennis", TOY)
    assert as_json.stdout == (f'{{"file":"{TOY}:2","conversation":null,"title":null,"count":1}}\n')
    hits = cli("--json", "--in", "all", "--role", "tool", "16 items", LOG)
    records = [json.loads(line) for line in hits.stdout.splitlines()]
    assert [(r["message"], r["role"], r["field"], r["matches"], r["line"]) for r in records] == [
        (n, "tool", "result", ["16 items"], 1) for n in (4, 9, 14, 19, 24)
    ]
    none = cli("no such words", LOG)
    assert (none.exit_code, none.stdout) == (1, "")
    bad = cli("(", LOG)
    assert bad.exit_code == 2 and bad.stderr.startswith("chatpipe: error: PATTERN '(' is not")
    where = cli("--in", "everywhere", "x", LOG)
    assert where.stderr == "chatpipe: error: --in must be text, tools or all, got 'everywhere'\n"


def test_the_library_function():
    conversation = Conversation(
        [
            HumanMessage("find foo"),
            AIMessage(
                [{"type": "reasoning", "reasoning": "foo again"}, {"type": "text", "text": "ok"}],
                tool_calls=[{"name": "look", "args": {"q": "foo"}, "id": "1"}],
            ),
            ToolMessage("foo foo", tool_call_id="1", name="look"),
        ],
        {"id": "c"},
    )
    (found,) = grep([conversation], "fo+", where="all", context=1)
    assert [(h.index, h.role, h.field, h.tool, h.spans) for h in found.hits] == [
        (0, "user", "text", None, [(5, 8)]),
        (1, "assistant", "reasoning", None, [(0, 3)]),
        (1, "assistant", "arguments", "look", [(6, 9)]),
        (2, "tool", "result", "look", [(0, 3), (4, 7)]),
    ]
    assert found.count == 5 and found.shown == [0, 1, 2]
    assert list(grep([conversation], "FOO")) == []
    (text_only,) = grep([conversation], "FOO", ignore_case=True, roles=["user"])
    assert [h.index for h in text_only.hits] == [0]
    (empty,) = grep([conversation], "x*", where="tools")
    assert [h.spans for h in empty.hits] == [[(0, 0)], [(0, 0)]]


def test_control_characters_are_written_out_and_a_line_stays_one(tmp_path):
    # an OSC 0 title setting, a clear-screen, a C1 CSI: written out as `show` writes them;
    # a title holding a line feed keeps grep's line one line (#51)
    row = {
        "id": "c\x1b]0;pwned\x07\u009b2J",
        "title": "Evil\ntitle\x1b[2J",
        "messages": [
            {"role": "user", "content": "find me \x1b]0;owned\x07 and \u009b31m red"},
            {"role": "assistant", "content": "next\x1b[2J"},
        ],
    }
    path = tmp_path / "esc.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    title = "Evil title\\x1b[2J"
    lines = cli("--color", "always", "-C", "1", "find", str(path)).stdout.splitlines()
    assert lines == [
        f"{path}:1: {title} › #1 user: \x1b[01;31mfind\x1b[m me \\x1b]0;owned\\x07 and \\x9b31m red",
        f"{path}:1- {title} › #2 assistant: next\\x1b[2J",
    ]
    assert cli("-c", "find", str(path)).stdout == f"{path}:1: {title}: 1\n"
    hit = json.loads(cli("--json", "find", str(path)).stdout)  # JSON: as they are
    assert (hit["title"], hit["conversation"]) == (row["title"], row["id"])
    ids = runner.invoke(app, ["select", "--ids", str(path)])
    assert ids.stdout == "c\\x1b]0;pwned\\x07\\x9b2J\n"
    row["id"] = "two\nlines"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert runner.invoke(app, ["select", "--ids", str(path)]).stdout == "two\\nlines\n"


def test_a_catastrophic_pattern_is_stopped_with_one_line_naming_it(tmp_path):
    # (a+)+$ backtracks exponentially on 35 a's and a b: Python's engine never finishes;
    # each search is bounded, and the run ends with the pattern, the message and the way out
    # (#51). A subprocess with a timeout: on the old code the test fails, it does not hang.
    import subprocess
    import sys

    row = {"title": "a" * 35 + "b", "messages": [{"role": "user", "content": "a" * 35 + "b"}]}
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    for args, flag, where in (
        (["grep", "(a+)+$"], "PATTERN", f"{path}:1:1: message 1"),
        (["select", "--grep", "(a+)+$"], "--grep", f"{path}:1:1"),
        (["select", "--title", "(a+)+$"], "--title", f"{path}:1:1"),
        (["select", "--jobs", "2", "--grep", "(a+)+$", str(path)], "--grep", f"{path}:1:1"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "chatpipe", *args, str(path)],
            capture_output=True,
            text=True,
            timeout=90,
        )
        assert (done.returncode, done.stdout) == (2, ""), done.stderr
        assert done.stderr == (
            f"chatpipe: error: {where}: {flag} '(a+)+$' ran for more than 1 s on one text and "
            "was stopped: Python's regular expressions backtrack, and a repetition inside a "
            "repetition (such as (a+)+ or (a|aa)*) can take exponential time (write it so that "
            "each character can match one way only: a+$ for (a+)+$)\n"
        )
    # Python's syntax stays whole: a backreference, a look-behind
    assert cli("-c", r"(a)\1{34}(?<=a)b", str(path)).stdout == f"{path}:1: {'a' * 35}b: 1\n"
