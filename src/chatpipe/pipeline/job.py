"""A run of chatpipe's work as a value: ``Job(inputs, operation, target)`` says where to
read, what to do to each conversation and how to write the result; an executor
(executors.py) runs it, and every executor gives the same bytes. A ``Run`` holds what one
execution found: the dialects read, the records skipped, what the target could not hold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..formats.detect import MESSAGES
from ..formats.exports import ReadOptions
from ..model import Conversation
from .losses import LossReport
from .reading import ErrorLog, Reading, read

Operation = Callable[[Conversation], Conversation]


def on_messages(
    change: Callable[[Conversation], Iterable[Any]], per_message: bool = False
) -> Operation:
    """The operation that gives each conversation the messages ``change`` makes of it
    (``Trim``, langchain's filter and merge), its other fields kept. ``per_message``:
    ``change`` looks at each message alone (filter), so a log's messages can be changed
    in pieces."""

    def operation(conversation: Conversation) -> Conversation:
        return conversation.with_messages(change(conversation))

    operation.per_message = per_message  # type: ignore[attr-defined]
    return operation


@dataclass(frozen=True)
class Inputs:
    """What to read: files (``-`` is stdin), their dialect (``auto`` detects it), what a
    bad record does (``fail`` or ``skip``), a field to split a message log by, and the
    reading choices of branching exports."""

    files: tuple[str, ...] = ("-",)
    dialect: str = "auto"
    on_error: str = "fail"
    group_by: str | None = None
    options: ReadOptions = field(default_factory=ReadOptions)


class Target(Protocol):
    """How conversations become output: ``emit`` writes them all to a sink. A target
    whose ``lines`` is not None writes each conversation on its own lines, independently
    of the others, so that the work can be split by conversation."""

    def loss_report(self) -> LossReport | None: ...

    def emit(self, run: Run, conversations: Iterator[Conversation], sink: Any) -> None: ...

    lines: Callable[[Run, Iterable[Conversation]], Iterator[bytes]] | None
    # optional: a faster reader of conversation-per-record rows (``Reading.row_reader``)


@dataclass(frozen=True)
class Job:
    inputs: Inputs
    operation: Operation | None = None
    target: Target | None = None  # None: ToDialect(), the input's dialect


class Run:
    """One execution of a job."""

    def __init__(self, job: Job, errors: ErrorLog | None = None) -> None:
        self.job = job
        if job.target is None:
            from .targets import ToDialect

            self.target: Target = ToDialect()
        else:
            self.target = job.target
        self.errors = errors or ErrorLog(job.inputs.on_error)
        self.reading = Reading(getattr(self.target, "row_reader", None))
        # what the target cannot hold, and turns read empty (watched whatever the target)
        self.losses: LossReport = self.target.loss_report() or LossReport(None)
        self.part_notes: list[str] = []  # warnings made while a part is written (parts.py)
        # conversations of exports with no current leaf, whose newest branch was written,
        # and the other branches left out (said once, at the end of a run)
        self.newest = [0, 0]

    def conversations(self) -> Iterator[Conversation]:
        """The conversations read, as they come from the inputs (before the operation)."""
        inputs = self.job.inputs
        return read(
            inputs.files,
            dialect=inputs.dialect,
            errors=self.errors,
            group_by=inputs.group_by,
            reading=self.reading,
            options=inputs.options,
        )

    def operated(
        self, conversations: Iterable[Conversation], start: int = 0
    ) -> Iterator[Conversation]:
        """The conversations after the job's operation (and the loss watch; ``start`` is
        the first one's number in the run)."""
        operation = self.job.operation
        read = self.losses.watch_read(self.tallied(conversations), start)
        changed = read if operation is None else map(operation, read)
        return self.losses.watch(changed, start)

    def tallied(self, conversations: Iterable[Conversation]) -> Iterator[Conversation]:
        """The conversations, the newest branches written among them counted."""
        newest = self.newest
        for conversation in conversations:
            branch = conversation.meta.get("branch")
            if type(branch) is dict and branch.get("chosen") == "newest":
                newest[0] += 1
                newest[1] += branch.get("left_out") or 0
            yield conversation

    def message_stream(self) -> bool:
        """True when the output is message per line: one source of messages, not split."""
        found = self.reading.found
        return (
            len(self.job.inputs.files) == 1
            and not self.job.inputs.group_by
            and bool(found)
            and found[0][2] == MESSAGES
        )

    def input_dialect(self) -> Any:
        """The dialect of the last source opened (canonical before any)."""
        from ..formats.registry import get_dialect

        found = self.reading.found
        return found[-1][1] if found else get_dialect("canonical")
