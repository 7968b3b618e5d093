"""Markdown for people: ``--to markdown --output-dir DIR`` writes a note per conversation
with YAML front matter, as exports are kept in Obsidian; a transcript's dates are ISO,
its attachments named, ChatGPT's ``file-service://`` images named, not broken links, its
Claude artifacts fenced under their titles (#41)."""

from __future__ import annotations

import json
import re

import yaml
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()


def run(*args):
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def front(text: str) -> tuple[dict, str]:
    assert text.startswith("---\n")
    head, body = text[4:].split("\n---\n\n", 1)
    return yaml.safe_load(head), body


def test_output_dir_writes_a_note_per_conversation(tmp_path):
    out = tmp_path / "vault"
    sources = [
        FIXTURES / "chatgpt_export__derived_branch_with_image_part.json",
        FIXTURES / "claude_export__documented_pasted_file_attachment.json",
        FIXTURES / "chatgpt_export__documented_o3_thoughts_reasoning_recap.json",
        FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl",
    ]
    code, stdout, err = run(
        "convert", "--to", "markdown", "--branch", "all", "--output-dir", out, *sources
    )
    assert (code, stdout) == (0, ""), err
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        # a tree's two branches: one title, made unique
        "2024-01-01 Sample conversation with branch (2).md",
        "2024-01-01 Sample conversation with branch.md",
        "2024-10-29 Interactive Bakery Comparison Visualization.md",
        "2025-05-11 Decimal comparison.md",
        # dataset rows: no title, no date: named by their first question
        "Conversation 8.md",  # the run's eighth conversation
        "I fell off my bike today.md",
        "I lost my book today.md",
        "I lost my tennis match today.md",
        "I'm hungry.md",
    ]
    fields, body = front((out / "2025-05-11 Decimal comparison.md").read_text())
    assert fields == {
        "title": "Decimal comparison",
        "id": "6a2b0c11-3d4e-8f50-a617-b8c9d0e1f203",
        "created": yaml.safe_load("2025-05-11T21:46:40Z"),
        "updated": yaml.safe_load("2025-05-11T21:46:45Z"),
        "model": "o3",
        "source": str(sources[2]),
    }
    assert body == (
        "# Decimal comparison\n\n### User\n\nWhich is larger, 9.11 or 9.9?\n\n"
        "### Assistant\n\n> 9.9 is 9.90, and 9.90 is more than 9.11, so 9.9 is larger.\n\n"
        "### Assistant\n\n*Thought for 4 seconds*\n\n"
        "### Assistant\n\n> Older exports put the thought text in parts.\n\n"
        "### Assistant\n\n9.9 is larger than 9.11.\n"
    )
    # the dates are YAML timestamps: a notes app sorts by them
    text = (out / "2025-05-11 Decimal comparison.md").read_text()
    assert "\ncreated: 2025-05-11T21:46:40Z\nupdated: 2025-05-11T21:46:45Z\n" in text
    fields, body = front((out / "I fell off my bike today.md").read_text())
    assert fields == {
        "title": "I fell off my bike today.",
        "source": str(sources[3]),
    }
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".chatpipe-")]


def test_note_names_are_safe_and_unique():
    from chatpipe.render.notes import note_name, unique

    taken: set[str] = set()
    names = [
        unique(note_name(title, created), taken)
        for title, created in [
            ('a/b\\c: "d"? <e> |f| #g ^h [[i]]', "2024-05-01T10:00:00Z"),
            ("  .hidden  ", None),
            ("CON", None),
            ("Same", "2024-05-01T10:00:00Z"),
            ("same", "2024-05-01T11:00:00Z"),
            ("evil\u202egpj.md", None),
            ("é" * 200, None),
            ("", None),
        ]
    ]
    assert names == [
        "2024-05-01 a b c d e f g h i.md",
        "hidden.md",
        "CON_.md",
        "2024-05-01 Same.md",
        "2024-05-01 same (2).md",  # a case-insensitive file system would mix them up
        "evil gpj.md.md",
        "é" * 60 + ".md",
        "Untitled.md",
    ]


def test_a_title_that_yaml_would_misread_is_quoted(tmp_path):
    log = tmp_path / "odd.json"
    log.write_text(
        '{"title": "yes: no # \\"quoted\\"\\nnext", "id": 7, "create_time": 1704067200,'
        ' "messages": [{"role": "user", "content": "hi"}]}'
    )
    out = tmp_path / "n"
    code, _, err = run("convert", "--to", "markdown", "--output-dir", out, log)
    assert code == 0, err
    [note] = out.iterdir()
    assert note.name == "2024-01-01 yes no quoted next.md"
    fields, _ = front(note.read_text())
    assert fields["title"] == 'yes: no # "quoted"\nnext'
    assert fields["id"] == "7"


HOSTILE_TITLE = 'a\n# Injected heading\n\n---\nb\x7fc\x85d\u2028e\x9b[2J\ufeff\\ "q"'


