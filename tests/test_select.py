"""``chatpipe select`` and ``chatpipe.ops.select``: each criterion on an export, a
dataset and a log, whole outputs compared."""

from __future__ import annotations

import json

import langchain_core.messages as lc
import orjson
import pytest
from langchain_core.messages.utils import count_tokens_approximately as lc_count
from typer.testing import CliRunner

import chatpipe as cp
from chatpipe.cli import app
from chatpipe.errors import UsageError
from chatpipe.model import AIMessage, Conversation, HumanMessage, SystemMessage
from chatpipe.ops import facts
from chatpipe.ops.select import select, selector
from conftest import FIXTURES

runner = CliRunner()
EXPORT = str(FIXTURES / "chatgpt_export__pkuppens_2023_conversations_subset.json")
CLAUDE = str(FIXTURES / "claude_export__yaleman_2025_thinking.json")
TOY = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
LOG = str(FIXTURES / "agent_session.jsonl")
TOOLS = str(FIXTURES / "hf_messages__llamafactory_v1_reason_tool_use_first8.jsonl")

OFFERTE = "afc2ca17-1d04-40bd-a700-3f321a25f49b"  # 2023-06-09, gpt-4, 2 messages
LOGO = "e96087ed-b714-4a54-a06a-e425db1680bd"  # 2023-03-29, text-davinci-002, 14 messages
WEBSITE = "902d8aca-bcd3-477a-a348-d46448b6cd06"  # 2023-05-25, gpt-4-browsing, tools
WIKIS = "c21a4db5-68eb-471a-b590-bb6ef7b81b42"  # 2023-05-30, gpt-4-plugins, tools


def ids(*args: str) -> list[str]:
    result = runner.invoke(app, ["select", "--ids", *args])
    assert result.exit_code == 0, result.stderr
    return result.stdout.splitlines()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], [OFFERTE, LOGO, WEBSITE, WIKIS]),
        (["--id", LOGO, "--id", WIKIS], [LOGO, WIKIS]),
        (["--title", "^(Logo|GitHub)"], [LOGO, WIKIS]),
        (["--title", "website", "-i"], [WEBSITE]),
        (["--after", "2023-05-25"], [OFFERTE, WEBSITE, WIKIS]),
        (["--after", "2023-05-26", "--before", "2023-06-09"], [WIKIS]),
        (["--before", "1685016050.164553"], [LOGO]),  # seconds since 1970, as given
        (["--after", "2023-06-09T10:10:04+02:00"], [OFFERTE]),  # 08:10:04 UTC
        (["--after", "2023-06-09T08:10:05Z"], []),
        (["--model", "^gpt-4$"], [OFFERTE]),
        (["--model", "gpt-4"], [OFFERTE, WEBSITE, WIKIS]),
        (["--model", "davinci", "--invert"], [OFFERTE, WEBSITE, WIKIS]),
        (["--min-messages", "12"], [LOGO, WEBSITE]),
        (["--max-messages", "6"], [OFFERTE, WIKIS]),
        (["--has", "tool-calls"], [WEBSITE, WIKIS]),
        (["--has", "tool-calls", "--max-messages", "6"], [WIKIS]),
        (["--role", "tool"], [WEBSITE, WIKIS]),
        (["--role", "system"], []),
        (["--max-tokens", "1000"], [OFFERTE, WIKIS]),
        (["--max-tokens", "3", "--token-counter", "messages"], [OFFERTE]),
        (["--grep", "OFFERTE"], []),
        (["--grep", "OFFERTE", "-i"], [OFFERTE]),
        (["--grep", "(?i)wiki", "--grep-role", "user"], [WIKIS]),
        (["--grep", "(?i)wiki", "--grep-role", "assistant", "--invert"], [OFFERTE, LOGO, WEBSITE]),
    ],
)
def test_each_criterion_on_an_export(args, expected):
    assert ids(*args, EXPORT) == expected


def test_token_bounds_select_by_langchains_count():
    """--min-tokens and --max-tokens take each conversation's count as langchain-core's
    count_tokens_approximately gives it (the oracle here), both bounds included."""
    from chatpipe.pipeline import read

    every = ids(EXPORT)
    counted = [
        lc_count(lc.messages_from_dict(cp.messages_to_dict(list(c.messages))))
        for c in read([EXPORT])
    ]
    assert len(counted) == len(every) and len(set(counted)) == len(counted)
    for tokens in counted:
        exact = ids("--min-tokens", str(tokens), "--max-tokens", str(tokens), EXPORT)
        assert exact == [i for i, n in zip(every, counted, strict=True) if n == tokens]
        assert len(exact) == 1
        above = ids("--min-tokens", str(tokens + 1), EXPORT)
        assert above == [i for i, n in zip(every, counted, strict=True) if n > tokens]


