"""Gemini CLI chats (``~/.gemini/tmp/<project hash>/chats/session-*.json``).

Three forms: a session object ``{sessionId, projectHash, startTime, lastUpdated,
messages}``; the newer JSONL form, a header line with those fields, then message lines,
``{"$set": {...}}`` lines that update the header (a ``messages`` list among them replaces
the messages so far) and ``{"$rewindTo": id}`` lines that drop that message and the ones
after it. A message written again under the same id replaces the first (the last write
wins) where the first stood. And ``logs.json``, the prompts typed, ``{sessionId,
messageId, type, message, timestamp}``: one conversation per session id; and the
checkpoints ``/chat save`` writes (``checkpoint-<tag>.json``): ``{history, authType}``,
the Gemini contents the session sent, or (older ones) a bare list of them.

``gemini`` messages are AI messages: ``thoughts`` are reasoning blocks before the text,
``tokens`` the usage, ``model`` the model; each of ``toolCalls`` is a tool call followed by
a tool message holding its ``result`` (a call with none ran no tool). ``info``, ``warning``
and ``error`` messages are what the CLI told the user, not turns: the conversation's
``notes`` (each with ``at``, the number of messages before it). ``--branch all`` gives the
messages a ``$rewindTo`` dropped as a branch of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location, kind_of
from ..model import Conversation
from .base import SessionDialect
from .exports import ReadOptions
from .gemini import messages_from_contents
from .gemini_cli_messages import build

_MESSAGE_TYPES = frozenset(("user", "gemini", "info", "warning", "error"))


def _is_header(value: dict[str, Any]) -> bool:
    return isinstance(value.get("sessionId"), str) and isinstance(value.get("projectHash"), str)


def _is_message(value: dict[str, Any]) -> bool:
    return (
        isinstance(value.get("id"), str)
        and value.get("type") in _MESSAGE_TYPES
        and "timestamp" in value
        and "content" in value
    )


def _is_log_entry(value: dict[str, Any]) -> bool:
    return (
        isinstance(value.get("sessionId"), str)
        and "messageId" in value
        and isinstance(value.get("message"), str)
    )


def _is_content(value: Any) -> bool:
    """A Gemini ``Content`` alone: a legacy checkpoint's item (a bare list of them)."""
    return (
        isinstance(value, dict)
        and value.get("role") in ("user", "model")
        and isinstance(value.get("parts"), list)
        and set(value) <= {"role", "parts"}
    )


def _is_checkpoint(value: dict[str, Any]) -> bool:
    """A ``/chat save`` checkpoint: ``{history: [Content], authType}``."""
    history = value.get("history")
    return (
        isinstance(history, list)
        and all(_is_content(c) for c in history)
        and set(value) <= {"history", "authType"}
    )


