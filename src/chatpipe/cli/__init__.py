"""The ``chatpipe`` command line: a Typer app of thin commands over the core."""

from __future__ import annotations

import contextlib
import os
import sys
from importlib import import_module

import typer

from .. import __version__
from ..errors import interrupted_code
from ..io.limits import LIMITS, MAX_DEPTH, MAX_RECORD_BYTES, MAX_YAML_VALUES
from ..io.sink import write_failed

# command name -> (module, function); a run imports and builds only the command it names
COMMANDS = {
    "convert": ("convert", "convert"),
    "buffer": ("buffer", "buffer"),
    "template": ("template", "template"),
    "tokenize": ("tokenize", "tokenize"),
    "openai": ("openai", "openai"),
    "trim": ("trim", "trim"),
    "count": ("count", "count"),
    "filter": ("filter", "filter_"),
    "merge": ("filter", "merge"),
    "validate": ("validate", "validate"),
    "stats": ("stats", "stats"),
    "show": ("show", "show"),
    "select": ("select", "select"),
    "grep": ("grep", "grep"),
    "head": ("sample", "head"),
    "sample": ("sample", "sample"),
    "split": ("sample", "split"),
    "dedupe": ("clean", "dedupe"),
    "redact": ("clean", "redact"),
}
# root options that take a value, so the value is not mistaken for a command name
_ROOT_VALUED = ("--max-record-bytes", "--max-depth", "--max-yaml-values")

_app = typer.Typer(
    name="chatpipe",
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
    """Add the named commands to the app (building a Typer command imports its module)."""
    done = {info.name for info in _app.registered_commands}
    for name in names:
        if name not in done:
            module, function = COMMANDS[name]
            command = getattr(import_module(f".{module}", __name__), function)
            _app.command(name)(command)


def __getattr__(name: str) -> typer.Typer:
    """``chatpipe.cli.app``: the app with every command, for tests and embedding."""
    if name == "app":
        register()
        return _app
    raise AttributeError(name)


def invoked_command(argv: list[str]) -> str | None:
    """The command an argument list names, past the root options; None for help and typos."""
    args = iter(argv)
    for arg in args:
        if arg in _ROOT_VALUED:
            next(args, None)
        elif not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def _is_talk_flag(arg: str) -> bool:
    """-v, -vv..., --verbose, -q, --quiet: options of every command."""
    return arg in ("--verbose", "-q", "--quiet") or (
        len(arg) > 1 and arg[0] == "-" and set(arg[1:]) == {"v"}
    )


def arrange(argv: list[str]) -> list[str]:
    """The command line with each option where click takes it: the root's limits
    (``--max-depth``...) may also come after the command, and ``-v``/``-q`` before it."""
    args = list(argv)
    at = None
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
        elif arg in _ROOT_VALUED:
            skip = True
        elif not arg.startswith("-"):
            at = i if arg in COMMANDS else None
            break
    if at is None:
        return args
    before, command, after = args[:at], args[at], args[at + 1 :]
    talk = [arg for arg in before if _is_talk_flag(arg)]
    before = [arg for arg in before if not _is_talk_flag(arg)]
    roots: list[str] = []
    rest: list[str] = []
    tokens = iter(after)
    for arg in tokens:
        if arg == "--":  # what follows is files, whatever it looks like
            rest.append(arg)
            rest.extend(tokens)
            break
        if arg in _ROOT_VALUED:
            roots.append(arg)
            value = next(tokens, None)
            if value is not None:
                roots.append(value)
        elif arg.startswith(tuple(f"{name}=" for name in _ROOT_VALUED)):
            roots.append(arg)
        else:
            rest.append(arg)
    return [*before, *roots, command, *talk, *rest]


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
        help="Refuse JSONL lines and stream events larger than this (at most 1 GiB).",
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
    # completion scripts and help list every command; a run builds only its own
    completing = any(key.startswith("_CHATPIPE_COMPLETE") for key in os.environ)
    command = None if completing else invoked_command(sys.argv[1:])
    register([command] if command else tuple(COMMANDS))
    try:
        if completing:
            _app(prog_name="chatpipe")
        else:
            _app(args=arrange(sys.argv[1:]), prog_name="chatpipe")
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
