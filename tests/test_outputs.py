"""Every output path checked before a run (#51): two outputs on one path refused (``-o`` and
``--report``, stdout twice, a report over a shard), an output over an input refused
(``--report``, split's sides, ``--output-dir`` shards), and a report that cannot be written
said before ``-o`` is in place."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()
SHAREGPT = FIXTURES / "sharegpt__fastchat_dummy_conversation_first20.json"


def _input(tmp_path):
    path = tmp_path / "in.json"
    path.write_bytes(SHAREGPT.read_bytes())
    return path


def test_report_and_output_on_one_path_are_refused_before_the_run(tmp_path):
    source = _input(tmp_path)
    both = tmp_path / "x.jsonl"
    for command in (["dedupe"], ["redact"], ["redact", "--dry-run"]):
        result = runner.invoke(app, [*command, "--report", str(both), "-o", str(both), str(source)])
        assert result.exit_code == 2, result.stderr
        assert result.stderr == (
            f"chatpipe: error: -o {both} and --report {both} are one file: the last written "
            "would replace the other (give each output a path of its own)\n"
        )
        assert not both.exists()
    # the report over the shard the run writes for the input into --output-dir
    folder = tmp_path / "out"
    report = folder / "in.jsonl"
    args = ["dedupe", "--report", str(report), "--output-dir", str(folder), str(source)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert f"--report {report} and --output-dir {folder}'s in.jsonl are one file" in result.stderr
    assert not folder.exists()


def test_a_report_that_cannot_be_written_is_said_before_the_output_is_in_place(tmp_path):
    source = _input(tmp_path)
    out = tmp_path / "out.jsonl"
    missing = tmp_path / "no" / "report.json"
    result = runner.invoke(app, ["dedupe", "--report", str(missing), "-o", str(out), str(source)])
    assert result.exit_code == 1
    assert result.stderr == f"chatpipe: error: {missing}: cannot write: No such file or directory\n"
    assert not out.exists()  # nothing committed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.json"]  # and nothing left


def test_outputs_over_an_input_are_refused_and_the_input_kept(tmp_path):
    source = _input(tmp_path)
    before = source.read_bytes()
    result = runner.invoke(app, ["redact", "--report", str(source), str(source)])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"chatpipe: error: --report {source} is also an input file; refusing to overwrite it"
    )
    folder = tmp_path / "data"
    folder.mkdir()
    train = folder / "train.jsonl"
    runner.invoke(app, ["convert", "--to", "openai", str(source), "-o", str(train)])
    lines = train.read_bytes()
    split = ["split", "--ratio", "train=0.5,test=0.5", "--output-dir", str(folder), str(train)]
    for args in (split, ["convert", "--output-dir", str(folder), str(train)]):
        for jobs in ("1", "2"):
            result = runner.invoke(app, [*args, "--jobs", jobs])
            assert result.exit_code == 2, result.stderr
            assert result.stderr.startswith(
                f"chatpipe: error: --output-dir {folder}'s train.jsonl is also an input file; "
                "refusing to overwrite it"
            )
    assert train.read_bytes() == lines and source.read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == ["train.jsonl"]


def test_two_outputs_on_stdout_are_refused(tmp_path):
    source = _input(tmp_path)
    for report in ("-", "/dev/stdout"):
        result = subprocess.run(
            [sys.executable, "-m", "chatpipe", "dedupe", "--report", report, str(source)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 2
        assert result.stdout == ""
        assert "are one stream: their lines would be mixed" in result.stderr
    # /dev/null twice is fine: a device is never replaced
    result = runner.invoke(app, ["dedupe", "--report", "/dev/null", "-o", "/dev/null", str(source)])
    assert result.exit_code == 0, result.stderr
