"""``chatpipe convert``: any readable dialect to a writable one."""

from __future__ import annotations

from ..formats.registry import DEFAULT, writable
from ..pipeline.job import Job
from .command import ReadingOptions, command
from .options import AsJson, opt
from .runtime import execute


@command("group_by", "output", "records", "engine")
def convert(
    o: ReadingOptions,
    to: opt(
        "--to", "Output: " + ", ".join(writable()) + ".", metavar="DIALECT", autocompletion=writable
    ) = DEFAULT,
    as_json: AsJson = False,
    model: opt(
        "--model",
        "--to openai-batch, anthropic-batch, bedrock-converse (modelId), ollama: the model "
        "every request asks for.",
        str | None,
        "MODEL",
    ) = None,
    endpoint: opt(
        "--endpoint",
        "--to openai-batch: /v1/chat/completions requests, or /v1/responses. [default: chat]",
        str | None,
        "chat|responses",
    ) = None,
    max_tokens: opt(
        "--max-tokens",
        "--to anthropic-batch (needed), openai-batch, bedrock-converse, ollama: each "
        "request's max_tokens.",
        int | None,
        "N",
        min=1,
    ) = None,
) -> None:
    """Convert a chat log to another dialect (canonical JSONL by default).

    The input dialect and shape are detected; a message-per-line log stays message per
    line, a conversation-per-record file stays one conversation per line. Exports that
    branch (ChatGPT, Claude.ai) give their active branch; --branch all gives every path.

    Examples:

    \b
      chatpipe convert --to canonical fixtures/openai_tool_calls.jsonl
      chatpipe convert --to markdown --branch all conversations.json > chats.md
      chatpipe convert --to openai --jobs 2 sharegpt_rows.jsonl > train.jsonl
      chatpipe convert --to html --branch all conversations.json -o chats.html
      chatpipe convert --to html --output-dir chats/ conversations.json
      chatpipe convert --to openai-batch --model gpt-4.1-mini train.jsonl -o batch_in.jsonl
      chatpipe convert --to openai batch_in.jsonl batch_out.jsonl
      chatpipe convert --to openai --engine dask --jobs 2 --output-dir out/ 'shards/*.jsonl'
    """
    # what the target could not hold is reported after a run that ends well; a run that
    # fails says one thing, its error
    asked = {"model": model, "endpoint": endpoint, "max_tokens": max_tokens}
    settings = {key: value for key, value in asked.items() if value is not None}
    target = o.to_dialect(to, as_json=as_json, settings=settings)
    execute(o, Job(o.inputs(), None, target))
