"""How a job's conversations become output (the ``target`` of a Job): records of a
dialect or its document (``ToDialect``), a line each (``Lines``), figures per
conversation and overall (``Stats``); a framed text each is texts.py's ``Texts``."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import orjson

from ..model import Conversation
from . import fast_hooks
from .losses import LossReport
from .target import Run, Target
from .writing import write_records


class ToDialect(Target):
    """Conversations as JSON records of a dialect, in the shape they came in (a message
    log message per line, conversations one per line), or a dialect's document (Markdown,
    YAML). ``to=None`` writes the input's dialect when it can be written as records, canonical
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
        from ..formats.registry import get_dialect, writable, writing_dialect

        self.dialect = None if to is None else writing_dialect(to)
        settings = settings or {}
        taken = () if self.dialect is None else self.dialect.writer_settings
        unknown = [k for k in settings if k not in taken]
        if unknown:
            flags = ", ".join("--" + k.replace("_", "-") for k in unknown)
            takers = [
                d.name
                for d in map(get_dialect, writable())
                if all(k in d.writer_settings for k in unknown)
            ]
            listed = " and ".join([", ".join(takers[:-1]), takers[-1]] if takers[1:] else takers)
            which = "" if self.dialect is None else f"--to {self.dialect.name} takes no "
            take = "take it" if takers[1:] else "takes it"
            raise UsageError(f"{which}{flags}: only --to {listed or 'no dialect'} {take}")
        if self.dialect is not None and self.dialect.writer_settings:
            # what a writer asks for (an API's --keep-extras, a batch's --model...): a
            # dialect of the run's own, which says what it leaves out to the run's report
            self.dialect = self.dialect.configured(**settings)
        if as_json and self.dialect is not None and self.dialect.document:
            raise UsageError(
                f"--json writes one JSON document; {self.dialect.name} is a document of its own",
                hint="drop --json, or write --to canonical or openai",
            )
        if output_dir is not None and (self.dialect is None or not self.dialect.pages):
            raise UsageError(
                "--output-dir writes a folder of pages, which --to html and --to markdown make",
                hint="add --to html or --to markdown, or write one file with -o",
            )
        self.as_json, self.writer, self.report_losses = as_json, writer, losses
        self.output_dir = output_dir
        # ``to=None`` in a run cut into parts: the dialect of the run's first input, which
        # one process finds at its first conversation and every part must write (settled)
        self.found: Any = None
        self._written: dict[str, Any] = {}  # the input dialects written, as ``faithful``
        self._said: set[str] = set()  # the parts' warnings said (each once)
        # a folder of pages, one JSON document, a document for people, a batch whose
        # requests are numbered in order: one process
        document = self.dialect is not None and self.dialect.document
        numbered = self.dialect is not None and self.dialect.takes_settings
        self.parts = output_dir is None and not as_json and not document and not numbered
        self.rows = not as_json and not document
        # records written through writing.py, whose hook writes plain rows
        self.plain_rows = output_dir is None and not document

    def loss_report(self) -> LossReport | None:
        if not self.report_losses or self.dialect is None:
            return None
        report = LossReport(self.dialect)
        self.dialect.report_to(report)  # (what a batch's requests cannot hold, as written)
        return report

    def _dialect(self, run: Run) -> Any:
        from ..formats.registry import default_dialect

        if self.dialect is not None:
            return self.dialect
        found = self.found or run.input_dialect()
        if found.writable and found.document:
            # (an input whose dialect is written as a document, Open WebUI's import file:
            # the records of chatpipe's own)
            return default_dialect()
        if found.writable:
            return self.faithful(found)
        written = default_dialect()
        if found is not written:  # (a Claude Code session, a ChatGPT export)
            self.note(run, f"{found.name} is read only: wrote {written.name} instead")
        return written

    def faithful(self, dialect: Any) -> Any:
        """The input's own dialect, written as faithfully as it can be (an API's request
        with every field its reader kept): what a command writes with no --to."""
        made = self._written.get(dialect.name)
        if made is None:
            keep = "keep_extras" in dialect.writer_settings
            made = self._written[dialect.name] = (
                dialect.configured(keep_extras=True) if keep else dialect
            )
        return made

    def settled(self, dialect: Any) -> ToDialect:
        """This target for the parts of a run, which all write one dialect: with
        ``to=None``, ``dialect``, that of the run's first input holding a record."""
        import copy

        if self.dialect is not None or self.found is not None:
            return self
        settled = copy.copy(self)
        settled.found = dialect
        return settled

    def note(self, run: Run, text: str) -> None:
        """A part's warning: said once, however many parts made it (each says which
        dialect it wrote)."""
        if text not in self._said:
            self._said.add(text)
            run.note(text)

    def writes_messages(self, dialect: Any) -> bool:
        written = self.dialect or dialect
        return self.parts and (self.writer is not None or written.messages_by_line)

    def log_lines(self, run: Run, conversations: Iterable[Conversation], out: Any) -> None:
        """A piece of a message log's output (the log read from its middle)."""
        for record in self.lines(run, conversations):
            out.line(record)

    def lines(self, run: Run, conversations: Iterable[Conversation]) -> Iterator[bytes]:
        return self._records(run, conversations, False)

    part_lines = lines

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
            writes=dialect.writes if self.writer is None else None,
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
        from ..io.folders import OutputFolder

        assert self.dialect is not None and self.output_dir is not None
        folder = OutputFolder(self.output_dir)
        try:
            for name, text in self.dialect.render_pages(conversations):
                data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape")
                folder.write(name, data)
        except BaseException:
            folder.abort()
            raise
        folder.commit()


