"""``chatpipe convert``: any readable dialect to a writable one."""

from __future__ import annotations

from ..formats.api import REASONING
from ..formats.registry import DEFAULT, api_dialects, writable
from ..pipeline.job import Job
from .command import ReadingOptions, command
from .options import AsJson, choices, opt
from .runtime import execute

APIS = api_dialects()  # (the dialects that are an API's wire format)


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
    keep_extras: opt(
        "--keep-extras",
        f"--to an API's format ({', '.join(APIS)}): also write what the API does not take "
        "(titles, ids, readers' fields), for chatpipe to read back; by default such output "
        "holds only what the API takes.",
        bool,
    ) = False,
    reasoning: opt(
        "--reasoning",
        "--to an API's format: reasoning in the API's own field (field: signed Anthropic "
        "thinking, Gemini thought parts, Responses reasoning items; Chat Completions has "
        "none, so it is left out), left out everywhere (drop), or, --to openai, as the "
        "reasoning_content that DeepSeek, vLLM and OpenRouter take (reasoning-content).",
        str | None,
        "|".join(REASONING),
        autocompletion=choices(*REASONING),
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

    An API's format (--keep-extras names them) is written as requests that API takes:
    what it does not take is left out and said on stderr (-v says where and what);
    --keep-extras writes it all, and chatpipe validate --as checks a file.

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
      chatpipe convert --to anthropic --reasoning drop \\
          fixtures/bedrock_converse__pydanticai_req_reasoning_tool_use_tool_result.json
      chatpipe convert --to openai \\
          fixtures/openai_batch__litellm_chat_input.jsonl \\
          fixtures/openai_batch__litellm_chat_output.jsonl
      chatpipe convert --to openai --engine dask --jobs 2 --output-dir out/ \\
          'fixtures/openai_chat__*.jsonl'
    """
    # what the target could not hold is reported after a run that ends well; a run that
    # fails says one thing, its error
    asked = {"model": model, "endpoint": endpoint, "max_tokens": max_tokens}
    asked.update(keep_extras=keep_extras or None, reasoning=reasoning)
    asked["until_last_user"] = until_last_user or None
    settings = {key: value for key, value in asked.items() if value is not None}
    target = o.to_dialect(to, as_json=as_json, settings=settings)
    execute(o, Job(o.inputs(), None, target))
