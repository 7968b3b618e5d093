"""``chatpipe count``: tokens per conversation, as langchain's count_tokens_approximately,
or exactly (tiktoken, a Hugging Face tokenizer, through a chat template)."""

from __future__ import annotations

from ..ops.count import CountLine
from ..pipeline.job import Job
from ..pipeline.targets import Lines
from ..templates.options import through_template
from .command import ReadingOptions, command
from .options import AsJson, between, opt
from .runtime import execute


@command("output", "records", "engine", "counting")
def count(
    o: ReadingOptions,
    chars_per_token: opt(
        "--chars-per-token",
        "approximate: characters per token (0.001 to 1000000).",
        float,
        "F",
        callback=between(0.001, 1_000_000),
    ) = 4.0,
    extra_tokens_per_message: opt(
        "--extra-tokens-per-message",
        "approximate: tokens added per message.",
        float,
        "F",
        callback=between(0, 1_000_000),
    ) = 3.0,
    count_name: opt("--count-name/--no-count-name", "approximate: count names.", bool) = True,
    tokens_per_image: opt(
        "--tokens-per-image", "approximate: tokens per image.", int, "N", min=0, max=1_000_000_000
    ) = 85,
    use_usage_metadata_scaling: opt(
        "--use-usage-metadata-scaling",
        "approximate: scale by the provider's reported usage.",
        bool,
    ) = False,
    as_json: AsJson = False,
) -> None:
    """Count tokens per conversation, as langchain's count_tokens_approximately.

    One integer per conversation, one per line; --json adds the messages and a count per
    message type. A row's tools (fine-tuning files) are counted too.

    Examples:

    \b
      chatpipe count fixtures/openai_tool_calls.jsonl
      chatpipe count --json --token-counter tiktoken:cl100k_base \\
          fixtures/openai_chat__cookbook_toy_chat_fine_tuning.jsonl
    """
    approximate = {}
    if o.token_counter == "approximate":
        approximate = {
            "chars_per_token": chars_per_token,
            "extra_tokens_per_message": extra_tokens_per_message,
            "count_name": count_name,
            "tokens_per_image": tokens_per_image,
            "use_usage_metadata_scaling": use_usage_metadata_scaling,
        }
    counter = o.counter(**approximate)
    line = CountLine(counter, as_json, by_type=not through_template(counter))
    execute(o, Job(o.inputs(), None, Lines(line)))
