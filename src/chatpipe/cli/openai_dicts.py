"""``chatpipe openai``: OpenAI chat dicts, as langchain's convert_to_openai_messages."""

from __future__ import annotations

from ..formats.openai import OpenAIDialect
from ..formats.openai_writer import TEXT_FORMATS, OpenAIWriter
from ..pipeline.job import Job
from ..pipeline.targets import ToDialect
from .command import ReadingOptions, command, one_of
from .options import AsJson, choices, opt
from .runtime import execute


@command("output", "records", "engine")
def openai(
    o: ReadingOptions,
    text_format: opt(
        "--text-format",
        "Text as plain strings where possible, always as text blocks, or (keep) as the log "
        "holds it.",
        metavar="string|block|keep",
        autocompletion=choices(*TEXT_FORMATS),
    ) = "string",
    include_id: opt("--include-id/--no-include-id", "Write message ids.", bool) = False,
    pass_through_unknown_blocks: opt(
        "--pass-through-unknown-blocks/--no-pass-through-unknown-blocks",
        "Keep content blocks OpenAI does not know, or fail on them.",
        bool,
    ) = True,
    keep_fields: opt(
        "--keep-fields/--no-keep-fields",
        "Write back OpenAI fields langchain drops (weight, audio, ...).",
        bool,
    ) = False,
    as_json: AsJson = False,
) -> None:
    """Write a chat log as OpenAI chat messages, as langchain's convert_to_openai_messages.

    A message-per-line log gives one OpenAI message per line; conversation records give
    {"messages": [...]} per line with tools and the other fine-tuning fields kept.
    --keep-fields also writes back the OpenAI fields langchain drops (weight, audio,
    function_call...), so an OpenAI log round-trips; convert --to openai always does. A text
    file (a text-plain block) fails here as in langchain; convert --to openai writes it as a
    text part.

    Examples:

    \b
      chatpipe openai fixtures/openai_tool_calls.jsonl
      chatpipe openai --text-format block --include-id fixtures/agent_session.jsonl
      chatpipe openai --keep-fields \\
          fixtures/sharegpt__fastchat_dummy_conversation_first20.json \\
          > train.jsonl
    """
    one_of("--text-format", text_format, TEXT_FORMATS)
    writer = OpenAIWriter(text_format, include_id, pass_through_unknown_blocks, keep_fields)
    # text files (text-plain blocks) fail as in langchain-core; convert --to openai writes
    # them as text parts
    writer.files_hint = "convert --to openai writes text files as text parts"
    target = ToDialect(OpenAIDialect.name, as_json=as_json, writer=writer, losses=False)
    execute(o, Job(o.inputs(), None, target))
