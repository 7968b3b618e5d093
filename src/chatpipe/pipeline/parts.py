"""A job cut into parts that can run anywhere (another process, a Dask worker) and be put
back together in input order, giving the bytes one process gives.

A ``Part`` is a byte range of a conversation-per-line JSONL file (cut at line starts), a
range of row groups of a Parquet file, or a whole file (message-per-line logs, JSON
exports: one conversation, or a document, per file). ``plan`` cuts the inputs;
``run_part`` runs the job's own reading, operation and writing on one part and gives a
``Done``: the output, what was read, and the errors and losses with their place inside
the part; ``Assembly`` turns the parts' places into the file's and writes the outputs in
order, handling errors as one process would (the first fails the run; ``skip`` reports
them).

Paths may be fsspec URLs (``s3://``, ``memory://``, ...) where fsspec is installed.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import ChatpipeError, DataError, Location, UsageError
from ..io.limits import LIMITS
from ..io.records import BadRecord, Record, line_record, too_long
from ..io.sources import Source, is_url, open_input, storage_options, text_start

LINES, ROWS, FILE = "lines", "rows", "file"
DEFAULT_BLOCKSIZE = 64 << 20  # bytes of input a part (Dask's own default for text)
JOB_BLOCKSIZE = 1 << 20  # and on --jobs workers, which take small parts as they get free


@dataclass(frozen=True)
class Part:
    spec: str
    kind: str  # LINES, ROWS or FILE
    start: int = 0  # LINES: first byte; ROWS: first row group
    end: int = 0  # LINES: byte after the last; ROWS: row group after the last
    first_row: int = 0  # ROWS: rows before the first group
    index: int = 0  # the part's number within its file
    parts: int = 1  # how many parts the file has
    dialect: str = ""  # LINES and ROWS: the dialect the plan detected for the file


@dataclass
class Done:
    """What a part gave: ``data`` (its output lines, or None when written to a shard),
    how many lines or rows it read and conversations it wrote, and the losses
    ``(kind, conversation, message index)`` and errors ``(message, hint, line, column,
    message index, output bytes before it)`` with places counted from the part's start
    (a whole file's are the file's own), and the warnings it made (``notes``)."""

    data: bytes | None
    lines: int = 0
    conversations: int = 0
    losses: list[tuple[str, int, int | None]] = field(default_factory=list)
    errors: list[tuple[str, str | None, int | None, int | None, int | None, int]] = field(
        default_factory=list
    )
    # warnings the target made (``Target.note``): (text, errors before it, output bytes
    # before it), said in their place among the errors
    notes: list[tuple[str, int, int]] = field(default_factory=list)
    newest: tuple[int, int] = (0, 0)  # Run.newest's count, for this part
    unanswered: int = 0  # Run.unanswered's count, for this part
    # a range of a message log (pipeline/log_ranges.py): the messages read in it, whether
    # its output depends on what came before it (then it has none), its tool links after
    messages: int = 0
    context: bool = False
    links: Any = None


def expand(specs: tuple[str, ...] | list[str]) -> list[str]:
    """Input paths with their globs expanded (fsspec URLs' too), in order."""
    out: list[str] = []
    for spec in specs:
        if spec != "-" and any(c in spec for c in "*?[") and not os.path.exists(spec):
            found = _glob(spec)
            if not found:
                raise UsageError(f"{spec}: no file matches this pattern")
            out.extend(found)
        else:
            out.append(spec)
    return out


def _glob(pattern: str) -> list[str]:
    if is_url(pattern):
        import fsspec

        fs, _, paths = fsspec.get_fs_token_paths(pattern, storage_options=storage_options(pattern))
        return sorted(fs.unstrip_protocol(p) for p in paths)
    import glob

    return sorted(glob.glob(pattern))


def plan(job: Any, blocksize: int | None = DEFAULT_BLOCKSIZE) -> list[Part]:
    """The parts of a job's inputs, in input order: files of conversations cut into
    parts of about ``blocksize`` bytes (None: one part a file)."""
    from ..formats.detect import CONVERSATIONS
    from ..formats.registry import reading_dialect
    from .reading import detect_file, joins_batches

    if joins_batches(job.inputs.files, job.inputs.dialect):
        raise UsageError(
            "a batch's input and output files are joined by one process, not in parts",
            hint="leave out --engine dask and --output-dir",
        )
    parts: list[Part] = []
    forced = reading_dialect(job.inputs.dialect)
    for spec in job.inputs.files:
        if spec == "-":
            raise UsageError("the dask engine reads files, not stdin", hint="name the files")
        found = detect_file(spec, forced)
        splittable = found is not None and found[2] == CONVERSATIONS and not job.inputs.group_by
        name = found[1].name if found is not None else ""
        container = found[0].container if found is not None else None
        if splittable and container == "parquet":
            parts.extend(_row_group_parts(spec, blocksize, name))
        elif splittable and container == "jsonl" and (spans := line_ranges(spec, blocksize)):
            parts.extend(
                Part(spec, LINES, a, b, index=k, parts=len(spans), dialect=name)
                for k, (a, b) in enumerate(spans)
            )
        else:
            parts.append(Part(spec, FILE))
    return parts


def _row_group_parts(spec: str, blocksize: int | None, dialect: str) -> list[Part]:
    from ..io.parquet import pyarrow

    with open_input(spec) as stream:
        meta = pyarrow().ParquetFile(stream).metadata
    groups: list[tuple[int, int, int]] = []  # (first group, end group, rows before)
    size = rows = 0
    for g in range(meta.num_row_groups):
        if not groups or (blocksize is not None and size >= blocksize):
            groups.append((g, g + 1, rows))
            size = 0
        else:
            groups[-1] = (groups[-1][0], g + 1, groups[-1][2])
        group = meta.row_group(g)
        size += group.total_byte_size
        rows += group.num_rows
    if not groups:
        groups.append((0, 0, 0))
    return [
        Part(spec, ROWS, a, b, first_row=before, index=k, parts=len(groups), dialect=dialect)
        for k, (a, b, before) in enumerate(groups)
    ]


def line_ranges(spec: str, blocksize: int | None) -> list[tuple[int, int]] | None:
    """Byte ranges of about ``blocksize`` bytes, each starting at a line start (the
    first after a UTF-8 byte order mark); None for UTF-16 or UTF-32 text, whose lines
    are not found in its bytes."""
    with open_input(spec) as stream:
        first = text_start(stream.read(4))
        if first is None:
            return None
        size = stream.seek(0, io.SEEK_END)
        if blocksize is None or size <= blocksize:
            return [(first, size)]
        starts = [first]
        while True:
            stream.seek(starts[-1] + blocksize)
            stream.readline()
            position = stream.tell()
            if position >= size:
                break
            starts.append(position)
    return list(zip(starts, [*starts[1:], size], strict=True))


# -- on a worker ------------------------------------------------------------------------


def run_part(job: Any, part: Part, shard: Any = None, alone: bool = False) -> Done:
    """The job on one part. ``shard`` (a ``ShardStream``) takes the output as it is made,
    in pieces of about a megabyte, instead of its being handed back; either way, or with
    ``alone``, the output is a file of its own (a message log's, message per line)."""
    from ..formats.detect import CONVERSATIONS
    from .job import Run
    from .reading import ErrorLog

    if part.kind == FILE:
        done = _run_file(job, part, alone=alone or shard is not None)
        if shard is not None:
            shard.borrowed(done.data or b"")
            done.data = None
        return done
    run = Run(job, ErrorLog("fail"))  # every error raised, kept by run_records
    dialect = dialect_of(part)
    run.reading.found.append((Source(part.spec), dialect, CONVERSATIONS))
    return run_records(run, dialect, part.spec, _records(part), shard)


def dialect_of(part: Part) -> Any:
    """The dialect of a part's records, as the plan detected it for its file."""
    from ..formats.registry import get_dialect

    return get_dialect(part.dialect)


def _records(part: Part) -> Iterator[tuple[int, Record | None]]:
    """(number counted from the part's start, record or None for a blank line)."""
    name = Source(part.spec).name
    if part.kind == ROWS:
        from ..io.parquet import pyarrow, rows_of

        with open_input(part.spec) as stream:
            parquet = pyarrow().ParquetFile(stream)
            rows = rows_of(parquet, name, range(part.start, part.end), 0)
            yield from enumerate(rows, 1)
        return
    first = 1
    for data in read_lines(part.spec, part.start, part.end):
        yield from line_records(Source(part.spec), data, first)
        first += lines_in(data)


def read_lines(spec: str, start: int, end: int, block: int = JOB_BLOCKSIZE) -> Iterator[bytes]:
    """Bytes ``start`` to ``end`` of a file (cut at a line start), in pieces of whole lines
    of about ``block`` bytes: a part of any size is read in the memory of one piece (a
    line longer than ``block`` is a piece of its own)."""
    with open_input(spec) as stream:
        stream.seek(start)
        left, pending = end - start, []
        while left > 0:
            data = stream.read(min(block, left))
            if not data:
                break
            left -= len(data)
            cut = data.rfind(b"\n") + 1 if left > 0 else len(data)
            if cut == 0:  # no line ends here yet
                pending.append(data)
                continue
            yield b"".join([*pending, data[:cut]]) if pending else data[:cut]
            pending = [data[cut:]] if cut < len(data) else []
        if pending:
            yield b"".join(pending)


def read_range(spec: str, start: int, end: int) -> bytes:
    """Bytes ``start`` to ``end`` of a file (an fsspec URL too)."""
    with open_input(spec) as stream:
        stream.seek(start)
        return stream.read(end - start)


def lines_in(data: bytes) -> int:
    """The lines of whole JSONL lines (the last may lack its line end)."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def line_records(
    source: Source, data: bytes, first: int = 1
) -> Iterator[tuple[int, Record | None]]:
    """The records of whole JSONL lines, numbered from ``first``, with the checks one
    process makes: size, JSON, exact integers, depth."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    limit = LIMITS.record_bytes
    for number, line in enumerate(lines, first):
        if not line.strip():
            yield number, None
            continue
        record = too_long(source, number) if len(line) > limit else None
        yield number, record or line_record(source, line, number)


def part_writer(target: Any) -> Any:
    """How a part's conversations become lines: the target's ``part_lines`` (lines that
    its ``collect`` puts together, stats), or its ``lines`` (written as they are); None
    when its output cannot be made in parts."""
    return getattr(target, "part_lines", None) or target.lines


def run_records(run: Any, dialect: Any, spec: str, records: Any, shard: Any = None) -> Done:
    """Records of one dialect, read, operated on and written by the job's own code; the
    output handed back, or given to ``shard`` as it comes (pieces of whole lines)."""
    from .reading import conversations_of

    write, options = part_writer(run.target), run.job.inputs.options
    out: list[bytes] = []
    size = given = 0
    if run.losses is not None:
        run.losses.cases = {}
    run.newest = [0, 0]
    run.unanswered = 0
    done = Done(None)
    written = lines = 0
    for number, record in records:
        lines = number
        if record is None:
            continue
        if isinstance(record, BadRecord):
            error = record.error
            done.errors.append((error.message, error.hint, number, error.location.col, None, size))
            continue
        errors_before, size_before = len(done.errors), size
        try:
            for conversation in conversations_of(dialect, record, options):
                for piece in write(run, run.operated([conversation], written)):
                    out.append(piece)
                    size += len(piece) + 1
                written += 1
        except ChatpipeError as exc:
            # its place as one process gives it: the line's, or the message's in it
            column = None if record.location.col is None else 1  # (Parquet rows: none)
            place = exc.location or Location(spec, number, column)
            line = number if place.line is None else place.line
            where = (line, place.col, place.message_index, size)
            done.errors.append((str(exc.message), exc.hint, *where))
        if run.part_notes:  # made while the record was written: before its error, if any
            done.notes.extend((note, errors_before, size_before) for note in run.part_notes)
            run.part_notes.clear()
        if shard is not None and size - given >= JOB_BLOCKSIZE:
            out.append(b"")
            shard.borrowed(b"\n".join(out))
            out.clear()
            given = size
    out.append(b"")  # the last line's end
    done.data = b"\n".join(out) if len(out) > 1 else b""
    if shard is not None:
        shard.borrowed(done.data)
        done.data = None
    found = {} if run.losses is None else run.losses.cases
    done.losses = [(kind, c, m) for kind, cases in found.items() for c, m in cases]
    done.lines, done.conversations = lines, written
    done.newest = (run.newest[0], run.newest[1])
    done.unanswered = run.unanswered
    return done


class _Kept:
    """An ErrorLog for a whole-file part: every error kept with the output size before
    it, the assembly failing the run or skipping it as the job says; ``stop``: the part
    stops at the first, where a run that fails on it stops (``--on-error fail``)."""

    def __init__(self, sink: _Bytes, stop: bool) -> None:
        self.sink = sink
        self.errors: list[tuple[ChatpipeError, int]] = []
        self.skip = not stop
        self.count = 0
        self.skipped: list[ChatpipeError] = []
        self.keep = None

    def handle(self, error: ChatpipeError) -> None:
        self.errors.append((error, self.sink.size()))
        if not self.skip:
            raise error


class _Bytes:
    """A sink into memory."""

    def __init__(self) -> None:
        self.buffer = io.BytesIO()

    def line(self, data: bytes) -> None:
        self.buffer.write(data)
        self.buffer.write(b"\n")

    def raw(self, data: bytes) -> None:
        self.buffer.write(data)

    def borrowed(self, data: Any) -> None:
        self.buffer.write(data)

    def flush(self) -> None:
        pass

    def size(self) -> int:
        return self.buffer.tell()


def _run_file(job: Any, part: Part, alone: bool) -> Done:
    """A whole file; ``alone``: its output is a file of its own (a shard), in the shape
    a run on it alone writes (a message log stays message per line)."""
    from dataclasses import replace

    from .executors import serial
    from .job import Job, Run

    one = Job(replace(job.inputs, files=(part.spec,)), job.operation, job.target)
    sink = _Bytes()
    errors = _Kept(sink, stop=job.inputs.on_error == "fail")
    run = Run(one, errors)  # type: ignore[arg-type]
    if len(job.inputs.files) > 1 and not alone:  # a message log among others: a conversation
        run.message_stream = lambda: False  # type: ignore[method-assign]
    done = Done(None)
    read = [0]

    def counted(conversations: Iterator[Any], _run: Any) -> Iterator[Any]:
        for conversation in conversations:
            read[0] += 1
            yield conversation

    parted = getattr(run.target, "part_lines", None)
    try:
        if parted is None:
            serial(one, sink, counted, run=run)
        else:  # lines that the target's collector puts together
            for line in parted(run, run.operated(counted(run.conversations(), run))):
                if run.part_notes:  # made with this line: said before it
                    where = (len(errors.errors), sink.size())
                    done.notes.extend((note, *where) for note in run.part_notes)
                    run.part_notes.clear()
                sink.line(line)
    except ChatpipeError as exc:  # where the part stops: after what was written before it
        if errors.errors and errors.errors[-1][0] is exc:
            errors.errors.pop()  # (a text cut short by it was written since)
        errors.errors.append((exc, sink.size()))
    for error, offset in errors.errors:
        place = error.location
        done.errors.append(
            (
                str(error.message),
                error.hint,
                None if place is None else place.line,
                None if place is None else place.col,
                None if place is None else place.message_index,
                offset,
            )
        )
    if run.losses is not None:
        done.losses = [(k, c, m) for k, cases in run.losses.cases.items() for c, m in cases]
    done.data = sink.buffer.getvalue()
    done.conversations = read[0]
    done.newest = (run.newest[0], run.newest[1])
    done.unanswered = run.unanswered
    return done


class Assembly:
    """Parts' results put back in input order: their output to ``sink`` (when handed
    back), their errors and losses to the run, with the file's places."""

    def __init__(self, run: Any) -> None:
        self.run = run
        self.lines_before: dict[str, int] = {}
        self.conversations_before = 0

    def add(self, part: Part, done: Done, sink: Any) -> None:
        run = self.run
        before = self.lines_before.get(part.spec, 0) if part.kind == LINES else 0
        if part.kind == ROWS:
            before = part.first_row
        if run.losses is not None:
            for kind, conversation, index in done.losses:
                case = (self.conversations_before + conversation, index)
                run.losses.cases.setdefault(kind, []).append(case)
        run.newest[0] += done.newest[0]
        run.newest[1] += done.newest[1]
        run.unanswered += done.unanswered
        data, start = done.data, 0
        notes = done.notes[::-1]  # taken from the end, in order
        for number, (message, hint, line, col, index, offset) in enumerate(done.errors):
            while notes and notes[-1][1] <= number:
                start = self._note(sink, data, start, *notes.pop())
            start = _written(sink, data, start, offset)
            name = Source(part.spec).name
            line = None if line is None else before + line
            place = Location(name, line, col, index)
            run.errors.handle(DataError(message, place, hint))
        while notes:
            start = self._note(sink, data, start, *notes.pop())
        if data is not None and start < len(data):
            sink.borrowed(memoryview(data)[start:])
        if part.kind == LINES:
            self.lines_before[part.spec] = before + done.lines
        self.conversations_before += done.conversations

    def _note(self, sink: Any, data: Any, start: int, text: str, _: int, offset: int) -> int:
        """A part's warning, said after the output written before it; the new start."""
        start = _written(sink, data, start, offset)
        self.run.target.note(text)
        return start


def _written(sink: Any, data: Any, start: int, offset: int) -> int:
    """A part's output from ``start`` up to ``offset`` written; where it now starts."""
    if data is None or offset <= start:
        return start
    sink.borrowed(memoryview(data)[start:offset])
    return offset


def shard_name(part: Part, extension: str) -> str:
    """The output file of a part: the input file's name with the output's extension,
    numbered when the file is cut into several parts."""
    base = os.path.basename(part.spec.rstrip("/")) or "part"
    stem = base.split(".", 1)[0] if "." in base else base
    if part.parts > 1:
        stem += f"-{part.index:05d}"
    return stem + extension
