"""``chatpipe validate``: report every problem, exit 1 if there is any (for CI gates)."""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any

import typer

from ..errors import UsageError
from ..formats.registry import api_checks
from ..ops.validate import RULES
from ..pipeline.job import Job
from ..pipeline.validate_files import Problems
from .command import ReadingOptions, command
from .diagnostics import warn
from .options import AsJson, choices, opt
from .runtime import execute

CHECKS = api_checks()  # validate --as: each API's checks, as the dialects declare them


@command("output", "engine", "counting", leave_out=("on_error",))
def validate(
    o: ReadingOptions,
    rules: opt(
        "--rules",
        "Which checks.",
        metavar="all|openai-finetune|structure",
        autocompletion=choices(*RULES),
    ) = "all",
    max_tokens: opt(
        "--max-tokens", "Flag conversations over N tokens.", int | None, "N", min=1
    ) = None,
    as_: opt(
        "--as",
        "Check each record as a request of this API, instead: "
        + ", ".join(CHECKS)
        + " (chatpipe's rules, and the provider SDK's types where installed).",
        str | None,
        "API",
        autocompletion=choices(*CHECKS),
    ) = None,
    sdk: opt(
        "--sdk/--no-sdk",
        "--as: also run the provider SDK's own request types, where installed "
        "(pip install 'chatpipe[schemas]').",
        bool,
    ) = True,
    as_json: AsJson = False,
) -> None:
    """Check chat logs and fine-tuning files; exit 1 if any problem is found, 0 if clean.

    Every problem is one line: FILE:LINE:COL: message N: kind: what (how to fix).
    openai-finetune rules are OpenAI's fine-tuning format checks (data_type,
    missing_messages_list, message_missing_key, message_unrecognized_key, unrecognized_role,
    missing_content, example_missing_assistant_message); structure rules check tool pairing
    (orphan_tool_result, unanswered_tool_call, duplicate_tool_result), invalid_tool_arguments,
    empty_assistant_message, misplaced_system_message and, with --max-tokens, too_many_tokens.
    A reasoning part in OpenAI chat messages is a reasoning_part (Chat Completions has none).

    --as API checks each record as that API's request instead (what convert --to writes
    for it): unknown fields, roles and parts, reasoning parts where the API has none, what
    it asks for. chatpipe's own rules always run; the provider SDK's request types run too
    where the SDK is installed (sdk_schema problems); stderr says which ran.

    Examples:

    \b
      chatpipe validate fixtures/validate/finetune_problems.jsonl
      chatpipe validate --rules structure --max-tokens 16000 --json \\
          fixtures/validate/*.jsonl > problems.jsonl
      chatpipe validate --as anthropic \\
          fixtures/openai_chat__cookbook_toy_chat_fine_tuning.jsonl
    """
    if rules not in RULES:
        raise UsageError(f"--rules must be one of {', '.join(RULES)}, got {rules!r}")
    requests = None if as_ is None else _request_checks(as_, sdk)
    if o.chat_template is not None and max_tokens is None:
        raise UsageError("--chat-template counts tokens for --max-tokens")
    counter = o.counter() if max_tokens is not None else None
    if o.verbose:
        warn(f"checking {', '.join(o.files or ['-'])} with the {rules} rules")
    problems = Problems(rules, max_tokens, counter, as_json, requests)
    execute(o, Job(o.inputs(), None, problems))
    _summary(problems.kinds)
    if problems.kinds:
        raise typer.Exit(1)


def _request_checks(name: str, sdk: bool) -> tuple[Any, Any]:
    """validate --as NAME: chatpipe's rules of that API's requests and, where installed,
    its SDK's check; which ran is said."""
    from ..formats.registry import get_dialect
    from ..formats.sdk_checks import sdk_check

    if name not in CHECKS:
        raise UsageError(f"--as must be one of {', '.join(CHECKS)}, got {name!r}")
    rules = get_dialect(CHECKS[name]).request_rules(name)
    found = sdk_check(name) if sdk else None
    if found is not None:
        warn(f"--as {name}: chatpipe's rules and the {found[1]} SDK's request types")
    elif sdk:
        warn(
            f"--as {name}: chatpipe's rules (pip install 'chatpipe[schemas]' adds the "
            "provider SDK's request types)"
        )
    else:
        warn(f"--as {name}: chatpipe's rules")
    return rules, found


def _summary(kinds: Counter[str]) -> None:
    total = sum(kinds.values())
    if sys.stderr.isatty() and total:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"{total} problem{'s' * (total != 1)}", title_justify="left")
        table.add_column("kind")
        table.add_column("count", justify="right")
        for kind, number in kinds.most_common():
            table.add_row(kind, f"{number:,}")
        Console(stderr=True).print(table)
        return
    if total:
        detail = ", ".join(f"{n} {k}" for k, n in kinds.most_common())
        warn(f"{total} problem{'s' * (total != 1)}: {detail}")
    else:
        warn("no problems found")