def test_a_title_of_control_characters_and_line_breaks_stays_a_title(tmp_path):
    """A title holding line breaks added its own headings and rules to a note, and the
    hand-written front matter broke on DEL and C1 characters (yaml.safe_load raised on
    "a\x7fb"): written by YAML's own writer, it reads back as it was (#51)."""
    log = tmp_path / "odd.json"
    record = {"title": HOSTILE_TITLE, "id": "i\nd", "create_time": 1704067200}
    record["messages"] = [{"role": "user", "content": "hi", "name": "x\n# y"}]
    log.write_text(json.dumps(record))
    out = tmp_path / "n"
    code, _, err = run("convert", "--to", "markdown", "--output-dir", out, log)
    assert code == 0, err
    [note] = out.iterdir()
    fields, body = front(note.read_text(encoding="utf-8"))
    assert fields["title"] == HOSTILE_TITLE and fields["id"] == "i\nd"
    heading = " ".join(HOSTILE_TITLE.split())
    assert body.splitlines()[0] == f"# {heading}"
    assert [line for line in body.splitlines() if line.startswith("#")] == [
        f"# {heading}",
        "### User (x # y)",
    ]
    assert "---" not in body.splitlines()
    # and the transcript of the same, on stdout: one title, its facts a line each
    code, text, err = run("convert", "--to", "markdown", log)
    assert code == 0, err
    assert [line for line in text.splitlines() if line.startswith("#")] == [
        f"# {heading}",
        "### User (x # y)",
    ]
    assert "- id: i d" in text.splitlines()


def test_one_transcript_names_attachments_and_missing_images_and_dates_iso():
    code, out, _ = run(
        "convert",
        "--to",
        "markdown",
        FIXTURES / "claude_export__documented_pasted_file_attachment.json",
    )
    assert code == 0
    assert out.startswith(
        "# Interactive Bakery Comparison Visualization\n\n"
        "- id: 8006a434-8b0b-43df-8e6d-c0a7aeb2e6b3\n"
        "- created: 2024-10-29T15:59:18Z\n"
        "- updated: 2024-10-29T16:02:16Z\n"
        "- model: claude-3-5-sonnet-20240620\n\n### User\n\n"
    )
    assert "*[attached: image (image, 935×1247)]*" in out
    assert "*[attached: bakeries.csv (text/csv, 118 B)]*" in out
    # Claude's thinking quoted, its artifact fenced under its title
    assert (
        "> *Reasoning:* This mind map-style comparison would work well as an interactive React"
    ) in out
    assert "**Interactive Bakery Comparison** (artifact `bakery-comparison`)\n\n```jsx\n" in out
    assert "<antArtifact" not in out and "<antThinking" not in out
    code, out, _ = run(
        "convert",
        "--to",
        "markdown",
        "--branch",
        "all",
        FIXTURES / "chatgpt_export__derived_branch_with_image_part.json",
    )
    assert code == 0
    assert (
        "### User\n\n*[image: file-service://file-6zq2zmFSnwi6Z6jNDdVqg9 (235.6 kB, not in "
        "the export)]*\n\nActually, can you help me with Python instead?"
    ) in out
    assert "](file-service://" not in out


def test_a_log_read_as_a_stream_is_named_by_its_first_question():
    """A message-per-line log is read once: the messages up to its first question name it
    and are written all the same, in order."""
    log = FIXTURES / "agent_session.jsonl"
    code, out, _ = run("convert", "--to", "markdown", log)
    assert code == 0
    assert out.startswith(
        "# Why does test_line_3 fail on CI but not locally?\n\n### System\n\n"
        "You are a coding assistant working in a Python repository. Use the tools to read "
        "and run code; keep answers short.\n\n### User\n\n"
        "Why does test_line_3 fail on CI but not locally?\n\n### Assistant\n\n"
        "Tool call `read_file` (`call_001`):\n\n"
        '```json\n{\n  "path": "src/billing/invoice.py"\n}\n```\n\n'
    )
    lines = log.read_text().splitlines()
    assert out.count("\n### ") == len(lines)


def test_a_tool_call_is_written_once_whatever_the_dialect():
    """Anthropic-shaped input holds a call twice, as a tool_use block and as the message's
    tool call: the transcript wrote a bare JSON block, then "Tool call `X`" (#51)."""
    for name in (
        "claude_code__entire_2026_task_agent_progress_lines11_30_53_66.jsonl",
        "anthropic_messages__pydanticai_req_system_parallel_tool_use_results.json",
        "anthropic_messages__derived_bare_array_thinking_tool_use_tool_result.json",
    ):
        code, out, _ = run("convert", "--to", "markdown", FIXTURES / name)
        assert code == 0
        calls = re.findall(r"Tool call `[^`]+` \(`([^`]+)`\)", out)
        assert calls and len(calls) == len(set(calls)), name
        assert '"arguments":' not in out, name  # the tool_use block's own rendering


def test_a_failed_tool_result_is_marked_failed(tmp_path):
    """A Gemini CLI call whose status is error was written as any result (#51)."""
    session = json.loads((FIXTURES / "gemini_cli__entire_2026_session_tools_info.json").read_text())
    calls = [c for m in session["messages"] for c in m.get("toolCalls") or []]
    calls[0]["status"] = "error"
    path = tmp_path / "session.json"
    path.write_text(json.dumps(session))
    code, out, _ = run("convert", "--to", "markdown", path)
    assert code == 0
    headings = [line for line in out.splitlines() if " — result of `" in line]
    assert headings[0] == f"### Tool ({calls[0]['name']}) — result of `{calls[0]['id']}` (failed)"
    assert len(headings) == len(calls) and not any("failed" in h for h in headings[1:])
