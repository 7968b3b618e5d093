"""The one assembler: the results of a job's parts (parts.py), wherever they ran, put
back in input order into the output (a sink, or shards in a staging folder moved into
place only when the whole run ends well), with their errors, warnings, problems and
losses in the places one process gives them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import DataError, Location, UsageError
from ..formats.rules import Problem
from ..io.sources import Source
from .log_parts import log_again
from .part_result import ERROR, NOTE, USAGE, PartResult, Shards
from .parts import run_part
from .plan import LINES, LOG, ROWS, Part, Plan, shard_name


def run_in_parts(
    run: Any,
    found: Plan,
    mapper: Any,
    sink: Any,
    *,
    output_dir: str | None = None,
    parquet: bool = False,
    shard_per_part: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Any:
    """``run``'s job on the parts of ``found``, which ``mapper`` runs where it runs
    them, put back together in input order into ``sink``; or, with ``output_dir``,
    into shards there: one a part, which the part writes (``shard_per_part``), or one a
    file, put together here from the file's parts. ``progress(done, parts)`` hears each
    part put back."""
    from ..io.shards import ShardFolder, ShardStreams

    parts = found.parts
    run.reading.warnings.extend(found.warnings)
    extension = ".parquet" if parquet else ".jsonl"
    names: list[str] = []
    shards: list[str] = []
    if output_dir is not None:  # a shard a part, or one a file (its parts handed back here)
        whole = not shard_per_part
        names = [shard_name(_whole(part) if whole else part, extension) for part in parts]
        shards = list(dict.fromkeys(names))
        if len(set(zip([p.spec for p in parts], names, strict=True))) != len(shards):
            raise UsageError(
                "two inputs would write shards of the same name",
                hint="give the inputs different file names, or write one file with -o",
            )
    if output_dir is not None:  # (a shard over its own input: said before the run)
        from ..io.outputs import Folder, check_outputs

        check_outputs([], [Folder("--output-dir", output_dir, shards)], [p.spec for p in parts])
    folder = ShardFolder(output_dir) if output_dir is not None else None
    writes = streams = None
    if folder is not None:
        try:
            folder.check(shards)  # (a folder in a shard's place: said before the run)
        except BaseException:
            folder.abort()
            raise
        if shard_per_part:
            writes = Shards(folder.staging, parquet, output_dir)
        else:
            streams = ShardStreams(folder.staging, parquet, output_dir)
    results = mapper.map(run_part, parts, run.job, folder is not None, writes)
    # (a message log's pieces are its output as they are: not lines to put together)
    logged = bool(parts) and parts[0].kind == LOG
    into = sink if logged else run.target.collect(run, sink)
    try:
        assembly = Assembly(run)
        for number, (part, result) in enumerate(zip(parts, results, strict=True), 1):
            place = into if streams is None else streams.of(part.spec, names[number - 1])
            assembly.add(part, result, place)
            if progress is not None:
                progress(number, len(parts))
        assembly.close(into)
        if into is not sink:
            into.close()
        if streams is not None:
            streams.close()
        if folder is not None:
            folder.commit(shards)
    except BaseException:
        results.close()  # no part started after this
        if into is not sink:
            into.abort()
        if streams is not None:
            streams.abort()
        if folder is not None:
            folder.abort()
        raise
    results.close()
    return run


def _whole(part: Part) -> Part:
    from dataclasses import replace

    return replace(part, parts=1)


class Assembly:
    """Parts' results put back in input order: their output to a sink, their errors,
    warnings, problems and losses to the run, in the file's places."""

    def __init__(self, run: Any) -> None:
        self.run = run
        self.lines_before: dict[str, int] = {}
        self.conversations_before = 0
        # a message log in ranges: the next range's first line and first message, the tool
        # links before it, whether anything was written (a text's joiner goes between)
        self.line, self.start, self.links, self.written = 1, 0, None, False
        self.logged = False

    def add(self, part: Part, result: PartResult, sink: Any) -> None:
        if part.kind == LOG:
            self._log(part, result, sink)
            return
        run = self.run
        before = self.lines_before.get(part.spec, 0) if part.kind == LINES else 0
        if part.kind == ROWS:
            before = part.first_row
        if run.losses is not None:
            for kind, conversation, index in result.losses:
                case = (self.conversations_before + conversation, index)
                run.losses.cases.setdefault(kind, []).append(case)
        run.newest[0] += result.newest[0]
        run.newest[1] += result.newest[1]
        run.unanswered += result.unanswered
        run.read += result.read
        if result.state is not None:  # what the operation gathered there (``PerPart``)
            run.job.operation.absorb(result.state, placed(before))
        data, start = result.data, 0
        name = Source(part.spec).name
        for event in result.events:
            start = _written(sink, data, start, event.offset)
            if event.what == NOTE:
                run.target.note(run, event.message)
                continue
            if event.what == ERROR:
                line = None if event.line is None else before + event.line
                place = Location(name, line, event.col, event.index)
                if event.kind == USAGE:  # the command line's fault: not a record to skip
                    raise UsageError(event.message, place, event.hint)
                run.errors.handle(DataError(event.message, place, event.hint))
            else:  # a problem (validate), placed as it placed itself
                line = event.line and event.line + before
                place = (
                    None
                    if event.file is None
                    else Location(event.file, line, event.col, event.index)
                )
                run.target.problem(run, Problem(event.kind, event.message, place, event.hint), sink)
        if data is not None and start < len(data):
            sink.borrowed(memoryview(data)[start:])
        if part.kind == LINES:
            self.lines_before[part.spec] = before + result.lines
        self.conversations_before += result.conversations

    def _log(self, part: Part, result: PartResult, sink: Any) -> None:
        """A range of a message log: read again here when its output depends on what came
        before it; its output joined to the ranges' before it."""
        from ..formats.tool_links import ToolLinks
        from .parts import Output

        run, target = self.run, self.run.target
        if not self.logged:
            run.read += 1  # the log: one conversation, read in ranges
        self.logged = True
        between = target.log_between() if self.written else b""
        if self.links is None:
            self.links = ToolLinks()
        again = result.context
        if again:
            made = Output()
            try:
                result = log_again(run, part, self.line, self.start, self.links, made)
            except BaseException:
                if made.size:
                    sink.raw(between + made.close())
                raise
            result.data = made.close()
            self.links = result.links
        else:
            self.links = _after(self.links, result.links)
        if result.data:
            if between:
                sink.raw(between)
            sink.borrowed(result.data)
            self.written = True
        if run.losses is not None:
            base = 0 if again else self.start  # (a worker's are counted from its range's start)
            for kind, _, index in result.losses:
                at = None if index is None else base + index
                run.losses.cases.setdefault(kind, []).append((0, at))
        self.line += result.lines
        self.start += result.messages

    def close(self, sink: Any) -> None:
        """After the last part: a log's text ends as one process ends it."""
        if self.logged:
            sink.raw(self.run.target.log_end())


def placed(before: int) -> Callable[[Any], Any]:
    """How a part's places (lines counted from its start) become its file's."""

    def placed(location: Any) -> Any:
        if location is None or location.line is None or not before:
            return location
        return Location(location.file, before + location.line, location.col, location.message_index)

    return placed


def _after(links: Any, state: tuple[Any, set[str], bool]) -> Any:
    """The links after a range read knowing nothing before it: its own, from its last
    AI turn on, or those before it with the results it answered."""
    from ..formats.tool_links import ToolLinks

    pending, answered, _ = state
    if pending is not None:
        return ToolLinks(list(pending), set(answered))
    return ToolLinks(list(links.pending or ()), links.answered | answered)


def _written(sink: Any, data: Any, start: int, offset: int) -> int:
    """A part's output from ``start`` up to ``offset`` written; where it now starts."""
    if data is None or offset <= start:
        return start
    sink.borrowed(memoryview(data)[start:offset])
    return offset
