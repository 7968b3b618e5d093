"""Validating whole files: records read as they come, each checked raw by its dialect's
own rule set where it has one (OpenAI's fine-tuning checks), structure checks on the
messages read from them, unreadable records reported as problems (validate never stops at
the first)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError
from ..formats.base import ANYWHERE
from ..formats.record_errors import shape_errors, turn_of
from ..formats.rules import Problem
from ..formats.shapes import checked
from ..model import AnyMessage
from ..ops.validate import StructureCheck, check_messages, conversation_problems, unreadable
from .target import Target


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

    from ..formats.registry import reading_dialect
    from ..io.sources import input_sources
    from .members import Members
    from .reading import Reading

    forced = reading_dialect(dialect)
    members = Members(Reading())  # a zip's members: each a file, those no chat log skipped
    checks = (rules, max_tokens, counter, options)
    try:
        for source in input_sources(specs):
            problems = _source_problems(source, forced, *checks)
            yield from problems if source.archive is None else members.read(source, problems)
    finally:
        members.close()


def _source_problems(
    source: Any, forced: Any, rules: str, max_tokens: Any, counter: Any, options: Any
) -> Iterator[Problem]:
    from ..formats.detect import CONVERSATIONS, STREAM
    from ..formats.exports import ReadOptions
    from .opening import ErrorLog, open_records

    structure = rules in ("all", "structure")
    errors = ErrorLog("skip", keep=None)
    opened = open_records(source, forced, errors)
    yield from map(unreadable, errors.skipped)
    if opened is None:
        return
    found, shape, first, records = opened
    raw_checks = _raw_rules(found, rules)
    if shape == STREAM:
        yield from _validate_streamed(
            found, first, records, structure, max_tokens, counter, options
        )
        return
    if shape == CONVERSATIONS:
        checked = (raw_checks, structure, max_tokens, counter, options or ReadOptions())
        for record in records:
            yield from _record_problems(found, record, *checked)
        return
    yield from _validate_stream(found, first, records, raw_checks, structure, max_tokens, counter)


def _raw_rules(dialect: Any, rules: str) -> Any:
    """The rule set of the dialect's own that ``rules`` asks for its raw records, if any."""
    return None if rules == "structure" else dialect.record_rules(None if rules == "all" else rules)


