"""Batch API files, OpenAI's and Anthropic's: read with nothing lost, an input file joined
with its output files by custom_id, failures said and kept, and written from any
conversations as a ready input file."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES
from test_fixtures import leaves, parsed_and_kept
from test_providers import output_leaves

runner = CliRunner()
FILES = sorted([*FIXTURES.glob("openai_batch__*"), *FIXTURES.glob("anthropic_batch__*")])
CHAT_IN = FIXTURES / "openai_batch__litellm_chat_input.jsonl"
CHAT_OUT = FIXTURES / "openai_batch__litellm_chat_output.jsonl"
ERRORS = FIXTURES / "openai_batch__documented_errors_output.jsonl"
CLAUDE_IN = FIXTURES / "anthropic_batch__documented_requests_body.json"
CLAUDE_OUT = FIXTURES / "anthropic_batch__documented_results.jsonl"
UNANSWERED = (
    "chatpipe: warning: {n} batch requests have no answer (failed, expired, canceled, or not "
    "in the output files): kept, the reason in 'batch_error' (-v names them)\n"
)


def cli(*args, input=None):
    result = runner.invoke(app, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


def records(out):
    return [json.loads(line) for line in out.splitlines()]


def load(path):
    text = path.read_text()
    if path.suffix == ".json":
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_batch_file_converts_with_nothing_lost(path):
    code, out, _ = cli("convert", str(path))
    assert code == 0
    kept = output_leaves(records(out))
    shapes = {"user", "assistant", "message", "text", "POST"}
    missing = {
        v
        for v in leaves(load(path))
        if v not in kept and v not in shapes and not parsed_and_kept(v, kept)
    }
    assert not missing, sorted(map(str, missing))[:5]


def test_an_input_file_and_its_output_are_joined_by_custom_id_in_either_order(tmp_path):
    reordered = tmp_path / "out.jsonl"  # results come in any order
    reordered.write_text("".join(reversed(CHAT_OUT.read_text().splitlines(True))))
    code, joined, err = cli("convert", "--to", "openai", str(CHAT_IN), str(reordered))
    assert (code, err) == (0, "")
    assert [r["custom_id"] for r in records(joined)] == ["request-1", "request-2"]
    first = records(joined)[0]
    assert first == {
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Hello world!"},
            {"role": "assistant", "content": "Hello! How can I assist you today?", "refusal": None},
        ],
        "custom_id": "request-1",
        "method": "POST",
        "url": "/v1/chat/completions",
        "model": "gpt-4o-mini",
        "max_tokens": 10,
        "id": "batch_req_6769ca596b38819093d7ae9f522de924",
        "response": {
            "status_code": 200,
            "request_id": "07bc45ab4e7e26ac23a0c949973327e7",
            "body": {
                "id": "chatcmpl-AhjSMl7oZ79yIPHLRYgmgXSixTJr7",
                "object": "chat.completion",
                "created": 1734986202,
                "model": "gpt-4o-mini-2024-07-18",
                "usage": {
                    "prompt_tokens": 20,
                    "completion_tokens": 10,
                    "total_tokens": 30,
                    "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                    "completion_tokens_details": {
                        "reasoning_tokens": 0,
                        "audio_tokens": 0,
                        "accepted_prediction_tokens": 0,
                        "rejected_prediction_tokens": 0,
                    },
                },
                "system_fingerprint": "fp_0aa8d3e20b",
            },
        },
        "error": None,
    }
    code, other_order, err = cli("convert", "--to", "openai", str(reordered), str(CHAT_IN))
    assert (code, err, other_order) == (0, "", joined)


def test_failed_expired_and_missing_results_are_kept_and_said(tmp_path):
    requests = tmp_path / "in.jsonl"
    lines = CHAT_IN.read_text().splitlines()[:2]
    third = json.loads(lines[1]) | {"custom_id": "request-3"}
    requests.write_text("\n".join([*lines, json.dumps(third)]) + "\n")
    outputs = tmp_path / "out.jsonl"
    outputs.write_text(CHAT_OUT.read_text().splitlines(True)[0])
    code, out, err = cli("buffer", str(requests), str(outputs), str(ERRORS))
    assert code == 0
    assert out == (
        '"System: You are a helpful assistant.\\nHuman: Hello world!\\nAI: Hello! How can I '
        'assist you today?"\n'
        '"System: You are an unhelpful assistant.\\nHuman: Hello world!"\n'
        '"System: You are an unhelpful assistant.\\nHuman: Hello world!"\n'
        '""\n'
    )
    assert err == UNANSWERED.format(n=3)
    code, out, err = cli("convert", "-v", str(requests), str(outputs), str(ERRORS))
    said = [line for line in err.splitlines() if "has no answer" in line and "custom_id" in line]
    assert said == [
        f"chatpipe: {requests}:2:1: custom_id 'request-2' has no answer: no result for this "
        "custom_id in the output files",
        f"chatpipe: {requests}:3:1: custom_id 'request-3' has no answer: batch_expired: This "
        "request could not be executed before the completion window expired.",
        f"chatpipe: {ERRORS}:2:1: custom_id 'request-4' has no answer: HTTP 400: Invalid value "
        "for 'max_tokens': must be a positive integer.",
    ]
    assert [r.get("batch_error") for r in records(out)] == [
        None,
        "no result for this custom_id in the output files",
        "batch_expired: This request could not be executed before the completion window expired.",
        "HTTP 400: Invalid value for 'max_tokens': must be a positive integer.",
    ]


def test_anthropic_requests_and_results_are_joined():
    code, out, err = cli("buffer", str(CLAUDE_OUT), str(CLAUDE_IN))
    assert (code, err) == (0, UNANSWERED.format(n=2))
    assert out == (
        '"Human: Hello, world\\nAI: Hello! How can I assist you today? Feel free to ask me any '
        "questions or let me know if there's anything you'd like to chat about.\"\n"
        "\"Human: Hi again, friend\\nAI: Hello again! It's nice to see you. How can I assist you "
        "today? Is there anything specific you'd like to chat about or any questions you "
        'have?"\n'
        '""\n'
        '""\n'
    )
    code, out, _ = cli("convert", str(CLAUDE_OUT))
    third = records(out)[2]
    assert third == {
        "messages": [],
        "custom_id": "my-third-request",
        "result": {
            "type": "errored",
            "error": {
                "type": "error",
                "error": {
                    "details": {"error_visibility": "user_facing"},
                    "type": "invalid_request_error",
                    "message": "max_tokens: 100000 > 64000, which is the maximum allowed number "
                    "of output tokens for claude-haiku-4-5-20251001",
                },
                "request_id": None,
            },
        },
        "batch_error": "errored: invalid_request_error: max_tokens: 100000 > 64000, which is "
        "the maximum allowed number of output tokens for claude-haiku-4-5-20251001",
    }


def test_a_batch_chatpipe_writes_reads_back_with_its_answers_joined(tmp_path):
    source = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
    code, written, err = cli(
        "convert",
        "--to",
        "openai-batch",
        "--model",
        "gpt-4.1-mini",
        "--max-tokens",
        "50",
        str(source),
    )
    assert code == 0
    assert err.startswith("chatpipe: warning: requests that end with their conversation's own")
    lines = records(written)
    assert lines[0] == {
        "custom_id": "request-1",
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {
            "model": "gpt-4.1-mini",
            "messages": [
                {
                    "role": "system",
                    "content": "You are a happy assistant that puts a positive spin on everything.",
                },
                {"role": "user", "content": "I fell off my bike today."},
                {
                    "role": "assistant",
                    "content": "It's great that you're getting exercise outdoors!",
                },
            ],
            "max_tokens": 50,
        },
    }
    batch_in = tmp_path / "batch_in.jsonl"
    batch_in.write_text(written)
    answers = [  # the output file, as the API would give it: out of order
        {
            "id": f"batch_req_{n}",
            "custom_id": f"request-{n}",
            "response": {
                "status_code": 200,
                "request_id": f"req_{n}",
                "body": {
                    "object": "chat.completion",
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": f"answer {n}"}}
                    ],
                },
            },
            "error": None,
        }
        for n in range(len(lines), 0, -1)
    ]
    batch_out = tmp_path / "batch_out.jsonl"
    batch_out.write_text("".join(json.dumps(a) + "\n" for a in answers))
    code, out, err = cli("buffer", str(batch_in), str(batch_out))
    assert (code, err) == (0, "")
    texts = [json.loads(line) for line in out.splitlines()]
    assert len(texts) == len(lines)
    assert texts[0] == (
        "System: You are a happy assistant that puts a positive spin on everything.\n"
        "Human: I fell off my bike today.\n"
        "AI: It's great that you're getting exercise outdoors!\n"
        "AI: answer 1"
    )
    assert all(text.endswith(f"AI: answer {n}") for n, text in enumerate(texts, 1))


def test_anthropic_batch_requests_take_ids_that_fit_and_number_the_others(tmp_path):
    rows = [
        {"id": "chat-1", "title": "a", "messages": [{"role": "user", "content": "one"}]},
        {"id": "chat 2!", "messages": [{"role": "user", "content": "two"}]},
        {"id": "chat-1", "messages": [{"role": "user", "content": "three"}]},
        {
            "messages": [
                {"role": "system", "content": "Be kind."},
                {"role": "user", "content": "4"},
            ],
            "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}],
            "temperature": 0.5,
        },
    ]
    log = "".join(json.dumps(r) + "\n" for r in rows)
    code, out, err = cli(
        "convert",
        "--to",
        "anthropic-batch",
        "--model",
        "claude-sonnet-4-5",
        "--max-tokens",
        "1024",
        "-",
        input=log,
    )
    assert code == 0
    assert records(out) == [
        {
            "custom_id": "chat-1",
            "params": {
                "model": "claude-sonnet-4-5",
                "max_tokens": 1024,
                "messages": [{"role": "user", "content": "one"}],
            },
        },
        {
            "custom_id": "request-2",
            "params": {
                "model": "claude-sonnet-4-5",
                "max_tokens": 1024,
                "messages": [{"role": "user", "content": "two"}],
            },
        },
        {
            "custom_id": "request-3",
            "params": {
                "model": "claude-sonnet-4-5",
                "max_tokens": 1024,
                "messages": [{"role": "user", "content": "three"}],
            },
        },
        {
            "custom_id": "request-4",
            "params": {
                "model": "claude-sonnet-4-5",
                "max_tokens": 1024,
                "system": "Be kind.",
                "messages": [{"role": "user", "content": "4"}],
                "tools": [{"name": "f", "input_schema": {"type": "object", "properties": {}}}],
                "temperature": 0.5,
            },
        },
    ]
    assert err == (
        "chatpipe: warning: anthropic-batch cannot hold conversation fields other than a "
        "request's (titles, dates...): left out of 1 conversation (-v lists them)\n"
        "chatpipe: warning: anthropic-batch cannot hold conversation ids that are not a unique "
        "custom_id here: left out of 2 conversations (-v lists them)\n"
    )


def test_responses_batches_are_read_and_written():
    path = FIXTURES / "openai_batch__cookbook_responses_input_first1.jsonl"
    code, out, err = cli(
        "convert",
        "--to",
        "openai-batch",
        "--endpoint",
        "responses",
        "--model",
        "gpt-5-mini",
        str(path),
    )
    assert (code, err) == (0, "")
    original = json.loads(path.read_text())
    assert json.loads(out) == {
        "custom_id": "qa-T-001",
        "method": "POST",
        "url": "/v1/responses",
        "body": {
            **original["body"],
            "model": "gpt-5-mini",
            "input": [{"role": "user", "content": original["body"]["input"]}],
        },
    }


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--to", "openai-batch"], "--to openai-batch needs --model MODEL"),
        (["--to", "anthropic-batch", "--model", "m"], "needs --max-tokens MAX_TOKENS"),
        (["--to", "openai-batch", "--model", "m", "--endpoint", "x"], "--endpoint must be chat"),
        (
            ["--to", "anthropic-batch", "--model", "m", "--max-tokens", "9", "--endpoint", "chat"],
            "--to anthropic-batch takes no --endpoint",
        ),
        (
            ["--to", "openai", "--model", "m"],
            "--model: only --to bedrock-converse, ollama, openai-batch and",
        ),
        # an empty model names none (was: every request asked for model "", #51)
        (["--to", "openai-batch", "--model", ""], "--model is empty (give --model MODEL)"),
        (["--to", "anthropic-batch", "--model", " ", "--max-tokens", "9"], "--model is empty"),
    ],
)
def test_batch_options_are_checked_before_any_work(args, said):
    code, out, err = cli("convert", *args, str(CHAT_IN))
    assert (code, out) == (2, "")
    assert said in err


def test_jobs_read_a_batch_and_its_results_in_one_process():
    code, joined, _ = cli("convert", str(CHAT_IN), str(CHAT_OUT))
    code, out, err = cli("convert", "--jobs", "2", str(CHAT_IN), str(CHAT_OUT))
    assert (code, out) == (0, joined)
    assert "a batch's input and output files are joined in one process" in err


FINISHED = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"  # each ends answered


def test_a_request_ending_with_its_own_answer_is_said():
    """A finished conversation made a request that ends with the old answer, silently: the
    model goes on from it instead of answering again (#51)."""
    code, out, err = cli("convert", "--to", "openai-batch", "--model", "m", str(FINISHED))
    assert code == 0
    assert all(r["body"]["messages"][-1]["role"] == "assistant" for r in records(out))
    assert err == (
        "chatpipe: warning: requests that end with their conversation's own answer, which the "
        "model would go on from (--until-last-user ends each at its last user turn): "
        f"{len(records(out))} conversations (-v lists them)\n"
    )


@pytest.mark.parametrize(
    ("to", "more", "messages"),
    [
        ("openai-batch", [], lambda r: r["body"]["messages"]),
        ("anthropic-batch", ["--max-tokens", "100"], lambda r: r["params"]["messages"]),
    ],
)
def test_until_last_user_ends_each_request_at_its_last_user_turn(to, more, messages):
    code, out, err = cli(
        "convert", "--to", to, "--model", "m", *more, "--until-last-user", str(FINISHED)
    )
    # (the fourth row holds no user turn: written as it is, and said)
    assert (code, err) == (
        0,
        "chatpipe: warning: requests that end with an answer and hold no user turn to end at "
        "instead: 1 conversation (-v lists them)\n",
    )
    rows = [json.loads(line) for line in FINISHED.read_text().splitlines()]
    asked = [messages(r) for r in records(out)]
    assert [m[-1]["role"] for m in asked] == ["user", "user", "user", "assistant", "user"]
    del rows[3], asked[3]
    for row, request in zip(rows, asked, strict=True):
        last = max(i for i, m in enumerate(row["messages"]) if m["role"] == "user")
        assert request[-1]["content"] == row["messages"][last]["content"]
        assert len([m for m in request if m["role"] != "system"]) == len(
            [m for m in row["messages"][: last + 1] if m["role"] != "system"]
        )


def test_until_last_user_goes_with_a_batch_only():
    code, _, err = cli("convert", "--to", "openai", "--until-last-user", str(FINISHED))
    assert (code, err) == (
        2,
        "chatpipe: error: --until-last-user: only --to openai-batch and anthropic-batch take it\n",
    )


# -- commands that write the input's own dialect (#51, item 10) -----------------------------

OWN_DIALECT = [
    ("redact",),
    ("head", "-n", "5"),
    ("select", "--max-messages", "1000"),
    ("sample", "-n", "5", "--seed", "1"),
    ("dedupe", "--by", "messages"),  # (two failures, both empty, are one conversation)
    ("trim", "--max-tokens", "1000"),
    ("filter", "--exclude-all-tool-calls"),
]


@pytest.mark.parametrize("command", OWN_DIALECT, ids=" ".join)
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_a_batch_file_through_a_command_keeps_its_lines_their_own_model(command, path):
    """The input's dialect written back: each request for its own model, each result as
    the result line it was (was: "--to openai-batch needs --model", which these commands
    have no option for)."""
    code, out, err = cli(*command, str(path))
    assert code == 0, err
    lines = load(path)
    if isinstance(lines, dict):  # Anthropic's {"requests": [...]} body: a request a line
        lines = lines["requests"]
    written = sorted(records(out), key=lambda line: line["custom_id"])
    assert written == sorted(lines, key=lambda line: line["custom_id"]) or (
        path.name.startswith("openai_batch__cookbook_responses")  # (its input: items now)
        and written[0]["body"]["model"] == lines[0]["body"]["model"]
    )


def test_a_redacted_batch_keeps_its_requests_and_results_but_the_secret(tmp_path):
    secret = "sk-proj-" + "Ab1" * 16
    request = json.loads(CHAT_IN.read_text().splitlines()[0])
    request["body"]["messages"][1]["content"] = f"my key is {secret}"
    result = json.loads(CHAT_OUT.read_text().splitlines()[0])
    message = result["response"]["body"]["choices"][0]["message"]
    message["content"] = f"Do not share {secret}"
    for name, line in (("in.jsonl", request), ("out.jsonl", result)):
        (tmp_path / name).write_text(json.dumps(line) + "\n")
        code, out, err = cli("redact", str(tmp_path / name))
        assert code == 0, err
        [written] = records(out)
        assert secret not in out and "[OPENAI_KEY]" in out
        assert written.keys() == line.keys()
        assert json.dumps(written).replace("[OPENAI_KEY]", secret) == json.dumps(line)


def test_a_second_result_for_one_custom_id_is_said(tmp_path):
    first = CHAT_OUT.read_text().splitlines()[0]
    second = first.replace("Hello! How", "Hi! How")
    output = tmp_path / "out.jsonl"
    output.write_text(first + "\n" + second + "\n")
    code, out, err = cli("convert", str(CHAT_IN), str(output))
    # was: exit 0, the second answer gone without a word
    assert (code, out) == (1, "")
    assert err == (
        f"chatpipe: error: {output}:2:1: a second result for custom_id 'request-1' (the "
        f"first is at {output}:1:1) (a batch's output holds one result a request: give each "
        "output file once, or --on-error skip to join the first)\n"
    )
    code, out, err = cli("convert", "--on-error", "skip", str(CHAT_IN), str(output))
    assert code == 0
    assert "Hello! How" in out and "Hi! How" not in out
    assert f"skipped: {output}:2:1: a second result for custom_id 'request-1'" in err


def test_a_request_of_another_endpoint_is_refused_not_read_as_a_turn(tmp_path):
    embeddings = {
        "custom_id": "e1",
        "method": "POST",
        "url": "/v1/embeddings",
        "body": {"model": "text-embedding-3-small", "input": "hello"},
    }
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(embeddings) + "\n")
    code, out, err = cli("convert", str(path))
    # was: exit 0, {"messages": [{"type": "human", "content": "hello"}], ...}
    assert (code, out) == (1, "")
    assert err.startswith(
        f"chatpipe: error: {path}:1:1: this batch line is not a chat request (url /v1/embeddings)"
    )


def test_a_result_holding_an_integer_past_64_bits_is_joined_exactly(tmp_path):
    """The output file's results are kept as JSON until their requests come: orjson could
    not write one holding an integer past 64 bits (an internal TypeError; found by the
    structure fuzzer, #51), and would have read it back a float."""
    result = json.loads(CHAT_OUT.read_text().splitlines()[0])
    result["response"]["body"]["usage"]["seed"] = 10**30
    output = tmp_path / "out.jsonl"
    output.write_text(json.dumps(result) + "\n")
    code, out, err = cli("convert", str(CHAT_IN), str(output))
    assert code == 0, err
    assert records(out)[0]["response"]["body"]["usage"]["seed"] == 10**30
