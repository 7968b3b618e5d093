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


def _shown(name: str) -> list[str]:
    result = runner.invoke(app, ["show", str(FIXTURES / name)], env=ENV)
    assert (result.exit_code, result.stderr) == (0, "")
    return [line.rstrip() for line in result.stdout.splitlines()]


def test_export_title_and_json_tool_results():
    """Each conversation of an export is headed by its title; a tool result that is JSON
    text (a ChatGPT plugin's answer) is shown as indented JSON, a plain one as its text."""
    lines = _shown("chatgpt_export__realazthat_2024_code_interpreter.json")
    assert lines[0] == "──────────────── Average Distance in U(0,1) ────────────────"
    assert lines[31:34] == [
        "╭─ Tool · python · result of 10513078-098e-44a7-851b-8cb32─╮",
        "│ 0                                                        │",
        "╰───────────────────────────────────────────────────── #4 ─╯",
    ]
    lines = _shown("chatgpt_export__pkuppens_2023_conversations_subset.json")
    assert [line for line in lines if not line.startswith(("╭", "│", "╰"))] == [
        "───────────────── Offerte software project ─────────────────",
        "──────────── Logo design for Pieterkuppens.net. ────────────",
        "───────────── Improve Website Recommendations. ─────────────",
        "──────────────── GitHub Wikis & Source Code ────────────────",
    ]
    at = lines.index("╭─ Tool · show_me.get_MermaidRoute · result of 7e7680b8-70─╮")
    assert lines[at + 1 : at + 17] == [
        "│ {                                                        │",
        '│   "results": [                                           │',
        "│     {                                                    │",
        '│       "errorMessage": "We are experiencing a high load   │',
        "│ of requests for rendering the diagram, you can still     │",
        '│ view and edit it online. We are working on a fix.",      │',
        '│       "editDiagramOnline":                               │',
        '│ "https://showme.redstarplugin.com/s/vmq9ipL3",           │',
        '│       "contributeToOpenSourceProject":                   │',
        '│ "https://github.com/bra1nDump/show-me-chatgpt-plugin/iss │',
        '│ ues"                                                     │',
        "│     }                                                    │",
        "│   ]                                                      │",
        "│ }                                                        │",
        "╰───────────────────────────────────────────────────── #5 ─╯",
        "╭─ Assistant ──────────────────────────────────────────────╮",
    ]


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


# -- on a terminal: the pager, and what the data may not do to the terminal --------------


def _on_a_terminal(argv: list[str], env: dict[str, str], keys: bytes = b"q") -> tuple[bytes, int]:
    """What ``chatpipe ARGV`` shows on a 24x80 pseudo-terminal that is its controlling
    terminal (stdin, stdout and stderr: a pager reads its keys there), with ``keys`` typed
    once the screen has been still for half a second."""
    import fcntl
    import os
    import pty
    import select
    import struct
    import sys
    import termios
    import time

    environ = {
        k: v
        for k, v in os.environ.items()
        if k not in ("LESS", "LV", "PAGER", "CHATPIPE_PAGER", "MANPAGER", "NO_COLOR", "COLUMNS")
    }
    environ.update(TERM="xterm-256color", **env)
    pid, fd = pty.fork()
    if pid == 0:  # the child: its terminal 24 rows by 80 columns, then chatpipe
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        os.execvpe(sys.executable, [sys.executable, "-m", "chatpipe", *argv], environ)
    out, typed, last = b"", False, time.monotonic()
    while time.monotonic() - last < 30:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:  # the terminal closed: the process is done
                break
            if not chunk:
                break
            out, last = out + chunk, time.monotonic()
        elif out and not typed and time.monotonic() - last > 0.5:
            os.write(fd, keys)
            typed = True
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    return out, os.waitstatus_to_exitcode(status)


def _long_log(tmp_path) -> str:
    """Twelve messages: more than a 24-row screen holds."""
    import json

    path = tmp_path / "long.jsonl"
    roles = ("system", "user")
    path.write_text(
        "".join(
            json.dumps({"role": roles[i % 2], "content": f"message {i}"}) + "\n" for i in range(12)
        )
    )
    return str(path)


def test_the_pager_shows_colours_when_less_is_not_set(tmp_path):
    """less without -R showed rich's colours as `ESC[35m` text (#41): LESS=FRX, as git."""
    out, code = _on_a_terminal(["show", _long_log(tmp_path)], {})
    assert code == 0, out
    assert b"ESC" not in out  # less -R passes the colours through
    assert b"\x1b[35m\xe2\x95\xad\xe2\x94\x80" in out  # a system panel's magenta corner
    assert b"\x1b[?1049h" not in out  # -X: the screen is not switched and cleared
    assert b"message 11" not in out  # paged: only the first screen was shown, then q


def test_pager_variables_are_respected(tmp_path):
    log = _long_log(tmp_path)
    record = tmp_path / "record"
    pager = f"printf '%s' \"$LESS\" > {record}.less; cat > {record}.text"
    # CHATPIPE_PAGER wins over PAGER; LESS=FRX when the user set none
    out, code = _on_a_terminal(["show", log], {"CHATPIPE_PAGER": pager, "PAGER": "false"})
    assert (code, out) == (0, b"")
    assert (tmp_path / "record.less").read_text() == "FRX"
    paged = (tmp_path / "record.text").read_bytes()
    assert b"message 0" in paged and b"message 11" in paged and b"\x1b[35m" in paged
    # the user's LESS is kept, and PAGER is used when CHATPIPE_PAGER is not set
    out, code = _on_a_terminal(["show", log], {"PAGER": pager, "LESS": "-S"})
    assert (code, out) == (0, b"")
    assert (tmp_path / "record.less").read_text() == "-S"
    # no pager: PAGER=cat or empty, and --no-pager, print to the terminal itself
    for env, argv in (
        ({"PAGER": "cat"}, ["show", log]),
        ({"CHATPIPE_PAGER": ""}, ["show", log]),
        ({"PAGER": pager}, ["show", "--no-pager", log]),
    ):
        (tmp_path / "record.less").unlink(missing_ok=True)
        out, code = _on_a_terminal(argv, env)
        assert code == 0
        assert b"message 0" in out and b"message 11" in out, env
        assert not (tmp_path / "record.less").exists()


