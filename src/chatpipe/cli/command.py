"""A command declared as its own options and the groups it takes: ``command`` adds the
groups' options (options.py) after the command's own and hands their values to it as one
``ReadingOptions``, its first argument; its body runs under ``runtime.run``."""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, fields
from typing import Any

import typer

from ..errors import UsageError
from .diagnostics import run
from .options import FILES, OPTIONS

GROUPS = {  # the groups of options (options.py), by their ReadingOptions fields
    "reading": ["from_", "on_error", "branch", "include_hidden", "include_subagents"],
    "group_by": ["group_by"],
    "output": ["output"],
    "records": ["output_dir", "to_format"],
    "engine": ["jobs", "engine", "scheduler", "workers"],
    "talk": ["verbose", "quiet"],
    "counting": [
        *("token_counter", "chat_template", "template_name", "var"),
        *("template_max_output", "template_max_loops", "template_timeout"),
    ],
}


@dataclass(frozen=True)
class ReadingOptions:
    """The values of a command's groups of options: what to read, where
    the output goes, the engine, what to say, and how tokens are counted."""

    files: list[str] | None = None
    from_: str = "auto"
    on_error: str = "fail"
    group_by: str | None = None
    branch: str = "active"
    include_hidden: bool = False
    include_subagents: bool = False
    output: str | None = None
    output_dir: str | None = None
    to_format: str = "auto"
    jobs: int = 1
    engine: str = "serial"
    scheduler: str | None = None
    workers: int | None = None
    verbose: int = 0
    quiet: bool = False
    token_counter: str = "approximate"
    chat_template: str | None = None
    template_name: str | None = None
    var: list[str] | None = None
    template_max_output: str = "64M"
    template_max_loops: int = 1_000_000
    template_timeout: float = 10.0

    def inputs(self) -> Any:
        """What to read, as the pipeline takes it: a quoted glob expanded where no file
        has its name (a --from or --branch that cannot be read is said here)."""
        from ..formats.exports import ReadOptions
        from ..formats.registry import reading_dialect
        from ..io.ranges import expand
        from ..pipeline.job import Inputs

        reading_dialect(self.from_)
        options = ReadOptions(self.branch, self.include_hidden, self.include_subagents)
        files = tuple(expand(self.files or ["-"]))
        return Inputs(files, self.from_, self.on_error, self.group_by, options)

    def counter(self, **approximate: Any) -> Any:
        """The counter of --token-counter (``approximate``: its settings), through the
        chat template of --chat-template where one is given."""
        from ..templates.options import templated_counter

        bounds = (self.template_max_output, self.template_max_loops, self.template_timeout)
        return templated_counter(
            self.token_counter, self.chat_template, self.template_name, self.var, bounds,
            **approximate,
        )  # fmt: skip

    def to_dialect(self, to: str | None, **how: Any) -> Any:
        """The target of a command's ``--to`` (and, for pages, ``--output-dir``)."""
        from ..formats.registry import writing_dialect
        from ..pipeline.targets import ToDialect

        pages = to is not None and writing_dialect(to).pages
        return ToDialect(to, output_dir=self.output_dir if pages else None, **how)


def command(*groups: str, leave_out: tuple[str, ...] = ()) -> Any:
    """A command taking the files, the reading and talk options and those of ``groups``
    (group_by, output, records, engine, counting), less ``leave_out``. Its own arguments
    (PATTERN) come before the files, its own options before the groups'."""
    names = [n for g in ("reading", *groups, "talk") for n in GROUPS[g] if n not in leave_out]
    defaults = {field.name: field.default for field in fields(ReadingOptions)}

    def wrap(function: Any) -> Any:
        own = list(inspect.signature(function, eval_str=True).parameters.values())[1:]
        first = [
            p for p in own if isinstance(p.annotation.__metadata__[0], typer.models.ArgumentInfo)
        ]
        parameters = [
            *first,
            _parameter("files", FILES, None),
            *(p for p in own if p not in first),
            *(_parameter(name, OPTIONS[name], defaults[name]) for name in names),
        ]

        @functools.wraps(function)
        def run_command(**values: Any) -> None:
            reading = ReadingOptions(**{n: values.pop(n) for n in ("files", *names)})
            run(lambda: function(reading, **values), reading.quiet)

        parameters = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in parameters]
        run_command.__signature__ = inspect.Signature(parameters, return_annotation=None)
        run_command.__annotations__ = {p.name: p.annotation for p in parameters}
        del run_command.__wrapped__  # typer reads the signature above, not the function's
        return run_command

    return wrap


def _parameter(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
    )


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


def one_of(flag: str, value: str, allowed: tuple[str, ...]) -> str:
    """An option's value, one of ``allowed`` (else a usage error saying which)."""
    if value not in allowed:
        said = ", ".join(allowed[:-1]) + " or " + allowed[-1]
        raise UsageError(f"{flag} must be {said}, got {value!r}")
    return value
