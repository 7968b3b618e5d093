"""A job's inputs cut into parts that can run anywhere (another process, a Dask worker)
and be put back together in input order, giving the bytes one process gives.

``plan`` detects each input once and cuts it:

- ``LINES``: a byte range of a conversation-per-line JSONL file, cut at line starts;
- ``ROWS``: a range of row groups of a Parquet file;
- ``LOG``: a byte range of one message log, for a job whose output is made message by
  message (its parts may need what came before them: see parts.py);
- ``FILE``: a whole file (a message log among others, a JSON export, a stream; a
  compressed file or a zip's member, whose bytes are not its lines; a file whose first
  records could not be read, left to say so in its turn).

A zip is cut into its members: a part each, named ``ZIP:MEMBER`` (io/sources.py opens
that anywhere), those that are no chat log (an image, a README) left out.

Inputs that can be read only once (stdin, a pipe) are not cut: ``Plan.once`` names them.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import ChatpipeError, Location, NotAChatLog, UsageError
from ..io.ranges import expand, line_ranges
from ..io.sources import Source, display_path, input_sources, is_url, open_input, split_member

LINES, ROWS, FILE, LOG = "lines", "rows", "file", "log"
DEFAULT_BLOCKSIZE = 64 << 20  # bytes of input a part (Dask's own default for text)
JOB_BLOCKSIZE = 1 << 20  # and on --jobs workers, which take small parts as they get free


@dataclass(frozen=True)
class Part:
    spec: str
    kind: str  # LINES, ROWS, LOG or FILE
    start: int = 0  # LINES, LOG: first byte; ROWS: first row group
    end: int = 0  # LINES, LOG: byte after the last; ROWS: row group after the last
    first_row: int = 0  # ROWS: rows before the first group
    index: int = 0  # the part's number within its file
    parts: int = 1  # how many parts the file has
    dialect: str = ""  # the dialect the plan found for the file ("": none found)
    shape: str = ""  # and the shape of its records
    location: Location | None = None  # LOG: the log's first record (the conversation's place)
    seq: int = 0  # the part's number in the plan: (seq, index in the part) orders the input

    def describe(self, total: int) -> str:
        """The part in words, for a message about it: ``total`` parts in the run."""
        from ..io.sources import display_path

        what = display_path(self.spec)
        if self.kind in (LINES, LOG):
            what += f", bytes {self.start} to {self.end}"
        elif self.kind == ROWS:
            what += f", row groups {self.start} to {self.end}"
        return f"a part of the inputs ({what})"


@dataclass
class Plan:
    """The parts of a job's inputs in input order; ``dialect``: that of the first input
    holding a record (the one a run of them all writes, when its target writes the
    input's dialect); ``once``: the inputs that can be read only once; ``joined``: the
    inputs are a batch's requests and results, which one process reads together."""

    files: tuple[str, ...]
    parts: list[Part] = field(default_factory=list)
    dialect: Any = None
    once: list[str] = field(default_factory=list)
    joined: bool = False
    warnings: list[str] = field(default_factory=list)  # said without -v (a zip in a zip)


def is_pipe(spec: str) -> bool:
    """True for an input that can be read only once, in order: stdin, a pipe, a FIFO, a
    terminal (``/dev/stdin``, ``<(zcat x.gz)``)."""
    if spec == "-":
        return True
    if is_url(spec):
        return False
    try:
        return not stat.S_ISREG(os.stat(spec).st_mode) and not os.path.isdir(spec)
    except OSError:  # missing: the run says so in its turn
        return False


def plan(job: Any, blocksize: int | None = DEFAULT_BLOCKSIZE, *, logs: bool = False) -> Plan:
    """The parts of a job's inputs: files of conversations cut into parts of about
    ``blocksize`` bytes (None: one part a file); with ``logs``, a job's only input that is
    a message log its target writes message by message, cut likewise."""
    files = tuple(expand(job.inputs.files))
    found = Plan(files)
    found.once = [spec for spec in files if is_pipe(spec)]
    if found.once:
        return found
    _cut(found, job, files, blocksize, logs)
    found.parts = [replace(part, seq=number) for number, part in enumerate(found.parts)]
    return found


def _cut(found: Plan, job: Any, files: tuple[str, ...], blocksize: int | None, logs: bool) -> None:
    """Each input detected once and cut into ``found``'s parts."""
    from ..formats.batch import BatchDialect
    from ..formats.detect import CONVERSATIONS, MESSAGES
    from ..formats.registry import reading_dialect
    from .opening import detect_file
    from .reading import joins_batches

    forced = reading_dialect(job.inputs.dialect)
    group_by = job.inputs.group_by
    batches = False  # whether a batch file was met (its files may be joined)
    for spec in files:
        try:
            sources = list(input_sources([spec]))
        except ChatpipeError:  # a zip that cannot be read: its part says so in its turn
            sources = [Source(spec)]
        if sources[0].archive is not None:
            batches |= _member_parts(found, spec, sources, forced)
            continue
        try:
            detected = detect_file(sources[0], forced)
        except ChatpipeError:  # a file that cannot be read: its part says so in its turn
            detected = None
        if detected is None:
            found.parts.append(Part(spec, FILE))
            continue
        source, dialect, shape, first = detected
        if found.dialect is None:
            found.dialect = dialect
        batches |= isinstance(dialect, BatchDialect)
        named = {"dialect": dialect.name, "shape": shape}
        spans = None
        if source.compression is not None:  # its bytes are not its lines: read whole
            found.parts.append(Part(spec, FILE, location=first, **named))
            continue
        if shape == CONVERSATIONS and not group_by and source.container == "parquet":
            found.parts.extend(_row_group_parts(spec, blocksize, dialect.name, shape))
            continue
        if source.container == "jsonl":
            if shape == CONVERSATIONS and not group_by:
                spans = line_ranges(spec, blocksize)
            elif shape == MESSAGES and logs and _log_job(job, files, dialect):
                spans = line_ranges(spec, JOB_BLOCKSIZE)
                if spans is not None and len(spans) < 2:
                    spans = None  # a log of one part: read whole
        if spans is None:
            found.parts.append(Part(spec, FILE, location=first, **named))
            continue
        kind = LINES if shape == CONVERSATIONS else LOG
        found.parts.extend(
            Part(spec, kind, a, b, index=k, parts=len(spans), location=first, **named)
            for k, (a, b) in enumerate(spans)
        )
    if batches:
        found.joined = joins_batches(files, job.inputs.dialect)


def _member_parts(found: Plan, spec: str, sources: list[Source], forced: Any) -> bool:
    """A zip's members, each a whole file's part named ``ZIP:MEMBER`` (a member's bytes
    cannot be cut into ranges of lines); those that are no chat log have none. A zip none
    of whose members is one is a part of its own, whose worker says so. Whether a batch
    file is among them."""
    from ..formats.batch import BatchDialect
    from .members import NESTED_ZIP, nested_zips_said
    from .opening import detect_file

    taken, batches, nested = 0, False, []
    try:
        for source in sources:
            try:
                detected = detect_file(source, forced)
            except NotAChatLog as exc:
                if exc.kind == NESTED_ZIP:
                    nested.append(source.member)
                continue
            except ChatpipeError:  # read by its part, which says what is wrong
                detected = None
            taken += 1
            if detected is None:
                found.parts.append(Part(source.spec, FILE))
                continue
            _, dialect, shape, first = detected
            if found.dialect is None:
                found.dialect = dialect
            batches |= isinstance(dialect, BatchDialect)
            named = {"dialect": dialect.name, "shape": shape}
            found.parts.append(Part(source.spec, FILE, location=first, **named))
    finally:
        sources[0].archive.close()  # type: ignore[union-attr]
    if not taken:
        found.parts.append(Part(spec, FILE))
    elif nested:
        found.warnings.append(nested_zips_said(display_path(spec), nested))
    return batches


def _row_group_parts(spec: str, blocksize: int | None, dialect: str, shape: str) -> list[Part]:
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
        Part(spec, ROWS, a, b, before, k, len(groups), dialect, shape)
        for k, (a, b, before) in enumerate(groups)
    ]


