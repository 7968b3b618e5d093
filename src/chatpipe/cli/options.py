"""Options shared by every command, declared once (STYLE.md lesson 4)."""

from __future__ import annotations

import functools
import inspect
import math
from dataclasses import dataclass
from typing import Annotated, Any, Optional

import typer

# the dialects, named here so that help and completion need no import of formats (a
# test checks them against the dialects' own capabilities)
READABLE = (
    "openai",
    "canonical",
    "langchain",
    "mellea",
    "llamafactory",
    "ai-sdk-ui",
    "anthropic",
    "gemini",
    "openai-responses",
    "sharegpt",
    "alpaca",
    "chatgpt-export",
    "claude-export",
    "openai-stream",
    "anthropic-stream",
    "gemini-stream",
    "openai-responses-stream",
    "claude-code",
    "codex",
    "gemini-cli",
    "pydantic-ai",
    "openai-batch",
    "anthropic-batch",
)
WRITABLE = (
    "canonical",
    "langchain",
    "openai",
    "anthropic",
    "gemini",
    "openai-responses",
    "sharegpt",
    "alpaca",
    "pydantic-ai",
    "openai-batch",
    "anthropic-batch",
    "markdown",
    "yaml",
    "html",
)

_FILES_HELP = (
    "Chat logs to read (JSONL, JSON, YAML, SSE, Parquet), any number of them; none, or -, "
    "reads stdin."
)
InputFiles = Annotated[
    Optional[list[str]],  # noqa: UP045 - typer reads the annotation at run time
    typer.Argument(metavar="[FILE]...", help=_FILES_HELP, show_default=False),
]
# of the commands that take --engine
EngineInputFiles = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Argument(
        metavar="[FILE]...",
        help=_FILES_HELP + " With --engine dask, also globs and fsspec URLs (s3://...).",
        show_default=False,
    ),
]
FromDialect = Annotated[
    str,
    typer.Option(
        "--from",
        metavar="DIALECT",
        help="Input dialect: auto (detect), " + ", ".join(READABLE) + ".",
        autocompletion=lambda: ["auto", *READABLE],
    ),
]
OnError = Annotated[
    str,
    typer.Option(
        "--on-error",
        metavar="fail|skip",
        help="On a bad record: stop (fail), or drop it, go on and report it (skip).",
    ),
]
Output = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "-o",
        "--output",
        metavar="FILE",
        help="Write here instead of stdout; the file appears only when the run succeeds.",
        show_default=False,
    ),
]
OutputDir = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--output-dir",
        metavar="DIR",
        help="Write one file per input file (per part of a large one, with --engine dask) "
        "into DIR, named after it; with --to html, an index.html and a page per conversation.",
        show_default=False,
    ),
]
ToFormat = Annotated[
    str,
    typer.Option(
        "--to-format",
        metavar="jsonl|parquet",
        help="How records are stored: JSON lines, or rows of a Parquet file (needs -o FILE "
        "or --output-dir; -o FILE.parquet chooses it). [default: jsonl]",
        show_default=False,
    ),
]
Engine = Annotated[
    str,
    typer.Option(
        "--engine",
        metavar="serial|dask",
        help="serial: this process (--jobs N: N processes). dask: the parts of the inputs on "
        "a Dask cluster (--workers N or --scheduler ADDRESS; pip install 'chatpipe[dask]').",
    ),
]
Scheduler = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--scheduler",
        metavar="ADDRESS",
        help="--engine dask: a running Dask scheduler (tcp://host:8786).",
        show_default=False,
    ),
]
Workers = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option(
        "--workers",
        metavar="N",
        min=1,
        help="--engine dask: start a local cluster of N worker processes for the run.",
        show_default=False,
    ),
]
Separator = Annotated[
    Optional[str],  # noqa: UP045 - typer reads the annotation at run time
    typer.Option(
        "--separator",
        metavar="TEXT",
        help="Print conversations raw, joined by TEXT, not as JSON strings.",
        show_default=False,
    ),
]
Null = Annotated[
    bool, typer.Option("-0", "--null", help="Print conversations raw, each ended by NUL.")
]
GroupBy = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--group-by",
        metavar="KEY",
        help="Split a message-per-line log into conversations by this field (e.g. session_id).",
        show_default=False,
    ),
]
AsJson = Annotated[
    bool,
    typer.Option("--json", help="Print one JSON document instead of one record per line."),
]
To = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--to",
        metavar="DIALECT",
        help="Output dialect (default: the input's): " + ", ".join(WRITABLE) + ".",
        show_default=False,
        autocompletion=lambda: list(WRITABLE),
    ),
]
# what the batch writers ask for (convert --to openai-batch / anthropic-batch)
Model = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--model",
        metavar="MODEL",
        help="--to openai-batch, anthropic-batch: the model every request asks for.",
        show_default=False,
    ),
]
Endpoint = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--endpoint",
        metavar="chat|responses",
        help="--to openai-batch: /v1/chat/completions requests, or /v1/responses. [default: chat]",
        show_default=False,
    ),
]
RequestMaxTokens = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option(
        "--max-tokens",
        metavar="N",
        min=1,
        help="--to anthropic-batch (needed), openai-batch: each request's max_tokens.",
        show_default=False,
    ),
]
Branch = Annotated[
    str,
    typer.Option(
        "--branch",
        metavar="active|latest|all",
        help="Exports and sessions that branch (ChatGPT, Claude.ai, Claude Code, Gemini "
        "CLI): the active branch (the newest leaf where none is named), the newest leaf, or "
        "every root-to-leaf path as its own conversation.",
    ),
]
IncludeHidden = Annotated[
    bool,
    typer.Option(
        "--include-hidden",
        help="ChatGPT exports: keep hidden system, memory and custom-instruction messages.",
    ),
]
IncludeSubagents = Annotated[
    bool,
    typer.Option(
        "--include-subagents",
        help="Claude Code sessions: give each subagent's conversation too, after the main "
        "one, linked to the Task call that started it (parent_tool_call_id).",
    ),
]
Jobs = Annotated[
    int,
    typer.Option(
        "--jobs",
        "-j",
        metavar="N",
        help="Worker processes, each on a part of the inputs at a time (a range of "
        "conversation-per-line JSONL, Parquet row groups, another file whole; a range of one "
        "message log for buffer, openai, convert and filter): the output is the same.",
    ),
]
Quiet = Annotated[
    bool,
    typer.Option("-q", "--quiet", help="Say nothing on stderr but errors."),
]
Verbose = Annotated[
    int,
    typer.Option(
        "-v",
        "--verbose",
        count=True,
        show_default=False,
        help="Say more on stderr (what was detected); -vv says more still. Takes no value.",
    ),
]


