"""Validating whole files: records read as they come, raw OpenAI fine-tuning checks on
each record, structure checks on the messages read from them, unreadable records reported
as problems (validate never stops at the first)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError
from ..model import AnyMessage
from ..ops.validate import (
    Problem,
    StructureCheck,
    check_messages,
    finetune_message_problems,
    finetune_row_problems,
    unreadable,
)
from .parts import DEFAULT_BLOCKSIZE
from .reading import message_of, shape_errors


def validate_files(
    specs: Iterable[str],
    *,
    dialect: str | None = None,
    rules: str = "all",
    max_tokens: int | None = None,
    counter: Any = None,
    options: Any = None,
) -> Iterator[Problem]:
    """Every problem in the files, in file order; unreadable records are problems too.

    ``options``: the ReadOptions for tree-shaped exports (default: the active branch).
    """

    from ..formats.detect import CONVERSATIONS, STREAM
    from ..formats.exports import ReadOptions
    from ..formats.registry import reading_dialect
    from ..io.sources import Source
    from .reading import ErrorLog, open_records

    finetune = rules in ("all", "openai-finetune")
    structure = rules in ("all", "structure")
    forced = reading_dialect(dialect)
    for spec in specs:
        errors = ErrorLog("skip", keep=None)
        opened = open_records(Source(spec), forced, errors)
        yield from map(unreadable, errors.skipped)
        if opened is None:
            continue
        found, shape, first, records = opened
        raw_checks = finetune and found.name == "openai"
        if shape == STREAM:
            yield from _validate_streamed(found, first, records, structure, max_tokens, counter)
            continue
        if shape == CONVERSATIONS:
            checks = (raw_checks, structure, max_tokens, counter, options or ReadOptions())
            for record in records:
                yield from _record_problems(found, record, *checks)
            continue
        yield from _validate_stream(
            found, first, records, raw_checks, structure, max_tokens, counter
        )


def _record_problems(
    found: Any,
    record: Any,
    raw_checks: bool,
    structure: bool,
    max_tokens: int | None,
    counter: Any,
    options: Any,
) -> Iterator[Problem]:
    """The problems of one conversation record (and of its conversations)."""
    from ..io.records import BadRecord
    from .reading import conversations_of

    if isinstance(record, BadRecord):
        yield unreadable(record.error)
        return
    location = record.location
    raw = finetune_row_problems(record.value, location) if raw_checks else []
    yield from raw
    unusable = any(p.kind in ("data_type", "missing_messages_list") for p in raw)
    if not structure or unusable:
        return
    try:
        conversations = conversations_of(found, record, options)
    except ChatpipeError as exc:
        yield unreadable(exc.located(location))
        return
    for conversation in conversations:
        located = ((m, location.at_message(i)) for i, m in enumerate(conversation.messages))
        yield from check_messages(located, location, max_tokens, counter)


Found = tuple[str, str, str, str | None, int | None, int | None, int | None]


def validate_part(
    part: Any, dialect: str | None, rules: str, max_tokens: int | None, counter: Any, options: Any
) -> tuple[list[Found], int]:
    """The problems of one part of the inputs (pipeline/parts.py) as tuples (kind, text,
    hint, file, line, column, message index), lines counted from the part's start, and
    the lines it read."""
    from ..formats.exports import ReadOptions
    from .parts import FILE, _records, dialect_of

    if part.kind == FILE:
        found = validate_files(
            [part.spec],
            dialect=dialect,
            rules=rules,
            max_tokens=max_tokens,
            counter=counter,
            options=options,
        )
        return [_plain(p) for p in found], 0
    reader = dialect_of(part)
    raw_checks = rules in ("all", "openai-finetune") and reader.name == "openai"
    structure = rules in ("all", "structure")
    checks = (raw_checks, structure, max_tokens, counter, options or ReadOptions())
    out, lines = [], 0
    for number, record in _records(part):
        lines = number
        if record is not None:
            out.extend(_plain(p) for p in _record_problems(reader, record, *checks))
    return out, lines


def _plain(problem: Problem) -> Found:
    place = problem.location
    if place is None:
        return problem.kind, problem.text, problem.hint, None, None, None, None
    return (
        problem.kind,
        problem.text,
        problem.hint,
        place.file,
        place.line,
        place.col,
        place.message_index,
    )


def validate_in_parts(
    specs: list[str],
    mapper: Any,
    *,
    dialect: str | None = None,
    rules: str = "all",
    max_tokens: int | None = None,
    counter: Any = None,
    options: Any = None,
    blocksize: int | None = DEFAULT_BLOCKSIZE,
) -> Iterator[Problem]:
    """``validate_files``' problems, in the same order, the inputs cut into parts of
    about ``blocksize`` bytes that ``mapper(function, parts, arguments)`` runs (giving
    the results in part order)."""
    from ..errors import Location
    from .job import Inputs, Job
    from .parts import LINES, ROWS, expand, plan

    files = tuple(expand(specs))
    parts = plan(Job(Inputs(files, dialect or "auto")), blocksize)
    before: dict[str, int] = {}
    work = (dialect, rules, max_tokens, counter, options)
    for part, (found, lines) in zip(parts, mapper(validate_part, parts, work), strict=True):
        offset = before.get(part.spec, 0) if part.kind == LINES else 0
        offset = part.first_row if part.kind == ROWS else offset
        for kind, text, hint, file, line, col, index in found:
            place = None if file is None else Location(file, line and line + offset, col, index)
            yield Problem(kind, text, place, hint)
        before[part.spec] = offset + lines


def _validate_streamed(dialect, first, records, structure, max_tokens, counter):
    """A captured stream: the structure of the messages it spells."""
    from ..io.records import BadRecord

    values = []
    for record in records:
        if isinstance(record, BadRecord):
            yield unreadable(record.error)
        else:
            values.append(record.value)
    try:
        with shape_errors(dialect, first.location):
            conversations = list(dialect.read_stream(values, first.location))
    except ChatpipeError as exc:
        yield unreadable(exc.located(first.location))
        return
    if structure:
        for conversation in conversations:
            located = ((m, first.location) for m in conversation.messages)
            yield from check_messages(located, first.location, max_tokens, counter)


class _StreamReading:
    """A message-per-record log read for validation: raw problems found on the way."""

    def __init__(self, dialect: Any, records: Iterable[Any], raw_checks: bool) -> None:
        from collections import deque

        self.dialect = dialect
        self.records = records
        self.raw_checks = raw_checks
        self.places: deque = deque()
        self.problems: list[Problem] = []
        self.assistant_seen = False

    def messages(self) -> Iterator[AnyMessage]:
        from ..io.records import BadRecord

        for record in self.records:
            if isinstance(record, BadRecord):
                self.problems.append(unreadable(record.error))
                continue
            value = record.value
            if self.raw_checks:
                self.problems.extend(finetune_message_problems(value, record.location))
                self.assistant_seen |= isinstance(value, dict) and value.get("role") == "assistant"
            try:
                message = message_of(self.dialect, value, record.location)
            except ChatpipeError as exc:
                self.problems.append(unreadable(exc))
                continue
            self.places.append(record.location)
            yield message

    def drain(self) -> list[Problem]:
        problems, self.problems = self.problems, []
        return problems


def _validate_stream(
    dialect: Any,
    first: Any,
    records: Iterable[Any],
    raw_checks: bool,
    structure: bool,
    max_tokens: int | None,
    counter: Any,
) -> Iterator[Problem]:
    reading = _StreamReading(dialect, records, raw_checks)
    check = StructureCheck(max_tokens, counter)
    location = first.location
    for message in dialect.finish(reading.messages()):
        # a record that is several messages (ai-sdk-ui) gives them before the next is read
        location = reading.places.popleft() if reading.places else location
        yield from reading.drain()
        if structure:
            yield from check.add(message, location)
    yield from reading.drain()
    if structure:
        yield from check.finish(first.location)
    if raw_checks and not reading.assistant_seen:
        yield Problem(
            "example_missing_assistant_message",
            "no assistant message",
            first.location,
            "an example teaches the assistant's reply: add one",
        )
