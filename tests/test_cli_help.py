"""The command line as a newcomer reads it: the root's help, examples that stay whole at
80 columns, shell completion of every option with fixed values, one rule for globs, and
the option groups every command that runs a job takes."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys

import langchain_core.messages as lc
import pytest
from langchain_core.messages.utils import count_tokens_approximately as lc_count
from typer.testing import CliRunner

from chatpipe.cli import COMMANDS, app
from chatpipe.pipeline.executors import Engine
from conftest import FIXTURES

runner = CliRunner()
TOOL_LOG = str(FIXTURES / "openai_tool_calls.jsonl")


def _doc(name: str) -> str:
    command = next(c for c in app.registered_commands if c.name == name)
    return inspect.cleandoc(command.callback.__doc__)


def test_root_help_lists_the_commands_first_each_with_its_whole_summary():
    text = runner.invoke(app, ["--help"], env={"COLUMNS": "80"}).stdout
    commands, limits, options = (text.index(h) for h in ("Commands:", "Limits:", "Options:"))
    assert commands < limits < options
    assert "..." not in text[commands:]
    listed = " ".join(text[commands:limits].split())
    for name in COMMANDS:
        summary = " ".join(_doc(name).split("\n\n")[0].split())
        assert f" {name} {summary}" in listed, name
        assert summary.endswith("."), name  # a sentence, not a cut one
    flags = [line.split()[0] for line in text[limits:options].splitlines()[1:] if line[:3] == "  -"]
    assert flags == ["--max-record-bytes", "--max-depth", "--max-yaml-values"]
    assert "--version" in text[options:] and "--max-depth" not in text[options:]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_examples_stay_whole_at_80_columns(name):
    examples = [line.strip() for line in _doc(name).splitlines() if line.startswith("  chatpipe")]
    assert examples, name
    shown = runner.invoke(app, [name, "--help"], env={"COLUMNS": "80"}).stdout.splitlines()
    for example in examples:
        assert f"    {example}" in shown, (name, example)


def _completed(words: str) -> list[str]:
    env = {
        **os.environ,
        "_CHATPIPE_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - (not words.endswith(" "))),
    }
    done = subprocess.run(
        [sys.executable, "-m", "chatpipe"], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.split()


def test_options_with_fixed_values_complete_them():
    assert _completed("chatpipe buffer --format ") == ["prefix", "xml"]
    assert _completed("chatpipe trim --strategy ") == ["last", "first"]
    assert _completed("chatpipe count --token-counter ") == [
        "approximate",
        "messages",
        "tiktoken:cl100k_base",
        "tiktoken:o200k_base",
        "hf:",
    ]
    assert _completed("chatpipe stats --token-counter tik") == [
        "tiktoken:cl100k_base",
        "tiktoken:o200k_base",
    ]


def _shards(folder, rows: int = 3):
    folder.mkdir()
    for k in range(2):
        lines = (
            f'{{"messages": [{{"role": "user", "content": "{"x" * (4 * (k + 1))} {i}"}}]}}\n'
            for i in range(rows)
        )
        (folder / f"part-{k}.jsonl").write_text("".join(lines))


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (["count"], "{counts}"),
        (["grep", "-c", " 1"], "{0}/part-0.jsonl:2: 1\n{0}/part-1.jsonl:2: 1\n"),
        (
            ["head", "-n", "1", "--to", "openai"],
            '{{"messages":[{{"role":"user","content":"xxxx 0"}}]}}\n',
        ),
    ],
)
def test_a_quoted_glob_is_read_by_every_reading_command(tmp_path, command, expected):
    _shards(tmp_path / "shards")
    pattern = f"{tmp_path}/shards/*.jsonl"
    result = runner.invoke(app, [*command, pattern])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected.format(
        tmp_path / "shards", counts=_counted(tmp_path / "shards")
    )


def _counted(folder) -> str:
    """What ``count`` prints for the rows of these files, in the order of their names:
    langchain-core's approximate count of each row's messages."""
    rows = [
        json.loads(line) for p in sorted(folder.iterdir()) for line in p.read_text().splitlines()
    ]
    return "".join(f"{lc_count(lc.convert_to_messages(row['messages']))}\n" for row in rows)


def test_a_glob_that_matches_nothing_is_said_before_any_work(tmp_path):
    pattern = f"{tmp_path}/none/*.jsonl"
    for command in (["count"], ["show", "--no-pager"], ["validate"]):
        result = runner.invoke(app, [*command, pattern])
        assert result.exit_code == 2, command
        assert result.stderr == f"chatpipe: error: {pattern}: no file matches this pattern\n"
    # a file whose name has glob characters is that file
    odd = tmp_path / "odd[1].jsonl"
    odd.write_text('{"role": "user", "content": "hi"}\n')
    assert (
        runner.invoke(app, ["count", str(odd)]).stdout == f"{lc_count([lc.HumanMessage('hi')])}\n"
    )


ENGINE = ("-j, --jobs N", "--engine serial|dask", "--scheduler ADDRESS", "--workers N")


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_that_runs_a_job_takes_the_engine_group(name):
    text = runner.invoke(app, [name, "--help"], env={"COLUMNS": "200"}).stdout
    flags = [line.split("  ")[1] for line in text.splitlines() if line.startswith("  -")]
    assert all(flag in flags for flag in ENGINE) == (name != "show"), name
    for flag in ("--from DIALECT", "--on-error fail|skip", "--branch active|latest|all"):
        assert (flag in flags) == (name != "validate" or "on-error" not in flag), (name, flag)
    assert "-v, --verbose" in flags and "-q, --quiet" in flags


ENGINES = [  # the engine group's options, and the engine each one asks for
    ((), Engine(1, False, None)),
    (("--jobs", "3"), Engine(3, False, None)),
    (("--workers", "3"), Engine(3, False, None)),
    (("--engine", "dask", "--jobs", "2"), Engine(2, True, None)),
    (
        ("--engine", "dask", "--scheduler", "tcp://127.0.0.1:9"),
        Engine(1, True, "tcp://127.0.0.1:9"),
    ),
]


@pytest.mark.parametrize(
    "command",
    [("convert",), ("count",), ("dedupe",), ("sample", "-n", "1"), ("stats",)],
    ids=" ".join,
)
def test_execute_takes_the_engine_from_the_options(command, monkeypatch):
    """Each command runs its job on the engine its options name: what the pipeline is
    handed (recorded here, then run in this process, which gives the same output)."""
    from chatpipe.pipeline import executors

    real, handed = executors.execute, []

    def recording(job, sink, engine, **options):
        handed.append(engine)
        return real(job, sink, Engine(), **options)

    monkeypatch.setattr(executors, "execute", recording)
    alone = runner.invoke(app, [*command, TOOL_LOG])
    assert alone.exit_code == 0, alone.stderr
    for options, engine in ENGINES:
        handed.clear()
        done = runner.invoke(app, [*command, *options, TOOL_LOG])
        assert done.exit_code == 0, (options, done.stderr)
        assert handed == [engine], options
        assert done.stdout == alone.stdout


def test_groups_reach_the_commands_that_lacked_them(tmp_path):
    log = tmp_path / "log.jsonl"
    rows = [("a", "user", "hi"), ("b", "user", "hello"), ("a", "assistant", "yes")]
    log.write_text(
        "".join(f'{{"session_id": "{s}", "role": "{r}", "content": "{c}"}}\n' for s, r, c in rows)
    )
    first = runner.invoke(
        app, ["head", "-n", "1", "--group-by", "session_id", "--to", "openai", str(log)]
    )
    assert first.exit_code == 0, first.stderr
    assert first.stdout == (
        '{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yes"}],'
        '"session_id":"a"}\n'
    )
    alone = runner.invoke(app, ["validate", "--chat-template", "x.jinja", TOOL_LOG])
    assert alone.exit_code == 2
    assert alone.stderr == "chatpipe: error: --chat-template counts tokens for --max-tokens\n"


USAGE_ERRORS = [
    (
        ["trim", TOOL_LOG],
        "trim needs --max-tokens N ('chatpipe trim -h' says what it takes)",
    ),
    (
        ["convert", "--verbos", TOOL_LOG],
        "no such option: --verbos (did you mean --verbose? 'chatpipe convert -h' lists its "
        "options)",
    ),
    (
        ["head", "-n", "abc", TOOL_LOG],
        "invalid value for '-n': 'abc' is not a valid int range ('chatpipe head -h' says what "
        "it takes)",
    ),
    (["nocommand"], "no such command 'nocommand' ('chatpipe -h' lists the commands)"),
    (
        ["trim", "--max-tokens"],
        "option '--max-tokens' requires an argument ('chatpipe trim -h' says what it takes)",
    ),
]


@pytest.mark.parametrize(("argv", "said"), USAGE_ERRORS, ids=[" ".join(a) for a, _ in USAGE_ERRORS])
def test_a_usage_error_is_one_line_with_the_fix(argv, said):
    """click printed its usage block, a hint and "Error: ..." on four lines (#51)."""
    done = subprocess.run(
        [sys.executable, "-m", "chatpipe", *argv], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"chatpipe: error: {said}\n")
