"""``chatpipe template``: each conversation as a model's chat template renders it."""

from __future__ import annotations

from ..pipeline import fast_hooks
from ..pipeline.job import Job
from ..pipeline.text_target import Texts
from ..templates.options import chat_template_from_options, template_limits, template_source
from .command import ReadingOptions, command, unescape
from .options import (
    DocumentsFile,
    MaxLoops,
    MaxOutput,
    Null,
    Separator,
    TemplateName,
    Timeout,
    ToolsFile,
    Variables,
    opt,
)
from .runtime import execute


@command("output", "engine")
def template(
    o: ReadingOptions,
    chat_template: opt(
        "--chat-template",
        "tokenizer_config.json, chat_template.jinja/.json, a model directory, or a cached "
        "model id (default: the model --tokenizer names).",
        str | None,
        "SOURCE",
    ) = None,
    template_name: TemplateName = None,
    add_generation_prompt: opt(
        "--add-generation-prompt",
        "End with the header of a new assistant turn (to prompt a reply).",
        bool,
    ) = False,
    continue_final_message: opt(
        "--continue-final-message",
        "End inside the final message, for the model to continue it.",
        bool,
    ) = False,
    continue_field: opt(
        "--continue-field",
        "End inside this field of the final message (e.g. reasoning_content), as transformers' "
        "continue_final_message=FIELD; implies --continue-final-message.",
        str | None,
        "FIELD",
    ) = None,
    var: Variables = None,
    tools: ToolsFile = None,
    documents: DocumentsFile = None,
    tokenizer: opt(
        "--tokenizer",
        "The model's tokenizer folder (or its tokenizer.json): the special tokens (bos_token, "
        "eos_token, ...) of its tokenizer_config.json or special_tokens_map.json, and its "
        "chat template when --chat-template is not given.",
        str | None,
        "PATH",
    ) = None,
    template_max_output: MaxOutput = "64M",
    template_max_loops: MaxLoops = 1_000_000,
    template_timeout: Timeout = 10.0,
    separator: Separator = None,
    null: Null = False,
) -> None:
    """Render each conversation through a model's chat template: the prompt it really sees.

    The same text as Hugging Face transformers' tokenizer.apply_chat_template(messages,
    tokenize=False), from the model's own Jinja template, without transformers or torch.
    SOURCE is a tokenizer_config.json, a chat_template.jinja or .json, a model directory,
    or a model id already in the local Hugging Face cache (never downloaded); without
    --chat-template, the model --tokenizer names gives its own, as for tokenize. Tools and
    documents come from each conversation (a fine-tuning row's "tools") or --tools/--documents.

    The special tokens the template prints (bos_token, eos_token, ...) come from the model's
    tokenizer_config.json or special_tokens_map.json (beside a .jinja file, or in the model's
    folder), from --tokenizer, or --var; a variable the template needs and nothing defines is
    an error, never an empty string. Each render is bounded (--template-max-output,
    --template-max-loops, --template-timeout): a template past one fails on that conversation.

    Framing as buffer: one conversation in gives its text; several give one JSON string per
    line, or raw with --separator or -0.

    Examples:

    \b
      chatpipe template \\
          --chat-template fixtures/chat_templates/Qwen-Qwen3-0.6B.jinja \\
          --var enable_thinking=false fixtures/agent_session.jsonl
      chatpipe template \\
          --tokenizer fixtures/chat_templates/deepseek-ai-DeepSeek-R1-Distill-Qwen-32B \\
          fixtures/openai_chat__cookbook_toy_chat_fine_tuning.jsonl
      chatpipe template \\
          --chat-template fixtures/chat_templates/Qwen-Qwen3-0.6B.jinja \\
          --continue-final-message \\
          fixtures/openai_chat__cookbook_toy_chat_fine_tuning.jsonl
      chatpipe template \\
          --chat-template fixtures/chat_templates/meta-llama-Llama-3.1-8B-Instruct.jinja \\
          --tokenizer fixtures/chat_templates/ultravox-v0_6-llama-3_1-8b \\
          fixtures/openai_chat__cookbook_toy_chat_fine_tuning.jsonl
      chatpipe count \\
          --chat-template fixtures/chat_templates/Qwen-Qwen2.5-7B-Instruct.jinja \\
          --token-counter hf:fixtures/chat_templates/all-MiniLM-L6-v2/tokenizer.json \\
          fixtures/openai_chat__cookbook_toy_chat_fine_tuning.jsonl
    """
    prompt = chat_template_from_options(
        template_source(chat_template, tokenizer),
        template_name,
        add_generation_prompt=add_generation_prompt,
        continue_final_message=continue_field or continue_final_message,
        variables=var,
        tools=tools,
        documents=documents,
        tokenizer=tokenizer,
        limits=template_limits(template_max_output, template_max_loops, template_timeout),
    )
    between = unescape(separator) if separator is not None else None

    def text(conversation):
        return (prompt.render(conversation.messages, conversation.meta, conversation.location),)

    target = Texts(text, between, null, row_reader=fast_hooks.template_rows())
    execute(o, Job(o.inputs(), None, target))
