"""A job's operation may leave a conversation out (None), or take the run's
conversations all at once (``on_stream``: head, sample -n), which only one process
can run."""

from __future__ import annotations

import itertools

import pytest

from chatpipe.errors import UsageError
from chatpipe.pipeline import executors
from chatpipe.pipeline.job import Inputs, Job, on_stream
from chatpipe.pipeline.parts import _Bytes
from chatpipe.pipeline.targets import Lines


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

    for jobs in (1, 2):  # the parts of --jobs run the same operation
        sink = _Bytes()
        executors.execute(_job(path, even), sink, jobs)
        assert sink.buffer.getvalue() == b"m0\nm2\nm4\n"


def test_a_stream_operation_runs_in_one_process_and_parts_refuse_it(tmp_path):
    path = _rows(tmp_path)
    first_two = on_stream(lambda conversations: itertools.islice(conversations, 2))
    heard = []
    sink = _Bytes()
    executors.execute(_job(path, first_two), sink, 2, note=heard.append)
    assert sink.buffer.getvalue() == b"m0\nm1\n"
    assert heard == ["--jobs 2: this command reads its inputs in one process"]
    with pytest.raises(UsageError, match="reads its inputs in one process, not in parts"):
        executors.partitioned(_job(path, first_two), _Bytes())
    with pytest.raises(TypeError):
        first_two(None)
