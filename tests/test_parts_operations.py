"""Operations that keep a state of their own run in parts as on one process: dedupe (two
passes: every part's digests, then the first of each kept), sample -n (two passes: every
part's smallest keys, then the chosen kept), redact (each part's counts added up). The
parts are small here (a few kilobytes), on forked workers and in this process."""

from __future__ import annotations

import hashlib
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
    job = Job(Inputs((str(path),)), operation, ToDialect("openai", settings={"keep_extras": True}))
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


def _smallest_keys(ids: list[str], n: int, seed: str) -> list[str]:
    """The ids ``sample -n`` must keep, worked out here from what docs/conversations.md
    and ops/sample.py say: each conversation's key is a 64-bit BLAKE2b of the purpose, the
    seed and its id; the n smallest keys are kept, equal keys by position, in input order."""

    def key(conversation_id: str) -> int:
        data = f"sample\x00{seed}\x00id\x00{conversation_id}".encode()
        return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big")

    chosen = sorted(range(len(ids)), key=lambda k: (key(ids[k]), k))[:n]
    return [ids[k] for k in sorted(chosen)]


@pytest.mark.parametrize("n", [0, 1, 7, 150, 500])
def test_sample_n_in_parts_chooses_what_one_process_chooses(rows, monkeypatch, n, tmp_path):
    path, lines, _ = rows
    # the rows with an id (all but the two near misses at the end), so that the test can
    # work out each key itself; still many parts
    named = [line for line in lines if '"id": ' in line]
    assert len(named) == len(lines) - 2
    path = tmp_path / "named.jsonl"
    path.write_text("\n".join(named) + "\n", encoding="utf-8")
    ids = [json.loads(line)["id"] for line in named]
    for seed in ("1", "spring"):
        expected = _smallest_keys(ids, n, seed)
        assert len(expected) == min(n, len(ids))
        for jobs in (1, 2):
            chosen = _run(path, SampleN(n, seed), jobs, monkeypatch)
            assert [json.loads(line)["id"] for line in chosen.splitlines()] == expected, jobs
    # what a sample is not: the first n, or the same n under another seed
    if 0 < n < len(ids):
        assert _smallest_keys(ids, n, "1") != ids[:n]
        assert _smallest_keys(ids, n, "1") != _smallest_keys(ids, n, "spring")


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
