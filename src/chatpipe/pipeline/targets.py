"""How a job's conversations become output (the ``target`` of a Job): records of a
dialect or its document (``ToDialect``), a line each (``Lines``), a framed text each
(``Texts``), figures per conversation and overall (``Stats``)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import orjson

from ..errors import ChatpipeError
from ..io.encode import LONGEST_FOR_ORJSON, dumps_text
from ..model import Conversation
from .job import Run
from .losses import LossReport
from .writing import write_records


class ToDialect:
    """Conversations as JSON records of a dialect, in the shape they came in (a message
    log message per line, conversations one per line), or a dialect's document (Markdown,
    YAML). ``to=None`` writes the input's dialect when it can be written, canonical
    otherwise. ``writer`` (an object with ``write(messages)``) replaces the dialect's
    message writer; ``as_json`` gives one JSON array; ``losses`` notices what the
    dialect named by ``to`` cannot hold (the run's ``losses``); ``output_dir`` writes a
    dialect that makes a folder of pages (html) there instead of into the output."""

    def __init__(
        self,
        to: str | None = None,
        *,
        as_json: bool = False,
        writer: Any = None,
        losses: bool = True,
        output_dir: str | None = None,
        settings: dict[str, Any] | None = None,
    ) -> None:
        from ..errors import UsageError
        from ..formats.registry import writing_dialect

        self.dialect = None if to is None else writing_dialect(to)
        if settings or (self.dialect is not None and hasattr(self.dialect, "configured")):
            # what the batch writers ask for (--model...): a dialect of the run's own, which
            # numbers its requests in order, so in one process
            if not hasattr(self.dialect, "configured"):
                flags = ", ".join("--" + k.replace("_", "-") for k in settings or ())
                raise UsageError(f"{flags}: only --to openai-batch and anthropic-batch take it")
            self.dialect = self.dialect.configured(**(settings or {}))
        if as_json and self.dialect is not None and self.dialect.document:
            raise UsageError(
                f"--json writes one JSON document; {self.dialect.name} is a document of its own",
                hint="drop --json, or write --to canonical or openai",
            )
        if output_dir is not None and (self.dialect is None or not self.dialect.pages):
            raise UsageError(
                "--output-dir writes a folder of pages, which only --to html makes",
                hint="add --to html, or write one file with -o",
            )
        self.as_json, self.writer, self.report_losses = as_json, writer, losses
        self.output_dir = output_dir
        # ``to=None`` in a run cut into parts: the dialect of the run's first input, which
        # one process finds at its first conversation and every part must write (settled)
        self.found: Any = None
        if output_dir is not None:
            self.lines = None  # one process: the pages are one folder
        if as_json or (self.dialect is not None and self.dialect.document):
            self.lines = None
        if self.dialect is not None and hasattr(self.dialect, "configured"):
            self.lines = None

    def loss_report(self) -> LossReport | None:
        if not self.report_losses or self.dialect is None:
            return None
        report = LossReport(self.dialect.name, getattr(self.dialect, "checked_as", None))
        if hasattr(self.dialect, "report_to"):  # what a batch's requests cannot hold
            self.dialect.report_to(report)
        return report

    def _dialect(self, run: Run) -> Any:
        from ..formats.registry import get_dialect

        if self.dialect is not None:
            return self.dialect
        found = self.found or run.input_dialect()
        return found if found.writable else get_dialect("canonical")

    def settled(self, job: Any) -> ToDialect:
        """This target for the parts of ``job``'s run, which all write one dialect: with
        ``to=None``, that of its first input that holds a record."""
        import copy

        from ..formats.registry import reading_dialect
        from .reading import detect_file

        if self.dialect is not None or self.found is not None:
            return self
        forced = reading_dialect(job.inputs.dialect)
        for spec in job.inputs.files:
            try:
                found = detect_file(spec, forced)
            except ChatpipeError:  # a file that cannot be read: the run says so in its turn
                continue
            if found is not None:
                settled = copy.copy(self)
                settled.found = found[1]
                return settled
        return self

    def lines(self, run: Run, conversations: Iterable[Conversation]) -> Iterator[bytes]:
        return self._records(run, conversations, False)

    def _records(
        self, run: Run, conversations: Iterable[Conversation], as_json: bool
    ) -> Iterator[bytes]:
        # the input's dialect is known once its first conversation has been read
        conversations = iter(conversations)
        first = next(conversations, None)
        if first is None:
            return iter([b"[]"] if as_json else [])
        dialect = self._dialect(run)
        whole = dialect.write_conversation if dialect.conversation_records else None
        return write_records(
            itertools.chain([first], conversations),
            self.writer.write if self.writer is not None else dialect.write_messages,
            run.message_stream,
            as_json,
            whole if self.writer is None else None,
            dialect.record_meta,
            self.writer if self.writer is not None else dialect,
            errors=run.errors,
        )

    def emit(self, run: Run, conversations: Iterator[Conversation], sink: Any) -> None:
        if self.output_dir is not None:
            self._pages(conversations)
        elif self.dialect is not None and self.dialect.document:
            first = next(conversations, None)
            if first is not None:
                chained = itertools.chain([first], conversations)
                for text in self.dialect.render(chained, run.message_stream()):
                    sink.raw(text.encode())
        elif self.as_json:
            for piece in self._records(run, conversations, True):
                sink.raw(piece)
            sink.raw(b"\n")
        else:  # (``lines`` is None where the output cannot be made in parts)
            for line in self._records(run, conversations, False):
                sink.line(line)

    def _pages(self, conversations: Iterator[Conversation]) -> None:
        from ..io.sink import OutputFolder

        assert self.dialect is not None and self.output_dir is not None
        folder = OutputFolder(self.output_dir)
        try:
            for name, text in self.dialect.render_pages(conversations):
                folder.write(name, text.encode("utf-8", "surrogateescape"))
        except BaseException:
            folder.abort()
            raise
        folder.commit()


class Lines:
    """One line of bytes per conversation, ``line(conversation)`` (count)."""

    def __init__(self, line: Callable[[Conversation], bytes]) -> None:
        self.line = line

    def loss_report(self) -> None:
        return None

    def lines(self, run: Run, conversations: Iterable[Conversation]) -> Iterator[bytes]:
        return map(self.line, conversations)

    def emit(self, run: Run, conversations: Iterator[Conversation], sink: Any) -> None:
        for line in self.lines(run, conversations):
            sink.line(line)


class Texts:
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

    lines = None

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

    def loss_report(self) -> None:
        return None

    def part_lines(self, run: Run, conversations: Iterable[Conversation]) -> Iterator[bytes]:
        """Each conversation's text as a JSON string line, made where a part of the inputs
        is read (``--jobs`` workers, pipeline/parts.py); ``collect`` writes them as ``emit``
        would. The notice warns into ``run.part_notes``, which go back with the part."""
        if self.notice is not None:
            self.notice.warn = run.part_notes.append
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

    def note(self, text: str) -> None:
        """A warning a part's notice made, heard in input order: the run's first is said."""
        notice = self.notice
        if notice is not None and not notice.warned:
            notice.warned = True
            notice.warn(text)

    def emit(self, run: Run, conversations: Iterator[Conversation], sink: Any) -> None:
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


class Stats:
    """A JSON line of figures per conversation (``conversation_stats``), then
    ``{"overall": ...}``; with ``rows=False`` the figures are only kept (``each``), for
    a table. ``after(each, overall)`` gives a text written at the end (a table, a page).
    ``max_tokens`` adds to the overall figures how many conversations are over it."""

    lines = None

    def __init__(
        self,
        counter: Any,
        rows: bool = True,
        after: Callable[[list[dict[str, Any]], dict[str, Any]], str] | None = None,
        max_tokens: int | None = None,
    ) -> None:
        self.counter, self.rows, self.after = counter, rows, after
        self.max_tokens = max_tokens
        self.each: list[dict[str, Any]] = []
        self.ids: list[Any] = []  # each conversation's id (None when it has none)

    def loss_report(self) -> None:
        return None

    def overall(self) -> dict[str, Any]:
        from ..ops.stats import overall_stats

        return overall_stats(self.each, self.max_tokens)

    def figures(self, conversation: Conversation) -> tuple[Any, dict[str, Any]]:
        """A conversation's id (None when it has none) and figures."""
        from ..ops.count import counter_for
        from ..ops.stats import conversation_stats

        counter = counter_for(self.counter, conversation)
        return conversation.meta.get("id"), conversation_stats(conversation.messages, counter)

    def emit(self, run: Run, conversations: Iterator[Conversation], sink: Any) -> None:
        collected = self.collect(run, sink)
        for conversation in conversations:
            collected.add(*self.figures(conversation))
        collected.close()

    def part_lines(self, run: Run, conversations: Iterable[Conversation]) -> Iterator[bytes]:
        """Each conversation's id and figures as a JSON line, made where a part of the
        inputs is read (pipeline/parts.py); ``collect`` numbers and writes them."""
        return (orjson.dumps(self.figures(c)) for c in conversations)

    def collect(self, run: Run, sink: Any) -> _Collected:
        """A sink for ``part_lines``, in input order: it writes the rows to ``sink``
        and, when closed, the overall figures."""
        return _Collected(self, sink)


class _Collected:
    def __init__(self, stats: Stats, sink: Any) -> None:
        self.stats, self.sink = stats, sink
        self.pending = b""

    def add(self, ident: Any, figures: dict[str, Any]) -> None:
        stats = self.stats
        stats.each.append(figures)
        stats.ids.append(ident)
        if stats.rows:
            named = {"id": ident} if ident is not None else {}
            row = {"conversation": len(stats.each), **named, **figures}
            self.sink.line(orjson.dumps(row))

    def line(self, data: bytes) -> None:
        self.borrowed(data + b"\n")

    def borrowed(self, data: Any) -> None:
        lines = (self.pending + bytes(data)).split(b"\n")
        self.pending = lines.pop()
        for line in lines:
            if line:
                self.add(*orjson.loads(line))

    raw = borrowed

    def close(self) -> None:
        stats = self.stats
        if stats.rows:
            self.sink.line(orjson.dumps({"overall": stats.overall()}))
        if stats.after is not None:
            self.sink.raw(stats.after(stats.each, stats.overall()).encode())
