"""chatpipe on Dask (the extra ``chatpipe[dask]``): the same pipeline on a cluster.

Two doors, one mechanism (pipeline/parts.py): inputs cut into parts (line-aligned byte
ranges of conversation-per-line JSONL, row groups of Parquet, whole files otherwise), each
part read, operated on and written by chatpipe's own code on a worker (``run_part``).

- ``run_job`` runs a command's Job on a cluster the caller holds, through
  ``pipeline.execute`` as ``--engine dask`` does: the results put back in input order.
- ``read_conversations`` gives a ``dask.bag.Bag`` of Conversations, a partition a part,
  for your own pipelines; ``trim``, ``filter_messages``, ``merge``, ``convert``, ``count``,
  ``stats``, ``validate`` are plain functions of a conversation to map over it;
  ``to_files`` writes one shard per partition; ``total_tokens``, ``overall_stats`` and
  ``problems`` reduce per partition and combine the partial results.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterator
from typing import Any

try:
    import dask
    import dask.bag as db
    import distributed  # noqa: F401 (the engine needs it: said at import)
except ImportError:  # pragma: no cover - the message is the point
    from .errors import install_hint

    raise ImportError(
        f"chatpipe.dask needs Dask (dask, distributed): {install_hint('dask')}"
    ) from None

from .errors import Location, UsageError
from .io.ranges import expand
from .model import Conversation
from .ops.operation import PerPart
from .pipeline.dask_mapper import client
from .pipeline.job import Inputs, Job, Run
from .pipeline.plan import DEFAULT_BLOCKSIZE, LINES, Part, plan

__all__ = [
    "DEFAULT_BLOCKSIZE",
    "client",
    "convert",
    "count",
    "filter_messages",
    "merge",
    "overall_stats",
    "problems",
    "read_conversations",
    "run_job",
    "stats",
    "to_files",
    "total_tokens",
    "trim",
    "validate",
    "validate_files",
]


def run_job(
    job: Job,
    sink: Any,
    connected: Any,
    *,
    output_dir: str | None = None,
    parquet: bool = False,
    blocksize: int | None = DEFAULT_BLOCKSIZE,
    progress: Callable[[int, int], None] | None = None,
    note: Callable[[str], None] | None = None,
) -> Run:
    """A command's job on the cluster behind ``connected`` (a distributed.Client), the
    way ``--engine dask`` runs it (``pipeline.execute``: one route for both): the output
    into ``sink`` in input order, or one shard per part into ``output_dir``. An operation
    with two passes (dedupe, sample -n) runs both over the parts; one that takes the whole
    input in order (head) runs in this process; one that may keep state and does not say
    how the parts' states merge is refused (docs/library.md). ``blocksize``: about how
    many bytes of input a part holds (None: 64 MiB); ``note`` hears the warnings."""
    from .pipeline.executors import Engine, execute

    engine = Engine(dask=True, scheduler=connected, blocksize=blocksize)
    return execute(
        job, sink, engine, output_dir=output_dir, parquet=parquet, note=note, progress=progress
    )


def validate_files(specs: list[str], connected: Any, **checks: Any) -> Iterator[Any]:
    """``chatpipe validate``'s problems, in file order, the parts checked on the cluster
    (``checks``: ``dialect``, ``rules``, ``max_tokens``, ``counter``, ``options``)."""
    from .formats.exports import ReadOptions
    from .pipeline.validate_files import Problems

    class Gathered(Problems):
        def problem(self, run: Any, problem: Any, sink: Any) -> None:
            self.found.append(problem)

    problems = Gathered(checks.get("rules", "all"), checks.get("max_tokens"), checks.get("counter"))
    problems.found = []
    inputs = Inputs(
        tuple(specs),
        checks.get("dialect") or "auto",
        options=checks.get("options") or ReadOptions(),
    )
    run_job(Job(inputs, None, problems), None, connected)
    return iter(problems.found)


# -- the API --------------------------------------------------------------------------------


def read_conversations(
    urlpath: str | list[str],
    *,
    dialect: str = "auto",
    blocksize: int | None = DEFAULT_BLOCKSIZE,
    on_error: str = "fail",
    branch: str = "active",
    **storage_options: Any,
) -> Any:
    """A dask.bag.Bag of the Conversations in ``urlpath`` (a path, glob or fsspec URL, or
    a list of them), a partition per part: conversation-per-line files cut at line starts
    about every ``blocksize`` bytes, Parquet files by row groups, other files whole. Each
    conversation's ``location`` is its file and line (row, for Parquet). ``on_error``:
    ``fail`` raises the first bad record's error; ``skip`` leaves bad records out (list
    them with ``problems``). ``storage_options`` go to fsspec for the URLs' filesystem
    (``anon=True``, ``key=...``, ``endpoint_url=...``), here and on every worker.

    A partition is read by the commands' own worker body (``pipeline.parts.run_part``)
    when the bag is computed, and only then; its places are made its file's from the
    line ends of the ranges before it, counted without reading a record."""
    from .formats.exports import ReadOptions
    from .pipeline.plan import refuse_once
    from .pipeline.target import Target

    specs = [urlpath] if isinstance(urlpath, str) else list(urlpath)
    storage = _storage(specs, storage_options)
    inputs = Inputs(tuple(expand(specs)), dialect, on_error, None, ReadOptions(branch))
    job = Job(inputs, _Gathered(), Target())
    found = plan(job, blocksize)
    refuse_once(found, "a Dask bag's partitions are read on its workers")
    partitions = []
    lines_before: dict[str, Any] = {}  # a file's lines before its next range (delayed)
    for part in found.parts:
        before: Any = part.first_row  # (a row group's rows before it; a whole file's: 0)
        if part.kind == LINES:
            before = lines_before.get(part.spec, 0)
            counted = dask.delayed(_line_ends, pure=True)(part, storage)
            lines_before[part.spec] = dask.delayed(operator.add, pure=True)(before, counted)
        partitions.append(dask.delayed(_partition)(job, part, storage, before))
    return db.from_delayed(partitions)


def _storage(urls: list[str], options: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``options`` for the protocol of each URL among ``urls``, in use in this process."""
    from .io.sources import is_url, protocol_of, use_storage_options

    if not options:
        return {}
    by_protocol = {protocol_of(url): dict(options) for url in urls if is_url(url)}
    if not by_protocol:
        raise UsageError("storage options are for fsspec URLs (s3://...), and none is given")
    use_storage_options(by_protocol)
    return by_protocol


