"""A batch's input and output files read together (``chatpipe convert in.jsonl
out.jsonl``): each request joined with its result by ``custom_id``.

Results come in any order, so the output files of a dialect are read first into an index:
each result's record kept as its compact JSON bytes, by custom_id (memory about the size
of the output files: the providers cap a batch at 50,000 requests and 200 MB (OpenAI),
100,000 and 256 MB (Anthropic)). The input file then streams: each request takes its
result out of the index as it passes; a request with none is kept and said; results no
request asked for come after the last input file of their dialect. An output file joined
so is not read again at its own turn. Nothing of this happens until a batch file is met:
other runs pay nothing for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import DataError, Location
from ..formats.batch import REQUESTS, RESULTS, BatchDialect
from ..io.encode import dumps
from ..io.json_numbers import loads
from ..io.readers import read_records
from ..io.records import BadRecord
from ..io.sources import Source
from ..model import Conversation

# a file's batch dialect and role, from its first records (None: not a batch file)
Peek = Callable[[str], "tuple[BatchDialect, str] | None"]


class BatchJoin:
    """``specs``: the run's files, or what gives them when first needed."""

    def __init__(self, specs: list[str] | Callable[[], list[str]], peek: Peek) -> None:
        self.specs, self.peek = specs, peek
        self.roles: dict[str, tuple[str, str]] | None = None  # spec: (dialect, role)
        self.index: dict[str, dict[Any, tuple[bytes, Location]]] = {}  # dialect: results

    def _plan(self) -> dict[str, tuple[str, str]]:
        if self.roles is None:
            self.roles = {}
            for spec in self.specs() if callable(self.specs) else self.specs:
                found = self.peek(spec) if spec != "-" else None
                if found is not None:
                    self.roles[spec] = (found[0].name, found[1])
        return self.roles

    def _files(self, dialect: str, role: str) -> list[str]:
        return [s for s, found in self._plan().items() if found == (dialect, role)]

    def any(self) -> bool:
        """Whether the run holds an input file and an output file of one batch dialect."""
        found = set(self._plan().values())
        return any((name, RESULTS) in found for name, role in found if role == REQUESTS)

    def joined(self, spec: str, dialect: BatchDialect, role: str | None) -> bool:
        """True for an output file whose results go with input files of the run."""
        return role == RESULTS and bool(self._files(dialect.name, REQUESTS))

    def join(
        self,
        spec: str,
        dialect: BatchDialect,
        conversations: Iterable[Conversation],
        errors: Any,
    ) -> Iterator[Conversation]:
        """The requests of an input file, each with its result where an output file of
        the run has one."""
        outputs = self._files(dialect.name, RESULTS)
        if not outputs or self._plan().get(spec) != (dialect.name, REQUESTS):
            yield from conversations  # (an output file read alone: its own results)
            return
        index = self.index.get(dialect.name)
        if index is None:
            index = self.index[dialect.name] = _results(outputs, dialect, errors)
        for conversation in conversations:
            found = index.pop(conversation.meta.get("custom_id"), None)
            if found is None:
                yield dialect.unanswered(conversation)
                continue
            result = dialect.read_result(loads(found[0]), found[1])
            yield dialect.join(conversation, result)
        inputs = self._files(dialect.name, REQUESTS)
        if inputs and spec == inputs[-1]:  # results no request of the run asked for
            for data, location in index.values():
                yield dialect.read_result(loads(data), location)
            index.clear()


def _results(
    specs: list[str], dialect: BatchDialect, errors: Any
) -> dict[Any, tuple[bytes, Location]]:
    index: dict[Any, tuple[bytes, Location]] = {}
    for spec in specs:
        source = Source(spec)
        try:
            for record in read_records(source):
                if isinstance(record, BadRecord):
                    errors.handle(record.error)
                elif dialect.role(record.value) == RESULTS:
                    key = record.value.get("custom_id")
                    if key in index:  # one request, one answer: a second is said, not joined
                        errors.handle(_second(key, index[key][1], record.location))
                        continue
                    index[key] = (dumps(record.value), record.location)  # (ints past 64 bits)
                else:
                    errors.handle(
                        DataError(
                            f"not a {dialect.name} result line",
                            record.location,
                            hint="an output file holds results only",
                        )
                    )
        finally:
            if source.stream is not None:
                source.stream.close()
    return index


def _second(key: Any, first: Location, location: Location) -> DataError:
    return DataError(
        f"a second result for custom_id {key!r} (the first is at {first})",
        location,
        hint="a batch's output holds one result a request: give each output file once, "
        "or --on-error skip to join the first",
    )
