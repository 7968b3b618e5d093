"""Options declared once: ``opt`` makes one in a line; ``OPTIONS`` holds those of the
groups that command.py adds to each command (reading, output, records, engine, talk,
counting)."""

from __future__ import annotations

import math
from typing import Annotated, Any

import typer

from ..formats.registry import readable, writable

# the dialects, as the registry lists them (without importing one)
READABLE = readable()
WRITABLE = writable()


def opt(flags: str, help: str, kind: Any = str, metavar: str | None = None, **more: Any) -> Any:
    """An option, as a parameter's annotation: its flags ("-o --output"), help, type
    (``int | None``...) and metavar; ``more``: typer.Option's other settings."""
    return Annotated[kind, typer.Option(*flags.split(), metavar=metavar, help=help, **more)]


def choices(*values: str) -> Any:
    """Shell completion of an option's values."""
    return lambda: list(values)


def between(low: float, high: float) -> Any:
    """A float option's callback: a finite number from ``low`` to ``high`` (a count made
    with a number past them would be infinite, or nothing)."""

    def check(value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise typer.BadParameter(f"{value} is not a finite number")
        if value is not None and not low <= value <= high:
            raise typer.BadParameter(f"{value} is not from {low:g} to {high:g}")
        return value

    return check


FILES = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="[FILE]...",
        help="Chat logs to read (JSONL, JSON, YAML, SSE, Parquet), any number of them; none, "
        "or -, reads stdin. A quoted glob ('shards/*.jsonl') is expanded where no file has "
        "that name; fsspec URLs (s3://...) are read too.",
        show_default=False,
    ),
]
COUNTERS = ("approximate", "messages", "tiktoken:cl100k_base", "tiktoken:o200k_base", "hf:")
OPTIONS = {  # the options of the groups, by their ReadingOptions field
    "from_": opt(
        "--from",
        "Input dialect: auto (detect), " + ", ".join(READABLE) + ".",
        metavar="DIALECT",
        autocompletion=choices("auto", *READABLE),
    ),
    "on_error": opt(
        "--on-error",
        "On a bad record: stop (fail), or drop it, go on and report it (skip).",
        metavar="fail|skip",
    ),
    "group_by": opt(
        "--group-by",
        "Split a message-per-line log into conversations by this field (e.g. session_id).",
        str | None,
        "KEY",
    ),
    "output": opt(
        "-o --output",
        "Write here instead of stdout; the file appears only when the run succeeds.",
        str | None,
        "FILE",
    ),
    "output_dir": opt(
        "--output-dir",
        "Write one file per input file (per part of a large one, with --engine dask) into "
        "DIR, named after it; with --to html, an index.html and a page per conversation.",
        str | None,
        "DIR",
    ),
    "to_format": opt(
        "--to-format",
        "How records are stored: JSON lines, or rows of a Parquet file (needs -o FILE or "
        "--output-dir; -o FILE.parquet chooses it). [default: jsonl]",
        metavar="jsonl|parquet",
        show_default=False,
    ),
    "branch": opt(
        "--branch",
        "Exports and sessions that branch (ChatGPT, Claude.ai, Claude Code, Gemini CLI): the "
        "active branch (the newest leaf where none is named), the newest leaf, or every "
        "root-to-leaf path as its own conversation.",
        metavar="active|latest|all",
    ),
    "include_hidden": opt(
        "--include-hidden",
        "ChatGPT exports: keep hidden system, memory and custom-instruction messages.",
        bool,
    ),
    "include_subagents": opt(
        "--include-subagents",
        "Claude Code sessions: give each subagent's conversation too, after the main one, "
        "linked to the Task call that started it (parent_tool_call_id).",
        bool,
    ),
    "jobs": opt(
        "-j --jobs",
        "Workers, each on a part of the inputs at a time (a range of conversation-per-line "
        "JSONL, Parquet row groups, another file whole; a range of one message log for "
        "buffer, openai, convert and filter): processes here, or Dask's with --engine dask. "
        "The output is the same.",
        int,
        "N",
    ),
    "engine": opt(
        "--engine",
        "serial: this process (--jobs N: N processes). dask: the parts of the inputs on a "
        "Dask cluster (--jobs N workers, or --scheduler ADDRESS; pip install 'chatpipe[dask]').",
        metavar="serial|dask",
    ),
    "scheduler": opt(
        "--scheduler",
        "--engine dask: a running Dask scheduler (tcp://host:8786).",
        str | None,
        "ADDRESS",
    ),
    "workers": opt("--workers", "Another name for --jobs.", int | None, "N", min=1),
    "verbose": opt(
        "-v --verbose",
        "Say more on stderr (what was detected); -vv says more still. Takes no value.",
        int,
        count=True,
        show_default=False,
    ),
    "quiet": opt("-q --quiet", "Say nothing on stderr but errors.", bool),
    "token_counter": opt(
        "--token-counter",
        "approximate (langchain's), messages (one per message), tiktoken:ENCODING (e.g. "
        "tiktoken:cl100k_base), hf:PATH/tokenizer.json, or template:MODEL (a model directory "
        "or cached id: its chat template and tokenizer, as chatpipe tokenize).",
        metavar="COUNTER",
        autocompletion=choices(*COUNTERS),
    ),
    "chat_template": opt(
        "--chat-template",
        "Count the prompt as this model's chat template renders it (with --token-counter "
        "hf:... or tiktoken:...): template overhead included.",
        str | None,
        "SOURCE",
    ),
    "template_name": opt(
        "--template-name",
        "Which of a model's named templates (e.g. tool_use, rag); default: default, or "
        "tool_use when there are tools.",
        str | None,
        "NAME",
    ),
    "var": opt(
        "--var",
        "An extra template variable (repeatable); VALUE is JSON if it parses "
        "(enable_thinking=false), else text.",
        list[str] | None,
        "KEY=VALUE",
    ),
    "template_max_output": opt(
        "--template-max-output",
        "The most text one render may write, and the largest value it may build (K, M, G); "
        "it may take 16 times this in memory.",
        metavar="SIZE",
    ),
    "template_max_loops": opt(
        "--template-max-loops",
        "The most loop iterations of one render (all its loops together).",
        int,
        "N",
        min=1,
        max=1_000_000_000,
    ),
    "template_timeout": opt(
        "--template-timeout",
        "The longest one render may run.",
        float,
        "SECONDS",
        min=0.001,
        max=86_400,
    ),
}


