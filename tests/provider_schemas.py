"""Is a record chatpipe wrote one that the provider's API accepts? Each validator here takes
one written record (a dict) and returns its problems as ``(path in the document, message)``
pairs, none when the provider's own definition accepts it (issue #48).

The definitions are the providers', at the versions pinned in pyproject.toml's ``test``
extra (openai 3.57.0, anthropic 2.14.0, google-genai 3.6.1, botocore 1.43.11, ollama
0.6.3), never chatpipe's rules: the validators are chatpipe's ``validate --as`` SDK checks
(src/chatpipe/formats/sdk_checks.py says what each checks, strict_types.py how strictness
is made), imported here.

A ``--to openai`` row is checked as a Chat Completions request (less the model its sender
adds) and as a fine-tuning row, both; a row whose assistant messages carry ``weight`` (kept
from a fine-tuning file) is a fine-tuning row only, one holding developer messages (which
fine-tuning rows do not have) a Chat Completions request only (docs/formats.md).

Run as a script, ``python tests/provider_schemas.py [FIXTURE...]`` converts the fixtures
(all of them by default) to every API target with ``chatpipe convert --on-error skip`` in
this process and prints, per target, the records validated and accepted and the most
common problems.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # (run as a script: this tree's chatpipe)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from chatpipe.formats.bedrock_check import _converse, bedrock_converse
from chatpipe.formats.sdk_checks import (
    anthropic,
    anthropic_batch,
    gemini,
    gemini_body,
    ollama_chat,
    openai_batch,
    openai_chat,
    openai_finetune,
    openai_responses,
)
from chatpipe.formats.strict_types import Problem, strict_schema

Validator = Callable[[dict], "list[Problem] | None"]
__all__ = [
    "_converse",
    "anthropic",
    "anthropic_batch",
    "bedrock_converse",
    "gemini",
    "gemini_body",
    "ollama_chat",
    "openai_batch",
    "openai_chat",
    "openai_finetune",
    "openai_responses",
    "strict_schema",
]


# --- chatpipe's targets -------------------------------------------------------------------


def _messages_of(record: dict) -> list:
    messages = record.get("messages") if "messages" in record else [record]
    return [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []


def openai_row_as_chat(record: dict) -> list[Problem] | None:
    """A ``--to openai`` row (or a line of a log) as a Chat Completions request; None for
    a row that is a fine-tuning row only: one whose assistant messages carry ``weight``,
    which chatpipe keeps from a fine-tuning file (docs/formats.md)."""
    if any("weight" in m and m.get("role") == "assistant" for m in _messages_of(record)):
        return None
    return openai_chat(record)


def openai_row_as_finetune(record: dict) -> list[Problem] | None:
    """A ``--to openai`` row as a fine-tuning row; None for a row that is a Chat
    Completions request only: one holding developer messages, which fine-tuning rows do
    not have and chatpipe keeps as they came."""
    if any(m.get("role") == "developer" for m in _messages_of(record)):
        return None
    return openai_finetune(record)


# chatpipe convert --to TARGET [settings]: the checks each record of it goes through
Target = tuple[str, tuple[str, ...], tuple[tuple[str, Validator], ...]]
TARGETS: tuple[Target, ...] = (
    (
        "openai",
        (),
        (("openai-chat", openai_row_as_chat), ("openai-finetune", openai_row_as_finetune)),
    ),
    ("openai-responses", (), (("openai-responses", openai_responses),)),
    ("openai-batch", ("--model", "gpt-4.1-mini"), (("openai-batch", openai_batch),)),
    (
        "openai-batch",
        ("--model", "gpt-4.1-mini", "--endpoint", "responses"),
        (("openai-batch-responses", openai_batch),),
    ),
    ("anthropic", (), (("anthropic", anthropic),)),
    (
        "anthropic-batch",
        ("--model", "claude-sonnet-4-5", "--max-tokens", "1024"),
        (("anthropic-batch", anthropic_batch),),
    ),
    ("gemini", (), (("gemini", gemini),)),
    # the writers the wave-four issue adds
    ("bedrock-converse", (), (("bedrock-converse", bedrock_converse),)),
    ("ollama", (), (("ollama-chat", ollama_chat),)),
)

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
# not chat logs: what the tests compare with, chat templates
NOT_LOGS = ("expected", "chat_templates")


def fixture_files() -> list[Path]:
    return sorted(
        p
        for p in FIXTURES.rglob("*")
        if p.is_file()
        and p.suffix != ".md"
        and not set(p.relative_to(FIXTURES).parts[:-1]) & set(NOT_LOGS)
    )


def targets() -> list[Target]:
    """The TARGETS chatpipe can write now."""
    from chatpipe.formats.registry import writable

    names = set(writable())
    return [t for t in TARGETS if t[0] in names]


@cache
def _command() -> Any:
    import typer.main

    from chatpipe.cli import app

    return typer.main.get_command(app)


def convert(path: Path, target: str, settings: tuple[str, ...] = ()) -> tuple[int, list, str]:
    """``chatpipe convert PATH --to TARGET --on-error skip``, in this process: its exit
    status, the records it wrote, what it said on stderr."""
    from unittest import mock

    import typer.testing

    argv = ["convert", str(path), "--to", target, *settings, "--on-error", "skip"]
    # typer's runner builds the click command anew each time (a quarter of a second per
    # conversion here): it is built once
    with mock.patch.object(typer.testing, "_get_command", lambda app: _command()):
        result = typer.testing.CliRunner().invoke(None, argv)  # type: ignore[arg-type]
    if result.exit_code != 0:
        return result.exit_code, [], result.stderr
    return 0, [json.loads(line) for line in result.stdout.splitlines() if line.strip()], ""


def measure(
    paths: Iterable[Path], to: Iterable[Target] | None = None
) -> tuple[list[tuple], dict[str, str]]:
    """Every record of every fixture converted to every API target (or those of ``to``),
    validated: rows of (fixture, check, record number, problems), and the fixtures chatpipe
    could not read (with what it said)."""
    rows: list[tuple] = []
    unread: dict[str, str] = {}
    chosen = targets() if to is None else list(to)
    for path in paths:
        name = str(path.relative_to(FIXTURES)) if path.is_relative_to(FIXTURES) else str(path)
        for target, settings, checks in chosen:
            status, records, said = convert(path, target, settings)
            if status != 0:
                unread.setdefault(name, said.strip().splitlines()[-1] if said.strip() else "")
                continue
            for number, record in enumerate(records, 1):
                for check, validate in checks:
                    problems = validate(record)
                    if problems is not None:  # (None: a record this check is not for)
                        rows.append((name, check, number, problems))
    return rows, unread


def kind(path: str, message: str) -> str:
    """A problem without its numbers and quoted values: what kind it is."""
    pattern = re.sub(r"\[\d+\]", "[*]", path)
    return f"{pattern}: {re.sub(r' [(]got .*[)]$', '', message)}"


def report(rows: list[tuple], unread: dict[str, str], top: int = 15) -> str:
    lines = []
    checks = list(dict.fromkeys(row[1] for row in rows))
    width = max((len(c) for c in checks), default=6)
    lines.append(f"{'target':<{width}}  validated  accepted")
    for check in checks:
        mine = [row for row in rows if row[1] == check]
        accepted = sum(1 for row in mine if not row[3])
        lines.append(f"{check:<{width}}  {len(mine):>9}  {accepted:>8}")
    total = len(rows)
    lines.append(f"{'all':<{width}}  {total:>9}  {sum(1 for r in rows if not r[3]):>8}")
    for check in checks:
        kinds = Counter(kind(p, m) for row in rows if row[1] == check for p, m in row[3])
        records = Counter(
            k for row in rows if row[1] == check for k in {kind(p, m) for p, m in row[3]}
        )
        if not kinds:
            continue
        lines.append("")
        lines.append(f"{check}: top problem kinds (problems, records with it)")
        for found, count in kinds.most_common(top):
            lines.append(f"  {count:>5} {records[found]:>5}  {found}")
    if unread:
        lines.append("")
        lines.append("fixtures chatpipe does not read (exit status not 0):")
        for name, said in sorted(unread.items()):
            lines.append(f"  {name}: {said}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    paths = [Path(a).resolve() for a in argv] or fixture_files()
    rows, unread = measure(paths)
    print(report(rows, unread))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
