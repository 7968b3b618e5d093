"""``chatpipe head``, ``chatpipe sample`` and ``chatpipe split``: conversations chosen by
position, or by a stable hash of each (the same choice on every run and engine)."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from typing import Annotated, Any, Optional

import typer

from ..errors import UsageError
from ..model import Conversation
from ..ops.sample import Fraction, Splitter
from ..ops.sample import sample as sample_of
from ..pipeline.job import Job, Run, on_stream
from ..pipeline.target import Target
from .options import ReadingOptions, To, reads, to_dialect
from .runtime import execute, run

HEAD_HELP = """The first N conversations (a message log is one conversation; --group-by splits it).

Reading stops after the Nth. The output is in the input's dialect (--to another).

Examples:

  chatpipe head -n 3 train.jsonl

  chatpipe head -n 1 fixtures/chatgpt_export__pkuppens_2023_conversations_subset.json --to openai
"""

SAMPLE_HELP = """A sample of the conversations: exactly N (-n), or each with probability F.

Each conversation gets a key from a hash of the seed and its id (its content where it has
none); -n keeps the N smallest keys, --fraction the keys below F. So a seed gives the same
sample of the same conversations on every run, in any order and on any engine; -n holds
the N chosen conversations in memory until the input ends. The sample keeps input order.

Examples:

  chatpipe sample -n 1000 --seed 7 train.jsonl -o sample.jsonl

  chatpipe sample --fraction 0.01 logs/*.jsonl | chatpipe stats
"""

SPLIT_HELP = """Split conversations into sides, one file each in --output-dir (DIR/NAME.jsonl).

--ratio names the sides and their shares, which add up to 1. A conversation's side comes
from a hash of the seed and its id (its content where it has none): reproducible, the
same whatever the order or the shards, and a conversation read twice (an export's
branches, a duplicate) is on one side only.

Examples:

  chatpipe split --ratio train=0.9,test=0.1 --seed 1 --output-dir data/ train.jsonl

  chatpipe split --ratio train=0.8,dev=0.1,test=0.1 --to openai --output-dir out/ export.json
"""

Seed = Annotated[
    str,
    typer.Option("--seed", metavar="S", help="Any number or word: the same seed, the same choice."),
]


@reads()
def head(
    reading: ReadingOptions,
    n: Annotated[int, typer.Option("-n", metavar="N", min=0, help="How many conversations.")] = 10,
    to: To = None,
) -> None:
    def body() -> None:
        operation = on_stream(lambda conversations: itertools.islice(conversations, n))
        execute(reading, Job(reading.inputs(), operation, to_dialect(reading, to)))

    run(body, reading.quiet)


@reads()
def sample(
    reading: ReadingOptions,
    n: Annotated[
        Optional[int],  # noqa: UP045 - typer reads the annotation at run time
        typer.Option(
            "-n",
            metavar="N",
            min=0,
            help="Exactly N conversations (all if fewer).",
            show_default=False,
        ),
    ] = None,
    fraction: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option(
            "--fraction",
            metavar="F",
            min=0.0,
            max=1.0,
            help="Each conversation with probability F.",
            show_default=False,
        ),
    ] = None,
    seed: Seed = "0",
    to: To = None,
) -> None:
    def body() -> None:
        if (n is None) == (fraction is None):
            raise UsageError("give one of -n N and --fraction F")
        if fraction is not None:
            operation: Any = Fraction(fraction, seed)
        else:
            operation = on_stream(lambda conversations: sample_of(conversations, n=n, seed=seed))
        execute(reading, Job(reading.inputs(), operation, to_dialect(reading, to)))

    run(body, reading.quiet)


class _Sides(Target):
    """A target writing each conversation into its side's file, through the records
    target of ``--to`` (each side a file of its own, written atomically into the folder,
    which appears when the run ends well)."""

    def __init__(self, splitter: Splitter, records: Any, output_dir: str) -> None:
        if not records.parts:
            raise UsageError(
                "split writes records, a file per side: this --to writes documents",
                hint="pick --to canonical, openai, langchain, anthropic, gemini or sharegpt",
            )
        self.splitter, self.records, self.output_dir = splitter, records, output_dir
        self.parts = False  # one process writes the sides' files

    def loss_report(self) -> Any:
        return self.records.loss_report()

    def emit(self, run: Run, conversations: Iterator[Conversation], sink: Any) -> None:
        from ..io.folders import OutputFolder
        from ..io.sink import Sink

        folder = OutputFolder(self.output_dir)
        inputs = list(run.job.inputs.files)
        sinks: dict[str, Sink] = {}
        ok = False
        try:
            for name in self.splitter.names:
                assert folder.staging is not None
                sinks[name] = Sink(os.path.join(folder.staging, f"{name}.jsonl"), inputs)
                folder.files.append(f"{name}.jsonl")
            write = self.records.part_lines
            for conversation in conversations:
                side = sinks[self.splitter.side(conversation)]
                for line in write(run, [conversation]):
                    side.line(line)
            ok = True
        finally:
            for side in sinks.values():
                side.close(ok)
            if not ok:
                folder.abort()
        folder.commit()


@reads(output=False)
def split(
    reading: ReadingOptions,
    ratio: Annotated[
        str,
        typer.Option(
            "--ratio",
            metavar="NAME=SHARE,...",
            help="The sides and their shares (train=0.9,test=0.1).",
        ),
    ],
    output_dir: Annotated[
        str, typer.Option("--output-dir", metavar="DIR", help="Where the sides' files go.")
    ],
    seed: Seed = "0",
    to: To = None,
) -> None:
    def body() -> None:
        splitter = Splitter(ratio, seed)
        target = _Sides(splitter, to_dialect(reading, to), output_dir)

        def listed(conversation: Conversation) -> Conversation:
            return (
                conversation
                if isinstance(conversation.messages, list)
                else (conversation.with_messages(list(conversation.messages)))
            )

        execute(reading, Job(reading.inputs(), listed, target))

    run(body, reading.quiet)


head.__doc__ = HEAD_HELP
sample.__doc__ = SAMPLE_HELP
split.__doc__ = SPLIT_HELP
