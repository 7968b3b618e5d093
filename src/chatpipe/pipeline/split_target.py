"""The target of ``chatpipe split``: each conversation written into its side's file, in
a folder that appears when the run ends well."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import UsageError
from ..formats.registry import record_dialects
from ..model import Conversation
from . import fast_hooks
from .job import Run
from .target import Target


class Sides(Target):
    """Conversations written into a file per side of ``splitter`` (``Splitter``) in
    ``output_dir``, as ``records`` (a ``ToDialect`` of records) writes them; each side's
    file is staged and moved into place when the run ends well. In parts, each line says
    its side (``part_lines``), and the collector writes it into that side's file in input
    order."""

    def __init__(self, splitter: Any, records: Any, output_dir: str) -> None:
        if not records.parts:
            raise UsageError(
                "split writes records, a file per side: this --to writes documents",
                hint="pick a --to that writes records: " + ", ".join(record_dialects()),
            )
        self.splitter, self.records, self.output_dir = splitter, records, output_dir
        self.numbers = {name: k for k, name in enumerate(splitter.names)}
        self.plain_rows = records.plain_rows

    @property
    def folder(self) -> Any:
        """The folder and the files the run puts in it (checked before the run)."""
        from ..io.outputs import Folder

        names = [f"{name}.jsonl" for name in self.splitter.names]
        return Folder("--output-dir", self.output_dir, names)

    def loss_report(self) -> Any:
        return self.records.loss_report()

    def part_lines(self, run: Run, conversations: Iterable[Conversation]) -> Iterator[bytes]:
        write = self.records.part_lines
        for conversation in conversations:
            side = fast_hooks.split_side(self.splitter, conversation)  # (a plain row's)
            if side is None:
                side, conversation = self.splitter.placed(conversation)
            side = b"%d\t" % self.numbers[side]
            for line in write(run, [conversation]):
                yield side + line

    def collect(self, run: Run, sink: Any) -> _SideFiles:
        return _SideFiles(self, list(run.job.inputs.files))

    def emit(self, run: Run, conversations: Iterator[Conversation], sink: Any) -> None:
        into = self.collect(run, sink)
        try:
            for line in self.part_lines(run, conversations):
                into.line(line)
        except BaseException:
            into.abort()
            raise
        into.close()


class _SideFiles:
    """The sides' files, each line of ``Sides.part_lines`` written into its side's."""

    def __init__(self, sides: Sides, inputs: list[str]) -> None:
        from ..io.folders import OutputFolder
        from ..io.sink import Sink

        self.folder = OutputFolder(sides.output_dir)
        self.files: list[Any] = []
        self.pending = b""
        try:
            for name in sides.splitter.names:
                assert self.folder.staging is not None
                path = os.path.join(self.folder.staging, f"{name}.jsonl")
                self.files.append(Sink(path, inputs))
                self.folder.files.append(f"{name}.jsonl")
        except BaseException:
            self.abort()
            raise

    def line(self, data: bytes) -> None:
        side, _, record = data.partition(b"\t")
        self.files[int(side)].line(record)

    def borrowed(self, data: Any) -> None:
        lines = (self.pending + bytes(data)).split(b"\n")
        self.pending = lines.pop()
        for line in lines:
            if line:
                self.line(line)

    raw = borrowed

    def close(self) -> None:
        for side in self.files:
            side.close(True)
        self.folder.commit()

    def abort(self) -> None:
        for side in self.files:
            side.close(False)
        self.folder.abort()