def _record_problems(
    found: Any,
    record: Any,
    raw_checks: Any,
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
    raw = raw_checks.row_problems(record.value, location) if raw_checks is not None else []
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
        yield from conversation_problems(conversation.meta, location)
        located = ((m, location.at_message(i)) for i, m in enumerate(conversation.messages))
        yield from check_messages(located, location, max_tokens, counter)


def _validate_streamed(dialect, first, records, structure, max_tokens, counter, options=None):
    """A captured stream or a session log: the structure of the messages it spells, each
    at its line where the reader knows it (``Conversation.places``)."""
    bad: list[Problem] = []
    try:
        with shape_errors(dialect, first.location):
            conversations = [
                checked(conversation, lambda e: bad.append(unreadable(e)))
                for conversation in dialect.read_records(
                    records, first.location, options, lambda e: bad.append(unreadable(e))
                )
            ]
    except ChatpipeError as exc:
        yield from bad
        yield unreadable(exc.located(first.location))
        return
    yield from bad
    said = len(bad)
    if structure:
        # session logs put the context their agent adds where it came
        anywhere = dialect.system_messages == ANYWHERE
        for conversation in conversations:
            where = conversation.location or first.location
            yield from check_messages(
                _placed(conversation, where), where, max_tokens, counter, anywhere
            )
            yield from bad[said:]  # messages of a shape past reading's, met as they passed
            said = len(bad)


def _placed(conversation: Any, where: Any) -> Iterator[tuple[AnyMessage, Any]]:
    """Each message at its line where the reader knows it (a streamed log's places fill
    in as its messages are read)."""
    for index, message in enumerate(conversation.messages):
        places = conversation.places
        yield message, places[index] if places is not None and index < len(places) else where


class _StreamReading:
    """A message-per-record log read for validation: raw problems found on the way."""

    def __init__(self, dialect: Any, records: Iterable[Any], raw_checks: Any) -> None:
        from collections import deque

        self.dialect = dialect
        self.records = records
        self.raw = raw_checks.log() if raw_checks is not None else None
        self.places: deque = deque()
        self.problems: list[Problem] = []

    def messages(self) -> Iterator[AnyMessage]:
        from ..io.records import BadRecord

        for record in self.records:
            if isinstance(record, BadRecord):
                self.problems.append(unreadable(record.error))
                continue
            value = record.value
            if self.raw is not None:
                self.problems.extend(self.raw.message_problems(value, record.location))
            try:
                messages = turn_of(self.dialect, value, record.location)
            except ChatpipeError as exc:
                self.problems.append(unreadable(exc))
                continue
            for message in messages:  # (an Anthropic turn may be several)
                self.places.append(record.location)
                yield message

    def drain(self) -> list[Problem]:
        problems, self.problems = self.problems, []
        return problems


def _validate_stream(
    dialect: Any,
    first: Any,
    records: Iterable[Any],
    raw_checks: Any,
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
    if reading.raw is not None:
        yield from reading.raw.end_problems(first.location)


def request_problems(specs: Iterable[str], rules: Any, sdk: Any = None) -> Iterator[Problem]:
    """Every record of the files checked as a request of an API (``validate --as``):
    with its rule set of chatpipe's (``Dialect.request_rules``) and, where given, the
    provider SDK's check (``formats/sdk_checks.py:sdk_check``). Unreadable records are
    problems too."""
    from ..io.readers import read_records
    from ..io.records import BadRecord
    from ..io.sources import input_sources

    for source in input_sources(specs):
        for record in read_records(source):
            yield from _request_problems(record, rules, sdk, BadRecord)


def _request_problems(record: Any, rules: Any, sdk: Any, bad: type) -> Iterator[Problem]:
    if isinstance(record, bad):
        yield unreadable(record.error)
        return
    yield from rules.row_problems(record.value, record.location)
    if sdk is None or not isinstance(record.value, dict):
        return
    check, package = sdk
    try:
        found = check(record.value)
    except Exception as exc:  # (an SDK of another version, whose types moved)
        hint = "chatpipe's own rules ran; install the version chatpipe[schemas] names"
        yield Problem("sdk_check_failed", f"{package}: {exc}"[:300], record.location, hint)
        return
    for path, message in found:
        at = re.match(r"(?:body\.|params\.)?(?:messages|input|contents)\[(\d+)\]", path)
        place = record.location if at is None else record.location.at_message(int(at[1]))
        yield Problem("sdk_schema", f"{path}: {message}", place, f"{package}'s request types")


class Problems(Target):
    """validate's output: every problem in the inputs, a line each (its text, or JSON with
    ``as_json``), in file order; unreadable records are problems too, and nothing stops
    the run. ``kinds`` counts the problems written by kind. Records are its input, not
    conversations (the OpenAI fine-tuning checks look at them raw)."""

    checks_records = True

    def __init__(
        self,
        rules: str = "all",
        max_tokens: int | None = None,
        counter: Any = None,
        as_json: bool = False,
        requests: Any = None,
    ) -> None:
        from collections import Counter

        self.rules, self.max_tokens, self.counter = rules, max_tokens, counter
        self.as_json = as_json
        self.kinds: Counter[str] = Counter()
        # validate --as: (chatpipe's rule set of an API's requests, its SDK's check or None)
        self.requests = requests

    def emit(self, run: Any, conversations: Any, sink: Any) -> None:
        inputs = run.job.inputs
        for problem in self.file_problems(run, *inputs.files):
            self.problem(run, problem, sink)

    def file_problems(self, run: Any, *specs: str) -> Iterator[Problem]:
        if self.requests is not None:
            return request_problems(specs, *self.requests)
        inputs = run.job.inputs
        return validate_files(
            specs,
            dialect=inputs.dialect,
            rules=self.rules,
            max_tokens=self.max_tokens,
            counter=self.counter,
            options=inputs.options,
        )

    def record_problems(self, run: Any, dialect: Any, record: Any) -> Iterator[Problem]:
        if self.requests is not None:
            from ..io.records import BadRecord

            return _request_problems(record, *self.requests, BadRecord)
        raw_checks = _raw_rules(dialect, self.rules)
        structure = self.rules in ("all", "structure")
        options = run.job.inputs.options
        checks = (raw_checks, structure, self.max_tokens, self.counter, options)
        return _record_problems(dialect, record, *checks)

    def problem(self, run: Any, problem: Problem, sink: Any) -> None:
        import orjson

        self.kinds[problem.kind] += 1
        sink.line(orjson.dumps(problem.to_dict()) if self.as_json else str(problem).encode())