class _Gathered(PerPart[list[Conversation]]):
    """A bag partition's operation: the part's conversations kept (their messages in a
    list, a log's read while its file is open), handed back as the part's state."""

    def __init__(self) -> None:
        self.conversations: list[Conversation] = []

    def __call__(self, conversation: Conversation) -> None:
        self.conversations.append(_ready(conversation))
        return None

    def for_part(self, part: int) -> _Gathered:
        return _Gathered()

    def part_state(self) -> list[Conversation]:
        return self.conversations

    def absorb(self, state: list[Conversation], placed: Any) -> None:
        self.conversations.extend(state)


def _line_ends(part: Part, storage: dict[str, dict[str, Any]]) -> int:
    """The lines of a range of a conversation-per-line file (each ends with a line end,
    the range ending at a line start): its line ends, counted, no record read."""
    from .io.ranges import read_lines
    from .io.sources import use_storage_options

    use_storage_options(storage)
    return sum(piece.count(b"\n") for piece in read_lines(part.spec, part.start, part.end))


def _partition(
    job: Job, part: Part, storage: dict[str, dict[str, Any]], before: int
) -> list[Conversation]:
    """A part's conversations, read by the one worker body, placed in their file (its
    ``before`` lines, or rows, before the part); with ``on_error="fail"``, its first
    error raised at its place in the file."""
    from .errors import DataError
    from .io.sources import Source, use_storage_options
    from .pipeline.assemble import placed
    from .pipeline.part_result import ERROR
    from .pipeline.parts import run_part

    use_storage_options(storage)
    result = run_part(part, job)
    where = placed(before)
    if job.inputs.on_error == "fail":
        for event in result.events:
            if event.what == ERROR:
                place = Location(Source(part.spec).name, event.line, event.col, event.index)
                raise DataError(event.message, where(place), event.hint)
    conversations: list[Conversation] = result.state
    for conversation in conversations:
        conversation.location = where(conversation.location)
    return conversations


def _ready(conversation: Conversation) -> Conversation:
    if not isinstance(conversation.messages, list):
        conversation.messages = list(conversation.messages)
    return conversation


def trim(conversation: Conversation, max_tokens: int, **options: Any) -> Conversation:
    """The conversation trimmed as ``chatpipe trim`` trims it (``strategy``,
    ``token_counter``, ``start_on``, ``include_system``, ``tool_pairs``, ...)."""
    from .ops.count import resolve_counter
    from .pipeline.trim_policy import Trim

    counter = resolve_counter(options.pop("token_counter", "approximate"))
    return _ready(conversation).with_messages(Trim(max_tokens, counter, **options)(conversation))


def filter_messages(conversation: Conversation, **options: Any) -> Conversation:
    """The conversation's messages filtered as ``chatpipe filter`` does
    (``include_types``, ``exclude_tool_calls``, ...)."""
    from .ops.filter import iter_filter

    return conversation.with_messages(list(iter_filter(_ready(conversation).messages, **options)))


