"""The operation contract (ops/operation.py): an operation that may keep state and does
not say how the parts' states merge is refused on an engine that runs parts in several
processes, never run to another answer than one process's; one that declares how it
merges gives one process's answer; every operation chatpipe's commands build declares
what it is."""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter

import pytest

from chatpipe.errors import UsageError
from chatpipe.ops.operation import PerPart
from chatpipe.pipeline import plan as planning
from chatpipe.pipeline.executors import Engine, execute
from chatpipe.pipeline.job import Inputs, Job
from chatpipe.pipeline.parts import Output
from chatpipe.pipeline.targets import ToDialect


@pytest.fixture
def rows(tmp_path, monkeypatch):
    """Conversation-per-line rows cut into many small parts for --jobs."""
    monkeypatch.setattr(planning, "JOB_BLOCKSIZE", 2048)
    path = tmp_path / "rows.jsonl"
    lines = [
        json.dumps({"id": f"r{i}", "messages": [{"role": "user", "content": f"q{i} " * 20}]})
        for i in range(300)
    ]
    path.write_text("\n".join(lines) + "\n")
    assert len(planning.plan(Job(Inputs((str(path),))), 2048).parts) > 8
    return path


def _run(path, operation, engine: Engine | None = None) -> bytes:
    sink = Output()
    job = Job(Inputs((str(path),)), operation, ToDialect("openai"))
    execute(job, sink, engine or Engine())
    return sink.close()


class Tally:
    """Counts the conversations it sees: state, and no word of how parts merge it."""

    def __init__(self) -> None:
        self.seen = 0

    def __call__(self, conversation):
        self.seen += 1
        return conversation


