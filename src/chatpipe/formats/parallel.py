"""``--jobs N``: conversation-per-line JSONL converted by N worker processes, written in
input order. Each worker reads a byte range of the file and writes its lines to a file of
its own; the main process copies those files to the output in order (in the kernel where
it can), so the output never crosses a pipe between processes."""

from __future__ import annotations

import multiprocessing
import os
import tempfile
from collections.abc import Iterator
from typing import Any

import orjson

from ..errors import ChatpipeError, DataError, Location
from ..io import Record, Source
from .losses import CHECKS

_CHUNK = 256  # lines handed to a worker at a time
_SETTINGS: tuple = ()  # what every line of one run shares, set once per worker


def parallel_dialect(spec: str, forced: Any, errors: Any) -> Any:
    """The dialect of a conversation-per-line JSONL file (what --jobs splits by line), or
    None when the file is something else."""
    from . import CONVERSATIONS, open_records

    if spec == "-":
        return None
    source = Source(spec)
    opened = open_records(source, forced, errors)
    if opened is None or opened[1] != CONVERSATIONS or source.container != "jsonl":
        return None
    return opened[0]


def convert_lines(
    spec: str, dialect: str, target: str, branch: str, include_hidden: bool, jobs: int
) -> Iterator[tuple[str, Any]]:
    """("lines", path of a file of output lines), ("loss", (kind, conversation, message))
    and ("error", DataError) items, in input order. A file is removed once the next item
    is asked for.

    The file is cut into line-aligned byte ranges; each worker converts its own range
    into a file in a directory of this run's.
    """
    context = multiprocessing.get_context(
        "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    )
    ranges = _ranges(spec, jobs * 8)
    with tempfile.TemporaryDirectory(prefix="chatpipe-jobs-") as folder:
        settings = (spec, dialect, target, branch, include_hidden, folder)
        with context.Pool(jobs, _settle, (settings,)) as pool:
            lines_before = conversations_before = 0
            for path, lines, conversations, losses, errors in pool.imap(_convert_range, ranges):
                for message, line, col in errors:
                    yield "error", DataError(message, Location(spec, lines_before + line, col))
                for kind, conversation, index in losses:
                    yield "loss", (kind, conversations_before + conversation, index)
                if path is not None:
                    yield "lines", path
                    os.remove(path)
                lines_before += lines
                conversations_before += conversations


def _ranges(spec: str, parts: int) -> list[tuple[int, int]]:
    """Byte ranges of a file, each starting at a line start."""
    size = os.path.getsize(spec)
    starts = [0]
    with open(spec, "rb") as stream:
        for k in range(1, parts):
            stream.seek(max(starts[-1], size * k // parts))
            if stream.tell() != 0:
                stream.readline()
            position = stream.tell()
            if position >= size:
                break
            if position > starts[-1]:
                starts.append(position)
    return list(zip(starts, [*starts[1:], size], strict=True))


def _settle(settings: tuple) -> None:
    global _SETTINGS
    _SETTINGS = settings


def _convert_range(span: tuple[int, int]) -> tuple[str | None, int, int, list, list]:
    """(file of output lines or None, lines read, conversations written, losses, errors)
    for one range; line numbers are relative to the range's start."""
    from . import ReadOptions, conversations_of, get_dialect
    from .write import write_records

    spec, dialect_name, target_name, branch, include_hidden, folder = _SETTINGS
    dialect, target = get_dialect(dialect_name), get_dialect(target_name)
    check = CHECKS.get(target_name)
    options = ReadOptions(branch, include_hidden)
    with open(spec, "rb") as stream:
        stream.seek(span[0])
        data = stream.read(span[1] - span[0])
    out: list[bytes] = []
    losses: list[tuple[str, int, int]] = []
    errors: list[tuple[str, int, int | None]] = []
    written = 0
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            errors.append((f"invalid JSON: {exc.msg}", number, exc.colno))
            continue
        try:
            conversations = conversations_of(
                dialect, Record(value, Location(spec, number, 1)), options
            )
            for conversation in conversations:
                if check is not None:
                    conversation.messages = list(conversation.messages)
                    for index, message in enumerate(conversation.messages):
                        losses.extend((kind, written, index) for kind in check(message))
                out.extend(
                    write_records(
                        [conversation],
                        target.write_messages,
                        lambda: False,
                        False,
                        getattr(target, "write_conversation", None),
                        target.record_meta,
                    )
                )
                written += 1
        except ChatpipeError as exc:
            errors.append((str(exc.message) + (f" ({exc.hint})" if exc.hint else ""), number, 1))
    path = None
    if out:
        path = os.path.join(folder, f"{span[0]}.jsonl")
        with open(path, "wb") as stream:
            stream.write(b"\n".join(out))
            stream.write(b"\n")
    return path, len(lines), written, losses, errors