# -- options that several commands take, outside the groups ---------------------------

# of the counting group, taken by template and tokenize on their own
TemplateName, Variables = OPTIONS["template_name"], OPTIONS["var"]
MaxOutput, MaxLoops = OPTIONS["template_max_output"], OPTIONS["template_max_loops"]
Timeout = OPTIONS["template_timeout"]

Separator = opt(
    "--separator",
    "Print conversations raw, joined by TEXT, not as JSON strings.",
    str | None,
    "TEXT",
)
Null = opt("-0 --null", "Print conversations raw, each ended by NUL.", bool)
AsJson = opt("--json", "Print one JSON document instead of one record per line.", bool)
To = opt(
    "--to",
    "Output dialect (default: the input's): " + ", ".join(WRITABLE) + ".",
    str | None,
    "DIALECT",
    autocompletion=choices(*WRITABLE),
)
Seed = opt("--seed", "Any number or word: the same seed, the same choice.", metavar="S")
Report = opt("--report", "Write what was done as JSON here.", str | None, "FILE")
ToolsFile = opt(
    "--tools", "A JSON list of tool schemas, for conversations that carry none.", str | None, "FILE"
)
DocumentsFile = opt(
    "--documents", "A JSON list of documents ({title, text}) for RAG templates.", str | None, "FILE"
)
