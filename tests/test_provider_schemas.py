"""Every record chatpipe writes for an API, checked with the provider's own definitions
(tests/provider_schemas.py, issue #48): first the checks themselves, on records written by
hand, so that they cannot pass by accepting everything; then every fixture converted to
every API target."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from types import SimpleNamespace

import pytest
from pydantic import TypeAdapter

import provider_schemas as ps
from conftest import FIXTURES, ROOT

# --- the validators, on records written by hand ------------------------------------------

USER = {"role": "user", "content": "Hello"}

# validator: (a minimal request it accepts, and how to break it: a function of a copy of
# that request giving the broken one, for each of the four faults every validator catches)
CASES = {
    "openai_chat": {
        "valid": {"model": "gpt-4.1-mini", "messages": [USER]},
        "top": lambda r: {**r, "title": "A chat"},
        "message": lambda r: {**r, "messages": [{**USER, "codex": {}}]},
        "part": lambda r: {
            **r,
            "messages": [{"role": "user", "content": [{"type": "reasoning", "text": "hm"}]}],
        },
        "role": lambda r: {**r, "messages": [{**USER, "role": "human"}]},
    },
    "openai_finetune": {
        "valid": {"messages": [USER, {"role": "assistant", "content": "Hi", "weight": 1}]},
        "top": lambda r: {**r, "model": "gpt-4.1-mini"},
        "message": lambda r: {"messages": [{**USER, "loss_weight": 1}]},
        "part": lambda r: {
            "messages": [{"role": "user", "content": [{"type": "thinking", "text": "hm"}]}]
        },
        # developer messages are not among FineTuneChatRequestInput's
        "role": lambda r: {"messages": [{"role": "developer", "content": "Be brief."}]},
    },
    "openai_responses": {
        "valid": {"model": "gpt-4.1-mini", "input": [USER]},
        "top": lambda r: {**r, "messages": []},
        "message": lambda r: {**r, "input": [{**USER, "gemini_cli": {}}]},
        "part": lambda r: {
            **r,
            "input": [{"role": "user", "content": [{"type": "text", "text": "hm"}]}],
        },
        "role": lambda r: {**r, "input": [{**USER, "role": "model"}]},
    },
    "openai_batch": {
        "valid": {
            "custom_id": "request-1",
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {"model": "gpt-4.1-mini", "messages": [USER]},
        },
        "top": lambda r: {**r, "id": "batch_req_1"},
        "message": lambda r: {**r, "body": {**r["body"], "messages": [{**USER, "claude": 1}]}},
        "part": lambda r: {
            **r,
            "body": {
                **r["body"],
                "messages": [{"role": "user", "content": [{"type": "image", "data": "x"}]}],
            },
        },
        "role": lambda r: {**r, "body": {**r["body"], "messages": [{**USER, "role": "bot"}]}},
    },
    "anthropic": {
        "valid": {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [USER]},
        "top": lambda r: {**r, "stop_reason": "end_turn"},
        "message": lambda r: {**r, "messages": [{**USER, "id": "msg_1"}]},
        "part": lambda r: {
            **r,
            "messages": [{"role": "user", "content": [{"type": "reasoning", "text": "hm"}]}],
        },
        "role": lambda r: {**r, "messages": [{**USER, "role": "human"}]},
    },
    "anthropic_batch": {
        "valid": {
            "custom_id": "request-1",
            "params": {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [USER]},
        },
        "top": lambda r: {**r, "method": "POST"},
        "message": lambda r: {**r, "params": {**r["params"], "messages": [{**USER, "x": 1}]}},
        "part": lambda r: {
            **r,
            "params": {
                **r["params"],
                "messages": [{"role": "user", "content": [{"type": "input_text", "text": "a"}]}],
            },
        },
        "role": lambda r: {**r, "params": {**r["params"], "messages": [{**USER, "role": "ai"}]}},
    },
    "gemini": {
        "valid": {"contents": [{"role": "user", "parts": [{"text": "Hello"}]}]},
        "top": lambda r: {**r, "tool_choice": "auto"},
        "message": lambda r: {"contents": [{"role": "user", "parts": [{"text": "Hi"}], "id": 1}]},
        "part": lambda r: {"contents": [{"role": "user", "parts": [{"reasoning": "hm"}]}]},
        "role": lambda r: {"contents": [{"role": "assistant", "parts": [{"text": "Hi"}]}]},
    },
    "bedrock_converse": {
        "valid": {
            "modelId": "anthropic.claude-sonnet-4-5",
            "messages": [{"role": "user", "content": [{"text": "Hello"}]}],
        },
        "top": lambda r: {**r, "model": "claude"},
        "message": lambda r: {
            **r,
            "messages": [{"role": "user", "content": [{"text": "Hi"}], "name": "me"}],
        },
        "part": lambda r: {
            **r,
            "messages": [{"role": "user", "content": [{"reasoning": {"text": "hm"}}]}],
        },
        "role": lambda r: {**r, "messages": [{"role": "system", "content": [{"text": "Hi"}]}]},
    },
    "ollama_chat": {
        "valid": {"model": "llama3.2", "messages": [USER]},
        "top": lambda r: {**r, "max_tokens": 100},
        "message": lambda r: {**r, "messages": [{**USER, "name": "me"}]},
        # Ollama's content is text: a list of parts is no content it takes
        "part": lambda r: {
            **r,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hm"}]}],
        },
        "role": lambda r: {**r, "messages": [{**USER, "role": "model"}]},
    },
}
FAULTS = ("top", "message", "part", "role")


@pytest.mark.parametrize("name", CASES)
def test_a_minimal_request_is_accepted(name):
    assert getattr(ps, name)(CASES[name]["valid"]) == []


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("name", CASES)
def test_each_fault_is_refused_where_it_is(name, fault):
    broken = CASES[name][fault](json.loads(json.dumps(CASES[name]["valid"])))
    problems = getattr(ps, name)(broken)
    assert problems, f"{name} accepted a record with {fault!r} broken: {broken}"
    for path, message in problems:
        assert isinstance(path, str) and path and isinstance(message, str) and message


def test_problems_name_the_path_in_the_document_and_the_definitions_message():
    record = {
        "model": "gpt-4.1-mini",
        "messages": [
            USER,
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{}", "strict": True},
                    }
                ],
            },
            {"role": "user", "content": [{"type": "reasoning", "text": "hm"}]},
        ],
    }
    assert ps.openai_chat(record) == [
        ("messages[1].tool_calls[0].function.strict", "Extra inputs are not permitted"),
        (
            "messages[2].content[0]",
            "Input tag 'reasoning' found using 'type' does not match any of the expected "
            "tags: 'text', 'image_url', 'input_audio', 'file'",
        ),
    ]


def test_unknown_keys_are_refused_at_every_depth_and_literals_checked():
    # what strict_schema adds: the SDK's TypedDicts alone take unknown keys, and check no
    # item of an Iterable (messages)
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

    deep = {
        "model": "gpt-4.1-mini",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "image_url", "image_url": {"url": "https://x/y.png", "dpi": 72}}
                ],
            }
        ],
    }
    TypeAdapter(CompletionCreateParamsNonStreaming).validate_python(deep)  # takes it
    assert ps.openai_chat(deep) == [
        ("messages[0].content[0].image_url.dpi", "Extra inputs are not permitted")
    ]
    wrong = json.loads(json.dumps(deep))
    wrong["messages"][0]["content"][0]["image_url"] = {"url": "https://x/y.png", "detail": "max"}
    assert ps.openai_chat(wrong) == [
        (
            "messages[0].content[0].image_url.detail",
            "Input should be 'auto', 'low', 'high' or 'original' (got \"max\")",
        )
    ]
    # pydantic models inside the types (Anthropic's response blocks, which its requests
    # take back) ignore unknown keys by their own configuration: refused all the same
    block = {"type": "tool_use", "id": "t1", "name": "f", "input": {}, "caller": None, "x": 1}
    request = {"messages": [{"role": "assistant", "content": [block]}]}
    assert ("messages[0].content[0].x", "Extra inputs are not permitted") in ps.anthropic(request)
    # the google-genai and ollama models, nested
    gemini = {"contents": [{"role": "user", "parts": [{"inlineData": {"data": "aGk=", "a": 1}}]}]}
    assert ps.gemini(gemini) == [
        ("contents[0].parts[0].inlineData.a", "Extra inputs are not permitted")
    ]
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    tool["function"]["parameters"]["x"] = 1
    assert ps.ollama_chat({"messages": [USER], "tools": [tool]}) == [
        ("tools[0].function.parameters.x", "Extra inputs are not permitted")
    ]


def test_values_the_sender_adds_are_asked_for_only_in_whole_requests():
    assert ps.openai_chat({"messages": [USER]}) == []
    assert ps.anthropic({"messages": [USER]}) == []
    assert ps.bedrock_converse({"messages": [{"role": "user", "content": [{"text": "a"}]}]}) == []
    chat = {"messages": [USER]}
    batch = {"custom_id": "r", "method": "POST", "url": "/v1/chat/completions", "body": chat}
    assert ps.openai_batch(batch) == [("body.model", "Field required")]
    # (a Responses request may name a stored prompt instead: model is optional in its type)
    batch = {"custom_id": "r", "method": "POST", "url": "/v1/responses", "body": {"input": "a"}}
    assert ps.openai_batch(batch) == []
    no_tokens = {"custom_id": "r", "params": {"model": "claude-sonnet-4-5", "messages": [USER]}}
    assert ps.anthropic_batch(no_tokens) == [("params.max_tokens", "Field required")]


def test_a_message_of_a_log_is_checked_as_a_message():
    assert ps.openai_chat(USER) == []
    assert ps.openai_chat({**USER, "id": "m1"}) == [("id", "Extra inputs are not permitted")]
    assert ps.openai_finetune({"role": "assistant", "content": "Hi", "weight": 0}) == []
    assert ps.openai_finetune({"role": "assistant", "content": "Hi", "weight": 2}) == [
        ("weight", "Input should be 0 or 1 (got 2)")
    ]


def test_an_empty_finetune_row_is_refused():
    assert ps.openai_finetune({"messages": []}) == [
        ("messages", "List should have at least 1 item after validation, not 0")
    ]


def test_the_gemini_body_holds_the_keys_the_sdk_writes():
    # models.generate_content and the batch API's inlined requests build the body with these
    # functions; the validator's keys are those they write
    from google.genai import batches, models, types

    config = types.GenerateContentConfig(
        system_instruction="Be brief.",
        tools=[types.Tool(function_declarations=[types.FunctionDeclaration(name="f")])],
        tool_config=types.ToolConfig(),
        safety_settings=[
            types.SafetySetting(category="HARM_CATEGORY_HARASSMENT", threshold="BLOCK_NONE")
        ],
        cached_content="cachedContents/c",
        temperature=0.5,
    )
    asked = {"model": "gemini-2.5-flash", "contents": [USER["content"]], "config": config}
    written = set(
        models._GenerateContentParameters_to_mldev(SimpleNamespace(vertexai=False), asked)
    )
    vertex = SimpleNamespace(vertexai=True, project="p", location="l")
    labelled = {**asked, "config": config.model_copy(update={"labels": {"a": "b"}})}
    written |= set(models._GenerateContentParameters_to_vertex(vertex, labelled))
    inlined = batches._InlinedRequest_to_mldev(SimpleNamespace(vertexai=False), asked)
    written |= set(inlined["request"])
    fields = {field.alias for field in ps.gemini_body().model_fields.values()}
    assert written - {"_url"} == fields
    # the one rule of its documentation: still said there
    assert "Must be either 'user' or 'model'" in types.Content.model_fields["role"].description


def test_bedrock_enums_are_the_service_models():
    shape = ps._converse()
    role = shape.members["messages"].member.members["role"]
    assert role.enum == ["user", "assistant"]
    record = {"messages": [{"role": "user", "content": [{"text": "a"}]}], "inferenceConfig": {}}
    record["messages"][0]["content"].append(
        {"image": {"format": "bmp", "source": {"bytes": "aGk="}}}
    )
    assert ps.bedrock_converse(record) == [
        (
            "messages[0].content[1].image.format",
            "Invalid value for parameter messages[0].content[1].image.format, value: bmp, "
            "valid values: png, jpeg, gif, webp",
        )
    ]


def test_the_pinned_versions_are_the_ones_installed():
    from importlib.metadata import version

    pyproject = (ROOT / "pyproject.toml").read_text()
    development = (ROOT / "docs" / "development.md").read_text()
    for package in ("openai", "anthropic", "google-genai", "ollama", "botocore"):
        pin = f'"{package}=={version(package)}"'
        assert pin in pyproject, pin
        assert f"{package} {version(package)}" in development, package
        assert version(package) in (ps.__doc__ or ""), package


# --- every fixture, every API target -----------------------------------------------------

# records validated today per target (2026-12-02: openai 362 as Chat Completions and as
# fine-tuning rows; openai-responses, anthropic, gemini, the batches 282 to 287): the floor
# keeps a test from passing on nothing when a target or the fixtures go missing
FLOOR = 250
# the request writers issue 49 adds, which write only what their API takes from the start
# (2026-12-03: 364 records each, every one accepted)
NEW_WRITERS = ("bedrock-converse", "ollama")
NEW_FLOOR = 340
API_TARGETS = [
    pytest.param(t, id="+".join(c for c, _ in t[2]))
    for t in ps.targets()
    if t[0] not in NEW_WRITERS
]
NEW_TARGETS = [
    pytest.param(t, id="+".join(c for c, _ in t[2])) for t in ps.targets() if t[0] in NEW_WRITERS
]


class ProblemsFound(AssertionError):
    """Records an API would refuse: what #48's writers fix (the test's expected failure)."""


