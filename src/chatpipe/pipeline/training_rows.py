"""Training rows as a job's target (``chatpipe tokenize``): a JSON object per
conversation, or per pack of them.

A row is the conversation's other fields (its ``id`` among them) followed by
``input_ids``, ``assistant_masks``, ``labels`` (with ``labels=True``) and ``length``.
Each row is a function of its conversation alone (``row``), so the work can be split by
conversation (``part_lines``) and run in parts. A conversation that gives no row (an all-zero
mask, a template that refuses it, a row over ``--max-length`` with ``--truncate
error``) is an error of that conversation: the run stops, or skips and reports it.

With ``pack``, rows are packed in input order (templates/packing.py): one process packs
as it goes; parts make their rows apart (``part_lines``) and ``collect`` packs them here
in input order, so the packs are those of one process.

``tally`` counts what the run's report says: rows written, rows cut by ``--max-length``
and their tokens, each method's conversations, the conversations whose prefixes render
differently; a part sends its cut rows back as notes (``note``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from ..errors import ChatpipeError
from ..io.encode import dumps
from ..model import Conversation
from .target import Target

if TYPE_CHECKING:
    from .job import Run

_CUT = "tokenize-cut:"  # a part's note of a row cut by --max-length: its tokens cut


@dataclass
class Tally:
    rows: int = 0
    cut_rows: int = 0
    cut_tokens: int = 0
    packs: int = 0
    methods: Counter = field(default_factory=Counter)
    rewritten: int = 0

    def add(self, tokenized: Any) -> None:
        self.rows += 1
        self.methods[tokenized.method] += 1
        self.rewritten += tokenized.rewritten
        if tokenized.cut:
            self.cut_rows += 1
            self.cut_tokens += tokenized.cut


class TokenRows(Target):
    """Conversations as token rows through ``tokenizer`` (a ``ChatTokenizer``)."""

    def __init__(self, tokenizer: Any, *, labels: bool = False, pack: int | None = None) -> None:
        self.tokenizer, self.with_labels = tokenizer, labels
        self.tally = Tally()
        self.packer = None
        if pack is not None:
            from ..templates.packing import Packer

            self.packer = Packer(pack)  # packs: rows in order, packed here (collect)

    def row(self, conversation: Conversation) -> tuple[dict[str, Any], Any]:
        """A conversation's row, and its ``Tokenized`` (method, tokens cut)."""
        made = self.tokenizer.tokenize(
            conversation.messages, conversation.meta, conversation.location
        )
        key = conversation.messages_key
        row = {k: v for k, v in conversation.meta.items() if v is not None and k != key}
        row["input_ids"] = made.input_ids
        row["assistant_masks"] = made.assistant_masks
        if self.with_labels:
            row["labels"] = made.labels()
        row["length"] = len(made.input_ids)
        return row, made

    def part_lines(self, run: Run, conversations: Iterable[Conversation]) -> Iterator[bytes]:
        """Each conversation's row as a JSON line, made where a part of the inputs is read;
        a row cut by --max-length says so in a note that goes back with the part."""
        for conversation in conversations:
            row, made = self.row(conversation)
            if made.cut:
                run.note(f"{_CUT}{made.cut}")
            yield dumps(row)

    def collect(self, run: Run, sink: Any) -> Any:
        return _Counted(self, sink) if self.packer is None else self._collect(run, sink)

    def note(self, run: Run, text: str) -> None:
        """A part's note, heard in input order: a row it cut."""
        if text.startswith(_CUT):
            self.tally.cut_rows += 1
            self.tally.cut_tokens += int(text[len(_CUT) :])

    def emit(self, run: Run, conversations: Iterator[Conversation], sink: Any) -> None:
        collected = self._collect(run, sink) if self.packer is not None else None
        for conversation in conversations:
            try:
                row, made = self.row(conversation)
            except ChatpipeError as exc:
                run.errors.handle(exc.located(conversation.location))
                continue
            self.tally.add(made)
            if collected is None:
                sink.line(dumps(row))  # (a row's own fields: integers past 64 bits too)
            else:
                collected.add(row)
        if collected is not None:
            collected.close()

    def said(self, verbose: bool = False) -> list[str]:
        """What the run's report says: the rows cut by --max-length; with ``verbose``
        how each conversation's masks were found, and the packs."""
        from ..templates.token_ids import GENERATION, PER_TURN, PREFIX

        tally, tokens, lines = self.tally, self.tokenizer, []
        if tally.cut_rows:
            of = f" of {tally.rows}" if tally.rows else ""
            lines.append(
                f"cut {tally.cut_rows} row{'s' * (tally.cut_rows != 1)}{of} to --max-length "
                f"{tokens.max_length} ({tally.cut_tokens} tokens cut, on the {tokens.truncate})"
            )
        if not verbose:
            return lines
        origin = tokens.template.source.origin
        how = {
            GENERATION: "from its {% generation %} markers",
            PER_TURN: "per turn: each turn as the template renders it in the whole conversation",
            PREFIX: "from rendered prefixes (the template's message loop cannot be followed)",
        }
        for method, count in sorted(tally.methods.items()):
            s = "s" * (count != 1)
            lines.append(
                f"tokenize: {count} conversation{s}: assistant masks {how[method]}, {origin}"
            )
        if tally.rewritten:
            one = tally.rewritten == 1
            lines.append(
                f"tokenize: {tally.rewritten} conversation{'s' * (not one)} "
                f"render{'s' * one} differently from {'its' if one else 'their'} prefixes (the "
                "template rewrites earlier turns, or closes the conversation): masks from "
                "rendered prefixes would be wrong there; the per-turn masks are not"
            )
        encoded = tokens.tokenizer.encoded()
        if encoded:
            lines.append(f"tokenize: {encoded}")
        if tally.packs:
            lines.append(
                f"tokenize: {tally.rows} rows in {tally.packs} pack{'s' * (tally.packs != 1)}"
            )
        return lines

    def _collect(self, run: Run, sink: Any) -> _Packs:
        """A sink for rows in input order (``part_lines``, or ``emit``'s own) that
        writes them packed."""
        return _Packs(self, sink)


