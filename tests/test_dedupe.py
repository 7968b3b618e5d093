"""``chatpipe dedupe``: a corpus built with known duplicates, every one found and no more;
the two passes for parts give what one pass gives."""

from __future__ import annotations

import json
import random

from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.formats.coerce import convert_to_messages
from chatpipe.model import AIMessage, Conversation, HumanMessage, SystemMessage, ToolMessage
from chatpipe.ops.dedupe import Deduper, FirstSeen, dedupe, digests
from chatpipe.ops.digest import normalise
from conftest import FIXTURES

runner = CliRunner()
EXPORT = str(FIXTURES / "chatgpt_export__pkuppens_2023_conversations_subset.json")


def corpus(seed: int = 4) -> tuple[list[str], dict[int, int]]:
    """200 distinct conversations and 60 copies of some of them, each copy written
    differently (ids, timestamps, whitespace, key order, NFD accents); which line each
    copy repeats (0-based line numbers)."""
    rnd = random.Random(seed)
    originals = []
    for i in range(200):
        originals.append(
            [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": f"Café question {i}: what is {i} × {i % 7}?"},
                {"role": "assistant", "content": f"It is {i * (i % 7)}.\n\nAnything else?"},
            ]
        )
    lines = [json.dumps({"id": f"o{i}", "messages": m}) for i, m in enumerate(originals)]
    repeats: dict[int, int] = {}
    for n in range(60):
        i = rnd.randrange(200)
        messages = json.loads(json.dumps(originals[i]))
        messages[1]["content"] = "  " + messages[1]["content"].replace("é", "e\u0301") + " "
        messages[2]["content"] = messages[2]["content"].replace("\n\n", "\n \t\n")
        row = {"created": 1700000000 + n, "messages": messages, "id": f"copy{n}"}
        lines.append(json.dumps(row, ensure_ascii=bool(n % 2)))
        repeats[len(lines) - 1] = i
    # near misses: not duplicates
    lines.append(
        json.dumps({"messages": [*originals[0][:2], {"role": "assistant", "content": "It is 0"}]})
    )
    lines.append(json.dumps({"messages": originals[1][1:]}))
    return lines, repeats


def test_every_duplicate_found_and_no_more(tmp_path):
    lines, repeats = corpus()
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = tmp_path / "r.json"
    result = runner.invoke(app, ["dedupe", "--report", str(report), str(path)])
    assert result.exit_code == 0, result.stderr
    kept = [json.loads(x)["messages"] for x in result.stdout.splitlines()]
    expected = [json.loads(x)["messages"] for n, x in enumerate(lines) if n not in repeats]
    assert kept == expected
    assert (
        result.stderr
        == f"chatpipe: dedupe: dropped 60 duplicates of {len(lines)} conversations (by conversation)\n"
    )
    made = json.loads(report.read_text())
    assert made["dropped"] == 60 and made["conversations"] == len(lines)
    assert made["duplicates"] == [
        {"dropped": f"copy{n - 200}", "duplicate_of": f"o{i}"} for n, i in sorted(repeats.items())
    ]


def test_two_passes_over_parts_give_one_pass(tmp_path):
    lines, repeats = corpus(9)
    rows = [Conversation(convert_to_messages(json.loads(x)["messages"]), {}) for x in lines]
    parts = [rows[:70], rows[70:140], rows[140:]]
    seen = FirstSeen()
    for number, part in reversed(list(enumerate(parts))):  # combined in any order
        seen.combine(((d, (number, p)) for d, p in digests(part)))
    assert seen.dropped == len(repeats)
    second = [
        c
        for number, part in enumerate(parts)
        for (d, p), c in zip(digests(part), part, strict=True)
        if seen.kept(d, (number, p))
    ]
    assert second == list(dedupe(rows))
    assert len(second) == len(rows) - len(repeats)


def test_by_prompt_and_by_messages():
    ask = [SystemMessage("s"), HumanMessage("q")]
    rows = [
        Conversation([*ask, AIMessage("first answer")], {"id": "a"}),
        Conversation([*ask, AIMessage("another answer")], {"id": "b"}),
        Conversation([HumanMessage("q")], {"id": "c"}),  # no assistant turn: all prompt
        Conversation([HumanMessage("q ")], {"id": "d"}),
    ]
    assert [c.meta["id"] for c in dedupe(rows, by="prompt")] == ["a", "c"]
    assert [c.meta["id"] for c in dedupe(rows)] == ["a", "b", "c"]
    call = {"name": "ls", "args": {}, "id": "1", "type": "tool_call"}
    log = [
        HumanMessage("hi"),
        HumanMessage(" hi"),
        AIMessage("", tool_calls=[call]),
        ToolMessage("x", tool_call_id="1"),
        AIMessage("", tool_calls=[{**call, "id": "2"}]),  # another call: kept
        ToolMessage("x", tool_call_id="2"),
        ToolMessage("x", tool_call_id="1"),  # the same result again
    ]
    keep = Deduper("messages", report=True)
    out = keep(Conversation(iter(log), {"id": "s"}))
    assert out.messages == [log[0], *log[2:6]]
    assert keep.dropped.message_count == 2
    assert keep.dropped.messages == [("s", [(1, 0), (6, 3)])]


def test_by_messages_and_by_prompt_on_the_command_line(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text(
        '{"role":"user","content":"hi"}\n{"role":"user","content":"hi"}\n'
        '{"role":"assistant","content":"yo"}\n',
        encoding="utf-8",
    )
    report = tmp_path / "r.json"
    result = runner.invoke(app, ["dedupe", "--by", "messages", "--report", str(report), str(log)])
    assert result.stdout == '{"role":"user","content":"hi"}\n{"role":"assistant","content":"yo"}\n'
    assert result.stderr == "chatpipe: dedupe: dropped 1 repeated message in 1 conversation\n"
    assert json.loads(report.read_text()) == {
        "by": "messages",
        "conversations": 1,
        "messages_dropped": 1,
        "repeats": [{"conversation": f"{log}:1:1", "dropped": [{"message": 1, "repeats": 0}]}],
    }
    same = runner.invoke(
        app, ["dedupe", "-q", "--by", "prompt", EXPORT, EXPORT, "--to", "canonical"]
    )
    assert [json.loads(x)["id"] for x in same.stdout.splitlines()] == runner.invoke(
        app, ["select", "--ids", EXPORT]
    ).stdout.splitlines()
    bad = runner.invoke(app, ["dedupe", "--by", "words", EXPORT])
    assert (bad.exit_code, bad.stderr) == (
        2,
        "chatpipe: error: --by must be conversation, prompt or messages, got 'words'\n",
    )


def test_normalised_text():
    assert normalise(" a\u00a0 b\n\tc ") == "a b c"
    assert normalise("Cafe\u0301") == "Café"
