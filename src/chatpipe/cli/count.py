"""``chatpipe count``: tokens per conversation, as langchain's count_tokens_approximately,
or exactly (tiktoken, a Hugging Face tokenizer, through a chat template)."""

from __future__ import annotations

from typing import Annotated

import orjson
import typer

from ..ops.count import counter_for, resolve_counter
from ..pipeline.job import Job
from ..pipeline.targets import Lines
from .options import AsJson, Jobs, ReadingOptions, between, reads
from .runtime import execute, run
from .template import (
    DEFAULT_MAX_OUTPUT,
    CountThroughTemplate,
    TemplateMaxLoops,
    TemplateMaxOutput,
    TemplateName,
    TemplateTimeout,
    Variables,
    templated_counter,
    through_template,
)
from .trim import TokenCounterOption

COUNT_HELP = """Count tokens per conversation, as langchain's count_tokens_approximately.

One integer per conversation, one per line; --json adds the messages and a count per
message type. A row's tools (fine-tuning files) are counted too.

Examples:

  chatpipe count fixtures/openai_tool_calls.jsonl

  chatpipe count --json --token-counter tiktoken:cl100k_base train.jsonl
"""


@reads(records=True, engine=True)
def count(
    reading: ReadingOptions,
    token_counter: TokenCounterOption = "approximate",
    chat_template: CountThroughTemplate = None,
    template_name: TemplateName = None,
    var: Variables = None,
    template_max_output: TemplateMaxOutput = DEFAULT_MAX_OUTPUT,
    template_max_loops: TemplateMaxLoops = 1_000_000,
    template_timeout: TemplateTimeout = 10.0,
    chars_per_token: Annotated[
        float,
        typer.Option(
            "--chars-per-token",
            metavar="F",
            callback=between(0.001, 1_000_000),
            help="approximate: characters per token (0.001 to 1000000).",
        ),
    ] = 4.0,
    extra_tokens_per_message: Annotated[
        float,
        typer.Option(
            "--extra-tokens-per-message",
            metavar="F",
            callback=between(0, 1_000_000),
            help="approximate: tokens added per message.",
        ),
    ] = 3.0,
    count_name: Annotated[
        bool, typer.Option("--count-name/--no-count-name", help="approximate: count names.")
    ] = True,
    tokens_per_image: Annotated[
        int,
        typer.Option(
            "--tokens-per-image",
            metavar="N",
            min=0,
            max=1_000_000_000,
            help="approximate: tokens per image.",
        ),
    ] = 85,
    use_usage_metadata_scaling: Annotated[
        bool,
        typer.Option(
            "--use-usage-metadata-scaling",
            help="approximate: scale by the provider's reported usage.",
        ),
    ] = False,
    as_json: AsJson = False,
    jobs: Jobs = 1,
) -> None:
    def body() -> None:
        options = {}
        if token_counter == "approximate":
            options = {
                "chars_per_token": chars_per_token,
                "extra_tokens_per_message": extra_tokens_per_message,
                "count_name": count_name,
                "tokens_per_image": tokens_per_image,
                "use_usage_metadata_scaling": use_usage_metadata_scaling,
            }
        plain = templated_counter(
            token_counter,
            chat_template,
            template_name,
            var,
            (template_max_output, template_max_loops, template_timeout),
            **options,
        )

        def line(conversation) -> bytes:
            tools = conversation.meta.get("tools")
            counter = counter_for(plain, conversation)
            if token_counter == "approximate" and isinstance(tools, list) and tools:
                counter = resolve_counter("approximate", tools=tools, **options)
            if not as_json:
                return str(counter.count(conversation.messages)).encode()
            messages = list(conversation.messages)
            report = {"tokens": counter.count(messages), "messages": len(messages)}
            if not through_template(plain):  # a template's count: of the whole prompt only
                by_type: dict[str, int] = {}
                for message in messages:
                    cost = plain.count([message])
                    by_type[message.type] = by_type.get(message.type, 0) + cost
                report["by_type"] = by_type
            if "id" in conversation.meta:
                report = {"id": conversation.meta["id"], **report}
            return orjson.dumps(report)

        execute(reading, Job(reading.inputs(), None, Lines(line)), jobs)

    run(body, reading.quiet)


count.__doc__ = COUNT_HELP
