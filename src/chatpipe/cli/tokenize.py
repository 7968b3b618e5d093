"""``chatpipe tokenize``: training rows, token ids with the mask of the assistant's tokens."""

from __future__ import annotations

import os
from typing import Annotated, Optional

import typer

from ..errors import UsageError
from ..pipeline.job import Job
from .options import Jobs, ReadingOptions, reads
from .runtime import execute, run, warn
from .template import (
    DocumentsFile,
    TemplateName,
    ToolsFile,
    Variables,
    json_list_file,
    parse_variables,
)

HELP = """Tokenize each conversation through its model's chat template: training rows.

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
  chatpipe tokenize --tokenizer Qwen/Qwen2.5-7B-Instruct train.jsonl -o train.parquet
  chatpipe tokenize --tokenizer DIR --max-length 4096 --truncate left --labels train.jsonl
  chatpipe tokenize --tokenizer DIR --chat-template training.jinja --pack 8192 train.jsonl
"""

TokenizerOption = Annotated[
    Optional[str],  # noqa: UP045 - typer reads the annotation at run time
    typer.Option(
        "--tokenizer",
        metavar="MODEL",
        help="tokenizer.json, a model directory (its chat template too), or a cached model id.",
        show_default=False,
    ),
]
ChatTemplateOption = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--chat-template",
        metavar="SOURCE",
        help="The chat template, when not the tokenizer's model's own: a .jinja, a "
        "tokenizer_config.json, a model directory or a cached model id.",
        show_default=False,
    ),
]


@reads(records=True, engine=True)
def tokenize(
    reading: ReadingOptions,
    tokenizer: TokenizerOption = None,
    chat_template: ChatTemplateOption = None,
    template_name: TemplateName = None,
    var: Variables = None,
    tools: ToolsFile = None,
    documents: DocumentsFile = None,
    train_on: Annotated[
        str,
        typer.Option(
            "--train-on",
            metavar="all|last",
            help="Which assistant turns the mask holds: all, or the last one.",
        ),
    ] = "all",
    labels: Annotated[
        bool, typer.Option("--labels", help="Add labels: the ids on the mask, -100 elsewhere.")
    ] = False,
    max_length: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(
            "--max-length",
            metavar="N",
            min=1,
            help="Cut rows longer than N tokens (see --truncate); the rows cut are reported.",
            show_default=False,
        ),
    ] = None,
    truncate: Annotated[
        str,
        typer.Option(
            "--truncate",
            metavar="right|left|error",
            help="With --max-length: keep the start (right), the end (left), or refuse the row.",
        ),
    ] = "right",
    pack: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(
            "--pack",
            metavar="N",
            min=1,
            help="Pack rows, in input order, into sequences of at most N tokens, with "
            "position_ids restarting at each row and seq_lengths (--max-length N unless given).",
            show_default=False,
        ),
    ] = None,
    jobs: Jobs = 1,
) -> None:
    def body() -> None:
        from ..pipeline.tokens import TokenRows
        from ..templates.tokenize import ChatTokenizer

        model = tokenizer
        if model is None and chat_template is not None and not os.path.isfile(chat_template):
            model = chat_template  # a model directory or cached id: its tokenizer too
        if model is None:
            raise UsageError(
                "tokenize needs --tokenizer MODEL",
                hint="a tokenizer.json, a model directory or a cached model id",
            )
        limit = max_length
        if pack is not None:
            if limit is None:
                limit = pack
            elif limit > pack:
                raise UsageError(
                    f"--max-length {limit} is more than --pack {pack}: such rows fit no pack"
                )
        if truncate != "right" and limit is None:
            raise UsageError("--truncate goes with --max-length")
        tokens = ChatTokenizer.load(
            model,
            chat_template,
            name=template_name,
            variables=parse_variables(var),
            tools=json_list_file(tools, "--tools"),
            documents=json_list_file(documents, "--documents"),
            train_on=train_on,
            max_length=limit,
            truncate=truncate,
            check_prefixes=bool(reading.verbose),
        )
        rows = TokenRows(tokens, labels=labels, pack=pack)
        execute(reading, Job(reading.inputs(), None, rows), jobs)
        _report(rows, tokens, limit, truncate, bool(reading.verbose))

    run(body, reading.quiet)


tokenize.__doc__ = HELP


def _report(rows, tokens, limit: int | None, truncate: str, verbose: bool) -> None:
    from ..templates.tokenize import GENERATION, PER_TURN, PREFIX

    tally = rows.tally
    if tally.cut_rows:
        of = f" of {tally.rows}" if tally.rows else ""
        s = "s" * (tally.cut_rows != 1)
        warn(
            f"cut {tally.cut_rows} row{s}{of} to --max-length {limit} "
            f"({tally.cut_tokens} tokens cut, on the {truncate})"
        )
    if not verbose:
        return
    origin = tokens.template.source.origin
    said = {
        GENERATION: "from its {% generation %} markers",
        PER_TURN: "per turn: each turn as the template renders it in the whole conversation",
        PREFIX: "from rendered prefixes (the template's message loop cannot be followed)",
    }
    for method, count in sorted(tally.methods.items()):
        s = "s" * (count != 1)
        warn(f"tokenize: {count} conversation{s}: assistant masks {said[method]}, {origin}")
    if tally.rewritten:
        one = tally.rewritten == 1
        warn(
            f"tokenize: {tally.rewritten} conversation{'s' * (not one)} "
            f"render{'s' * one} differently from {'its' if one else 'their'} prefixes (the "
            "template rewrites earlier turns, or closes the conversation): masks from "
            "rendered prefixes would be wrong there; the per-turn masks are not"
        )
    if tally.packs:
        s = "s" * (tally.packs != 1)
        warn(f"tokenize: {tally.rows} rows in {tally.packs} pack{s}")
