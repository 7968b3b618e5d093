"""``redact``'s patterns on the forms a break-it pass found them wrong on (#51): look-alikes
taken for data, values missed or half replaced; and ``--dry-run`` naming each hit of a
message-per-line log at its own line.

The fake values are put together from pieces, so that no file of the repository holds a
string a secret scanner would take for a real key."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.ops.redact_patterns import Scanner

runner = CliRunner()
ACCESS = "AK" + "IA" + "Z7Q2XK4M6P8R0T3V"
SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
KEY_LINES = (
    "MIIEowIBAAKCAQEAtq2l3VfOxJ8B+aGkqXfJm5Qf0rH1n1dQeXh3b9mZzJk2\nq3b9mZzJk2MIIEowIBAAKCAQEA"
)


def found(text: str) -> list[tuple[str, str]]:
    return [(m.kind, text[m.start : m.end]) for m in Scanner().scan(text)]


@pytest.mark.parametrize(
    "text",
    [
        "see logo@2x.png and icon@3x.webp",  # retina images, not addresses
        "we reached +15000000 users",  # a count: +1 numbers have eleven digits
        "up +250000 views",
        "sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709 near " + ACCESS[:4] + " text",
    ],
)
def test_look_alikes_found_before_are_left_alone(text):
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("call 555 123 4567 now", [("PHONE", "555 123 4567")]),
        ("call +4915123456789 now", [("PHONE", "+4915123456789")]),
        ("call +49 151 23456789 now", [("PHONE", "+49 151 23456789")]),
        ("mail jurgen.müller@example.de", [("EMAIL", "jurgen.müller@example.de")]),
        ("mail josé@correo.example.es", [("EMAIL", "josé@correo.example.es")]),
        (
            "db postgres://app:p@ss/w0rd@db.example.com:5432/app",
            [("URL_PASSWORD", "p@ss/w0rd")],
        ),
        (
            "https://u:pa@ss@example.com/x?q=a@example.org",
            [("URL_PASSWORD", "pa@ss"), ("EMAIL", "a@example.org")],
        ),
        (
            "pip install git+https://u:tok3n@github.com/org/repo.git@v1.2",
            [("URL_PASSWORD", "tok3n")],
        ),
        ("postgres://app:s3cr3t@db:5432/app", [("URL_PASSWORD", "s3cr3t")]),
        ("token hf_" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eFxy", [("HF_TOKEN", None)]),
        (f"{ACCESS} {SECRET}", [("AWS_ACCESS_KEY", ACCESS), ("AWS_SECRET_KEY", SECRET)]),
        (f"key {SECRET}\nid {ACCESS}", [("AWS_SECRET_KEY", SECRET), ("AWS_ACCESS_KEY", ACCESS)]),
    ],
)
def test_values_missed_or_half_replaced_before_are_found_whole(text, expected):
    expected = [(kind, value or text.split()[-1]) for kind, value in expected]
    assert found(text) == expected


def test_a_private_key_cut_off_before_its_end_line():
    head = "-----BEGIN RSA PRIVATE KEY-----\n"
    text = f"my key:\n{head}{KEY_LINES}\n\nCan you tell why ssh refuses it?"
    assert found(text) == [("PRIVATE_KEY", head + KEY_LINES)]
    whole = f"{head}{KEY_LINES}\n-----END RSA PRIVATE KEY-----"
    assert found(f"a {whole} b") == [("PRIVATE_KEY", whole)]
    # pasted from a JSON string: its line breaks written \n
    escaped = (head + KEY_LINES).replace("\n", "\\n")
    assert found(f'{{"key": "{escaped}"}}') == [("PRIVATE_KEY", escaped)]


def test_dry_run_names_each_hit_of_a_message_log_at_its_line(tmp_path):
    lines = [
        {"role": "user", "content": "mail a@example.com"},
        {"role": "assistant", "content": "ok"},
        None,  # a blank line
        {"role": "user", "content": "and b@example.com"},
    ]
    path = tmp_path / "log.jsonl"
    path.write_text("".join("\n" if x is None else json.dumps(x) + "\n" for x in lines))
    result = runner.invoke(app, ["redact", "--dry-run", str(path)])
    assert result.stdout.splitlines() == [
        f"{path}:1:1: messages[0].content: EMAIL: a@example.com",
        f"{path}:4:1: messages[2].content: EMAIL: b@example.com",
    ]
    as_json = runner.invoke(app, ["redact", "--dry-run", "--json", str(path)])
    assert [json.loads(x)["conversation"] for x in as_json.stdout.splitlines()] == [
        f"{path}:1:1",
        f"{path}:4:1",
    ]
