"""Opening a source: its records, and from the first of them which dialect it is and
whether they are messages (one conversation), conversations or stream events
(docs/architecture.md, "The data flow"); and the log of bad records every reader keeps.
``reading.py`` reads the conversations of what is opened here.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from ..errors import ChatpipeError, Location, NotAChatLog, UsageError
from ..formats.base import Dialect
from ..formats.detect import (
    CONVERSATIONS,
    MESSAGES,
    STREAM,
    Ambiguous,
    detect,
    is_message_list,
    refusal,
    telling,
)
from ..formats.record_errors import keys_hint
from ..formats.registry import readable
from ..io.readers import read_records
from ..io.records import BadRecord, Record
from ..io.sources import Source

_DETECT_WINDOW = 20  # records looked at before choosing a dialect


class ErrorLog:
    """Bad records: raised at once (``fail``), or counted for the closing report (``skip``),
    which shows the first ``keep`` of them: a million bad lines cost a counter, not a
    million kept errors (``keep=None`` keeps every one)."""

    def __init__(self, on_error: str = "fail", keep: int | None = 20) -> None:
        if on_error not in ("fail", "skip"):
            raise UsageError(f"--on-error must be fail or skip, got {on_error!r}")
        self.skip = on_error == "skip"
        self.keep = keep
        self.count = 0  # every skipped error
        self.skipped: list[ChatpipeError] = []  # the first ``keep`` of them

    def handle(self, error: ChatpipeError) -> None:
        if not self.skip:
            raise error
        self.count += 1
        if self.keep is None or len(self.skipped) < self.keep:
            self.skipped.append(error)


def detect_file(
    spec: str | Source, forced: Dialect | None
) -> tuple[Source, Dialect, str, Location] | None:
    """What a file (or a zip's member) holds, from its first records: its source
    (``container`` known), its dialect and record shape, and where its first good record
    is; None when it holds no good record. The file is closed again, and what is wrong in
    it is left for the run that reads it to say."""
    source = Source(spec) if isinstance(spec, str) else spec
    try:
        opened = open_records(source, forced, ErrorLog("skip"))
    finally:
        if source.stream is not None and not source.is_stdin:
            source.stream.close()
    return None if opened is None else (source, opened[0], opened[1], opened[2].location)


def open_records(
    source: Source, forced: Dialect | None, errors: ErrorLog, known: Any = None
) -> tuple[Dialect, str, Record, Iterator[Record]] | None:
    """A source's dialect and record shape, its first good record, and all its records
    (bad ones included, as ``BadRecord``); None when it holds no good record. ``known``:
    the (dialect, shape, first record's place) detected for it before (a part's file),
    not detected again."""
    records = read_records(source)
    window = list(itertools.islice(records, _DETECT_WINDOW))
    good = [r for r in window if not isinstance(r, BadRecord)]
    if not good:
        for record in window:
            errors.handle(record.error)
        return None
    # the first record that shows a known shape decides; the others are read by it
    if known is not None:
        dialect, shape, place = known
        at = (place.line, place.col)
        first = next((r for r in good if (r.location.line, r.location.col) == at), good[0])
        return dialect, shape, first, Records(window, records)
    first = next((r for r in good if forced or telling(r.value)), None) or next(
        (r for r in good if _known(r.value)), good[0]
    )
    more = [r.value for r in good if r is not first]
    framed = source.container == "sse" or source.document is not None
    try:
        if forced is not None and source.archive is not None:
            _member_of(forced, first, more, framed)
        dialect, shape = _choose(first, more, forced, framed)
    except BaseException:
        records.close()  # (its file closed now: a zip's next member is read next)
        raise
    return dialect, shape, first, Records(window, records)


def _known(value: Any, more: list[Any] = (), framed: bool = False) -> bool:
    """Whether some dialect claims a record (detection starts at the first such record)."""
    try:
        return detect(value, more, framed) is not None
    except Ambiguous:  # (claimed by several: said when the sample is detected)
        return True


class Records:
    """A source's records: the window read for detection, then the rest of the stream."""

    __slots__ = ("rest", "window")

    def __init__(self, window: list[Record], rest: Iterator[Record]) -> None:
        self.window = window
        self.rest = rest

    def __iter__(self) -> Iterator[Record]:
        return itertools.chain(self.window, self.rest)


def _member_of(forced: Dialect, first: Record, more: list[Any], framed: bool) -> None:
    """A zip's member read whole with --from: one that holds no chat log of any format
    (an account's details beside an export's conversations) is not read as one."""
    value = first.value
    if not _known(value, more, framed) and not (
        forced.is_conversation(value) or forced.is_message(value) or is_message_list(value)
    ):
        raise NotAChatLog(
            f"not {forced.name}", first.location, kind=f"JSON that is not {forced.name}"
        )


def _choose(
    first: Record, more: list[Any], forced: Dialect | None, framed: bool = False
) -> tuple[Dialect, str]:
    value = first.value
    if forced is not None:
        if forced.stream:
            return forced, STREAM
        if forced.is_conversation(value) and not forced.is_message(value):
            return forced, CONVERSATIONS
        if isinstance(value, dict) and isinstance(value.get("messages"), list):
            return forced, CONVERSATIONS
        if is_message_list(value):  # a bare array of messages: one conversation
            return forced, CONVERSATIONS
        return forced, MESSAGES
    try:
        found = detect(value, more, framed)
    except Ambiguous as exc:
        raise exc.located(first.location) from None
    if found is None:
        refused = refusal(value)
        if refused is not None:
            raise NotAChatLog(refused[0], first.location, refused[1], refused[0])
        raise NotAChatLog(
            "cannot tell what chat format this is",
            first.location,
            hint=f"{keys_hint(value)}; name it with --from ({', '.join(readable())})",
            kind="JSON of no chat format",
        )
    return found