def test_the_conversions_are_what_the_command_writes():
    # the measurement runs `chatpipe convert` in this process, its command built once
    path = FIXTURES / "openai_chat__pydanticai_req_system_tools_tool_result.json"
    for target, settings, _ in ps.targets():
        argv = [sys.executable, "-m", "chatpipe", "convert", str(path), "--to", target]
        done = subprocess.run([*argv, *settings], capture_output=True, text=True, check=True)
        records = [json.loads(line) for line in done.stdout.splitlines()]
        assert ps.convert(path, target, settings) == (0, records, "")


def test_the_api_targets_are_all_there():
    names = {t[0] for t in ps.targets()}
    assert {
        "openai",
        "openai-responses",
        "openai-batch",
        "anthropic",
        "anthropic-batch",
        "gemini",
    } <= names


# writers fixed by #48: a record refused raises ProblemsFound, the expected failure; any
# other (the floor, a fixture that stopped being read) fails the test
@pytest.mark.xfail(strict=False, raises=ProblemsFound, reason="writers fixed by #48")
@pytest.mark.parametrize("target", API_TARGETS)
def test_every_fixture_converted_to_an_api_target_is_accepted(target):
    rows, unread = ps.measure(ps.fixture_files(), [target])
    checks = Counter(row[1] for row in rows)
    accepted = Counter(row[1] for row in rows if not row[3])
    for check, count in checks.items():
        print(f"{check}: {count} records validated, {accepted[check]} accepted")
    for name, said in sorted(unread.items()):
        print(f"not read: {name}: {said}")
    # the only fixtures chatpipe refuses are the malformed ones, kept to be refused
    assert all(name.startswith("malformed__") for name in unread), unread
    assert set(checks) == {check for check, _ in target[2]}, checks
    assert min(checks.values()) >= FLOOR, checks
    problems = [
        f"{fixture} {check} record {number}: {path}: {message}"
        for fixture, check, number, found in rows
        for path, message in found
    ]
    if problems:
        print("\n".join(problems))
        refused = sum(1 for r in rows if r[3])
        raise ProblemsFound(f"{refused} of {len(rows)} records refused, {len(problems)} problems")


@pytest.mark.parametrize("target", NEW_TARGETS)
def test_every_fixture_written_as_a_bedrock_or_ollama_request_is_accepted(target):
    rows, unread = ps.measure(ps.fixture_files(), [target])
    checks = Counter(row[1] for row in rows)
    for check, count in checks.items():
        print(f"{check}: {count} records validated")
    assert all(name.startswith("malformed__") for name in unread), unread
    assert set(checks) == {check for check, _ in target[2]}, checks
    assert min(checks.values()) >= NEW_FLOOR, checks
    problems = [
        f"{fixture} {check} record {number}: {path}: {message}"
        for fixture, check, number, found in rows
        for path, message in found
    ]
    assert problems == []


def test_the_new_writers_are_there():
    assert {t[0] for t in ps.targets()} >= set(NEW_WRITERS)
