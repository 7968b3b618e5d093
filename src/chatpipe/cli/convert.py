"""``chatpipe convert``: any readable dialect to a writable one."""

from __future__ import annotations

from typing import Annotated

import typer

from ..formats.registry import writable
from ..pipeline.job import Job
from .options import (
    AsJson,
    Endpoint,
    Jobs,
    Model,
    ReadingOptions,
    RequestMaxTokens,
    reads,
    to_dialect,
)
from .runtime import execute, run

HELP = """Convert a chat log to another dialect (canonical JSONL by default).

The input dialect and shape are detected; a message-per-line log stays message per
line, a conversation-per-record file stays one conversation per line. Exports that
branch (ChatGPT, Claude.ai) give their active branch; --branch all gives every path.

Examples:

  chatpipe convert --to canonical fixtures/openai_tool_calls.jsonl

  chatpipe convert --to markdown --branch all conversations.json > chats.md

  chatpipe convert --to openai --jobs 2 sharegpt_rows.jsonl > train.jsonl

  chatpipe convert --to html --branch all conversations.json -o chats.html

  chatpipe convert --to html --output-dir chats/ conversations.json

  chatpipe convert --to openai-batch --model gpt-4.1-mini train.jsonl -o batch_in.jsonl

  chatpipe convert --to openai batch_in.jsonl batch_out.jsonl

  chatpipe convert --to openai --engine dask --workers 2 --output-dir out/ 'shards/*.jsonl'
"""


@reads(group_by=True, records=True, engine=True)
def convert(
    reading: ReadingOptions,
    to: Annotated[
        str,
        typer.Option(
            "--to",
            metavar="DIALECT",
            help="Output: " + ", ".join(writable()) + ".",
            autocompletion=writable,
        ),
    ] = "canonical",
    as_json: AsJson = False,
    jobs: Jobs = 1,
    model: Model = None,
    endpoint: Endpoint = None,
    max_tokens: RequestMaxTokens = None,
) -> None:
    def body() -> None:
        # what the target could not hold is reported after a run that ends well; a run
        # that fails says one thing, its error
        asked = (("model", model), ("endpoint", endpoint), ("max_tokens", max_tokens))
        settings = {k: v for k, v in asked if v is not None}
        target = to_dialect(reading, to, as_json=as_json, settings=settings)
        execute(reading, Job(reading.inputs(), None, target), jobs)

    run(body, reading.quiet)


convert.__doc__ = HELP
