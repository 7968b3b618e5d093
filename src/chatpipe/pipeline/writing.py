"""Writing conversations back as records, in the shape they came in.

A single message-per-record input is written message per line; anything else is one
conversation record per line, ``{"messages": [...], ...}`` with the source's other fields
kept in place. ``as_json`` gives one JSON document instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError
from ..formats.shapes import CheckedMessages
from ..io.encode import dumps, dumps_lines
from ..model import AnyMessage, Conversation
from . import fast_hooks

MessageWriter = Callable[[Iterable[AnyMessage]], Iterator[Any]]


def _located(conversation: Conversation, records: Iterator[Any]) -> Iterator[Any]:
    try:
        yield from records
    except ChatpipeError as exc:
        raise exc.located(conversation.location) from None


def write_records(
    conversations: Iterable[Conversation],
    write_messages: MessageWriter,
    message_per_line: Callable[[], bool],
    as_json: bool = False,
    write_conversation: Callable[[Conversation], Any] | None = None,
    record_meta: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    target: Any = None,
    errors: Any = None,
    writes: Callable[[Conversation], bool] | None = None,
) -> Iterator[bytes]:
    """Encoded JSON lines (or one document when ``as_json``) for the conversations.

    ``write_messages`` turns messages into the target dialect's records.
    ``message_per_line`` is asked once the first conversation has been read, when the
    input's shape is known. ``write_conversation``, when it gives a record, writes a
    whole conversation instead. Errors name the conversation they happened in. ``target``
    is the dialect or writer the records come from (for fast/, which writes the plain
    lines of some in blocks, through ``fast_hooks.written_batches``). ``errors`` (an
    ErrorLog) decides about a conversation the target cannot be written from: the run
    stops (``--on-error fail``) or it is left out and reported (``skip``). ``writes``
    says whether a conversation record is written at all (``Dialect.writes``: an API's
    request needs messages; the dialect says what it leaves out).
    """
    joiner = b"," if as_json else b"\n"
    pieces = _records(
        conversations,
        write_messages,
        message_per_line,
        write_conversation,
        record_meta,
        target,
        joiner,
        errors,
        writes,
    )
    if not as_json:
        yield from pieces
        return
    # one JSON array, written element by element: pieces of one document, no line breaks
    opening = b"["
    for piece in pieces:
        yield opening + piece
        opening = b","
    yield b"[]" if opening == b"[" else b"]"


def _records(
    conversations: Iterable[Conversation],
    write_messages: MessageWriter,
    message_per_line: Callable[[], bool],
    write_conversation: Callable[[Conversation], Any] | None,
    record_meta: Callable[[dict[str, Any]], dict[str, Any]] | None,
    target: Any,
    joiner: bytes,
    errors: Any = None,
    writes: Callable[[Conversation], bool] | None = None,
) -> Iterator[bytes]:
    """Each record encoded (a block of several, joined by ``joiner``, from fast/)."""
    per_message: bool | None = None
    for conversation in conversations:
        if writes is not None:  # (a conversation per record)
            if per_message is None and write_conversation is None:
                per_message = message_per_line()
            if write_conversation is not None or not per_message:
                # (listed, for writers that look twice; a row lane's can be, untouched)
                if not isinstance(conversation.messages, (list, CheckedMessages)):
                    conversation = conversation.with_messages(list(conversation.messages))
                if not writes(conversation):
                    continue
        # dialects whose records are whole conversations (anthropic, gemini, sharegpt)
        try:
            whole = write_conversation(conversation) if write_conversation is not None else None
        except ChatpipeError as exc:
            if errors is None:
                raise exc.located(conversation.location) from None
            errors.handle(exc.located(conversation.location))
            continue
        if whole is not None:
            yield dumps(whole)
            continue
        if per_message is None:
            per_message = message_per_line()
        batches = fast_hooks.written_batches(conversation, target) if per_message else None
        if batches is not None:
            for records in _located(conversation, batches):
                if records:
                    yield dumps_lines(records, joiner)
        elif per_message:
            for record in _located(conversation, write_messages(conversation.messages)):
                yield dumps(record)
        else:
            try:
                # (a row the row lane read: its records written from its plain dicts)
                try:
                    messages = fast_hooks.written_row(conversation, target)
                except ChatpipeError as exc:
                    raise exc.located(conversation.location) from None
                if messages is None:
                    messages = list(_located(conversation, write_messages(conversation.messages)))
            except ChatpipeError as exc:
                if errors is None:
                    raise
                errors.handle(exc)
                continue
            meta = record_meta(conversation.meta) if record_meta is not None else None
            yield dumps(conversation.to_record(messages, meta))


def write(
    conversations: Iterable[Conversation], to: str | None = None, *, message_per_line: bool = False
) -> Iterator[bytes]:
    """The conversations written in dialect ``to`` (chatpipe's own, canonical, by
    default): a JSON record per piece (without its line end), or the pieces of a document
    (markdown, yaml), as ``convert --to`` writes them. ``message_per_line`` writes one
    record per message (one conversation's log) instead of one per conversation."""
    from ..formats.registry import default_dialect, writing_dialect

    target = default_dialect() if to is None else writing_dialect(to)
    if target.document:
        for text in target.render(iter(conversations), message_per_line):
            yield text.encode()
        return
    yield from write_records(
        conversations,
        target.write_messages,
        lambda: message_per_line,
        write_conversation=target.write_conversation if target.conversation_records else None,
        record_meta=target.record_meta,
        target=target,
        writes=target.writes,
    )
