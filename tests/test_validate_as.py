"""``chatpipe validate --as API`` (#48): each record checked as a request of that API with
chatpipe's own rules (from the writers' tables) and, where installed, the provider SDK's
types; which ran is said; reasoning parts in Chat Completions input are flagged."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.formats import registry
from conftest import FIXTURES

runner = CliRunner()
USER = {"role": "user", "content": "Hello"}
THINKING = FIXTURES / "anthropic_messages__pydanticai_req_thinking_text_tool_use_tool_result.json"


def cli(*args, input=None):
    result = runner.invoke(app, [str(a) for a in args], input=input)
    return result.exit_code, result.stdout, result.stderr


def test_the_apis_are_the_dialects_own():
    checks = registry.api_checks()
    assert set(checks) >= {
        "openai-chat",
        "openai-finetune",
        "openai-responses",
        "openai-batch",
        "anthropic",
        "anthropic-batch",
        "gemini",
    }
    for check, name in checks.items():
        dialect = registry.get_dialect(name)
        assert dialect.api and check in dialect.checks
        assert dialect.request_rules(check) is not None
    _, out, _ = cli("validate", "--help")
    assert all(check in " ".join(out.split()) for check in checks)


# each API: a request it takes, and the same request with a fault chatpipe's rules see
CASES = {
    "openai-chat": ({"model": "m", "messages": [USER]}, {"messages": [{**USER, "codex": {}}]}),
    "openai-finetune": (
        {"messages": [USER, {"role": "assistant", "content": "Hi", "weight": 0}]},
        {"messages": [{"role": "developer", "content": "Be brief."}]},
    ),
    "openai-responses": ({"input": [USER]}, {"input": [{**USER, "gemini_cli": {}}]}),
    "openai-batch": (
        {
            "custom_id": "r1",
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {"model": "m", "messages": [USER]},
        },
        {"custom_id": "r1", "method": "POST", "url": "/v1/chat/completions", "body": {}},
    ),
    "anthropic": ({"messages": [USER]}, {"messages": [USER], "title": "a chat"}),
    "anthropic-batch": (
        {"custom_id": "r1", "params": {"model": "c", "max_tokens": 9, "messages": [USER]}},
        {"custom_id": "r1", "params": {"model": "c", "messages": [USER]}},
    ),
    "gemini": (
        {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]},
        {"contents": [{"role": "assistant", "parts": [{"text": "Hi"}]}]},
    ),
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("sdk", ["--sdk", "--no-sdk"])
def test_a_good_request_passes_and_a_fault_is_found(name, sdk):
    good, bad = CASES[name]
    code, out, err = cli("validate", "--as", name, sdk, "-", input=json.dumps(good))
    assert (code, out) == (0, ""), out
    assert err.endswith("chatpipe: no problems found\n")
    code, out, err = cli("validate", "--as", name, sdk, "-", input=json.dumps(bad))
    assert code == 1 and out.startswith("<stdin>:1:1: "), out
    # chatpipe's own rules find it, with the SDK's types or without
    assert any(" sdk_schema: " not in line for line in out.splitlines()), out


def batch_line(url, body, **fields):
    return {"custom_id": "r1", "method": "POST", "url": url, "body": body, **fields}


# each rule's fault, and the one line that says it (chatpipe's rules alone)
FAULTS = [
    (
        "openai-finetune",
        {"messages": []},
        "empty_request: messages: no messages (a row needs at least one)",
    ),
    (
        "openai-finetune",
        {"messages": [USER, {"role": "assistant", "content": "Hi", "weight": 2}]},
        "message 2: wrong_type: messages[1].weight: a weight other than 0 or 1 "
        "(weight an assistant message 0 or 1)",
    ),
    (
        "gemini",
        {"contents": {"role": "user"}},
        "wrong_type: contents: contents is an object (the API takes contents of another kind)",
    ),
    (
        "gemini",
        {"contents": ["Hi"]},
        "message 1: data_type: contents[0]: a content must be an object {role, parts} "
        "(write {role, parts})",
    ),
    (
        "gemini",  # (snake_case is the REST API's too; a key of no part is not)
        {
            "contents": [
                {"role": "user", "parts": [{"text": "Hi", "thought_signature": "c2ln", "cache": 1}]}
            ]
        },
        "message 1: unknown_part_field: contents[0].parts[0]: unknown key(s) cache "
        "(a part holds Gemini's fields only)",
    ),
    (
        "openai-responses",
        {"input": 5},
        "wrong_type: input: input is a number (the API takes input of another kind)",
    ),
    (
        "openai-responses",
        {"input": ["Hi"]},
        "message 1: data_type: input[0]: an item must be an object, got a string "
        "(write items as objects)",
    ),
    (
        "openai-responses",
        {"input": [{"role": "tool", "content": "18 C"}]},
        "message 1: unknown_role: input[0]: role 'tool' (use user, assistant, system or developer)",
    ),
    (
        "openai-responses",  # (an output message given back needs its id)
        {"input": [{"role": "assistant", "status": "completed", "content": []}]},
        "message 1: missing_field: input[0]: missing id (the API asks for these fields)",
    ),
    (
        "openai-responses",
        {"input": [{"type": "reasoning", "summary": []}]},
        "message 1: missing_field: input[0]: missing id (the API asks for these fields)",
    ),
    (
        "openai-responses",
        {"input": [{"type": "web_search_call", "id": "ws_1"}]},
        "message 1: missing_field: input[0]: missing action, status (the API asks for these fields)",
    ),
    (
        "openai-responses",
        {"input": [{"type": "magic"}]},
        "message 1: unknown_item: input[0]: an item of type 'magic' "
        "(the Responses API has no such input item)",
    ),
    (
        "openai-batch",
        batch_line("/v1/chat/completions", {"model": "m", "messages": [USER]}, method="GET"),
        "wrong_type: method: method 'GET' (batch requests are POST)",
    ),
    (
        "openai-batch",
        batch_line("/v1/chat", {"model": "m", "messages": [USER]}),
        "wrong_type: url: url '/v1/chat' (one of /v1/chat/completions, /v1/responses, "
        "/v1/embeddings, /v1/completions, /v1/moderations)",
    ),
    (
        "openai-batch",
        {"custom_id": "r1", "method": "POST", "url": "/v1/responses"},
        "missing_field: missing body (the API asks for these fields)",
    ),
    (
        "openai-batch",  # (before: no problem found)
        batch_line("/v1/responses", "Hello"),
        "wrong_type: body: body is a string (the API takes body of another kind)",
    ),
    (
        "openai-batch",  # (before: "unknown key(s) title", as if the line's own)
        batch_line("/v1/responses", {"model": "m", "input": "Hi", "title": "a chat"}),
        "unknown_field: body: unknown key(s) title "
        "(the API does not take these request fields; convert --to writes without them)",
    ),
    (
        "openai-batch",
        batch_line("/v1/responses", {"model": "m", "input": [{"type": "magic"}]}),
        "message 1: unknown_item: body.input[0]: an item of type 'magic' "
        "(the Responses API has no such input item)",
    ),
]


@pytest.mark.parametrize(("name", "record", "said"), FAULTS)
def test_each_rule_names_its_fault_and_where(name, record, said):
    code, out, err = cli("validate", "--as", name, "--no-sdk", "-", input=json.dumps(record))
    assert (code, out) == (1, f"<stdin>:1:1: {said}\n")
    assert "Traceback" not in err and "internal error" not in err


def test_a_responses_input_given_as_text_passes():
    request = {"model": "m", "input": "Hello"}
    code, out, err = cli(
        "validate", "--as", "openai-responses", "--no-sdk", "-", input=json.dumps(request)
    )
    assert (code, out) == (0, "") and err.endswith("no problems found\n")


def test_which_checks_ran_is_said(monkeypatch):
    _, _, err = cli("validate", "--as", "anthropic", "-", input=json.dumps({"messages": []}))
    assert err.splitlines()[0] == (
        "chatpipe: --as anthropic: chatpipe's rules and the anthropic 2.14.0 SDK's request types"
    )
    from chatpipe.formats import sdk_checks

    monkeypatch.setattr(sdk_checks, "sdk_check", lambda name: None)  # (no SDK installed)
    _, _, err = cli("validate", "--as", "anthropic", "-", input=json.dumps({"messages": []}))
    assert err.splitlines()[0] == (
        "chatpipe: --as anthropic: chatpipe's rules (pip install 'chatpipe[schemas]' adds the "
        "provider SDK's request types)"
    )
    _, _, err = cli("validate", "--as", "gemini", "--no-sdk", "-", input='{"contents": []}')
    assert err.splitlines()[0] == "chatpipe: --as gemini: chatpipe's rules"


def test_problems_name_the_line_the_message_and_the_path():
    code, out, _ = cli("validate", "--as", "openai-chat", "--no-sdk", THINKING)
    assert code == 1
    assert f"{THINKING}:1:1: message 2: reasoning_part: messages[1].content[0]: a thinking " in out
    assert f"{THINKING}:1:1: unknown_field: unknown key(s) thinking" in out
    code, out, _ = cli("validate", "--as", "openai-chat", "--sdk", THINKING)
    assert (
        f"{THINKING}:1:1: message 2: sdk_schema: messages[1].content[0]: Input tag 'thinking' "
        "found using 'type' does not match any of the expected tags: 'text', 'refusal' "
        "(openai 3.57.0's request types)"
    ) in out.splitlines()


def test_what_convert_writes_passes_the_check_of_its_api(tmp_path):
    for to, check in (("anthropic", "anthropic"), ("openai-responses", "openai-responses")):
        written = tmp_path / f"{to}.jsonl"
        code, _, _ = cli("convert", "--to", to, THINKING, "-o", written)
        assert code == 0
        code, out, err = cli("validate", "--as", check, written)
        assert (code, out) == (0, "") and err.endswith("no problems found\n"), (to, out)


def test_an_unreadable_record_is_a_problem_and_an_unknown_api_a_usage_error():
    code, out, _ = cli("validate", "--as", "gemini", "-", input='{"contents": []}\n{oops\n')
    assert code == 1 and "<stdin>:2:" in out and "unreadable_record" in out
    code, _, err = cli("validate", "--as", "bedrock", "-", input="{}")
    assert code == 2 and "--as must be one of openai-chat, openai-finetune" in err


def test_plain_validate_flags_reasoning_parts_in_openai_messages():
    """What ``chatpipe openai`` writes of reasoning (langchain's function keeps it)."""
    code, written, _ = cli("openai", THINKING)
    assert code == 0 and '"type":"thinking"' in written
    code, out, _ = cli("validate", "--from", "openai", "-", input=written)
    assert code == 1
    assert "<stdin>:1:1: message 2: reasoning_part: a thinking part in the content" in out
    code, out, _ = cli("convert", "--to", "openai", THINKING)
    assert cli("validate", "--from", "openai", "-", input=out)[0] == 0
