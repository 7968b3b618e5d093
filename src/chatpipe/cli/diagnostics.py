"""What a run says on stderr, a line each, prefixed ``chatpipe:``: notes and warnings
(silenced by -q) and errors (always said); a command's body run, the core's errors turned
into one such line and an exit code."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import typer

from ..errors import ChatpipeError, interrupted_code
from ..io.sink import quiet_stdout

PROG = "chatpipe"
quiet = False  # -q: no warnings or notes on stderr, only errors


def one_line(text: str) -> str:
    """A message on one line: langchain-core's messages span several (a block shown
    after a blank line), and each stderr line must stand alone for grep and logs. What
    it quotes from the data (a key, a template's own message) has its control characters
    made visible: nothing a line prints is an escape the terminal acts on."""
    if "\n" in text or "\r" in text:
        text = " ".join(part.strip() for part in text.splitlines() if part.strip())
    from ..render.markup import terminal_safe  # (loaded when a line is printed)

    return terminal_safe(text)


def warn(text: str) -> None:
    """A note or warning for people on stderr (silenced by -q)."""
    if not quiet:
        sys.stderr.write(f"{PROG}: {one_line(text)}\n")


def error(text: str) -> None:
    """An error line on stderr: always shown."""
    sys.stderr.write(f"{PROG}: error: {one_line(text)}\n")


def run(body: Callable[[], Any], quiet_flag: bool = False) -> None:
    """Run a command body; turn core errors into one stderr line and an exit code."""
    global quiet
    quiet = quiet_flag
    try:
        body()
    except ChatpipeError as exc:
        error(str(exc))
        raise typer.Exit(exc.exit_code) from None
    except KeyboardInterrupt as exc:
        said, code = interrupted_code(exc)
        sys.stderr.write(f"{PROG}: {said}\n")
        raise typer.Exit(code) from None
    except BrokenPipeError:
        # the reader went away (`| head`): stop at once, quietly, exit 0 (as ripgrep);
        # handled here, before click's own handling turns it into exit 1
        quiet_stdout()
        raise typer.Exit(0) from None
    except typer.Exit:
        raise
    except RecursionError:
        error("a record nests too deeply to process (see chatpipe --max-depth)")
        raise typer.Exit(1) from None
    except Exception as exc:
        # a bug of ours, not bad input: still one line, and the details on request
        if os.environ.get("CHATPIPE_DEBUG"):
            raise
        error(
            f"internal error: {type(exc).__name__}: {exc} "
            "(please report it; CHATPIPE_DEBUG=1 shows the traceback)"
        )
        raise typer.Exit(1) from None


def usage_error_line(exc: Any) -> str:
    """click's usage error (a missing or unknown option, a bad value) as chatpipe's one
    line: what is wrong, and what to do, where click printed its usage block, a hint and
    "Error: ..." on four lines."""
    kinds = {kind.__name__ for kind in type(exc).__mro__}  # (typer's click, or click)
    ctx = exc.ctx
    if ctx is not None:
        command = ctx.command_path
    else:  # (an option's missing value is found before a context is made)
        from .argv import invoked_command

        named = invoked_command(sys.argv[1:])
        command = f"{PROG} {named}" if named else PROG
    message = exc.format_message().strip().rstrip(".")
    param = getattr(exc, "param", None)
    fix = f"'{command} -h' says what it takes"
    if "MissingParameter" in kinds and param is not None and param.param_type_name == "option":
        metavar = param.metavar or param.make_metavar(ctx)
        message = f"{command.split(' ', 1)[-1]} needs {param.opts[0]} {metavar}"
    elif "NoSuchOption" in kinds:
        message = f"no such option: {exc.option_name}"
        fix = f"'{command} -h' lists its options"
        if exc.possibilities:
            fix = f"did you mean {' or '.join(sorted(exc.possibilities))}? {fix}"
    elif ctx is not None and ctx.parent is None:  # the root's: a command unknown, or none
        fix = f"'{PROG} -h' lists the commands"
    message = message[:1].lower() + message[1:]
    return f"{PROG}: error: {one_line(message)} ({fix})"


def show_usage_error(exc: Any, file: Any = None) -> None:
    """``UsageError.show``, chatpipe's way: one line on stderr."""
    (file or sys.stderr).write(usage_error_line(exc) + "\n")
