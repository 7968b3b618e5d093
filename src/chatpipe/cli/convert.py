"""``chatpipe convert``: any readable dialect to a writable one."""

from __future__ import annotations

import itertools
from typing import Annotated

import typer

from ..errors import UsageError
from ..formats import WRITABLE, get_dialect
from ..formats.losses import LossReport
from ..formats.write import write_records
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
line, a conversation-per-record file stays one conversation per line.

Example:

  chatpipe convert --to canonical fixtures/openai_tool_calls.jsonl
"""


def convert(
    files: InputFiles = None,
    to: Annotated[
        str,
        typer.Option(
            "--to",
            metavar="DIALECT",
            help="Output: canonical, langchain, openai, anthropic, gemini, sharegpt, "
            "markdown, yaml.",
        ),
    ] = "canonical",
    from_: FromDialect = "auto",
    on_error: OnError = "fail",
    output: Output = None,
    group_by: GroupBy = None,
    as_json: AsJson = False,
    branch: Branch = "active",
    include_hidden: IncludeHidden = False,
    verbose: Verbose = 0,
    quiet: Quiet = False,
) -> None:
    def body() -> None:
        target = get_dialect(to)
        if not target.writable:
            raise UsageError(f"cannot write {to} yet", hint="--to takes " + ", ".join(WRITABLE))
        inputs = Inputs(files, from_, on_error, group_by, verbose, branch, include_hidden)
        losses = LossReport(target.name)
        try:
            _write(target, inputs, losses, output, as_json)
        finally:
            for line in losses.lines(bool(verbose)):
                warn(line)

    run(body, quiet)


def _write(target, inputs: Inputs, losses: LossReport, output, as_json: bool) -> None:
    """Conversations to the target: a document (markdown, yaml) or JSON records."""
    conversations = losses.watch(inputs.conversations())
    if hasattr(target, "render"):
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
        getattr(target, "write_conversation", None),
        target.record_meta,
    )
    write_lines(inputs, output, lines)


convert.__doc__ = HELP
