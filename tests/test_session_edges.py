"""What agent session readers met and passed over without a word (issue #51, item 17): a
Claude Code line repeating a uuid with another message, a Gemini CLI ``$rewindTo`` naming
no message, a Codex line of a type added after the reader."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()


def run(*args):
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def records(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_a_claude_code_line_repeating_a_uuid_with_another_message_is_said(tmp_path):
    source = FIXTURES / "claude_code__derived_rewind_compaction_subagent.jsonl"
    lines = source.read_text(encoding="utf-8").splitlines()
    again = json.loads(lines[2])  # "First attempt", uuid b1u
    again["message"] = {"role": "user", "content": [{"type": "text", "text": "Other text"}]}
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join([*lines, json.dumps(again)]) + "\n", encoding="utf-8")
    code, out, err = run("convert", "--branch", "all", path)
    assert code == 0, err
    # the tree holds one line an id, the first: the other's text is in no conversation
    assert "Other text" not in out
    assert (
        "warning: lines that repeat an earlier line's uuid with another message (the first "
        "is read): " in err
    )
    # the same line twice (as a copied file has it) is no news
    path.write_text("\n".join([*lines, lines[2]]) + "\n", encoding="utf-8")
    code, _, err = run("convert", "--branch", "all", path)
    assert code == 0 and "uuid" not in err, err


def test_a_gemini_cli_rewind_to_no_known_message_is_said_at_its_line(tmp_path):
    source = FIXTURES / "gemini_cli__derived_jsonl_set_rewrite_rewind.jsonl"
    lines = source.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join([*lines, '{"$rewindTo": "no-such-id"}']) + "\n", encoding="utf-8")
    code, out, err = run("convert", path)
    # was: exit 0, the conversation emptied of every message
    assert code == 1 and out == ""
    assert err == (
        f"chatpipe: error: {path}:{len(lines) + 1}:1: $rewindTo names no message of the "
        "session before it ('no-such-id') (the file is cut or damaged; --on-error skip reads "
        "on without the line)\n"
    )
    code, out, err = run("convert", "--on-error", "skip", path)
    assert code == 0, err
    assert records(out) == records(run("convert", source)[1])  # the messages all kept
    assert f"skipped: {path}:{len(lines) + 1}:1: $rewindTo names no message" in err


def test_a_codex_line_of_a_new_type_is_kept_as_a_note_and_said_under_v(tmp_path):
    source = FIXTURES / "codex__documented_compacted_local_shell_aborted_call.jsonl"
    lines = source.read_text(encoding="utf-8").splitlines()
    new = {"timestamp": "2025-09-20T10:00:02.000Z", "type": "turn_state", "payload": {"n": 1}}
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join([lines[0], lines[1], json.dumps(new), *lines[2:]]) + "\n")
    # was: "not a Codex rollout line", the whole session failed
    code, out, err = run("convert", path)
    assert code == 0, err
    [read] = records(out)
    [before] = records(run("convert", source)[1])
    assert read["messages"] == before["messages"]
    kept = [note for note in read["notes"] if note.get("type") == "turn_state"]
    assert kept == [{"at": 1, **new}]
    code, _, err = run("convert", "-v", path)
    assert code == 0
    assert (
        f"chatpipe: {path}:3:1: Codex lines of type 'turn_state', a type this reader does not "
        "know: kept as notes\n" in err
    )
    # a line of no rollout shape at all is still bad
    path.write_text("\n".join([lines[0], '{"type": "x"}', *lines[1:]]) + "\n")
    code, _, err = run("convert", path)
    assert code == 1 and f"{path}:2:1: not a Codex rollout line" in err
