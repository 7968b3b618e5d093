"""``chatpipe dedupe`` and ``chatpipe redact``: conversations cleaned before they are
shared or trained on; what was done counted on stderr and, with ``--report``, in a file."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Annotated, Any, Optional

import orjson
import typer

from ..ops.dedupe import Deduper
from ..ops.redact import Redactor
from ..ops.redact_patterns import KINDS
from ..pipeline.job import Job
from ..pipeline.targets import Lines
from .options import AsJson, ReadingOptions, To, reads, to_dialect
from .runtime import execute, run, warn

DEDUPE_HELP = """Drop exact duplicates, keeping the first in input order.

--by conversation compares whole conversations, --by prompt their prompts (every message
before the last assistant turn), --by messages the messages within each conversation (a
message that repeats an earlier one is dropped). Texts are compared normalised (Unicode
NFC, whitespace runs as one space); ids, timestamps and provider metadata are ignored.
Stderr says how many were dropped; --report FILE writes, as JSON, which kept conversation
(or message) each dropped one repeats.

Examples:

  chatpipe dedupe train.jsonl -o train.dedup.jsonl

  chatpipe dedupe --by prompt --report dupes.json export.json --to openai
"""

REDACT_HELP = (
    """Replace secrets and personal data with [KIND] placeholders.

It looks in message texts, tool-call arguments (each string in them: they stay the same
JSON), tool results, provider fields and the record's own fields (a title, a system
prompt). Secrets: API keys and tokens of OpenAI, Anthropic, AWS, GitHub, GitLab, Google,
Slack, Stripe, Hugging Face, npm, PyPI and SendGrid, JWTs, bearer tokens, private keys,
passwords in URLs. Personal data: e-mail addresses, phone numbers (international, with
+, and North American), IP addresses, payment card numbers (Luhn-checked).

--mask hash writes [KIND:1a2b3c4d] instead, the same for each mention of one value (a
keyed hash: give --mask-key to keep it across runs). Stderr (and --report FILE, JSON)
counts what was replaced per kind; --dry-run lists what would be, with its place, and
writes nothing else.

Kinds: """
    + ", ".join(KINDS)
    + """.

Examples:

  chatpipe redact session.jsonl -o session.clean.jsonl

  chatpipe redact --dry-run conversations.json

  chatpipe redact --mask hash --skip IP_ADDRESS --report redacted.json logs.jsonl
"""
)

Report = Annotated[
    Optional[str],  # noqa: UP045 - typer reads the annotation at run time
    typer.Option(
        "--report", metavar="FILE", help="Write what was done as JSON here.", show_default=False
    ),
]


def _write_report(path: str, inputs: list[str], report: dict[str, Any]) -> None:
    from ..io.sink import output_sink

    with output_sink(path, inputs, "jsonl") as sink:
        sink.raw(orjson.dumps(report, option=orjson.OPT_INDENT_2) + b"\n")


def _many(n: int) -> str:
    return f"{n} conversation{'s' * (n != 1)}"


@reads(records=True)
def dedupe(
    reading: ReadingOptions,
    by: Annotated[
        str,
        typer.Option(
            "--by",
            metavar="conversation|prompt|messages",
            help="What must repeat to be a duplicate.",
        ),
    ] = "conversation",
    report: Report = None,
    to: To = None,
) -> None:
    def body() -> None:
        keep = Deduper(by, report=report is not None)
        target = to_dialect(reading, to)
        execute(reading, Job(reading.inputs(), keep, target))
        dropped = keep.dropped
        if by == "messages":
            n = dropped.message_count
            warn(f"dedupe: dropped {n} repeated message{'s' * (n != 1)} in {_many(keep.position)}")
        else:
            n = dropped.conversations
            said = f"{n} duplicate{'s' * (n != 1)} of {_many(keep.position)}"
            warn(f"dedupe: dropped {said} (by {by})")
        if report is not None:
            made: dict[str, Any] = {"by": by, "conversations": keep.position}
            if by == "messages":
                made["messages_dropped"] = dropped.message_count
                made["repeats"] = [
                    {
                        "conversation": name,
                        "dropped": [{"message": i, "repeats": j} for i, j in pairs],
                    }
                    for name, pairs in dropped.messages
                ]
            else:
                made["dropped"] = dropped.conversations
                made["duplicates"] = [{"dropped": a, "duplicate_of": b} for a, b in dropped.pairs]
            _write_report(report, list(reading.inputs().files), made)

    run(body, reading.quiet)


@reads(records=True)
def redact(
    reading: ReadingOptions,
    mask: Annotated[
        str, typer.Option("--mask", metavar="kind|hash", help="[KIND], or [KIND:hash] per value.")
    ] = "kind",
    mask_key: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--mask-key",
            metavar="TEXT",
            help="--mask hash: the hash's key (default: a new one each run).",
            show_default=False,
        ),
    ] = None,
    skip: Annotated[
        Optional[list[str]],  # noqa: UP045
        typer.Option(
            "--skip",
            metavar="KIND",
            help="Leave this kind as it is (repeatable).",
            show_default=False,
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="List what would be replaced, and where; change nothing."),
    ] = False,
    as_json: AsJson = False,
    report: Report = None,
    to: To = None,
) -> None:
    def body() -> None:
        redactor = Redactor(skip=skip or (), mask=mask, key=mask_key)
        if dry_run:
            number = iter(range(1 << 62))

            def lines(conversation: Any) -> Iterator[bytes]:
                for hit in redactor.hits(conversation, next(number)):
                    redactor.counts[hit.kind] += 1
                    if as_json:
                        yield orjson.dumps(dataclasses.asdict(hit))
                    else:
                        text = f"{hit.conversation}: {hit.place}: {hit.kind}: {hit.value}"
                        yield text.encode("utf-8", "surrogateescape")

            execute(reading, Job(reading.inputs(), None, Lines(lines, many=True)))
        else:
            execute(reading, Job(reading.inputs(), redactor, to_dialect(reading, to)))
        counts = redactor.counts
        total = sum(counts.values())
        verb = "would replace" if dry_run else "replaced"
        if total:
            kinds = ", ".join(f"{kind} {counts[kind]}" for kind in KINDS if counts[kind])
            warn(f"redact: {verb} {total} value{'s' * (total != 1)}: {kinds}")
        else:
            warn("redact: found nothing to replace")
        if report is not None:
            made = {
                "dry_run": dry_run,
                "replaced": total,
                "by_kind": {k: counts[k] for k in KINDS if counts[k]},
            }
            _write_report(report, list(reading.inputs().files), made)

    run(body, reading.quiet)


dedupe.__doc__ = DEDUPE_HELP
redact.__doc__ = REDACT_HELP
