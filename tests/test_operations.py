"""A job's operation may leave a conversation out (None), or take the run's
conversations all at once (``on_stream``: head, sample -n), which only one process
can run."""

from __future__ import annotations

import itertools

import pytest

from chatpipe.errors import UsageError
from chatpipe.pipeline import executors
from chatpipe.pipeline.assemble import run_in_parts
from chatpipe.pipeline.executors import Engine
from chatpipe.pipeline.job import Inputs, Job, Run, on_stream
from chatpipe.pipeline.parts import Output
from chatpipe.pipeline.plan import plan
from chatpipe.pipeline.targets import Lines
from chatpipe.pipeline.workers import ForkPool, Inline


def _job(path, operation) -> Job:
    return Job(Inputs((str(path),)), operation, Lines(lambda c: c.messages[0].content.encode()))


def _rows(tmp_path, n: int = 6):
    path = tmp_path / "rows.jsonl"
    path.write_text(
        "".join(f'{{"messages":[{{"role":"user","content":"m{i}"}}]}}\n' for i in range(n))
    )
    return path


def test_an_operation_returning_none_drops_the_conversation(tmp_path):
    path = _rows(tmp_path)

    def even(conversation):
        return conversation if int(conversation.messages[0].content[1:]) % 2 == 0 else None

    sink = Output()
    executors.execute(_job(path, even), sink, Engine(1))
    assert sink.close() == b"m0\nm2\nm4\n"
    found = plan(_job(path, even), 40)  # a part a line or so: the parts run it too
    assert len(found.parts) > 3
    for mapper in (Inline(), ForkPool(2)):
        sink = Output()
        run_in_parts(Run(_job(path, even)), found, mapper, sink)
        assert sink.close() == b"m0\nm2\nm4\n"


def test_a_stream_operation_runs_in_one_process_and_parts_refuse_it(tmp_path):
    path = _rows(tmp_path)
    first_two = on_stream(lambda conversations: itertools.islice(conversations, 2))
    heard = []
    sink = Output()
    executors.execute(_job(path, first_two), sink, Engine(2), note=heard.append)
    assert sink.close() == b"m0\nm1\n"
    assert heard == ["--jobs 2: this command reads its inputs in one process"]
    with pytest.raises(UsageError, match="reads its inputs in one process, not in parts"):
        executors.execute(_job(path, first_two), None, output_dir=str(tmp_path / "out"))
    with pytest.raises(TypeError):
        first_two(None)
