"""``chatpipe tokenize``: training rows, token ids with the mask of the assistant's tokens."""

from __future__ import annotations

from ..pipeline.job import Job
from ..templates.options import tokenizer_from_options
from .command import ReadingOptions, command
from .diagnostics import warn
from .options import DocumentsFile, TemplateName, ToolsFile, Variables, choices, opt
from .runtime import execute


@command("output", "records", "engine")
def tokenize(
    o: ReadingOptions,
    tokenizer: opt(
        "--tokenizer",
        "tokenizer.json, a model directory (its chat template too), or a cached model id.",
        str | None,
        "MODEL",
    ) = None,
    chat_template: opt(
        "--chat-template",
        "The chat template, when not the tokenizer's model's own: a .jinja, a "
        "tokenizer_config.json, a model directory or a cached model id.",
        str | None,
        "SOURCE",
    ) = None,
    template_name: TemplateName = None,
    var: Variables = None,
    tools: ToolsFile = None,
    documents: DocumentsFile = None,
    train_on: opt(
        "--train-on",
        "Which assistant turns the mask holds: all, or the last one.",
        metavar="all|last",
        autocompletion=choices("all", "last"),
    ) = "all",
    labels: opt("--labels", "Add labels: the ids on the mask, -100 elsewhere.", bool) = False,
    max_length: opt(
        "--max-length",
        "Cut rows longer than N tokens (see --truncate); the rows cut are reported.",
        int | None,
        "N",
        min=1,
    ) = None,
    truncate: opt(
        "--truncate",
        "With --max-length: keep the start (right), the end (left), or refuse the row.",
        metavar="right|left|error",
        autocompletion=choices("right", "left", "error"),
    ) = "right",
    pack: opt(
        "--pack",
        "Pack rows, in input order, into sequences of at most N tokens, with position_ids "
        "restarting at each row and seq_lengths (--max-length N unless given).",
        int | None,
        "N",
        min=1,
    ) = None,
) -> None:
    """Tokenize each conversation through its model's chat template: training rows.

    Each row holds the conversation's other fields (its id...), input_ids (the ids of
    transformers' apply_chat_template(messages, tokenize=True)), assistant_masks (1 on the
    tokens of the assistant's turns, the end-of-turn token included), labels with --labels
    (-100 off the mask) and length. Masks come from the template's {% generation %} markers
    where it has them, else from each turn as the template renders it in the whole
    conversation; -v says which. A conversation whose mask would be all zeros is an error.
    OpenAI fine-tuning rows' "weight": 0 takes a message out of the mask.

    MODEL (--tokenizer) is a tokenizer.json, a model directory or a model id already in the
    local Hugging Face cache (never downloaded); a directory gives the chat template too, and
    its config's special tokens. Needs pip install 'chatpipe[tokenize]'.

    Examples:

    \b
      chatpipe tokenize \\
          --tokenizer fixtures/chat_templates/all-MiniLM-L6-v2/tokenizer.json \\
          --chat-template fixtures/chat_templates/Qwen-Qwen2.5-7B-Instruct.jinja \\
          fixtures/openai_chat__cookbook_toy_chat_fine_tuning.jsonl \\
          -o train.parquet
      chatpipe tokenize \\
          --tokenizer fixtures/chat_templates/all-MiniLM-L6-v2/tokenizer.json \\
          --chat-template fixtures/chat_templates/Qwen-Qwen2.5-7B-Instruct.jinja \\
          --max-length 4096 --truncate left --labels \\
          fixtures/openai_chat__cookbook_toy_chat_fine_tuning.jsonl
      chatpipe tokenize \\
          --tokenizer fixtures/chat_templates/all-MiniLM-L6-v2/tokenizer.json \\
          --chat-template fixtures/chat_templates/huggingface-trl-qwen3_training.jinja \\
          --pack 8192 fixtures/openai_chat__cookbook_toy_chat_fine_tuning.jsonl
    """
    from ..pipeline.training_rows import TokenRows

    tokens = tokenizer_from_options(
        tokenizer,
        chat_template,
        name=template_name,
        variables=var,
        tools=tools,
        documents=documents,
        max_length=max_length,
        pack=pack,
        truncate=truncate,
        train_on=train_on,
        check_prefixes=bool(o.verbose),
    )
    rows = TokenRows(tokens, labels=labels, pack=pack)
    execute(o, Job(o.inputs(), None, rows))
    for line in rows.said(bool(o.verbose)):
        warn(line)
