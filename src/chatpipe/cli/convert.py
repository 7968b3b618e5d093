"""``chatpipe convert``: any readable dialect to a writable one."""

from __future__ import annotations

import itertools
import os
from typing import Annotated

import typer

from ..errors import UsageError
from ..formats.registry import writable, writing_dialect
from ..io.sink import output_sink
from ..pipeline.losses import LossReport
from ..pipeline.writing import write_records
from .options import (
    AsJson,
    Branch,
    FromDialect,
    GroupBy,
    IncludeHidden,
    InputFiles,
    OnError,
    Output,
    Quiet,
    Verbose,
)
from .runtime import Inputs, run, warn, write_lines, write_text

HELP = """Convert a chat log to another dialect (canonical JSONL by default).

The input dialect and shape are detected; a message-per-line log stays message per
line, a conversation-per-record file stays one conversation per line. Exports that
branch (ChatGPT, Claude.ai) give their active branch; --branch all gives every path.

Examples:

  chatpipe convert --to canonical fixtures/openai_tool_calls.jsonl

  chatpipe convert --to markdown --branch all conversations.json > chats.md

  chatpipe convert --to openai --jobs 2 sharegpt_rows.jsonl > train.jsonl
"""


def convert(
    files: InputFiles = None,
    to: Annotated[
        str,
        typer.Option(
            "--to",
            metavar="DIALECT",
            help="Output: " + ", ".join(writable()) + ".",
            autocompletion=writable,
        ),
    ] = "canonical",
    from_: FromDialect = "auto",
    on_error: OnError = "fail",
    output: Output = None,
    group_by: GroupBy = None,
    as_json: AsJson = False,
    branch: Branch = "active",
    include_hidden: IncludeHidden = False,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs",
            "-j",
            metavar="N",
            help="Worker processes for conversation-per-line JSONL files.",
        ),
    ] = 1,
    verbose: Verbose = 0,
    quiet: Quiet = False,
) -> None:
    def body() -> None:
        target = writing_dialect(to)
        if jobs < 1:
            raise UsageError(f"--jobs must be at least 1, got {jobs}")
        jobs_run = min(jobs, _cores())
        if jobs_run < jobs:
            warn(f"--jobs {jobs}: this machine runs {jobs_run} at once; using {jobs_run} workers")
        if as_json and target.document:
            raise UsageError(
                f"--json writes one JSON document; {target.name} is a document of its own",
                hint="drop --json, or write --to canonical or openai",
            )
        inputs = Inputs(files, from_, on_error, group_by, verbose, branch, include_hidden)
        losses = LossReport(target.name)
        # what the target could not hold is reported after a run that ends well; a run
        # that fails says one thing, its error
        if not (
            jobs > 1 and _parallel(target, inputs, losses, output, as_json, jobs_run, group_by)
        ):
            _write(target, inputs, losses, output, as_json)
        for line in losses.lines(bool(verbose)):
            warn(line)

    run(body, quiet)


def _cores() -> int:
    """The processors this process may run on (its affinity, where the system says)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _parallel(target, inputs: Inputs, losses: LossReport, output, as_json, jobs, group_by) -> bool:
    """Convert with worker processes when every input is conversation-per-line JSONL;
    False (and nothing done) when the inputs need the serial path."""
    from ..fast.pool import convert_lines, parallel_dialect
    from ..formats.registry import reading_dialect

    if not hasattr(os, "fork"):
        warn("--jobs needs a system that can fork processes; converting in one process")
        return False
    forced = reading_dialect(inputs.dialect)
    found = (
        []
        if target.document or as_json or group_by
        else [parallel_dialect(spec, forced, inputs.errors) for spec in inputs.files]
    )
    if not found or None in found:
        warn("--jobs works on conversation-per-line JSONL files; converting in one process")
        return False
    options = inputs.options
    with output_sink(output, inputs.files) as sink:
        for spec, dialect in zip(inputs.files, found, strict=True):
            for kind, payload in convert_lines(
                spec, dialect.name, target.name, options.branch, options.include_hidden, jobs
            ):
                if kind == "lines":
                    sink.borrowed(payload)
                elif kind == "loss":
                    losses.cases.setdefault(payload[0], []).append(payload[1:])
                else:
                    inputs.errors.handle(payload)
    inputs.report()
    return True


def _write(target, inputs: Inputs, losses: LossReport, output, as_json: bool) -> None:
    """Conversations to the target: a document (markdown, yaml) or JSON records."""
    conversations = losses.watch(inputs.conversations())
    if target.document:
        first = next(conversations, None)
        chunks = (
            []
            if first is None
            else target.render(itertools.chain([first], conversations), inputs.message_stream())
        )
        write_text(inputs, output, chunks)
        return
    lines = write_records(
        conversations,
        target.write_messages,
        inputs.message_stream,
        as_json,
        target.write_conversation if target.conversation_records else None,
        target.record_meta,
        target,
        errors=inputs.errors,
    )
    write_lines(inputs, output, lines, as_json)


convert.__doc__ = HELP
