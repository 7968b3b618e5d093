"""Operations that keep a state of their own run in parts as on one process: dedupe (two
passes: every part's digests, then the first of each kept), sample -n (two passes: every
part's smallest keys, then the chosen kept), redact (each part's counts added up). The
parts are small here (a few kilobytes), on forked workers and in this process."""

from __future__ import annotations

import json

import pytest

from chatpipe.ops.dedupe import Deduper
from chatpipe.ops.redact import Redactor
from chatpipe.ops.sample import SampleN
from chatpipe.pipeline import plan as planning
from chatpipe.pipeline.executors import Engine, execute
from chatpipe.pipeline.job import Inputs, Job
from chatpipe.pipeline.parts import Output
from chatpipe.pipeline.targets import ToDialect
from test_dedupe import corpus


def _run(path, operation, jobs, monkeypatch, blocksize=4096):
    monkeypatch.setattr(planning, "JOB_BLOCKSIZE", blocksize)
    sink = Output()
    job = Job(Inputs((str(path),)), operation, ToDialect("openai"))
    execute(job, sink, Engine(jobs))
    return sink.close()


@pytest.fixture
def rows(tmp_path):
    lines, repeats = corpus(5)
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    found = planning.plan(Job(Inputs((str(path),))), 4096)
    assert len(found.parts) > 8  # a corpus of many parts, for both workers
    return path, lines, repeats


@pytest.mark.parametrize("by", ["conversation", "prompt", "messages"])
def test_dedupe_in_parts_keeps_what_one_process_keeps(rows, monkeypatch, by):
    path, lines, repeats = rows
    one, many = Deduper(by, report=True), Deduper(by, report=True)
    kept = _run(path, one, 1, monkeypatch)
    assert _run(path, many, 2, monkeypatch) == kept
    assert many.dropped == one.dropped and many.position == one.position == len(lines)
    if by == "conversation":
        assert one.dropped.conversations == len(repeats) == 60
        assert len(kept.splitlines()) == len(lines) - 60
        assert one.dropped.pairs[0] == (f"copy{min(repeats) - 200}", f"o{repeats[min(repeats)]}")


@pytest.mark.parametrize("n", [0, 1, 7, 150, 500])
def test_sample_n_in_parts_chooses_what_one_process_chooses(rows, monkeypatch, n):
    path, lines, _ = rows
    for seed in ("1", "spring"):
        chosen = _run(path, SampleN(n, seed), 1, monkeypatch)
        assert len(chosen.splitlines()) == min(n, len(lines))
        assert _run(path, SampleN(n, seed), 2, monkeypatch) == chosen


def test_redact_counts_in_parts_add_up_to_one_process(tmp_path, monkeypatch):
    path = tmp_path / "secrets.jsonl"
    mail = "@".join(["someone", "example.org"])
    rows = [
        {"messages": [{"role": "user", "content": f"write to {mail} or 10.0.0.{k % 250}"}]}
        for k in range(400)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    one, many = Redactor(), Redactor()
    out = _run(path, one, 1, monkeypatch)
    assert _run(path, many, 2, monkeypatch) == out
    assert many.counts == one.counts and sum(one.counts.values()) == 800
    assert many.conversations == one.conversations == 400