def finite(value: float | None) -> float | None:
    """A float option's callback: NaN and infinities are not numbers a count can use."""
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"{value} is not a finite number")
    return value


def between(low: float, high: float):
    """A float option's callback: a finite number from ``low`` to ``high`` (a count made
    with a number past them would be infinite, or nothing)."""

    def check(value: float | None) -> float | None:
        finite(value)
        if value is not None and not low <= value <= high:
            raise typer.BadParameter(f"{value} is not from {low:g} to {high:g}")
        return value

    return check


def message_types(values: list[str] | None, flag: str) -> list[str] | None:
    """Message types named on the command line (``human``, ``ai``...; langchain's class
    names are taken too), checked before any work."""
    if not values:
        return None
    from ..errors import UsageError
    from ..model.chunks import MESSAGE_CLASSES

    for value in values:
        if value not in MESSAGE_CLASSES:
            hint = {"user": "human", "assistant": "ai", "developer": "system"}.get(value)
            types = sorted(name for name in MESSAGE_CLASSES if name.islower())
            raise UsageError(
                f"{flag} {value!r} is not a message type",
                hint=f"did you mean {hint}?" if hint else "types: " + ", ".join(types),
            )
    return values


@dataclass(frozen=True)
class ReadingOptions:
    """The options of every command that reads chat logs, gathered by ``@reads``."""

    files: list[str] | None = None
    from_: str = "auto"
    on_error: str = "fail"
    output: str | None = None
    group_by: str | None = None
    branch: str = "active"
    include_hidden: bool = False
    include_subagents: bool = False
    verbose: int = 0
    quiet: bool = False
    output_dir: str | None = None
    to_format: str = "auto"
    engine: str = "serial"
    scheduler: str | None = None
    workers: int | None = None

    def inputs(self) -> Any:
        """What to read, as the pipeline takes it (a --from or --branch that cannot be
        read is said here, before any work)."""
        from ..formats.exports import ReadOptions
        from ..formats.registry import reading_dialect
        from ..pipeline.job import Inputs

        reading_dialect(self.from_)
        options = ReadOptions(self.branch, self.include_hidden, self.include_subagents)
        files = tuple(self.files or ["-"])
        return Inputs(files, self.from_, self.on_error, self.group_by, options)


