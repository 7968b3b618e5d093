"""What a job's target is: how conversations become output, and what else it declares
it can do (be made in parts, write a message log message by message, ...). The targets
themselves: targets.py, texts.py, validate.py."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from ..model import Conversation
from .losses import LossReport


class Run(Protocol):
    """What a target sees of the run that drives it (job.py's ``Run``, which imports this
    module: named here by what it offers, so that the two do not import each other)."""

    errors: Any

    def note(self, text: str) -> None: ...

    def input_dialect(self) -> Any: ...

    def message_stream(self) -> bool: ...


class Target:
    """How conversations become output. ``emit`` writes them all to a sink, in one
    process. A target declares what else it can do:

    - ``parts``: its output can be made in parts of the inputs, a conversation at a time
      (``part_lines``), elsewhere, and put back in order (``collect``);
    - ``row_reader``: a faster reader of conversation-per-record rows for its own use
      (``Reading.row_reader``), or None;
    - ``rows``: its output may be records, a JSON object a line (what Parquet rows hold);
      False for text and documents;
    - ``plain_rows``: it takes conversation-per-record rows read into plain dicts by the
      row lane (fast/rows.py: their messages made only when looked at, its writers'
      hooks in fast_hooks.py), so a run may read its rows so.

    ``one_process``: its output depends on the whole run in order (places in the files,
    numbers or counts kept across conversations), so the run is one process, whatever
    the engine.
    """

    parts = True
    rows = True
    one_process = False
    checks_records = False  # its input is records, not conversations (validate)
    plain_rows = False
    row_reader: Callable[[Any, Any, Any], Conversation | None] | None = None

    def loss_report(self) -> LossReport | None:
        return None

    def emit(self, run: Run, conversations: Iterator[Conversation], sink: Any) -> None:
        for line in self.part_lines(run, conversations):
            sink.line(line)

    def part_lines(self, run: Run, conversations: Iterable[Conversation]) -> Iterator[bytes]:
        """Each conversation's lines, independently of the others (none: the target
        itself writes nothing, as in a first pass that only gathers)."""
        for _ in conversations:
            pass
        return iter(())

    def collect(self, run: Run, sink: Any) -> Any:
        """Where a part's lines go, in input order: the sink itself, or a collector that
        puts them together (a sink that is closed at the end, or aborted when the run
        fails)."""
        return sink

    def problem(self, run: Run, problem: Any, sink: Any) -> None:
        """A problem a part found (``checks_records``), in its place: written."""
        raise NotImplementedError

    def note(self, run: Run, text: str) -> None:
        """A warning a part made, heard in input order: said."""
        run.note(text)

    def writes_messages(self, dialect: Any) -> bool:
        """Whether it writes each message of a log of ``dialect`` on its own, so that
        the log can be cut into parts."""
        return False

    def log_lines(self, run: Run, conversations: Iterable[Conversation], out: Any) -> None:
        """A piece of a message log's output (the log read from its middle), when it
        ``writes_messages``."""
        raise NotImplementedError

    def log_between(self) -> bytes:
        """What goes between two pieces of a log's output."""
        return b""

    def log_end(self) -> bytes:
        """What ends a log's output, after its last piece."""
        return b""

    def settled(self, dialect: Any) -> Target:
        """This target for parts that must all write as one process would, the first
        input's dialect being ``dialect``."""
        return self
