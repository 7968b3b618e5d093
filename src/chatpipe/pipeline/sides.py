"""The target of ``chatpipe split``: each conversation written into its side's file, in
a folder that appears when the run ends well."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from ..errors import UsageError
from ..model import Conversation
from .job import Run
from .target import Target


class Sides(Target):
    """Conversations written into a file per side of ``splitter`` (``Splitter``) in
    ``output_dir``, as ``records`` (a ``ToDialect`` of records) writes them; each side's
    file is staged and moved into place when the run ends well."""

    one_process = True  # each side's file is written in input order

    def __init__(self, splitter: Any, records: Any, output_dir: str) -> None:
        if not records.parts:
            raise UsageError(
                "split writes records, a file per side: this --to writes documents",
                hint="pick --to canonical, openai, langchain, anthropic, gemini or sharegpt",
            )
        self.splitter, self.records, self.output_dir = splitter, records, output_dir

    def loss_report(self) -> Any:
        return self.records.loss_report()

    def emit(self, run: Run, conversations: Iterator[Conversation], sink: Any) -> None:
        from ..io.sink import OutputFolder, Sink

        folder = OutputFolder(self.output_dir)
        inputs = list(run.job.inputs.files)
        sinks: dict[str, Sink] = {}
        ok = False
        try:
            for name in self.splitter.names:
                assert folder.staging is not None
                sinks[name] = Sink(os.path.join(folder.staging, f"{name}.jsonl"), inputs)
                folder.files.append(f"{name}.jsonl")
            write = self.records.part_lines
            for conversation in conversations:
                side = sinks[self.splitter.side(conversation)]
                for line in write(run, [conversation]):
                    side.line(line)
            ok = True
        finally:
            for side in sinks.values():
                side.close(ok)
            if not ok:
                folder.abort()
        folder.commit()


def listed(conversation: Conversation) -> Conversation:
    """The operation of a split: the conversation with its messages in a list (a log's
    are read once), for its side's key and its records."""
    from ..ops.facts import listed as with_list

    return with_list(conversation)[0]