def to_dialect(reading: ReadingOptions, to: str | None, **how: Any) -> Any:
    """The target of a command's ``--to`` (and, for pages, ``--output-dir``)."""
    from ..formats.registry import writing_dialect
    from ..pipeline.targets import ToDialect

    pages = to is not None and writing_dialect(to).pages
    return ToDialect(to, output_dir=reading.output_dir if pages else None, **how)


def _parameter(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
    )


_READING_LAST = [
    _parameter("from_", FromDialect, "auto"),
    _parameter("on_error", OnError, "fail"),
    _parameter("output", Output, None),
    _parameter("branch", Branch, "active"),
    _parameter("include_hidden", IncludeHidden, False),
    _parameter("include_subagents", IncludeSubagents, False),
    _parameter("verbose", Verbose, 0),
    _parameter("quiet", Quiet, False),
]


_RECORDS = [
    _parameter("output_dir", OutputDir, None),
    _parameter("to_format", ToFormat, "auto"),
]
_ENGINE = [
    _parameter("engine", Engine, "serial"),
    _parameter("scheduler", Scheduler, None),
    _parameter("workers", Workers, None),
]


def reads(
    *,
    group_by: bool = False,
    output: bool = True,
    records: bool = False,
    engine: bool = False,
    on_error: bool = True,
):
    """A command that reads chat logs: it takes the files and the reading options
    (``--from``, ``--on-error``, ``-o``, ``--branch``, ...; ``--group-by`` when asked;
    ``--output-dir`` and ``--to-format`` for commands writing records; ``--engine``,
    ``--scheduler`` and ``--workers`` for those that run on Dask), declared once here and
    handed to it as one ``ReadingOptions`` value, its first argument."""

    def wrap(command):
        own = list(inspect.signature(command, eval_str=True).parameters.values())[1:]
        last = [
            p
            for p in _READING_LAST
            if (output or p.name != "output") and (on_error or p.name != "on_error")
        ]
        at = 2 + on_error
        if group_by:
            last.insert(at, _parameter("group_by", GroupBy, None))
        if records:
            last[at:at] = _RECORDS
        if engine:
            last[-2:-2] = _ENGINE
        first = [_parameter("files", EngineInputFiles if engine else InputFiles, None)]
        taken = [*first, *last]
        names = {p.name for p in taken}

        @functools.wraps(command)
        def run(**values: Any) -> None:
            reading = ReadingOptions(**{name: values.pop(name) for name in names})
            command(reading, **values)

        parameters = [
            *first,
            *(p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own),
            *last,
        ]
        run.__signature__ = inspect.Signature(parameters, return_annotation=None)
        run.__annotations__ = {p.name: p.annotation for p in parameters}
        del run.__wrapped__  # typer reads the signature above, not the command's
        return run

    return wrap


def unescape(text: str) -> str:
    """Backslash escapes in separators typed on a command line: \\n \\t \\r \\0 \\\\."""
    if "\\" not in text:
        return text
    out, chars = [], iter(text)
    for char in chars:
        if char != "\\":
            out.append(char)
            continue
        nxt = next(chars, "")
        out.append({"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\"}.get(nxt, "\\" + nxt))
    return "".join(out)
