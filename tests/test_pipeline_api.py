"""chatpipe.pipeline, the way to run chatpipe's work from Python: the same bytes as the
commands that run it."""

from __future__ import annotations

import functools
import pathlib
import subprocess
import sys

import pytest

from chatpipe.ops.count import resolve_counter
from chatpipe.pipeline import Trim, read, write

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures"
CASES = [
    ("sharegpt__fastchat_dummy_conversation_first20.json", "openai", False),
    ("openai_tool_calls.jsonl", "canonical", True),
]


def _cli(*argv: str) -> bytes:
    done = subprocess.run(
        [sys.executable, "-m", "chatpipe", *argv], capture_output=True, check=True
    )
    return done.stdout


@pytest.mark.parametrize(("name", "to", "per_message"), CASES)
def test_read_trim_write_gives_what_the_trim_command_writes(name, to, per_message):
    path = str(FIXTURES / name)
    trim = Trim(120, resolve_counter("approximate"), start_on=["human"])
    conversations = (c.with_messages(trim(c)) for c in read([path]))
    pieces = list(write(conversations, to, message_per_line=per_message))
    expected = _cli("trim", "--max-tokens", "120", "--start-on", "human", "--to", to, path)
    assert len(pieces) >= 2
    assert b"\n".join(pieces) + b"\n" == expected


def test_a_document_is_written_as_convert_writes_it():
    path = str(FIXTURES / "claude_export__yaleman_2025_thinking.json")
    pieces = list(write(read([path]), "markdown"))
    assert b"".join(pieces) == _cli("convert", "--to", "markdown", path)
    assert b"## " in b"".join(pieces) or b"# " in b"".join(pieces)


# --- a Job, run by each executor -------------------------------------------------------


def _rows(tmp_path: pathlib.Path, bad: bytes | None = None) -> pathlib.Path:
    """Conversation-per-line OpenAI rows with tool calls, enough for many byte ranges."""
    lines = []
    for name in (
        "openai_chat__cookbook_toy_chat_fine_tuning.jsonl",
        "hf_messages__llamafactory_v1_reason_tool_use_first8.jsonl",
    ):
        done = subprocess.run(
            [sys.executable, "-m", "chatpipe", "convert", "--to", "openai", str(FIXTURES / name)],
            capture_output=True,
            check=True,
        )
        lines.extend(done.stdout.splitlines())
    rows = lines * 150
    if bad is not None:
        rows.insert(len(rows) // 2, bad)
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b"\n".join(rows) + b"\n")
    return path


def _run(job, executor, path: pathlib.Path, *args):
    from chatpipe.io.sink import output_sink

    with output_sink(str(path), []) as sink:
        done = executor(job, sink, *args)
    return done, path.read_bytes()


def _trim_job(rows: pathlib.Path, to: str, on_error: str = "fail"):
    from chatpipe.pipeline.job import Inputs, Job, on_messages
    from chatpipe.pipeline.targets import ToDialect

    trim = Trim(800, resolve_counter("approximate"), start_on=["human"])
    target = ToDialect(to)
    return Job(Inputs((str(rows),), on_error=on_error), on_messages(trim), target)


def test_a_job_gives_the_same_bytes_losses_and_errors_in_one_process_and_in_workers(
    tmp_path, monkeypatch
):
    from chatpipe.pipeline import assemble
    from chatpipe.pipeline.executors import Engine, execute, serial
    from conftest import noting_pids

    rows = _rows(tmp_path, bad=b'{"messages": [{"role": "user", "content": "cut')
    job = _trim_job(rows, "sharegpt", on_error="skip")
    one, one_bytes = _run(job, serial, tmp_path / "one.jsonl")
    pids = noting_pids(monkeypatch, assemble, "run_part", tmp_path / "pids")
    many, many_bytes = _run(job, execute, tmp_path / "many.jsonl", Engine(jobs=2))
    workers = set(pids.read_text().split())  # the workers ran it, not a fallback
    assert len(workers) == 2 and str(__import__("os").getpid()) not in workers
    assert many_bytes == one_bytes
    assert one_bytes.count(b"\n") == 13 * 150  # every good row, the bad one skipped
    # trimmed: each row holds fewer messages than it came with, and ShareGPT's losses
    assert one_bytes.count(b'"from":"human"') < rows.read_bytes().count(b'"role":"user"')
    assert many.losses.cases == one.losses.cases and one.losses.cases
    assert [str(e) for e in many.errors.skipped] == [str(e) for e in one.errors.skipped]
    [error] = one.errors.skipped
    assert str(error).startswith(f"{rows}:{13 * 150 // 2 + 1}:")


def test_a_job_that_cannot_be_split_runs_in_one_process_and_says_why(tmp_path):
    """One document, or one message log its target writes whole: one process, the same
    bytes; the note says why when the input was large enough to be worth cutting."""
    from chatpipe.pipeline.executors import Engine, execute, serial
    from chatpipe.pipeline.job import Inputs, Job
    from chatpipe.pipeline.targets import ToDialect

    log = tmp_path / "log.jsonl"
    log.write_bytes((FIXTURES / "openai_tool_calls.jsonl").read_bytes() * 3000)
    assert log.stat().st_size > 1 << 20
    whole = (
        f"--jobs 2: {log} is read whole (conversation-per-line JSONL and Parquet files "
        "are cut into parts, and one message log written message "
        "by message); running in one process"
    )
    for target, why in (
        (
            ToDialect("openai", as_json=True),
            "--jobs 2: this output is one document, written by one process",
        ),
        (ToDialect("sharegpt"), whole),
    ):
        job = Job(Inputs((str(log),)), None, target)
        said = []
        with_notes = functools.partial(execute, note=said.append)
        one = _run(job, serial, tmp_path / "one.jsonl")[1]
        assert _run(job, with_notes, tmp_path / "out.jsonl", Engine(jobs=2))[1] == one
        assert len(one) > 1 << 20 and said == [why]


def test_the_library_page_examples_run_and_write_what_they_say(tmp_path, monkeypatch, capsys):
    page = (FIXTURES.parent / "docs" / "library.md").read_text()
    # (the two sections that write train.jsonl; the operations' section is run by test_docs)
    section = page[page.index("## Pipelines from Python") : page.index("\n## Operations")]
    blocks = section.split("```python\n")[1:]
    assert len(blocks) == 2
    rows = FIXTURES / "sharegpt__fastchat_dummy_conversation_first20.json"
    converted = _cli("convert", "--to", "sharegpt", str(rows))
    (tmp_path / "sharegpt_rows.jsonl").write_bytes(converted)
    monkeypatch.chdir(tmp_path)
    expected = _cli(
        "trim",
        "--max-tokens",
        "4000",
        "--start-on",
        "human",
        "--to",
        "openai",
        "sharegpt_rows.jsonl",
    )
    for block in blocks:
        (tmp_path / "train.jsonl").unlink(missing_ok=True)
        exec(compile(block.split("```")[0], "docs/library.md", "exec"), {})
        assert (tmp_path / "train.jsonl").read_bytes() == expected
    assert expected.count(b"\n") == 20
    assert capsys.readouterr().out == "0 bad rows skipped\n"
