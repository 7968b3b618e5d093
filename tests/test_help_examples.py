"""Every example of every command's --help runs as written in a fresh clone, on the bundled
fixtures, and finds something: output on stdout, or a file written (#51: `grep --in tools
-C 1 'rm -rf' fixtures/agent_session.jsonl` and `select --grep refund ...` found nothing,
and most examples named files that exist nowhere)."""

from __future__ import annotations

import inspect
import subprocess

import pytest

from chatpipe.cli import COMMANDS, app
from doc_blocks import clone, environment

# an example's exit status when it finds what it looks for (validate: problems found)
FOUND = {"validate": 1}


def _examples() -> list[tuple[str, str]]:
    found = []
    for name in COMMANDS:
        command = next(c for c in app.registered_commands if c.name == name)
        doc = inspect.cleandoc(command.callback.__doc__)
        example = ""
        for line in doc.split("Examples:", 1)[1].splitlines():
            if line.strip().startswith("chatpipe ") or example:
                example += line.strip()
                if example.endswith("\\"):  # continued on the next line
                    example = example[:-1]
                else:
                    found.append((name, example))
                    example = ""
    return found


EXAMPLES = _examples()


def test_every_command_has_examples():
    assert {name for name, _ in EXAMPLES} == set(COMMANDS)


@pytest.mark.parametrize(("name", "example"), EXAMPLES, ids=[e for _, e in EXAMPLES])
def test_the_help_example_runs_and_finds_something(name, example, tmp_path):
    folder = clone(tmp_path)
    before = set(folder.iterdir())
    done = subprocess.run(
        example,
        shell=True,
        executable="/bin/bash",
        cwd=folder,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == FOUND.get(name, 0), f"{example}\n{done.stderr}"
    assert "error" not in done.stderr, f"{example}\n{done.stderr}"
    written = set(folder.iterdir()) - before
    assert done.stdout.strip() or written, f"{example}: found nothing"
    for path in written:  # a file or folder it wrote holds something
        assert any(p.stat().st_size for p in [path, *path.rglob("*")] if p.is_file()), path


def test_template_takes_the_chat_template_of_the_tokenizers_model(tmp_path):
    """`template --tokenizer DIR` stopped at click's "Missing option '--chat-template'",
    where tokenize takes the template from the same folder."""
    from typer.testing import CliRunner

    from conftest import FIXTURES

    model = FIXTURES / "chat_templates" / "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B"
    rows = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
    runner = CliRunner()
    by_tokenizer = runner.invoke(app, ["template", "--tokenizer", str(model), str(rows)])
    by_template = runner.invoke(app, ["template", "--chat-template", str(model), str(rows)])
    assert (by_tokenizer.exit_code, by_tokenizer.stderr) == (0, "")
    assert by_tokenizer.stdout == by_template.stdout and "<｜User｜>" in by_tokenizer.stdout
    neither = runner.invoke(app, ["template", str(rows)])
    assert (neither.exit_code, neither.stderr) == (
        2,
        "chatpipe: error: template needs --chat-template SOURCE (a chat_template.jinja, a "
        "tokenizer_config.json, a model directory or a cached model id; or --tokenizer MODEL, "
        "whose own chat template it takes)\n",
    )
