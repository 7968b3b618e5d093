"""Claude Code's slash commands as a person reads them (#51): ``<command-name>``,
``<command-message>`` and ``<command-args>`` were shown raw by ``show``, the viewer and
Markdown, a command's output kept the terminal's colour escapes, and a session started by
a command was titled with the tags. The data itself is left as it is."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()
ENV = {"COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"}
COMMAND = (
    "<command-message>model</command-message>\n"
    "            <command-name>/model</command-name>\n"
    "            <command-args>sonnet</command-args>"
)
OUTPUT = "<local-command-stdout>Set model to \x1b[1msonnet (claude-sonnet-4-5)\x1b[22m</local-command-stdout>"


def _line(kind: str, uuid: str, parent: str | None, **fields) -> dict:
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s", **fields}


def _session(tmp_path):
    """A session as Claude Code 2 writes one started by ``/model sonnet``: the caveat
    (a meta line), the command as the user's turn, its output as a system line."""
    lines = [
        _line(
            "user",
            "u0",
            None,
            isMeta=True,
            message={
                "role": "user",
                "content": "<local-command-caveat>Caveat: ignore these.</local-command-caveat>",
            },
        ),
        _line("user", "u1", "u0", message={"role": "user", "content": COMMAND}),
        _line("system", "c1", "u1", subtype="local_command", content=OUTPUT, level="info"),
        _line("user", "u2", "c1", message={"role": "user", "content": "why is the sky blue?"}),
        _line(
            "assistant",
            "a1",
            "u2",
            message={
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "text", "text": "Air."}],
            },
        ),
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _run(*args):
    result = runner.invoke(app, [str(a) for a in args], env=ENV)
    assert (result.exit_code, result.stderr) == (0, "")
    return result.stdout


def test_the_markup_reads_as_the_command_typed():
    from chatpipe.render.commands import command_markup

    assert command_markup(COMMAND) == ("command", "/model sonnet")
    assert command_markup("<command-name>/exit</command-name>") == ("command", "/exit")
    assert command_markup(OUTPUT) == ("output", "Set model to sonnet (claude-sonnet-4-5)")
    assert command_markup("<local-command-stderr>\x1b[31mno\x1b[0m</local-command-stderr>") == (
        "error",
        "no",
    )
    # text around the tags, or a tag never closed: not a command, shown as written
    assert command_markup("see <command-name>/exit</command-name>") is None
    assert command_markup("<command-name>/exit") is None


def test_show_prints_the_command_and_its_output(tmp_path):
    out = _run("show", "--no-pager", _session(tmp_path))
    rows = [row.rstrip() for row in out.splitlines()]
    assert "╭─ Command ─" in rows[4] and rows[5].startswith("│ /model sonnet ")
    assert "· Command output: Set model to sonnet (claude-sonnet-4-5) ·" in out
    assert "Caveat: ignore these." in out
    assert "<command" not in out and "local-command" not in out and "\\x1b" not in out


def test_markdown_and_the_viewer_show_the_command(tmp_path):
    path = _session(tmp_path)
    out = _run("convert", "--to", "markdown", path)
    assert out.startswith("# /model sonnet\n")
    assert "### Command\n\n`/model sonnet`\n\n" in out
    assert "<command" not in out and "local-command" not in out
    page = _run("convert", "--to", "html", path)
    assert '"t":"/model sonnet"' in page
    assert 'class=\\"command\\">\\u003ccode>/model sonnet' in page
    assert "Command output: Set model to sonnet (claude-sonnet-4-5)" in page
    assert "command-name" not in page and "\\u001b" not in page


def test_a_session_of_the_older_shape_too():
    """Claude Code 1 wrote the command's output as a user turn too."""
    path = FIXTURES / "claude_code__entire_2026_exit_resume_branch_lines1_53.jsonl"
    out = _run("convert", "--to", "markdown", "--branch", "all", path)
    assert re.findall(r"^# .*", out, re.M)[0] == "# /exit"
    assert "### Command\n\n`/exit`\n\n### Command output\n\n```\nBye!\n```" in out


def test_a_collapsed_tool_call_shows_what_it_runs():
    """The viewer's row of a collapsed call showed its name and id only: the command, or
    the file or pattern it works on, is shown beside the name."""
    path = FIXTURES / "claude_code__entire_2026_exit_resume_branch_lines1_53.jsonl"
    page = _run("convert", "--to", "html", path)
    gists = re.findall(
        r'tool-name\\">(\w+)\\u003c/span> \\u003ccode class=\\"tool-arg\\">([^\\]*)', page
    )
    assert ("Bash", "mise run lint 2&gt;&amp;1") in gists
    assert ("Read", "/Users/soph/Work/entire/devenv/cli/CLAUDE.md") in gists