def merge(conversation: Conversation, chunk_separator: str = "\n") -> Conversation:
    """Runs of messages of one type merged, as ``chatpipe merge`` merges them."""
    from .ops.filter import iter_merge

    messages = _ready(conversation).messages
    return conversation.with_messages(list(iter_merge(messages, chunk_separator=chunk_separator)))


def convert(conversation: Conversation, to: str = "canonical") -> bytes:
    """The conversation as one JSON record of dialect ``to`` (a line of
    ``chatpipe convert --to``); empty when ``to`` writes none for it (an API's request
    of a conversation with no turn to send)."""
    target, run = _writing(to)
    return b"\n".join(target.lines(run, [_ready(conversation)]))


@functools.cache
def _writing(to: str) -> tuple[Any, Run]:
    """The target and run that write a dialect (made once a process, not a record)."""
    from .pipeline.targets import ToDialect

    target = ToDialect(to, losses=False)
    return target, Run(Job(Inputs(("-",)), None, target))


def count(conversation: Conversation, token_counter: str = "approximate") -> int:
    """Its tokens, as ``chatpipe count`` counts them."""
    from .ops.count import counter_for, resolve_counter

    counter = counter_for(resolve_counter(token_counter), conversation)
    return counter.count(_ready(conversation).messages)


def stats(conversation: Conversation, token_counter: str = "approximate") -> dict[str, Any]:
    """Its figures, a line of ``chatpipe stats --json``."""
    from .ops.count import counter_for, resolve_counter
    from .ops.stats import conversation_stats

    counter = counter_for(resolve_counter(token_counter), conversation)
    return conversation_stats(_ready(conversation).messages, counter)


def validate(conversation: Conversation, max_tokens: int | None = None) -> list[dict[str, Any]]:
    """Its structure problems (``chatpipe validate --rules structure``), as dicts."""
    from .ops.count import resolve_counter
    from .ops.validate import check_messages

    location = conversation.location or Location("<conversation>")
    counter = resolve_counter("approximate") if max_tokens is not None else None
    located = ((m, location.at_message(i)) for i, m in enumerate(_ready(conversation).messages))
    return [p.to_dict() for p in check_messages(located, location, max_tokens, counter)]


def total_tokens(bag: Any, token_counter: str = "approximate") -> Any:
    """The tokens of every conversation: a sum per partition, then of the sums."""
    return bag.map(count, token_counter=token_counter).sum()


def overall_stats(bag: Any, max_tokens: int | None = None) -> Any:
    """``chatpipe stats``' overall figures: each partition's figures, combined."""
    from .ops.stats import overall_stats as combine

    def gather(partials: Any) -> dict[str, Any]:
        return combine([f for part in partials for f in part], max_tokens)

    # one level: the partitions' figures, then their combination (not a tree, whose
    # upper levels would be handed combinations)
    return bag.map(stats).reduction(list, gather, split_every=False)


def problems(bag: Any, max_tokens: int | None = None) -> Any:
    """Every conversation's structure problems, flattened (a Bag of dicts)."""
    return bag.map(validate, max_tokens=max_tokens).flatten()


def to_files(
    bag: Any,
    urlpath: str,
    *,
    to: str = "canonical",
    to_format: str = "jsonl",
    name_function: Callable[[int], str] | None = None,
    compute: bool = True,
    **storage_options: Any,
) -> Any:
    """One file per partition in the folder ``urlpath``: ``name_function(i)`` (default
    ``part-00000.jsonl``), each written under a temporary name and renamed, so that a
    file is complete or absent; the conversations in input order. Gives the paths.
    ``storage_options`` go to fsspec for ``urlpath``'s filesystem."""
    from .io.shards import write_shard
    from .io.sources import filesystem, is_url, local_path, use_storage_options

    storage = _storage([urlpath], storage_options)

    parquet = to_format == "parquet"
    if to_format not in ("jsonl", "parquet"):
        raise UsageError(f"to_format must be jsonl or parquet, got {to_format!r}")
    name = name_function or (lambda i: f"part-{i:05d}.{to_format}")
    urlpath = local_path(urlpath)
    if is_url(urlpath):
        fs, folder = filesystem(urlpath, writing=True)
        fs.makedirs(folder, exist_ok=True)
    else:
        import os

        os.makedirs(urlpath, exist_ok=True)

    def write(conversations: list[Conversation], number: int) -> str:
        use_storage_options(storage)
        records = (convert(c, to) for c in conversations)
        data = b"".join(record + b"\n" for record in records if record)
        shard = name(number)
        write_shard(urlpath, shard, data, parquet)
        return urlpath.rstrip("/") + "/" + shard

    written = [dask.delayed(write)(part, number) for number, part in enumerate(bag.to_delayed())]
    return list(dask.compute(*written)) if compute else written