def test_an_export_a_dataset_and_a_log_together():
    files = [CLAUDE, str(TOY), LOG, TOOLS]
    assert ids("--has", "reasoning", *files) == [
        "b49c0fc0-85d8-475c-bd2d-ee89f31f592c",
        *(f"{TOOLS}:{n}:1" for n in range(1, 9)),
    ]
    assert ids("--has", "tool-calls", "--has", "system", *files) == [
        f"{LOG}:1:1",
        *(f"{TOOLS}:{n}:1" for n in (2, 3, 5, 7, 8)),
    ]
    # a time from the record (the Claude export's created_at); rows without one: none
    assert ids("--after", "2025-07-06", *files) == ["b49c0fc0-85d8-475c-bd2d-ee89f31f592c"]
    assert ids("--grep", "tennis", *files) == [f"{TOY}:2:1"]


MEDIA = [  # (fixture, what select --has finds in it), one dialect after another
    ("anthropic_messages__pydanticai_req_image_base64_source.json", "images"),
    ("anthropic_messages__pydanticai_req_document_base64_pdf.json", "attachments"),
    ("openai_chat__pydanticai_req_tool_call_then_image_url.json", "images"),
    ("openai_chat__pydanticai_req_file_part_pdf_tool.json", "attachments"),
    ("openai_responses__pydanticai_req_input_image.json", "images"),
    ("gemini__pydanticai_req_inline_data_image.json", "images"),
    ("gemini__pydanticai_req_file_data_youtube.json", "attachments"),  # a video
    ("hf_messages__llamafactory_mllm_demo_images.json", "images"),  # the rows' images
    ("claude_export__osteele_web_api_single_conversation_image_file.json", "images"),
    ("claude_export__documented_pasted_file_attachment.json", "images attachments"),
    ("claude_export__yaleman_2025_thinking.json", ""),
    ("chatgpt_export__derived_branch_with_image_part.json", ""),  # (on another branch)
]


BAKERY = "8006a434-8b0b-43df-8e6d-c0a7aeb2e6b3"  # the id of both Claude exports with files


@pytest.mark.parametrize("what", ["images", "attachments"])
def test_has_images_and_attachments_in_each_dialect(what):
    """An image is a picture the model is shown (an image block, a file of an image/*
    type, an export's file of kind image, a dataset's images); an attachment any other
    file (a PDF, a video, a pasted text): docs/conversations.md says so."""
    files = [str(FIXTURES / name) for name, _ in MEDIA]
    expected = []
    for name, holds in MEDIA:
        if what not in holds.split():
            continue
        if name.startswith("claude_export"):
            expected.append(BAKERY)
        elif name.startswith("hf_messages"):  # a conversation a row, from line 2
            expected += [f"{FIXTURES / name}:{n}:3" for n in (2, 26, 49, 72, 96, 119)]
        else:
            expected.append(f"{FIXTURES / name}:1:1")
    assert ids("--has", what, *files) == expected


@pytest.mark.parametrize(
    ("files", "images", "attachments"),
    [
        ([{"name": "shot.png", "mime_type": "image/png", "width": 800}], True, False),
        ([{"name": "old.jpg", "mimeType": "image/jpeg"}], True, False),
        ([{"name": "paper.pdf", "mime_type": "application/pdf"}], False, True),
        ([{"name": "a.png", "mime_type": "image/png"}, {"name": "b.csv"}], True, True),
        ([], False, False),
    ],
)
def test_a_chatgpt_exports_attached_files(files, images, attachments):
    """ChatGPT lists a message's uploads in ``metadata.attachments``: an image/* one is
    an image, any other an attachment."""
    kwargs = {"chatgpt": {"metadata": {"attachments": files}}}
    message = HumanMessage("look", additional_kwargs=kwargs)
    assert (facts.has_images(message), facts.has_attachments(message)) == (images, attachments)