def _log_job(job: Any, files: tuple[str, ...], dialect: Any) -> bool:
    """Whether a message log, the job's only input, can be cut: a local file of a dialect
    read line by line, not split into conversations by a field (--group-by), changed
    message by message (no operation, or filter) with nothing numbered in its output (no
    report of losses), written message by message."""
    from ..ops.operation import Operation
    from .targets import ToDialect

    if len(files) != 1 or not dialect.messages_by_line or is_url(files[0]):
        return False
    if job.inputs.group_by:  # conversations of lines anywhere in the log: read whole
        return False
    target = job.target if job.target is not None else ToDialect()
    operation = job.operation
    if operation is not None:
        losses = target.loss_report()
        checked = losses is not None and losses.check is not None
        if not (isinstance(operation, Operation) and operation.per_message) or checked:
            return False
    return target.writes_messages(dialect)


def shard_name(part: Part, extension: str) -> str:
    """The output file of a part: the input file's name with the output's extension (a
    hidden file's leading dots kept), numbered when the file is cut into several parts."""
    split = split_member(part.spec)
    if split is not None:  # a zip's member: named after both (export-conversations)
        return _stem(split[0]) + "-" + shard_name(replace(part, spec=split[1]), extension)
    stem = _stem(part.spec)
    if part.parts > 1:
        stem += f"-{part.index:05d}"
    return stem + extension


# control characters (C0, DEL, C1): never copied from a name into a shard's
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")


def _stem(spec: str) -> str:
    base = _CONTROLS.sub("_", os.path.basename(spec.rstrip("/"))) or "part"
    hidden = len(base) - len(base.lstrip("."))
    return base[:hidden] + base[hidden:].split(".", 1)[0]


def refuse_once(found: Plan, why: str) -> None:
    """A usage error when the plan has inputs that can be read only once (``why``: who
    cannot read them), or a batch's files that one process joins."""
    if found.joined:
        raise UsageError(
            "a batch's input and output files are joined by one process, not in parts",
            hint="leave out --engine dask and --output-dir",
        )
    if found.once:
        raise UsageError(
            f"{found.once[0]}: {why}, and this input can be read only once (stdin, a pipe)",
            hint="write it to a file first, and name the file",
        )