class Lines(Target):
    """One line of bytes per conversation, ``line(conversation)`` (count); with ``many``,
    ``line`` gives any number of lines for it (grep's hits: none, one or several);
    ``one_process``: ``line`` keeps something across the run (numbers, counts, places)."""

    def __init__(
        self, line: Callable[[Conversation], Any], many: bool = False, one_process: bool = False
    ) -> None:
        self.line, self.many, self.one_process = line, many, one_process
        # a line fast/ makes from a row's plain dicts too (count's): rows may be read so
        fast = fast_hooks.row_line(line)
        self.plain_rows = fast is not None
        self.made = fast or line

    def part_lines(self, run: Run, conversations: Iterable[Conversation]) -> Iterator[bytes]:
        if not self.many:
            return map(self.made, conversations)
        return (line for conversation in conversations for line in self.made(conversation))


class Stats(Target):
    """A JSON line of figures per conversation (its number, id, file and title, then
    ``conversation_stats``), then ``{"overall": ...}``; with ``rows=False`` the figures
    are only kept (``each``), for a table. ``after(each, overall)`` gives a text written
    at the end (a table, a page). ``max_tokens`` adds to the overall figures how many
    conversations are over it."""

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
        self.names: list[dict[str, Any]] = []  # each conversation's file and title

    def overall(self) -> dict[str, Any]:
        from ..ops.stats import overall_stats

        return overall_stats(self.each, self.max_tokens)

    def figures(self, conversation: Conversation) -> tuple[Any, dict[str, Any], dict[str, Any]]:
        """A conversation's id (None when it has none), file and title, and figures."""
        from ..ops.count import counter_for
        from ..ops.facts import title
        from ..ops.stats import conversation_stats

        counter = counter_for(self.counter, conversation)
        place = conversation.location
        named = {"file": None if place is None else place.file, "title": title(conversation)}
        figures = conversation_stats(conversation.messages, counter)
        return conversation.meta.get("id"), named, figures

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

    def add(self, ident: Any, named: dict[str, Any], figures: dict[str, Any]) -> None:
        stats = self.stats
        stats.each.append(figures)
        stats.ids.append(ident)
        stats.names.append(named)
        if stats.rows:
            row = {"conversation": len(stats.each), **({"id": ident} if ident is not None else {})}
            row.update(named)
            row.update(figures)
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

    def abort(self) -> None:
        """The run failed: nothing of its own to undo."""

    def close(self) -> None:
        stats = self.stats
        if stats.rows:
            self.sink.line(orjson.dumps({"overall": stats.overall()}))
        if stats.after is not None:
            self.sink.raw(stats.after(stats.each, stats.overall()).encode())