class _Counted:
    """Rows from parts, in input order, written as they come and counted."""

    def __init__(self, rows: TokenRows, sink: Any) -> None:
        self.rows, self.sink = rows, sink

    def line(self, data: bytes) -> None:
        self.rows.tally.rows += 1
        self.sink.line(data)

    def borrowed(self, data: Any) -> None:
        self.rows.tally.rows += bytes(data).count(b"\n") if data else 0
        self.sink.borrowed(data)

    raw = borrowed

    def abort(self) -> None:
        """The run failed: nothing of its own to undo."""

    def close(self) -> None:
        pass


class _Packs:
    def __init__(self, rows: TokenRows, sink: Any) -> None:
        self.rows, self.sink = rows, sink
        self.pending = b""

    def add(self, row: dict[str, Any]) -> None:
        packer = self.rows.packer
        assert packer is not None
        done = packer.add(row)
        if done is not None:
            self._write(done)

    def _write(self, pack: dict[str, Any]) -> None:
        self.rows.tally.packs += 1
        self.sink.line(orjson.dumps(pack))

    def line(self, data: bytes) -> None:
        self.borrowed(data + b"\n")

    def borrowed(self, data: Any) -> None:
        lines = (self.pending + bytes(data)).split(b"\n")
        self.pending = lines.pop()
        for line in lines:
            if line:
                self.rows.tally.rows += 1
                self.add(orjson.loads(line))

    raw = borrowed

    def abort(self) -> None:
        """The run failed: nothing of its own to undo."""

    def close(self) -> None:
        packer = self.rows.packer
        assert packer is not None
        last = packer.close()
        if last is not None:
            self._write(last)