def test_a_pager_that_cannot_run_is_said_and_the_transcript_printed(tmp_path):
    out, code = _on_a_terminal(["show", _long_log(tmp_path)], {"PAGER": "no-such-pager-here"})
    assert code == 0
    assert b"no-such-pager-here: not found" in out  # the shell's own word
    assert b"chatpipe: the pager 'no-such-pager-here' could not be run; printing without it" in out
    assert b"message 0" in out and b"message 11" in out


def test_escapes_in_the_data_never_reach_the_terminal(tmp_path):
    """OSC 0 (the window title), CSI, C1 and bidi overrides from message text, names and
    titles are shown written out (#44)."""
    import json

    path = tmp_path / "osc.jsonl"
    record = {
        "title": "t\x1b]0;PWNED\x07",
        "messages": [
            {"role": "user", "name": "n\x1b[2J", "content": "hi \x1b]0;PWNED\x07 there\r\nok"},
            {"role": "assistant", "content": "csi \x9b31m, rlo \u202eabc, bell \x07, cr \r."},
            {"role": "tool", "tool_call_id": "c\x1b[1A", "content": '{"k\\u009b": "v\\u001b"}'},
        ],
    }
    path.write_text(json.dumps(record) + "\n")
    result = runner.invoke(app, ["show", str(path)], env={**ENV, "COLUMNS": "70"})
    assert (result.exit_code, result.stderr) == (0, "")
    assert [line.rstrip() for line in result.stdout.splitlines()] == [
        "───────────────────────── t\\x1b]0;PWNED\\x07 ──────────────────────────",
        "╭─ User · n\\x1b[2J ──────────────────────────────────────────────────╮",
        "│ hi \\x1b]0;PWNED\\x07 there                                          │",
        "│ ok                                                                 │",
        "╰─────────────────────────────────────────────────────────────── #1 ─╯",
        "╭─ Assistant ────────────────────────────────────────────────────────╮",
        "│ csi \\x9b31m, rlo \\u202eabc, bell \\x07, cr \\r.                      │",
        "╰─────────────────────────────────────────────────────────────── #2 ─╯",
        "╭─ Tool · result of c\\x1b[1A ────────────────────────────────────────╮",
        "│ {                                                                  │",
        '│   "k\\x9b": "v\\u001b"                                               │',
        "│ }                                                                  │",
        "╰─────────────────────────────────────────────────────────────── #3 ─╯",
    ]


def _one_line_paragraph(tmp_path, size: int) -> str:
    import json

    path = tmp_path / "paragraph.jsonl"
    path.write_text(json.dumps({"role": "user", "content": "word " * (size // 5)}) + "\n")
    return str(path)


def test_a_long_line_is_folded_to_a_screenful(tmp_path):
    """A 100 KB paragraph on one line printed 1,340 rows: a line is folded as lines are
    (#51), and the note says how much is left."""
    result = runner.invoke(app, ["show", _one_line_paragraph(tmp_path, 100_000)], env=ENV)
    assert (result.exit_code, result.stderr) == (0, "")
    rows = [line.rstrip() for line in result.stdout.splitlines()]
    assert len(rows) <= 20
    shown = sum(row.count("word") for row in rows)
    assert rows[-2].startswith(f"│ … {100_000 - 5 * shown:,} more characters (--full shows them)")


def test_a_fold_counts_lines_and_characters_left():
    from chatpipe.cli.folding import fold

    assert fold("short", 10) == ("short", "")
    text = "\n".join(["x" * 25, *("y" * 5 for _ in range(20))])
    shown, note = fold(text, 10, rows=4)  # three rows for the first line, then one
    assert (shown, note) == ("x" * 25 + "\nyyyyy", "… 19 more lines (--full shows them)")
    shown, note = fold("ab " * 30 + "\nz\nz", 10, rows=2)  # cut at a space in the first line
    assert (shown, note) == ("ab " * 6, "… 76 more characters, in 3 lines (--full shows them)")
    assert fold("日本語" * 20, 10, rows=1)[0] == "日本語日本"  # five wide characters fill ten cells
    # a fold that would hide a line or two shows them instead
    assert fold("a\nb\nc\nd", 10, rows=2) == ("a\nb\nc\nd", "")


def test_full_hands_rich_one_row_at_a_time(tmp_path, monkeypatch):
    """Rich splits a segment into rows by copying what is left of it at each line end: one
    segment holding a long paragraph's rows cost n²/width (8 MB took 21 s). Every segment
    that reaches the splitting holds one row at most."""
    from rich.segment import Segment

    split = Segment.split_and_crop_lines.__func__
    most = []

    def spy(cls, segments, *args, **kwargs):
        segments = list(segments)
        most.append(max((s.text.count("\n") for s in segments), default=0))
        return split(cls, segments, *args, **kwargs)

    monkeypatch.setattr(Segment, "split_and_crop_lines", classmethod(spy))
    path = _one_line_paragraph(tmp_path, 20_000)
    result = runner.invoke(app, ["show", "--full", path], env=ENV)
    assert (result.exit_code, result.stderr) == (0, "")
    assert len(result.stdout.splitlines()) > 20_000 // 60  # the whole paragraph
    assert most and max(most) <= 1
