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
    until_last_user: opt(
        "--until-last-user",
        "--to openai-batch, anthropic-batch: end each request at its conversation's last "
        "user turn (the answers after it left out), for the model to answer it anew.",
        bool,
    ) = False,
) -> None:
    """Convert a chat log to another dialect (canonical JSONL by default).

    The input dialect and shape are detected; a message-per-line log stays message per
    line, a conversation-per-record file stays one conversation per line. Exports that
    branch (ChatGPT, Claude.ai) give their active branch; --branch all gives every path.

    --to openai-batch and anthropic-batch make a request of each conversation as it is:
    one that ends with its own answer asks the model to go on from it, which is said;
    --until-last-user ends each request at its last user turn instead.

    Examples:

    \b
      chatpipe convert --to canonical fixtures/openai_tool_calls.jsonl
      chatpipe convert --to markdown --branch all \\
          fixtures/chatgpt_export__pkuppens_2023_conversations_subset.json \\
          > chats.md
      chatpipe convert --to openai --jobs 2 \\
          fixtures/sharegpt__fastchat_dummy_conversation_first20.json \\
          > train.jsonl
      chatpipe convert --to html --branch all \\
          fixtures/chatgpt_export__pkuppens_2023_conversations_subset.json \\
          -o chats.html
      chatpipe convert --to html --output-dir chats/ \\
          fixtures/chatgpt_export__pkuppens_2023_conversations_subset.json
      chatpipe convert --to openai-batch --model gpt-4.1-mini --until-last-user \\
          fixtures/openai_chat__cookbook_toy_chat_fine_tuning.jsonl \\
          -o batch_in.jsonl
      chatpipe convert --to openai \\
          fixtures/openai_batch__litellm_chat_input.jsonl \\
          fixtures/openai_batch__litellm_chat_output.jsonl
      chatpipe convert --to openai --engine dask --jobs 2 --output-dir out/ \\
          'fixtures/openai_chat__*.jsonl'
    """
    # what the target could not hold is reported after a run that ends well; a run that
    # fails says one thing, its error
    asked = {"model": model, "endpoint": endpoint, "max_tokens": max_tokens}
    asked["until_last_user"] = until_last_user or None
    settings = {key: value for key, value in asked.items() if value is not None}
    target = o.to_dialect(to, as_json=as_json, settings=settings)
    execute(o, Job(o.inputs(), None, target))
