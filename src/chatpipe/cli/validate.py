"""``chatpipe validate``: report every problem, exit 1 if there is any (for CI gates)."""

from __future__ import annotations

import contextlib
import sys
from collections import Counter
from collections.abc import Iterator
from typing import Annotated, Any

import orjson
import typer

from ..errors import UsageError
from ..io.sink import output_sink
from ..ops.count import resolve_counter
from ..ops.validate import RULES
from ..pipeline.executors import parallel_mapper
from ..pipeline.parts import JOB_BLOCKSIZE
from ..pipeline.validate import validate_files, validate_in_parts
from .options import (
    AsJson,
    Branch,
    Engine,
    EngineInputFiles,
    FromDialect,
    IncludeHidden,
    IncludeSubagents,
    Jobs,
    Output,
    Quiet,
    Scheduler,
    Verbose,
    Workers,
)
from .runtime import dask_engine, run, warn
from .trim import TokenCounterOption

HELP = """Check chat logs and fine-tuning files; exit 1 if any problem is found, 0 if clean.

Every problem is one line: FILE:LINE:COL: message N: kind: what (how to fix).
openai-finetune rules are OpenAI's fine-tuning format checks (data_type,
missing_messages_list, message_missing_key, message_unrecognized_key, unrecognized_role,
missing_content, example_missing_assistant_message); structure rules check tool pairing
(orphan_tool_result, unanswered_tool_call, duplicate_tool_result), invalid_tool_arguments,
empty_assistant_message, misplaced_system_message and, with --max-tokens, too_many_tokens.

Examples:

  chatpipe validate train.jsonl

  chatpipe validate --rules structure --max-tokens 16000 --json logs/*.jsonl > problems.jsonl
"""


def validate(
    files: EngineInputFiles = None,
    rules: Annotated[
        str,
        typer.Option("--rules", metavar="all|openai-finetune|structure", help="Which checks."),
    ] = "all",
    max_tokens: Annotated[
        int | None,
        typer.Option(
            "--max-tokens",
            metavar="N",
            help="Flag conversations over N tokens.",
            show_default=False,
        ),
    ] = None,
    token_counter: TokenCounterOption = "approximate",
    as_json: AsJson = False,
    from_: FromDialect = "auto",
    output: Output = None,
    branch: Branch = "active",
    include_hidden: IncludeHidden = False,
    include_subagents: IncludeSubagents = False,
    engine: Engine = "serial",
    scheduler: Scheduler = None,
    workers: Workers = None,
    jobs: Jobs = 1,
    verbose: Verbose = 0,
    quiet: Quiet = False,
) -> None:
    def body() -> None:
        from ..formats.exports import ReadOptions

        if rules not in RULES:
            raise UsageError(f"--rules must be one of {', '.join(RULES)}, got {rules!r}")
        counter = resolve_counter(token_counter) if max_tokens is not None else None
        specs = files or ["-"]
        if verbose:
            warn(f"checking {', '.join(specs)} with the {rules} rules")
        kinds: Counter[str] = Counter()
        checks = {
            "dialect": from_,
            "rules": rules,
            "max_tokens": max_tokens,
            "counter": counter,
            "options": ReadOptions(branch, include_hidden, include_subagents),
        }
        with output_sink(output, specs) as sink, _problems(specs, checks) as problems:
            for problem in problems:
                kinds[problem.kind] += 1
                sink.line(orjson.dumps(problem.to_dict()) if as_json else str(problem).encode())
        _summary(kinds)
        if kinds:
            raise typer.Exit(1)

    @contextlib.contextmanager
    def _problems(specs: list[str], checks: dict) -> Iterator[Iterator[Any]]:
        on_dask = dask_engine(engine, scheduler, workers)
        if on_dask is not None and jobs != 1:
            raise UsageError("--jobs runs processes here; with --engine dask, use --workers N")
        if on_dask is None:
            mapper = None if jobs == 1 or "-" in specs else parallel_mapper(jobs, warn)
            if mapper is None:
                yield validate_files(specs, **checks)
            else:  # parts of about a megabyte, which the workers take as they get free
                yield validate_in_parts(specs, mapper, blocksize=JOB_BLOCKSIZE, **checks)
            return
        with on_dask.client(scheduler, workers) as connected:
            yield on_dask.validate_files(specs, connected, **checks)

    run(body, quiet)


def _summary(kinds: Counter[str]) -> None:
    total = sum(kinds.values())
    if sys.stderr.isatty() and total:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"{total} problem{'s' * (total != 1)}", title_justify="left")
        table.add_column("kind")
        table.add_column("count", justify="right")
        for kind, number in kinds.most_common():
            table.add_row(kind, str(number))
        Console(stderr=True).print(table)
        return
    if total:
        detail = ", ".join(f"{n} {k}" for k, n in kinds.most_common())
        warn(f"{total} problem{'s' * (total != 1)}: {detail}")
    else:
        warn("no problems found")


validate.__doc__ = HELP
