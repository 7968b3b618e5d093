"""chatpipe on Dask (the extra ``chatpipe[dask]``): the same pipeline on a cluster.

Two doors, one mechanism (pipeline/parts.py): inputs cut into parts (line-aligned byte
ranges of conversation-per-line JSONL, row groups of Parquet, whole files otherwise), each
part read, operated on and written by chatpipe's own code on a worker, and the results put
back in input order.

- ``run_job`` runs a command's Job: what ``--engine dask`` does.
- ``read_conversations`` gives a ``dask.bag.Bag`` of Conversations, for your own
  pipelines; ``trim``, ``filter_messages``, ``merge``, ``convert``, ``count``,
  ``stats``, ``validate`` are plain functions of a conversation to map over it;
  ``to_files`` writes one shard per partition; ``total_tokens``, ``overall_stats`` and
  ``problems`` reduce per partition and combine the partial results.
"""

from __future__ import annotations

import functools
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

from .errors import ChatpipeError, Location, UsageError
from .io.ranges import expand
from .model import Conversation
from .pipeline.dask_mapper import DaskMapper, client
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
) -> Run:
    """A command's job on the cluster behind ``connected`` (a distributed.Client): the
    output into ``sink`` in input order, or one shard per part into ``output_dir``."""
    from .pipeline.assemble import run_in_parts
    from .pipeline.executors import settled
    from .pipeline.plan import refuse_once

    found = plan(job, blocksize)
    refuse_once(found, "the dask engine's workers read files")
    run = Run(job if output_dir is not None else settled(job, found))
    return run_in_parts(
        run,
        found,
        DaskMapper(connected),
        sink,
        output_dir=output_dir,
        parquet=parquet,
        shard_per_part=True,
        progress=progress,
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
    (``anon=True``, ``key=...``, ``endpoint_url=...``), here and on every worker."""
    from .formats.exports import ReadOptions
    from .pipeline.plan import refuse_once

    specs = [urlpath] if isinstance(urlpath, str) else list(urlpath)
    storage = _storage(specs, storage_options)
    inputs = Inputs(tuple(expand(specs)), dialect, on_error, None, ReadOptions(branch))
    job = Job(inputs)
    found = plan(job, blocksize)
    refuse_once(found, "a Dask bag's partitions are read on its workers")
    # each part read once; its places, counted from its start, made the file's once the
    # lines of the parts before it are known
    read = [dask.delayed(_read_part)(job, part, storage) for part in found.parts]
    before = dask.delayed(_lines_before)(found.parts, [dask.delayed(len)(r[0]) for r in read])
    pieces = [
        dask.delayed(_placed)(piece, part, before, k)
        for k, (piece, part) in enumerate(zip(read, found.parts, strict=True))
    ]
    return db.from_delayed(pieces)


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


def _lines_before(parts: list[Part], counts: list[int]) -> list[int]:
    before, seen = [], {}
    for part, count in zip(parts, counts, strict=True):
        before.append(seen.get(part.spec, 0) if part.kind == LINES else part.first_row)
        seen[part.spec] = seen.get(part.spec, 0) + count
    return before


_Read = tuple[list[None], list[Conversation], "ChatpipeError | None"]


def _read_part(job: Job, part: Part, storage: dict[str, dict[str, Any]]) -> _Read:
    """A part's conversations, placed from the part's start: (a list as long as the lines
    it read, its conversations, the error that stops it, when the job fails on one)."""
    from .formats.registry import get_dialect
    from .io.records import BadRecord
    from .io.sources import use_storage_options
    from .pipeline.parts import part_records
    from .pipeline.plan import FILE
    from .pipeline.reading import ErrorLog, conversations_of

    use_storage_options(storage)
    if part.kind == FILE:
        # (a message log's messages are read lazily: read here, while the file is open)
        inputs = job.inputs
        one = Run(Job(Inputs((part.spec,), inputs.dialect, inputs.on_error, None, inputs.options)))
        return [], [_ready(c) for c in one.conversations()], None
    skip = ErrorLog(job.inputs.on_error).skip
    dialect = get_dialect(part.dialect)
    out: list[Conversation] = []
    lines = 0
    for number, record in part_records(part):
        lines = number
        if record is None:
            continue
        try:
            if isinstance(record, BadRecord):
                raise record.error
            out.extend(conversations_of(dialect, record, job.inputs.options))
        except ChatpipeError as exc:
            if not skip:
                return [None] * lines, out, exc.located(record.location)
    return [None] * lines, out, None


def _placed(read: _Read, part: Part, before: list[int], index: int) -> list[Conversation]:
    """A part's conversations with the file's places; its error raised with its own."""
    _, conversations, error = read
    offset = before[index]
    if offset:
        for conversation in conversations:
            conversation.location = _moved(conversation.location, offset)
    if error is not None:
        error.location = _moved(error.location, offset)
        raise error
    return conversations


def _moved(place: Location | None, offset: int) -> Location | None:
    if place is None or place.line is None:
        return place
    return Location(place.file, place.line + offset, place.col, place.message_index)


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
    ``chatpipe convert --to``)."""
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
        data = b"".join(convert(c, to) + b"\n" for c in conversations)
        shard = name(number)
        write_shard(urlpath, shard, data, parquet)
        return urlpath.rstrip("/") + "/" + shard

    written = [dask.delayed(write)(part, number) for number, part in enumerate(bag.to_delayed())]
    return list(dask.compute(*written)) if compute else written
