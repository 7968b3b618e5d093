"""``chatpipe redact``: planted fake secrets of every kind found in texts, tool arguments
and results; clean corpora (the bench's, the fixtures' texts) left as they are.

The fake values are put together here from pieces, so that no file of the repository
holds a string a secret scanner would take for a real key."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.model import AIMessage, Conversation, HumanMessage, ToolMessage
from chatpipe.ops.redact import Redactor, find, redact
from chatpipe.ops.redact_patterns import KINDS, Scanner, luhn
from conftest import FIXTURES, ROOT

runner = CliRunner()
MIX = "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF"


def rep(text: str, n: int) -> str:
    return (text * (n // len(text) + 1))[:n]


# kind -> (the text planted, the value it holds)
PLANTED = {
    "PRIVATE_KEY": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"
    + rep(MIX, 40)
    + "\n-----END OPENSSH PRIVATE KEY-----",
    "ANTHROPIC_KEY": "sk-ant-" + "api03-" + rep(MIX, 93) + "AA",
    "OPENAI_KEY": "sk-" + "proj-" + rep(MIX, 40) + "T3Blbk" + "FJ" + rep(MIX, 40),
    "STRIPE_KEY": "rk_" + "live_" + rep(MIX, 24),
    "GITHUB_TOKEN": "github_" + "pat_" + rep(MIX, 22) + "_" + rep(MIX, 59),
    "GITLAB_TOKEN": "glpat" + "-" + rep(MIX, 20),
    "HF_TOKEN": "hf" + "_" + rep("AbcdEfghIjklMnopQ", 34),
    "NPM_TOKEN": "npm" + "_" + rep(MIX, 36),
    "PYPI_TOKEN": "pypi" + "-AgEIcHlwaS5vcmc" + rep(MIX, 70),
    "SLACK_TOKEN": "xoxb" + "-2401234567-2401234567890-" + rep(MIX, 24),
    "GOOGLE_OAUTH": "GOCSPX" + "-" + rep(MIX, 28),
    "GOOGLE_API_KEY": "AI" + "za" + rep(MIX, 35),
    "AWS_ACCESS_KEY": "AK" + "IA" + "Z7Q2XK4M6P8R0T3V",
    "AWS_SECRET_KEY": "aws_secret_access_key = " + rep("wJalrXUtnFEMI/K7MDENG+bPxRfiCY", 40),
    "SENDGRID_KEY": "SG" + "." + rep(MIX, 22) + "." + rep(MIX, 43),
    "JWT": "ey" + "JhbGciOiJIUzI1NiJ9.ey" + "JzdWIiOiIxMjM0NTY3ODkwIn0." + rep(MIX, 43),
    "BEARER_TOKEN": "Authorization: Bearer " + rep(MIX, 40),
    "URL_PASSWORD": "postgres://app:" + "s3cr3t-Pa55" + "@db.internal.example:5432/app",
    "EMAIL": "maria.garcia+work@correo.example.es",
    "PHONE": "+49 30 901820 44",
    "IP_ADDRESS": "198.51.100.23",
    "CARD_NUMBER": "4539 1488 0343 6467",
}
VALUES = {
    **PLANTED,
    "AWS_SECRET_KEY": rep("wJalrXUtnFEMI/K7MDENG+bPxRfiCY", 40),
    "BEARER_TOKEN": rep(MIX, 40),
    "URL_PASSWORD": "s3cr3t-Pa55",
}


def test_every_kind_is_planted_and_the_card_is_luhn_valid():
    assert sorted(PLANTED) == sorted(KINDS)
    assert luhn(PLANTED["CARD_NUMBER"].replace(" ", ""))


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_found_alone_in_a_sentence(kind):
    text = f"Here it is: {PLANTED[kind]} (keep it safe)."
    found = [(m.kind, text[m.start : m.end]) for m in Scanner().scan(text)]
    assert found == [(kind, VALUES[kind])]


def _planted_rows() -> list[dict]:
    rows = []
    for number, (kind, text) in enumerate(PLANTED.items()):
        rows.append(
            {
                "id": f"r{number}",
                "messages": [
                    {"role": "user", "content": f"use {text} please"},
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {
                                    "name": "call",
                                    "arguments": json.dumps({"value": text, "n": [1, {"k": text}]}),
                                },
                            }
                        ],
                    },
                    {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"echo": text})},
                    {"role": "assistant", "content": f"done ({kind})"},
                ],
            }
        )
    return rows


def test_planted_corpus_all_found_in_texts_arguments_and_results(tmp_path):
    path = tmp_path / "planted.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _planted_rows()), encoding="utf-8")
    report = tmp_path / "report.json"
    result = runner.invoke(app, ["redact", "--report", str(report), str(path)])
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    for value in VALUES.values():
        assert value not in out
    rows = [json.loads(x) for x in out.splitlines()]
    for row, kind in zip(rows, PLANTED, strict=True):
        user, call, tool, _ = row["messages"]
        assert (
            user["content"] == "use " + PLANTED[kind].replace(VALUES[kind], f"[{kind}]") + " please"
        )
        arguments = json.loads(call["tool_calls"][0]["function"]["arguments"])  # still JSON
        placed = PLANTED[kind].replace(VALUES[kind], f"[{kind}]")
        assert arguments == {"value": placed, "n": [1, {"k": placed}]}
        assert json.loads(tool["content"]) == {"echo": placed}
    n = len(KINDS)
    counts = ", ".join(f"{kind} 4" for kind in KINDS)
    assert result.stderr == f"chatpipe: redact: replaced {4 * n} values: {counts}\n"
    assert json.loads(report.read_text()) == {
        "dry_run": False,
        "replaced": 4 * n,
        "by_kind": dict.fromkeys(KINDS, 4),
    }


def test_dry_run_lists_each_hit_with_its_place(tmp_path):
    path = tmp_path / "planted.jsonl"
    path.write_text(json.dumps(_planted_rows()[18]) + "\n", encoding="utf-8")  # the e-mail
    result = runner.invoke(app, ["redact", "--dry-run", str(path)])
    value = VALUES["EMAIL"]
    assert result.stdout.splitlines() == [
        f"r18: messages[0].content: EMAIL: {value}",
        f"r18: messages[1].tool_calls[0].args.value: EMAIL: {value}",
        f"r18: messages[1].tool_calls[0].args.n[1].k: EMAIL: {value}",
        f"r18: messages[2].content: EMAIL: {value}",
    ]
    assert result.stderr == "chatpipe: redact: would replace 4 values: EMAIL 4\n"
    as_json = runner.invoke(app, ["redact", "--dry-run", "--json", str(path)])
    assert json.loads(as_json.stdout.splitlines()[0]) == {
        "conversation": "r18",
        "place": "messages[0].content",
        "kind": "EMAIL",
        "value": value,
        "start": 4,
        "end": 4 + len(value),
    }


def test_hash_mask_links_mentions_and_skip_leaves_a_kind():
    redactor = Redactor(mask="hash", key="k")
    conversation = Conversation(
        [
            HumanMessage("mail a@example.com or b@example.com"),
            AIMessage(
                "", tool_calls=[{"name": "send", "args": {"to": "a@example.com"}, "id": "1"}]
            ),
            ToolMessage("sent to a@example.com from 198.51.100.23", tool_call_id="1"),
        ],
        {"title": "a@example.com"},
    )
    out = redactor(conversation)
    tag_a = redactor.placeholder("EMAIL", "a@example.com")
    tag_b = redactor.placeholder("EMAIL", "b@example.com")
    assert tag_a != tag_b and tag_a.startswith("[EMAIL:") and len(tag_a) == 16
    assert out.meta == {"title": tag_a}
    assert out.messages[0].content == f"mail {tag_a} or {tag_b}"
    assert out.messages[1].tool_calls[0]["args"] == {"to": tag_a}
    ip = redactor.placeholder("IP_ADDRESS", "198.51.100.23")
    assert out.messages[2].content == f"sent to {tag_a} from {ip}"
    assert Redactor(mask="hash", key="k").placeholder("EMAIL", "a@example.com") == tag_a
    assert Redactor(mask="hash", key="other").placeholder("EMAIL", "a@example.com") != tag_a
    (kept,) = redact([conversation], skip=["ip-address"])
    assert kept.messages[2].content == "sent to [EMAIL] from 198.51.100.23"
    assert conversation.messages[0].content == "mail a@example.com or b@example.com"  # untouched
    assert [h.kind for h in find([conversation], kinds=["IP_ADDRESS"])] == ["IP_ADDRESS"]


LOOK_ALIKES = [
    "version 1.2.3.4 of the tool",
    "on 2024-05-01 at 10:30:00Z",
    "uuid afc2ca17-1d04-40bd-a700-3f321a25f49b",
    "std::vector<int> and a::b::c",
    "git@github.com:owner/repo.git",
    "timestamp 1686298204.422605 and 1695326273969279",
    "order 1234567890123456 (not Luhn)",
    "localhost 127.0.0.1, mask 255.255.255.0, any 0.0.0.0",
    "pi 3,141,592,653 and 1.5e10",
    "ISBN 978-3-16-148410-0",
    "file_v2.3.1_build-1234567",
    "sk-learn, hf_hub_download, npm_config, the bearer of news",
    "@app.route('/x') and user@localhost",
    "12:30:45 and 00:1a:2b:3c:4d:5e",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "https://example.com/path?a=1&b=2 and ftp://ftp.example.org/pub",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_left_alone(text):
    assert list(Scanner().scan(text)) == []


def test_clean_corpora_pass_through_unchanged(tmp_path):
    corpus = tmp_path / "rows.jsonl"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "corpus.py"), "3000", str(corpus), "--rows"],
        check=True,
    )
    # (redact writes the input's own dialect as it came: every field its reader kept)
    keep = ["convert", "--to", "openai", "--keep-extras", str(corpus)]
    converted = runner.invoke(app, keep).stdout
    result = runner.invoke(app, ["redact", str(corpus)])
    assert result.stdout == converted
    assert result.stderr == "chatpipe: redact: found nothing to replace\n"
    for name in (
        "agent_session.jsonl",
        "chatgpt_export__pkuppens_2023_conversations_subset.json",
        "claude_export__yaleman_2025_thinking.json",
        "gemini__pydanticai_req_function_call_response.json",
    ):
        same = runner.invoke(app, ["redact", "--dry-run", str(FIXTURES / name)])
        assert (same.stdout, same.stderr) == ("", "chatpipe: redact: found nothing to replace\n")


def test_bad_options():
    for args, said in (
        (["--mask", "stars"], "--mask must be kind or hash, got 'stars'"),
        (["--skip", "SSN"], "'SSN' is not a kind redact finds"),
    ):
        result = runner.invoke(app, ["redact", *args, str(FIXTURES / "agent_session.jsonl")])
        assert result.exit_code == 2
        assert result.stderr.startswith(f"chatpipe: error: {said}")


# -- what is text and what is binary data (#51) -----------------------------------------

TOKEN = PLANTED["GITHUB_TOKEN"]


def _redacted(tmp_path, name: str, text: str) -> tuple[str, str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["redact", str(path)])
    assert result.exit_code == 0, result.stderr
    return result.stdout, result.stderr


def test_a_message_that_starts_with_data_colon_is_text(tmp_path):
    # a pasted server-sent event line is text; only a data:<mime>;base64, URL is binary
    line = {"role": "user", "content": f'data: {{"key": "{TOKEN}", "mail": "bob@example.com"}}'}
    out, said = _redacted(tmp_path, "sse.jsonl", json.dumps(line) + "\n")
    assert TOKEN not in out and "bob@example.com" not in out
    assert json.loads(out)["content"] == 'data: {"key": "[GITHUB_TOKEN]", "mail": "[EMAIL]"}'
    assert said == "chatpipe: redact: replaced 2 values: GITHUB_TOKEN 1, EMAIL 1\n"
    redactor = Redactor()
    assert redactor.string("data:text/plain,bob@example.com") == "data:text/plain,[EMAIL]"
    image = (
        "data:image/png;base64," + "AK" + "IA" + "Z7Q2XK4M6P8R0T3V"
    )  # base64 that looks like a key
    assert redactor.string(image) == image
    assert redactor.string(image + " mail bob@example.com") == image + " mail [EMAIL]"


def test_data_fields_are_scanned_unless_they_are_a_media_payload(tmp_path):
    payload = "AK" + "IA" + "Z7Q2XK4M6P8R0T3V" + "iVBORw0KGgo="  # base64 that looks like a key
    request = {
        "model": "claude",
        "max_tokens": 5,
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "document",
                        "source": {
                            "type": "text",
                            "media_type": "text/plain",
                            "data": f"mail bob@example.com key {TOKEN}",
                        },
                    },
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": payload},
                    },
                ],
            }
        ],
    }
    out, said = _redacted(tmp_path, "anthropic.json", json.dumps(request))
    blocks = json.loads(out)["messages"][0]["content"]
    assert blocks[0]["source"]["data"] == "mail [EMAIL] key [GITHUB_TOKEN]"
    assert blocks[1]["source"]["data"] == payload
    assert said == "chatpipe: redact: replaced 2 values: GITHUB_TOKEN 1, EMAIL 1\n"
    # an AI SDK data-* part (kept as a non_standard block) holds text too
    ui = {
        "messages": [
            {
                "id": "m1",
                "role": "user",
                "parts": [
                    {"type": "text", "text": "hi"},
                    {"type": "data-contact", "data": {"mail": "bob@example.com"}},
                    {"type": "file", "mediaType": "image/png", "data": payload},
                ],
            }
        ]
    }
    out, said = _redacted(tmp_path, "ui.json", json.dumps(ui))
    assert "bob@example.com" not in out and payload in out
    assert said == (
        "chatpipe: ai-sdk-ui is read only: wrote canonical instead\n"
        "chatpipe: redact: replaced 1 value: EMAIL 1\n"
    )
    # the same rule in the library: unknown data, pydantic-ai's binary, input_audio
    redactor = Redactor()
    message = HumanMessage(
        [
            {"type": "non_standard", "value": {"kind": "note", "data": "bob@example.com"}},
            {"type": "non_standard", "value": {"kind": "binary", "data": payload}},
            {"type": "input_audio", "input_audio": {"data": payload, "format": "wav"}},
            {"type": "image", "base64": payload, "mime_type": "image/png"},
        ]
    )
    content = redactor.message(message).content
    assert content[0]["value"]["data"] == "[EMAIL]"
    assert [content[1]["value"]["data"], content[2]["input_audio"]["data"]] == [payload] * 2
    assert content[3]["base64"] == payload
    # a "format" beside "data" in a tool's arguments is no audio block: scanned
    args = {"format": "text", "data": TOKEN, "to": "ops"}
    assert redactor.value(args, frozenset(), keys=True)["data"] == "[GITHUB_TOKEN]"


def test_keys_of_tool_arguments_and_an_invalid_calls_error_are_scanned(tmp_path):
    error = 'Function f arguments:\n\n{"mail": "carol@example.com", oops\n\nare not valid JSON.'
    lines = [
        {
            "type": "ai",
            "content": "",
            "tool_calls": [
                {
                    "name": "grant",
                    "args": {"users": {"alice@example.com": "admin", "bob@example.com": "x"}},
                    "id": "c1",
                    "type": "tool_call",
                }
            ],
            "invalid_tool_calls": [
                {
                    "type": "invalid_tool_call",
                    "id": "c2",
                    "name": "f",
                    "args": '{"mail": "carol@example.com", oops',
                    "error": error,
                }
            ],
        }
    ]
    path = tmp_path / "calls.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    result = runner.invoke(app, ["redact", str(path)])
    assert result.exit_code == 0, result.stderr
    (message,) = [json.loads(x) for x in result.stdout.splitlines()]
    # two keys that become one placeholder stay two keys
    assert message["tool_calls"][0]["args"] == {"users": {"[EMAIL]": "admin", "[EMAIL] 2": "x"}}
    invalid = message["invalid_tool_calls"][0]
    assert invalid["args"] == '{"mail": "[EMAIL]", oops'
    assert invalid["error"] == error.replace("carol@example.com", "[EMAIL]")
    assert result.stderr == "chatpipe: redact: replaced 4 values: EMAIL 4\n"
    dry = runner.invoke(app, ["redact", "--dry-run", str(path)])
    places = [line.split(": ")[1] for line in dry.stdout.splitlines()]
    assert places == [
        "messages[0].tool_calls[0].args.users (a key)",
        "messages[0].tool_calls[0].args.users (a key)",
        "messages[0].invalid_tool_calls[0].args",
        "messages[0].invalid_tool_calls[0].error",
    ]
