"""The ``chatpipe`` command line: a Typer app of thin commands over the core."""

from __future__ import annotations

import os
import sys

import typer

from .. import __version__
from ..limits import LIMITS
from .buffer import buffer
from .convert import convert
from .filter import filter_, merge
from .openai import openai
from .show import show
from .stats import stats
from .trim import count, trim
from .validate import validate

app = typer.Typer(
    name="chatpipe",
    help="Convert, trim and render LLM chat transcripts in shell pipelines.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.command("convert")(convert)
app.command("buffer")(buffer)
app.command("openai")(openai)
app.command("trim")(trim)
app.command("count")(count)
app.command("filter")(filter_)
app.command("merge")(merge)
app.command("validate")(validate)
app.command("stats")(stats)
app.command("show")(show)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"chatpipe {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    max_record_bytes: int = typer.Option(
        LIMITS.record_bytes,
        "--max-record-bytes",
        metavar="N",
        help="Refuse JSONL lines and stream events larger than this.",
    ),
    max_depth: int = typer.Option(
        LIMITS.depth, "--max-depth", metavar="N", help="Refuse records nested deeper than this."
    ),
    max_yaml_values: int = typer.Option(
        LIMITS.yaml_values,
        "--max-yaml-values",
        metavar="N",
        help="Refuse YAML documents whose aliases expand past this many values.",
    ),
) -> None:
    """Convert, trim and render LLM chat transcripts in shell pipelines.

    Example:

      chatpipe trim --max-tokens 4000 session.jsonl | chatpipe buffer --format xml
    """
    LIMITS.record_bytes = max_record_bytes
    LIMITS.depth = max_depth
    LIMITS.yaml_values = max_yaml_values
    # deep records need a deeper Python stack (repr, json and orjson recurse)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), max_depth * 4 + 1000))


def main() -> None:
    """Console entry point: no traceback for any input, quiet on a closed pipe."""
    try:
        app(prog_name="chatpipe")
    except KeyboardInterrupt:
        sys.stderr.write("chatpipe: interrupted\n")
        sys.exit(130)
    except BrokenPipeError:
        # the reader went away (`| head`): stop quietly, and keep Python's exit flush quiet
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)