def is_gemini_cli_record(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if _is_content(value) or _is_checkpoint(value):
        return True
    if "$set" in value or "$rewindTo" in value:
        return len(value) == 1 and (
            isinstance(value.get("$set"), dict) or isinstance(value.get("$rewindTo"), str)
        )
    return _is_header(value) or _is_message(value) or _is_log_entry(value)


class GeminiCliDialect(SessionDialect):
    name = "gemini-cli"
    description = "Gemini CLI chats (session-*.json, its JSONL form) and logs.json"
    example = "gemini_cli__entire_2026_session_tools_info.json"
    extras_key = "gemini_cli"  # (the rest of each record, under additional_kwargs)

    def is_stream_event(self, value: Any) -> bool:
        return is_gemini_cli_record(value)

    def read_records(
        self,
        records: Iterable[Any],
        location: Location,
        options: Any = None,
        handle: Callable[[ChatpipeError], None] | None = None,
    ) -> Iterator[Conversation]:
        from ..io.records import BadRecord

        options = options if isinstance(options, ReadOptions) else ReadOptions()
        session: _Session | None = None
        logs: dict[str, _Session] = {}
        saved: list[tuple[Any, Location]] = []  # a legacy checkpoint's contents
        for record in records:
            try:
                if isinstance(record, BadRecord):
                    raise record.error
                value = record.value
                if not is_gemini_cli_record(value):
                    raise DataError(
                        "not a Gemini CLI chat record",
                        hint="a session's fields, a message, a $set or $rewindTo line",
                    )
                if _is_checkpoint(value) or _is_content(value):
                    if _is_content(value):
                        saved.append((value, record.location))
                    else:
                        yield _checkpoint(value["history"], value, record.location)
                    continue
                if _is_log_entry(value) and not _is_message(value):
                    _log_entry(logs, value, record.location)
                    continue
                if _is_header(value) and (session is None or session.starts_anew(value)):
                    if session is not None:
                        yield from session.conversations(options)
                    session = _Session(record.location)
                if session is None:
                    session = _Session(record.location)
                session.add(value, record.location)
            except ChatpipeError as exc:
                if handle is None:
                    raise exc.located(record.location) from None
                handle(exc.located(record.location))
        if session is not None:
            yield from session.conversations(options)
        for log in logs.values():
            yield from log.conversations(options)
        if saved:
            yield _checkpoint([c for c, _ in saved], {}, saved[0][1])


def _checkpoint(history: list[Any], value: dict[str, Any], at: Location) -> Conversation:
    """A checkpoint's history: the model's contents as the session sent them."""
    try:
        messages = messages_from_contents(history)
    except ChatpipeError as exc:
        raise exc.located(at) from None
    meta = {k: v for k, v in value.items() if k != "history"}
    return Conversation(messages, meta, at)


def _log_entry(logs: dict[str, _Session], value: dict[str, Any], at: Location) -> None:
    """A logs.json entry: a prompt the user typed, in its session's conversation."""
    ident = value["sessionId"]
    session = logs.get(ident)
    if session is None:
        session = logs[ident] = _Session(at)
        session.meta = {"sessionId": ident}
    message = {
        "timestamp": value.get("timestamp"),
        "type": value.get("type") or "user",
        "content": value["message"],
        **{k: v for k, v in value.items() if k not in ("sessionId", "type", "message")},
    }
    session.put(message, at, f"log-{value.get('messageId')}")


class _Session:
    """One session as its lines build it: the header's fields and the messages by id (in
    the place each first had), with the messages each rewind dropped."""

    def __init__(self, location: Location) -> None:
        self.location = location
        self.meta: dict[str, Any] = {}
        self.messages: dict[str, tuple[dict[str, Any], Location]] = {}
        self.rewound: list[list[tuple[dict[str, Any], Location]]] = []

    def starts_anew(self, header: dict[str, Any]) -> bool:
        """A header of another session (a file of several session objects)."""
        return bool(self.meta) and header.get("sessionId") != self.meta.get("sessionId")

    def put(self, message: dict[str, Any], at: Location, key: str | None = None) -> None:
        if (
            not isinstance(message.get("content"), (str, list, dict))
            and message.get("content") is not None
        ):
            raise DataError(
                f'a message\'s "content" must be text or parts, got {kind_of(message["content"])}'
            )
        self.messages[key or message["id"]] = (message, at)

    def add(self, value: dict[str, Any], at: Location) -> None:
        if "$rewindTo" in value:
            ids = list(self.messages)
            target = value["$rewindTo"]
            if target not in self.messages:  # (cut at 0, it emptied the conversation)
                raise DataError(
                    f"$rewindTo names no message of the session before it ({target!r})",
                    hint="the file is cut or damaged; --on-error skip reads on without the line",
                )
            cut = ids.index(target)
            dropped = [self.messages.pop(i) for i in ids[cut:]]
            if dropped:
                self.rewound.append(list(self.messages.values()) + dropped)
            return
        if "$set" in value:
            update = value["$set"]
            if isinstance(update.get("messages"), list):
                self.messages = {}
                for message in update["messages"]:
                    if isinstance(message, dict) and _is_message(message):
                        self.put(message, at)
            self.meta.update({k: v for k, v in update.items() if k != "messages"})
            return
        if _is_header(value):
            self.meta.update({k: v for k, v in value.items() if k != "messages"})
            for index, message in enumerate(value.get("messages") or ()):
                if not (isinstance(message, dict) and _is_message(message)):
                    raise DataError(
                        "not a Gemini CLI message",
                        at.at_message(index),
                        hint="a message has an id, a timestamp, a type and content",
                    )
                self.put(message, at.at_message(index))
            return
        self.put(value, at)

    def conversations(self, options: ReadOptions) -> Iterator[Conversation]:
        branches = [list(self.messages.values()), *reversed(self.rewound)]
        if options.branch != "all":
            branches = branches[:1]
        for number, branch in enumerate(branches):
            meta = dict(self.meta)
            if isinstance(meta.get("sessionId"), str):
                meta = {"id": meta.pop("sessionId"), **meta}
            if options.branch == "all" and len(branches) > 1:
                leaf = branch[-1][0].get("id") if branch else None
                meta["branch"] = {"leaf": leaf, "index": number, "of": len(branches)}
                if number == 0:
                    meta["branch"]["active"] = True  # the messages the session holds now
            elif self.rewound:
                meta["branch"] = {"leaf": branch[-1][0].get("id") if branch else None}
                meta["branch"]["left_out"] = len(self.rewound)
            conversation = build(branch, meta, self.location)
            yield conversation