def test_the_output_is_the_input_dialect_or_to():
    result = runner.invoke(app, ["select", "--grep", "bike", str(TOY)])
    first = TOY.read_text(encoding="utf-8").splitlines()[0]
    assert result.stdout == orjson.dumps(json.loads(first)).decode() + "\n"
    canonical = runner.invoke(app, ["select", "--grep", "bike", "--to", "canonical", str(TOY)])
    assert canonical.stdout == (
        '{"messages":[{"type":"system","content":"You are a happy assistant that puts a '
        'positive spin on everything."},{"type":"human","content":"I fell off my bike today."},'
        '{"type":"ai","content":"It\'s great that you\'re getting exercise outdoors!"}]}\n'
    )


def test_a_log_is_one_conversation_kept_whole_message_per_line():
    kept = runner.invoke(app, ["select", "--role", "tool", LOG])
    assert kept.stdout == runner.invoke(app, ["convert", "--to", "openai", LOG]).stdout
    assert len(kept.stdout.splitlines()) == 26
    assert runner.invoke(app, ["select", "--role", "function", LOG]).stdout == ""


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--after", "last week"], "--after 'last week' is not a date"),
        (["--title", "("], "--title '(' is not a regular expression"),
        (["--has", "pictures"], "--has 'pictures' is not something to look for"),
        (["--grep-role", "user"], "--grep-role narrows --grep"),
        (["--min-messages", "-1"], "--min-messages must be 0 or more"),
        (["--chat-template", "x.jinja"], "--chat-template counts tokens for --min-tokens"),
        (["--role", "a b"], "'a b' is not a role"),
    ],
)
def test_bad_options_say_what_and_how(args, said):
    result = runner.invoke(app, ["select", *args, EXPORT])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"chatpipe: error: {said}")
    assert "Traceback" not in result.stderr


def test_the_library_function():
    rows = [
        Conversation([HumanMessage("hi"), AIMessage("hello")], {"id": "a", "model": "m-1"}),
        Conversation(iter([SystemMessage("s"), HumanMessage("x")]), {"created_at": "2024-05-02"}),
        Conversation([HumanMessage("bye")], {"id": 7, "create_time": 1714521600}),
    ]
    kept = list(select(rows, after="2024-05-01"))
    assert [facts.label(c, 0) for c in kept] == ["conversation 1", "7"]
    assert kept[0].messages == [SystemMessage("s"), HumanMessage("x")]  # a log's, listed
    assert [c.meta for c in select(rows, model="^m-", ids=["a"])] == [{"id": "a", "model": "m-1"}]
    assert [c.meta.get("id") for c in select(rows, ids=["7"], invert=True)] == ["a", None]
    keep = selector(roles=["human"], min_messages=2)
    assert [keep(c) is not None for c in rows] == [True, False, False]
    with pytest.raises(UsageError, match="--before 'soon' is not a date"):
        selector(before="soon")


def test_times_as_sources_and_users_write_them():
    parse = facts.parse_time
    assert parse("2024-05-01") == 1714521600.0
    assert parse("2024-05-01T02:00:00+02:00") == 1714521600.0
    assert parse("2024-05-01 00:00:00z") == 1714521600.0
    assert parse(1714521600000) == 1714521600.0  # milliseconds
    assert parse("1714521600") == 1714521600.0
    assert [parse(v) for v in ("", "May 1", None, True, float("nan"), [1])] == [None] * 6


def test_a_users_pattern_travels_and_runs_unbounded_where_no_signal_reaches():
    # (sent to Dask's workers pickled; in a thread other than the main one the alarm
    # cannot reach a search, which runs as Python's own)
    import pickle
    import threading

    from chatpipe.io import alarm
    from chatpipe.ops.user_regex import compile_regex

    pattern = pickle.loads(pickle.dumps(compile_regex("ré(f)u\\1nd", "--grep", True)))
    assert (pattern.flag, pattern.search("RÉFUFND").group()) == ("--grep", "RÉFUFND")
    seen = []

    def elsewhere():
        seen.append((alarm.watch(lambda: None), pattern.spans("réfufnd, réfufnd")))

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert seen == [(False, [(0, 7), (9, 16)])]


@pytest.mark.parametrize(
    "flag", ["--max-tokens", "--min-tokens", "--max-messages", "--min-messages"]
)
def test_a_negative_count_is_a_usage_error(flag):
    """select --max-tokens -5 was accepted and matched nothing, exit 0 (#51)."""
    result = runner.invoke(app, ["select", flag, "-5", TOY.as_posix()])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"chatpipe: error: {flag} must be 0 or more, got -5\n"
    assert runner.invoke(app, ["select", flag, "0", TOY.as_posix()]).exit_code == 0
