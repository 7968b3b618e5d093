"""``chatpipe dedupe`` and ``chatpipe redact``: conversations cleaned before they are
shared or trained on; what was done counted on stderr and, with ``--report``, in a file."""

from __future__ import annotations

from typing import Any

import orjson

from ..io.outputs import Output
from ..ops.dedupe import Deduper
from ..ops.redact import Redactor
from ..ops.redact_patterns import KINDS
from ..pipeline.job import Job
from ..pipeline.targets import Lines
from .command import ReadingOptions, command
from .diagnostics import warn
from .options import AsJson, Report, To, choices, opt
from .runtime import check, execute


def _run(o: ReadingOptions, job: Job, report: str | None, done: Any) -> None:
    """The job run, then its summary said and, with ``report``, ``done.report_data()``
    written there. Every output is checked and the report's file made before the run (a
    path that cannot be written is said before ``-o`` is in place, not after), and it is
    moved into place once the run has ended well."""
    check(o, job, [Output("--report", report)] if report is not None else [])
    if report is None:
        execute(o, job)
        warn(done.summary())
        return
    from ..io.sink import output_sink

    with output_sink(report, list(job.inputs.files), "jsonl") as sink:
        execute(o, job)
        warn(done.summary())
        sink.raw(orjson.dumps(done.report_data(), option=orjson.OPT_INDENT_2) + b"\n")


@command("output", "records", "engine")
def dedupe(
    o: ReadingOptions,
    by: opt(
        "--by",
        "What must repeat to be a duplicate.",
        metavar="conversation|prompt|messages",
        autocompletion=choices("conversation", "prompt", "messages"),
    ) = "conversation",
    report: Report = None,
    to: To = None,
) -> None:
    """Drop exact duplicates, keeping the first in input order.

    --by conversation compares whole conversations, --by prompt their prompts (every message
    before the last assistant turn), --by messages the messages within each conversation (a
    message that repeats an earlier one is dropped). Texts are compared normalised (Unicode
    NFC, whitespace runs as one space); ids, timestamps and provider metadata are ignored.
    Stderr says how many were dropped; --report FILE writes, as JSON, which kept conversation
    (or message) each dropped one repeats.

    Examples:

    \b
      chatpipe dedupe \\
          fixtures/sharegpt__fastchat_dummy_conversation_first20.json \\
          -o train.dedup.jsonl
      chatpipe dedupe --by prompt --report dupes.json \\
          fixtures/sharegpt__fastchat_dummy_conversation_first20.json \\
          --to openai
    """
    keep = Deduper(by, report=report is not None)
    _run(o, Job(o.inputs(), keep, o.to_dialect(to)), report, keep)


@command("output", "records", "engine")
def redact(
    o: ReadingOptions,
    mask: opt(
        "--mask",
        "[KIND], or [KIND:hash] per value.",
        metavar="kind|hash",
        autocompletion=choices("kind", "hash"),
    ) = "kind",
    mask_key: opt(
        "--mask-key",
        "--mask hash: the hash's key (default: a new one each run).",
        str | None,
        "TEXT",
    ) = None,
    skip: opt(
        "--skip",
        "Leave this kind as it is (repeatable).",
        list[str] | None,
        "KIND",
        autocompletion=choices(*KINDS),
    ) = None,
    dry_run: opt(
        "--dry-run", "List what would be replaced, and where; change nothing.", bool
    ) = False,
    as_json: AsJson = False,
    report: Report = None,
    to: To = None,
) -> None:
    # (the help, with the kinds listed, is set below)
    redactor = Redactor(skip=skip or (), mask=mask, key=mask_key, dry_run=dry_run)
    if dry_run:
        lines = Lines(redactor.hit_lines(as_json), many=True, one_process=True)
        inputs = o.inputs()
        inputs.options.places = True  # (a message log's hits at their lines)
        job = Job(inputs, None, lines)
    else:
        job = Job(o.inputs(), redactor, o.to_dialect(to))
    _run(o, job, report, redactor)


redact.__doc__ = f"""Replace secrets and personal data with [KIND] placeholders.

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

Kinds: {", ".join(KINDS)}.

Examples:

\b
  chatpipe redact \\
      fixtures/sharegpt__llamafactory_glaive_toolcall_first12.json \\
      -o clean.json
  chatpipe redact --dry-run \\
      fixtures/sharegpt__llamafactory_glaive_toolcall_first12.json
  chatpipe redact --mask hash --skip IP_ADDRESS --report redacted.json \\
      fixtures/sharegpt__llamafactory_glaive_toolcall_first12.json
"""
