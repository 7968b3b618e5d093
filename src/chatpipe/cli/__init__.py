"""The ``chatpipe`` command line: a Typer app of thin commands over the core."""

from __future__ import annotations

import contextlib
import inspect
import os
import sys
from importlib import import_module
from typing import Any

import typer
from typer.core import TyperGroup

from .. import __version__
from ..errors import interrupted_code
from ..io.limits import LIMITS, MAX_DEPTH, MAX_RECORD_BYTES, MAX_YAML_VALUES
from ..io.sink import write_failed
from .argv import COMMANDS, ROOT_VALUED, arrange, asks_version, invoked_command

__all__ = ["COMMANDS", "arrange", "execute", "invoked_command", "main", "register"]


class _Root(TyperGroup):
    """The root's help: the commands first, each with its whole summary, then the limits
    under their own heading, then the other options."""

    def format_options(self, ctx: Any, formatter: Any) -> None:
        self.format_commands(ctx, formatter)
        rows = [(p.opts[0], p.get_help_record(ctx)) for p in self.get_params(ctx)]
        for title, limits in (("Limits", True), ("Options", False)):
            with formatter.section(title):
                formatter.write_dl(
                    [row for flag, row in rows if row and (flag in ROOT_VALUED) == limits]
                )


# a usage error (a missing or unknown option, a bad value) is one line, as every error;
# on the click typer runs on (its own copy since typer 0.2x, else click)
_click = import_module(TyperGroup.__mro__[1].__module__.rsplit(".", 1)[0])


def _show_usage_error(exc: Any, file: Any = None) -> None:
    from .diagnostics import show_usage_error  # (loaded when a usage error is shown)

    show_usage_error(exc, file)


_click.exceptions.UsageError.show = _show_usage_error

_app = typer.Typer(
    name="chatpipe",
    cls=_Root,
    help="Convert, trim and render LLM chat transcripts in shell pipelines.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    # click's plain help and errors: option names never cut at 80 columns, a usage
    # error ends with one "Error: ..." line, and help needs no rich import
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def register(names: list[str] | tuple[str, ...] = tuple(COMMANDS)) -> None:
    """Add the named commands to the app (building a Typer command imports its module),
    each summed up in the root's help by the first paragraph of its own."""
    done = {info.name for info in _app.registered_commands}
    for name in names:
        if name not in done:
            module, function = COMMANDS[name]
            command = getattr(import_module(f".{module}", __name__), function)
            summary = " ".join(inspect.cleandoc(command.__doc__).split("\n\n")[0].split())
            _app.command(name, short_help=summary)(command)


def __getattr__(name: str) -> typer.Typer:
    """``chatpipe.cli.app``: the app with every command, for tests and embedding."""
    if name == "app":
        register()
        return _app
    raise AttributeError(name)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"chatpipe {__version__}")
        raise typer.Exit()


@_app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    max_record_bytes: int = typer.Option(
        LIMITS.record_bytes,
        "--max-record-bytes",
        metavar="N",
        min=1,
        max=MAX_RECORD_BYTES,
        help=(
            "Refuse a record larger than this: a JSONL line, a stream event, an element of "
            "a JSON array, a JSON document that is no array, a run of blank space (at most "
            "1 GiB)."
        ),
    ),
    max_depth: int = typer.Option(
        LIMITS.depth,
        "--max-depth",
        metavar="N",
        min=1,
        max=MAX_DEPTH,
        help=f"Refuse records nested deeper than this (at most {MAX_DEPTH}).",
    ),
    max_yaml_values: int = typer.Option(
        LIMITS.yaml_values,
        "--max-yaml-values",
        metavar="N",
        min=1,
        max=MAX_YAML_VALUES,
        help="Refuse YAML documents whose aliases expand past this many values.",
    ),
) -> None:
    """Convert, trim and render LLM chat transcripts in shell pipelines.

    Example:

    \b
      chatpipe trim --max-tokens 4000 session.jsonl | chatpipe buffer --format xml
    """
    LIMITS.record_bytes = max_record_bytes
    LIMITS.depth = max_depth
    LIMITS.yaml_values = max_yaml_values
    # deep records need a deeper Python stack (repr, json and orjson recurse)
    needed = max_depth * 4 + 1000
    if needed > sys.getrecursionlimit():
        sys.setrecursionlimit(needed)


def main() -> None:
    """Console entry point: no traceback for any input, quiet on a closed pipe.

    The process ends once its output is flushed, without Python's teardown of every
    module and object (a fifth of a short run's time; no file of ours is left open)."""
    try:
        code = execute()
    except KeyboardInterrupt:  # before the command ran (building it), or after
        sys.stderr.write("chatpipe: interrupted\n")
        code = 130
    except Exception as exc:  # a bug of ours outside a command body: still one line
        if os.environ.get("CHATPIPE_DEBUG"):
            raise
        sys.stderr.write(
            f"chatpipe: error: internal error: {type(exc).__name__}: {exc} "
            "(please report it; CHATPIPE_DEBUG=1 shows the traceback)\n"
        )
        code = 1
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass  # the reader went away before the last block: stop quietly, as below
    except OSError as exc:  # a full disk, say: said, not a traceback
        sys.stderr.write(f"chatpipe: error: {write_failed(exc)}\n")
        code = code or 1
    with contextlib.suppress(OSError):
        sys.stderr.flush()
    cluster = sys.modules.get("chatpipe.pipeline.dask_mapper")
    if cluster is not None:  # (a Dask run's fork server: the teardown skipped below)
        cluster.release()
    os._exit(code)


def execute() -> int:
    """Run the command line in ``sys.argv``; its exit code, for ``main`` or a caller that
    goes on running."""
    # completion scripts and help list every command; a run builds only its own, and
    # --version none
    argv = sys.argv[1:]
    completing = any(key.startswith("_CHATPIPE_COMPLETE") for key in os.environ)
    command = None if completing else invoked_command(argv)
    if command or not asks_version(argv) or completing:
        register([command] if command else tuple(COMMANDS))
    try:
        if completing:
            _app(prog_name="chatpipe")
        else:
            _app(args=arrange(argv), prog_name="chatpipe")
    except SystemExit as done:
        if done.code is None or isinstance(done.code, int):
            return done.code or 0
        sys.stderr.write(f"{done.code}\n")
        return 1
    except KeyboardInterrupt as exc:
        said, code = interrupted_code(exc)
        sys.stderr.write(f"chatpipe: {said}\n")
        return code
    except BrokenPipeError:
        # the reader went away (`| head`): stop quietly, and keep the last flush quiet
        from ..io.sink import quiet_stdout

        quiet_stdout()
        return 0
    return 0
