"""``chatpipe openai``: OpenAI chat dicts, as langchain's convert_to_openai_messages."""

from __future__ import annotations

from typing import Annotated

import typer

from ..errors import UsageError
from ..formats.openai_writer import TEXT_FORMATS, OpenAIWriter
from ..pipeline.job import Job
from ..pipeline.targets import ToDialect
from .options import AsJson, Jobs, ReadingOptions, reads
from .runtime import execute, run

HELP = """Write a chat log as OpenAI chat messages, as langchain's convert_to_openai_messages.

A message-per-line log gives one OpenAI message per line; conversation records give
{"messages": [...]} per line with tools and the other fine-tuning fields kept.
--keep-fields also writes back the OpenAI fields langchain drops (weight, audio,
function_call...), so an OpenAI log round-trips; convert --to openai always does. A text
file (a text-plain block) fails here as in langchain; convert --to openai writes it as a
text part.

Examples:

  chatpipe openai fixtures/openai_tool_calls.jsonl

  chatpipe openai --text-format block --include-id session.jsonl

  chatpipe openai --keep-fields sharegpt_rows.jsonl > train.jsonl
"""


@reads(records=True, engine=True)
def openai(
    reading: ReadingOptions,
    text_format: Annotated[
        str,
        typer.Option(
            "--text-format",
            metavar="string|block|keep",
            help="Text as plain strings where possible, always as text blocks, or (keep) "
            "as the log holds it.",
        ),
    ] = "string",
    include_id: Annotated[
        bool, typer.Option("--include-id/--no-include-id", help="Write message ids.")
    ] = False,
    pass_through_unknown_blocks: Annotated[
        bool,
        typer.Option(
            "--pass-through-unknown-blocks/--no-pass-through-unknown-blocks",
            help="Keep content blocks OpenAI does not know, or fail on them.",
        ),
    ] = True,
    keep_fields: Annotated[
        bool,
        typer.Option(
            "--keep-fields/--no-keep-fields",
            help="Write back OpenAI fields langchain drops (weight, audio, ...).",
        ),
    ] = False,
    as_json: AsJson = False,
    jobs: Jobs = 1,
) -> None:
    def body() -> None:
        if text_format not in TEXT_FORMATS:
            raise UsageError(f"--text-format must be string, block or keep, got {text_format!r}")
        # text files (text-plain blocks) fail as in langchain-core; convert --to openai
        # writes them as text parts
        writer = OpenAIWriter(text_format, include_id, pass_through_unknown_blocks, keep_fields)
        writer.files_hint = "convert --to openai writes text files as text parts"
        target = ToDialect("openai", as_json=as_json, writer=writer, losses=False)
        execute(reading, Job(reading.inputs(), None, target), jobs)

    run(body, reading.quiet)


openai.__doc__ = HELP
