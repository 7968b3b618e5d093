"""A run of chatpipe's work as a value: ``Job(inputs, operation, target)`` says where to
read, what to do to each conversation (an operation: ops/operation.py holds the contract)
and how to write the result; ``execute`` (executors.py) runs it, in this process or in
parts elsewhere, and every way gives the same bytes. A ``Run`` holds what one execution
found: the dialects read, the records skipped, what the target could not hold, the
warnings it made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..formats.detect import MESSAGES
from ..formats.exports import ReadOptions
from ..model import Conversation
from ..ops.operation import Operation, Streaming, on_messages, on_stream
from . import fast_hooks
from .losses import LossReport
from .opening import ErrorLog
from .reading import Reading, read
from .target import Target

# what a job does to each conversation: an ``Operation`` (ops/operation.py: the contract,
# what it can do besides), or a plain function of a conversation
AnyOperation = Operation | Callable[[Conversation], "Conversation | None"]


__all__ = [
    "AnyOperation",
    "Inputs",
    "Job",
    "Run",
    "Target",
    "is_stream",
    "on_messages",
    "on_stream",
]


def is_stream(operation: AnyOperation | None) -> bool:
    """Whether the operation takes the whole run's conversations (``Streaming``)."""
    return isinstance(operation, Streaming)


@dataclass(frozen=True)
class Inputs:
    """What to read: files (``-`` is stdin), their dialect (``auto`` detects it), what a
    bad record does (``fail`` or ``skip``), a field to split a message log by, and the
    reading choices of branching exports. A ``file://`` URL is the path it names."""

    files: tuple[str, ...] = ("-",)
    dialect: str = "auto"
    on_error: str = "fail"
    group_by: str | None = None
    options: ReadOptions = field(default_factory=ReadOptions)

    def __post_init__(self) -> None:
        from ..io.sources import local_path

        object.__setattr__(self, "files", tuple(map(local_path, self.files)))


@dataclass(frozen=True)
class Job:
    inputs: Inputs
    operation: AnyOperation | None = None
    target: Target | None = None  # None: ToDialect(), the input's dialect


class Run:
    """One execution of a job (or of a part of one, on a worker).

    ``say`` hears the target's warnings (None: they are kept in ``notes``, a part's, to be
    said in their place by the process that puts the parts together); ``among_others``:
    the run is one part of a larger output, never message per line; ``found``: what its
    input is, known beforehand (a part's file, detected by the plan).
    """

    def __init__(
        self,
        job: Job,
        errors: Any = None,
        *,
        say: Callable[[str], None] | None = None,
        among_others: bool = False,
        found: tuple[Any, Any, str] | None = None,
    ) -> None:
        self.job = job
        if job.target is None:
            from .targets import ToDialect

            self.target: Target = ToDialect()
        else:
            self.target = job.target
        self.errors = errors or ErrorLog(job.inputs.on_error)
        # rows read into plain dicts where the operation and the target take them
        rows = None if self.target.row_reader else fast_hooks.row_reader(job.operation, self.target)
        self.reading = Reading(self.target.row_reader or rows)
        self.rows = rows is not None
        if found is not None:
            self.reading.found.append(found)
        # what the target cannot hold, and turns read empty (watched whatever the target)
        self.losses: LossReport = self.target.loss_report() or LossReport(None)
        self.say = say
        self.notes: list[str] = []
        self.among_others = among_others
        # conversations of exports with no current leaf, whose newest branch was written,
        # and the other branches left out (said once, at the end of a run)
        self.newest = [0, 0]
        self.unanswered = 0  # batch requests read with no answer (their ``batch_error``)
        self.read = 0  # conversations read (none: the run says so)

    def note(self, text: str) -> None:
        """A warning of the target's: said, or kept for the part's result."""
        if self.say is not None:
            self.say(text)
        else:
            self.notes.append(text)

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
        """The conversations after the job's operation (those it leaves out gone), and
        the loss watches (turns read empty, what the target cannot hold); ``start`` is
        the first one's number in the run."""
        operation = self.job.operation
        read = self.losses.watch_read(self.tallied(conversations), start)
        if operation is None:
            changed: Iterator[Conversation] = read
        elif is_stream(operation):
            stream = (fast_hooks.row_stream(operation) if self.rows else None) or operation.stream
            changed = stream(read)  # type: ignore[union-attr]
        else:
            # (an Operation's bound __call__: called as fast as a function)
            call = operation.__call__ if isinstance(operation, Operation) else operation
            if self.rows:  # (rows read into plain dicts: decided from them)
                call = fast_hooks.row_call(operation) or call
            changed = (c for c in map(call, read) if c is not None)
        return self.losses.watch(changed, start)

    def tallied(self, conversations: Iterable[Conversation]) -> Iterator[Conversation]:
        """The conversations, counted, and the newest branches written among them."""
        newest = self.newest
        for conversation in conversations:
            self.read += 1
            branch = conversation.meta.get("branch")
            if type(branch) is dict and branch.get("chosen") == "newest":
                newest[0] += 1
                newest[1] += branch.get("left_out") or 0
            if "batch_error" in conversation.meta:
                self.unanswered += 1
            yield conversation

    def message_stream(self) -> bool:
        """True when the output is message per line: one source of messages, not split."""
        found = self.reading.found
        return (
            not self.among_others
            and len(self.job.inputs.files) == 1
            and not self.job.inputs.group_by
            and bool(found)
            and found[0][2] == MESSAGES
        )

    def input_dialect(self) -> Any:
        """The dialect of the last source opened (chatpipe's own before any)."""
        from ..formats.registry import default_dialect

        found = self.reading.found
        return found[-1][1] if found else default_dialect()