class Counted(PerPart[int]):
    """Counts the conversations it sees, and says how the parts' counts add up."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, conversation):
        self.count += 1
        return conversation

    def for_part(self, part):
        return Counted()

    def part_state(self):
        return self.count

    def absorb(self, state, placed):
        self.count += state


SEEN: set[str] = set()


def _first_of_each_text(conversation):  # a module global it adds to
    text = conversation.messages[0].content
    if text in SEEN:
        return None
    SEEN.add(text)
    return conversation


def _counted(counts=[0]):  # noqa: B006 (the mutable default is the point)
    def operation(conversation):
        counts[0] += 1
        return conversation

    return operation


def _renumbered():
    number = itertools.count()  # a closure over an iterator: state
    return lambda conversation: conversation if next(number) % 2 else None


def test_a_stateful_object_is_refused_on_jobs_and_on_dask_and_runs_in_one_process(rows):
    one = Tally()
    expected = _run(rows, one)
    assert one.seen == 300 and expected.count(b"\n") == 300
    for engine in (Engine(jobs=2), Engine(dask=True), Engine(dask=True, jobs=3)):
        many = Tally()
        with pytest.raises(UsageError) as refused:  # (Dask: before a cluster starts)
            _run(rows, many, engine)
        assert many.seen == 0
        said = str(refused.value)
        assert said.startswith(f"{engine.in_words()} runs the parts of the inputs in several")
        assert "it is a Tally object, which declares neither Stateless nor PerPart" in said
        assert "Stateless" in refused.value.hint and "PerPart" in refused.value.hint


@pytest.mark.parametrize(
    ("operation", "why"),
    [
        (_first_of_each_text, "the function _first_of_each_text uses the global SEEN, a set"),
        (_counted(), "the function _counted.<locals>.operation closes over counts, a list"),
        (_renumbered(), "<lambda> closes over number, a count object"),
        (Tally().__call__, "it is a method of a Tally object"),
        (Counter().update, "it is a method of a Counter"),
        (set().add, "it is the method add of a set"),
    ],
)
def test_functions_and_methods_that_reach_what_can_change_are_refused(rows, operation, why):
    with pytest.raises(UsageError, match=re.escape(why)):
        _run(rows, operation, Engine(jobs=2))


def test_a_function_that_assigns_a_global_is_refused():
    from chatpipe.ops.operation import undeclared_state

    namespace: dict = {"kept": 0}
    exec("def keep(c):\n    global kept\n    kept += 1\n    return c\n", namespace)
    assert undeclared_state(namespace["keep"]) == "the function keep assigns the global kept"


def test_plain_functions_that_keep_nothing_and_declared_ones_run_in_parts(rows):
    from chatpipe.ops.operation import Stateless, stateless

    expected = _run(rows, None)
    prefix, wanted = "q", ("r1", "r7")  # a closure over a string and a tuple
    checks = [
        lambda c: c,
        lambda c: c if c.messages[0].content.startswith(prefix) else None,
        lambda c: c if c.meta.get("id") not in wanted else None,
    ]
    for check in checks:
        assert _run(rows, check, Engine(jobs=2)) == _run(rows, check)
    assert _run(rows, checks[0], Engine(jobs=2)) == expected
    assert _run(rows, checks[2], Engine(jobs=2)).count(b"\n") == 298

    listed = ["r3"]  # a closure over a list it only reads: the caller's word
    only_r3 = stateless(lambda c: c if c.meta.get("id") in listed else None)
    assert _run(rows, only_r3, Engine(jobs=2)).count(b"\n") == 1

    class Keep(Stateless):
        def __call__(self, conversation):
            return conversation

    assert _run(rows, Keep(), Engine(jobs=2)) == expected


def test_an_operation_that_says_how_parts_merge_counts_as_one_process(rows):
    one, many = Counted(), Counted()
    assert _run(rows, many, Engine(jobs=2)) == _run(rows, one)
    assert many.count == one.count == 300


def test_two_passes_whose_first_gathers_nothing_mergeable_are_refused(rows):
    from chatpipe.ops.operation import TwoPasses

    class Undeclared(TwoPasses):
        def __call__(self, conversation):
            return conversation

        def first_pass(self):
            return lambda c: None  # (gathers in a function: nothing comes back)

        def second_pass(self, gathered):
            return lambda c: c

    with pytest.raises(UsageError, match="first pass is a function, not a PerPart"):
        _run(rows, Undeclared(), Engine(jobs=2))

    class OnePass(TwoPasses):
        def __call__(self, conversation):
            return conversation

        def first_pass(self):
            return None

        def second_pass(self, gathered):
            raise AssertionError("one pass")

    with pytest.raises(UsageError, match="is neither Stateless nor PerPart"):
        _run(rows, OnePass(), Engine(jobs=2))

    kept: list = []

    class KeepsInAList(TwoPasses):
        def __call__(self, conversation):
            return conversation

        def first_pass(self):
            return Counted()

        def second_pass(self, gathered):
            return lambda c: kept.append(c) or c

    with pytest.raises(UsageError, match="second pass runs the parts, and may keep state"):
        _run(rows, KeepsInAList(), Engine(jobs=2))


def test_every_operation_of_the_commands_declares_what_it_is():
    from chatpipe.ops.count import resolve_counter
    from chatpipe.ops.dedupe import Deduper
    from chatpipe.ops.operation import (
        Operation,
        PerPart,
        Stateless,
        Streaming,
        TwoPasses,
        on_messages,
        undeclared_state,
    )
    from chatpipe.ops.redact import Redactor
    from chatpipe.ops.sample import Fraction, Head, SampleN, listed
    from chatpipe.ops.select import Criteria, Selector
    from chatpipe.pipeline.trim_policy import Trim

    trim = on_messages(Trim(100, resolve_counter("approximate")))
    head = Head(3)
    declared = {
        "dedupe": (Deduper(), (TwoPasses, PerPart)),
        "dedupe --by messages": (Deduper("messages"), (TwoPasses, PerPart)),
        "sample -n": (SampleN(3), (Streaming, TwoPasses)),
        "sample --fraction": (Fraction(0.5), (Stateless,)),
        "select": (Selector(Criteria()), (Stateless,)),
        "redact": (Redactor(), (PerPart,)),
        "split": (listed, (Stateless,)),
        "head": (head, (Streaming,)),
        "trim": (trim, (Operation,)),
    }
    for name, (operation, kinds) in declared.items():
        assert all(isinstance(operation, kind) for kind in kinds), name
        assert undeclared_state(operation) is None, name
    # their passes too
    for operation in (Deduper(), SampleN(3)):
        gather = operation.first_pass()
        assert isinstance(gather, PerPart)
        assert isinstance(operation.second_pass(gather), PerPart)


def test_the_filter_and_merge_commands_run_on_jobs(tmp_path):
    from typer.testing import CliRunner

    from chatpipe.cli import app

    path = tmp_path / "rows.jsonl"
    path.write_text(
        "".join(
            json.dumps({"messages": [{"role": "user", "content": f"q{i}"}] * 2}) + "\n"
            for i in range(20)
        )
    )
    for command in (["filter", "--include-types", "human"], ["merge"], ["dedupe"]):
        serial = CliRunner().invoke(app, [*command, str(path)])
        on_jobs = CliRunner().invoke(app, [*command, "--jobs", "2", str(path)])
        assert (on_jobs.exit_code, on_jobs.stdout) == (0, serial.stdout), command
