"""One text per conversation (buffer, template), written as one process writes it
whether the conversations come in order or as parts' lines put back together."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import orjson

from ..errors import ChatpipeError
from ..io.encode import LONGEST_FOR_ORJSON, dumps_text
from ..model import Conversation
from .target import Target

if TYPE_CHECKING:
    from .job import Run


class Texts(Target):
    """One text per conversation, ``text(conversation)`` in pieces (buffer, template),
    each a str or its UTF-8 bytes (lone surrogates escaped: ``surrogateescape``).

    One conversation in, whatever holds it (a message-per-line log, a JSON document, a
    file of one row), gives its text and a final newline. Several give one JSON string
    per line, so they stay separable; ``between`` (a separator) or ``null`` (each ended by
    NUL) print them raw instead. Which of the two is known at the second conversation:
    the first one's text waits until then. A conversation whose text cannot be made (a
    template that refuses it) is an error of that conversation: the run stops, or it is
    skipped and reported.

    ``joiner``, for a text made message by message (buffer): what stands between two
    messages' texts, so that a log's messages can be made in pieces and joined.
    """

    rows = False  # (text: never Parquet rows)

    def __init__(
        self,
        text: Callable[[Conversation], Iterable[str]],
        between: str | None = None,
        null: bool = False,
        row_reader: Callable[[Any, Any, Any], Conversation | None] | None = None,
        notice: Any = None,
        joiner: str | None = None,
    ) -> None:
        from ..errors import UsageError

        if null and between is not None:
            raise UsageError("-0 and --separator both say how to separate conversations; pick one")
        self.text, self.between, self.null = text, between, null
        self.row_reader = row_reader  # how ``text`` would rather have rows read
        # what warns, once a run, while texts are made (buffer's turn-label check): its
        # ``warn`` (a function of the text) and ``warned``
        self.notice = notice
        self.joiner = joiner
        # buffer's pieces come through fast_hooks.buffer_batches, which writes plain rows
        self.plain_rows = joiner is not None and row_reader is None
        self.said = False  # a part's warning said for the run (``note``)

    def _listen(self, run: Run) -> None:
        """The notice warns through ``run`` (a part's run keeps it), once a run."""
        notice = self.notice
        if notice is not None and getattr(notice, "run", None) is not run:
            notice.run, notice.warned, notice.warn = run, False, run.note

    def writes_messages(self, dialect: Any) -> bool:
        return self.joiner is not None

    def log_lines(self, run: Run, conversations: Iterable[Conversation], out: Any) -> None:
        """A piece of a message log's text (the log read from its middle)."""
        self._listen(run)
        for conversation in conversations:
            for piece in self.text(conversation):
                out.raw(piece if type(piece) is bytes else piece.encode("utf-8", "surrogateescape"))

    def log_between(self) -> bytes:
        """What goes between two pieces of a log's text."""
        assert self.joiner is not None
        return self.joiner.encode("utf-8", "surrogateescape")

    def log_end(self) -> bytes:
        return b"\0" if self.null else b"\n"

    def part_lines(self, run: Run, conversations: Iterable[Conversation]) -> Iterator[bytes]:
        """Each conversation's text as a JSON string line, made where a part of the inputs
        is read (``--jobs`` workers, pipeline/parts.py); ``collect`` writes them as ``emit``
        would. The notice warns into the part's run, whose notes go back with the part."""
        self._listen(run)
        raw = self.null or self.between is not None
        for conversation in conversations:
            made, pieces = self.text(conversation), []
            try:
                pieces.extend(map(_as_text, made))
            except ChatpipeError:
                if raw:  # emit streams a raw text: what was made is written, then the error
                    yield b"[" + _text_json("".join(pieces)) + b"]"
                raise
            yield _text_json("".join(pieces))

    def collect(self, run: Run, sink: Any) -> _CollectedTexts:
        """A sink for ``part_lines``, in input order."""
        return _CollectedTexts(self, sink)

    def note(self, run: Run, text: str) -> None:
        """A warning a part's notice made, heard in input order: the run's first is said."""
        if not self.said:
            self.said = True
            run.note(text)

    def emit(self, run: Run, conversations: Iterator[Conversation], sink: Any) -> None:
        self._listen(run)
        raw = self.null or self.between is not None or None  # None: known at the second
        pending: str | None = None  # the first text, while it may be the only one
        written = 0
        for conversation in conversations:
            if raw is None and run.message_stream():
                raw = True  # one message log: its text streams as it is made
            try:
                pieces = self.text(conversation)
                if not raw:  # held whole, so its errors are the conversation's
                    pieces = ["".join(map(_as_text, pieces))]
            except ChatpipeError as exc:
                run.errors.handle(exc.located(conversation.location))
                continue
            if raw is None:
                if pending is None:
                    pending = pieces[0]
                    continue
                raw = False  # a second conversation: every text is a JSON string
                sink.line(dumps_text(pending))
                pending = None
            if not raw:
                sink.line(dumps_text(pieces[0]))
                continue
            if self.between is not None and written:
                sink.raw(self.between.encode("utf-8", "surrogateescape"))
            for piece in pieces:
                if type(piece) is not bytes:
                    piece = piece.encode("utf-8", "surrogateescape")
                sink.raw(piece)
            if self.null:
                sink.raw(b"\0")
            written += 1
        if pending is not None:
            sink.raw(pending.encode("utf-8", "surrogateescape"))
            raw = True
        if raw and not self.null:
            sink.raw(b"\n")


class _CollectedTexts:
    """Texts (JSON string lines, from ``Texts.part_lines``) written as ``Texts.emit``
    writes them: raw with a separator or NULs, or one JSON string a line, or, for a
    single conversation, its text and a newline."""

    def __init__(self, texts: Texts, sink: Any) -> None:
        self.texts, self.sink = texts, sink
        self.pending = b""  # the part of a line not yet handed over
        self.first: str | None = None  # the first text, while it may be the only one
        self.written = 0
        self.raw = texts.null or texts.between is not None

    def line(self, data: bytes) -> None:
        self.borrowed(data + b"\n")

    def borrowed(self, data: Any) -> None:
        data = self.pending + bytes(data)
        end = data.rfind(b"\n") + 1
        self.pending = data[end:]
        start = 0
        while start < end and not self.raw and not self.written:  # the first two decide
            stop = data.index(b"\n", start)
            if stop > start:
                self.add(_text_of_json(data[start:stop]))
            start = stop + 1
        if not self.raw and _as_written(data, start, end):
            with memoryview(data) as view:  # JSON string lines, as add would write them again
                self.sink.borrowed(view[start:end])
            self.written += data.count(b"\n", start, end)
            return
        for line in data[start:end].split(b"\n"):
            if line:
                self.add(_text_of_json(line))

    raw = borrowed

    def add(self, text: str | list[str]) -> None:
        texts, sink = self.texts, self.sink
        if self.raw:
            if texts.between is not None and self.written:
                sink.raw(texts.between.encode("utf-8", "surrogateescape"))
            if type(text) is list:  # a raw text cut short by an error: as far as it went
                sink.raw(text[0].encode("utf-8", "surrogateescape"))
                return
            sink.raw(text.encode("utf-8", "surrogateescape"))
            if texts.null:
                sink.raw(b"\0")
        elif self.first is None and not self.written:
            self.first = text
            return
        else:
            if self.first is not None:
                sink.line(dumps_text(self.first))
                self.first = None
            sink.line(dumps_text(text))
        self.written += 1

    def abort(self) -> None:
        """The run failed: nothing of its own to undo."""

    def close(self) -> None:
        if self.first is not None:  # one conversation: its text as it is
            self.sink.raw(self.first.encode("utf-8", "surrogateescape"))
            self.raw = True
        if self.raw and not self.texts.null:
            self.sink.raw(b"\n")


def _text_json(text: str) -> bytes:
    """A text as a JSON string that ``_text_of_json`` reads back exactly (a byte a
    command line gave that is not UTF-8, ``\\udcff``, as an escape)."""
    if len(text) < LONGEST_FOR_ORJSON:
        try:
            return orjson.dumps(text)
        except TypeError:  # a lone surrogate
            pass
    return json.dumps(text).encode()


def _as_written(data: bytes, start: int, end: int) -> bool:
    """True when the JSON string lines of ``_text_json`` in ``data[start:end]`` are what
    ``dumps_text`` writes for their texts: orjson made them (the standard library writes
    a text with a lone surrogate as ``\\udcXX``, and a text too long for orjson ASCII
    only: here, lines longer than that) and none is blank."""
    return (
        end - start < LONGEST_FOR_ORJSON
        and data.find(b"\\ud", start, end) < 0
        and data.find(b"\n\n", start, end) < 0
        and data[start : start + 1] != b"\n"
    )


def _text_of_json(line: bytes) -> str:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)


def _as_text(piece: str | bytes) -> str:
    """A piece of text: pieces may come encoded already (UTF-8, lone surrogates escaped)."""
    return piece.decode("utf-8", "surrogateescape") if type(piece) is bytes else piece
