"""``chatpipe head``, ``chatpipe sample`` and ``chatpipe split``: conversations chosen by
position, or by a stable hash of each (the same choice on every run and engine)."""

from __future__ import annotations

from typing import Any

from ..errors import UsageError
from ..ops.sample import Fraction, Head, SampleN, Splitter, listed
from ..pipeline.job import Job
from ..pipeline.split_target import Sides
from .command import ReadingOptions, command
from .options import Seed, To, opt
from .runtime import execute


@command("group_by", "output", "engine")
def head(
    o: ReadingOptions,
    n: opt("-n", "How many conversations.", int, "N", min=0) = 10,
    to: To = None,
) -> None:
    """The first N conversations (a message log is one conversation; --group-by splits it).

    Reading stops after the Nth. The output is in the input's dialect (--to another).

    Examples:

    \b
      chatpipe head -n 3 fixtures/openai_chat__cookbook_toy_chat_fine_tuning.jsonl
      chatpipe head -n 1 --to openai \\
          fixtures/chatgpt_export__pkuppens_2023_conversations_subset.json
    """
    execute(o, Job(o.inputs(), Head(n), o.to_dialect(to)))


@command("output", "engine")
def sample(
    o: ReadingOptions,
    n: opt("-n", "Exactly N conversations (all if fewer).", int | None, "N", min=0) = None,
    fraction: opt(
        "--fraction", "Each conversation with probability F.", float | None, "F", min=0.0, max=1.0
    ) = None,
    seed: Seed = "0",
    to: To = None,
) -> None:
    """A sample of the conversations: exactly N (-n), or each with probability F.

    Each conversation gets a key from a hash of the seed and its id (its content where it has
    none); -n keeps the N smallest keys, --fraction the keys below F. So a seed gives the same
    sample of the same conversations on every run, in any order and on any engine; -n holds
    the N chosen conversations in memory until the input ends. The sample keeps input order.

    Examples:

    \b
      chatpipe sample -n 2 --seed 7 \\
          fixtures/openai_chat__cookbook_toy_chat_fine_tuning.jsonl \\
          -o sample.jsonl
      chatpipe sample --fraction 0.5 fixtures/sharegpt__*.json* | chatpipe stats
    """
    if (n is None) == (fraction is None):
        raise UsageError("give one of -n N and --fraction F")
    if fraction is not None:
        operation: Any = Fraction(fraction, seed)
    else:
        operation = SampleN(n, seed)
    execute(o, Job(o.inputs(), operation, o.to_dialect(to)))


@command("engine")
def split(
    o: ReadingOptions,
    ratio: opt(
        "--ratio", "The sides and their shares (train=0.9,test=0.1).", metavar="NAME=SHARE,..."
    ),
    output_dir: opt("--output-dir", "Where the sides' files go.", metavar="DIR"),
    seed: Seed = "0",
    to: To = None,
) -> None:
    """Split conversations into sides, one file each in --output-dir (DIR/NAME.jsonl).

    --ratio names the sides and their shares, which add up to 1. A conversation's side comes
    from a hash of the seed and its id (its content where it has none): reproducible, the
    same whatever the order or the shards, and a conversation read twice (an export's
    branches, a duplicate) is on one side only.

    Examples:

    \b
      chatpipe split --ratio train=0.9,test=0.1 --seed 1 --output-dir data/ \\
          fixtures/sharegpt__fastchat_dummy_conversation_first20.json
      chatpipe split --ratio train=0.8,dev=0.1,test=0.1 --to openai \\
          --output-dir out/ \\
          fixtures/sharegpt__fastchat_dummy_conversation_first20.json
    """
    target = Sides(Splitter(ratio, seed), o.to_dialect(to), output_dir)
    execute(o, Job(o.inputs(), listed, target))
