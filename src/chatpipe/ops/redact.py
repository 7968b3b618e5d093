"""``redact``: secrets and personal data replaced wherever a conversation holds text.

Every string a conversation carries is scanned (ops/redact_patterns.py): message
contents and their blocks, tool-call arguments (each string in them, so that they stay
the same JSON), invalid calls' argument texts, tool results, provider fields (an
export's copy of a message's text, its attachments' extracted text), and the record's
own fields (a title, a system prompt, tool descriptions), and the keys of free-form JSON
(tool-call arguments and artifacts: ``{"alice@example.com": "admin"}``). Ids, types and
MIME types are left as they are, and so is inline binary data (redact_skip.py): the base64
payload of a media block (a ``data`` or ``base64`` field beside a MIME type or a ``base64``
source type) and of a ``data:<mime>;base64,`` URL. Any other ``data`` (an Anthropic document's
plain-text source, an AI SDK ``data-*`` part) is text, and scanned.

A value becomes ``[KIND]``, or with ``mask="hash"`` ``[KIND:1a2b3c4d]``: a keyed hash of
the value, the same for every mention of it in a run (given one ``key``, in every run),
so that mentions stay linked, and which a guess of the value cannot be checked against
without the key.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from ..errors import UsageError
from ..model import AIMessage, AnyMessage, Conversation
from . import facts
from .operation import PerPart
from .redact_patterns import KINDS, Match, Scanner
from .redact_skip import SKIP, is_payload, payload_end

MASKS = ("kind", "hash")


def check_kinds(names: Iterable[str]) -> tuple[str, ...]:
    """Kinds named by a user (any case, ``-`` for ``_``), checked."""
    kinds = []
    for name in names:
        kind = name.upper().replace("-", "_")
        if kind not in KINDS:
            raise UsageError(
                f"{name!r} is not a kind redact finds", hint="kinds: " + ", ".join(KINDS)
            )
        kinds.append(kind)
    return tuple(kinds)


@dataclass(frozen=True)
class Hit:
    """One value found: the conversation's label, where in it (``messages[3].content``,
    ``messages[2].tool_calls[0].args.query``, ``meta.title``), its kind, the value and
    its span in that string."""

    conversation: str
    place: str
    kind: str
    value: str
    start: int
    end: int


class Redactor(PerPart["tuple[Counter[str], int]"]):
    """Replaces what ``kinds`` name (every kind by default; ``skip`` leaves some out) in
    conversations, counting each kind (``counts``). Called on a conversation it gives the
    conversation redacted: a job's operation."""

    def __init__(
        self,
        kinds: Iterable[str] | None = None,
        *,
        skip: Iterable[str] = (),
        mask: str = "kind",
        key: str | bytes | None = None,
        dry_run: bool = False,
    ) -> None:
        if mask not in MASKS:
            raise UsageError(f"--mask must be kind or hash, got {mask!r}")
        chosen = KINDS if kinds is None else check_kinds(kinds)
        left_out = set(check_kinds(skip))
        self.scanner = Scanner(tuple(k for k in chosen if k not in left_out))
        self.mask = mask
        if isinstance(key, str):
            key = key.encode()
        self.key = key if key is not None else os.urandom(16)
        self.counts: Counter[str] = Counter()
        self.conversations = 0  # conversations with something replaced
        self.dry_run = dry_run  # (what summary and report_data say by default)
        self._changed = False

    def for_part(self, part: int) -> Redactor:
        """A part's own (the same patterns and key, its own counts), on ``--jobs`` and
        Dask; ``part_state`` gives its counts back and ``absorb`` adds them here."""
        import copy

        own = copy.copy(self)
        own.counts, own.conversations, own._changed = Counter(), 0, False
        return own

    def part_state(self) -> tuple[Counter[str], int]:
        return self.counts, self.conversations

    def absorb(self, state: tuple[Counter[str], int], placed: Any) -> None:
        counts, conversations = state
        self.counts.update(counts)
        self.conversations += conversations

    # -- texts ------------------------------------------------------------------------

    def placeholder(self, kind: str, value: str) -> str:
        if self.mask == "kind":
            return f"[{kind}]"
        tag = hashlib.blake2b(
            f"{kind}\x00{value}".encode("utf-8", "surrogatepass"), key=self.key[:64], digest_size=4
        ).hexdigest()
        return f"[{kind}:{tag}]"

    def text(self, text: str) -> str:
        """The text with every value found replaced."""
        matches = list(self.scanner.scan(text))
        if not matches:
            return text
        self._changed = True
        pieces, at = [], 0
        for match in matches:
            pieces.append(text[at : match.start])
            pieces.append(self.placeholder(match.kind, text[match.start : match.end]))
            self.counts[match.kind] += 1
            at = match.end
        pieces.append(text[at:])
        return "".join(pieces)

    def string(self, value: str) -> str:
        """A string of the data redacted: a data URL's base64 payload left as it is."""
        if value.startswith("data:"):
            end = payload_end(value)
            if end:
                rest = value[end:]
                new = self.text(rest) if rest else rest
                return value if new is rest else value[:end] + new
        return self.text(value)

    def value(self, value: Any, skip: frozenset[str] = SKIP, keys: bool = False) -> Any:
        """A JSON-like value with its strings redacted (the keys in ``skip`` left alone,
        and a media block's base64 payload); with ``keys`` (free-form JSON: a tool call's
        arguments), its keys too. The value itself when nothing changed."""
        if isinstance(value, str):
            return self.string(value)
        if isinstance(value, dict):
            out: dict[Any, Any] = {}
            changed = False
            for key, item in value.items():
                if key in skip or is_payload(value, key):
                    new = item
                else:
                    new = self.value(item, skip, keys)
                changed = changed or new is not item
                if keys and isinstance(key, str):
                    name = self.text(key)
                    if name is not key:
                        changed = True
                        key = _unique(name, out)
                out[key] = new
            return out if changed else value
        if isinstance(value, list):
            items = [self.value(item, skip, keys) for item in value]
            return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
        return value

    # -- conversations ----------------------------------------------------------------

    def message(self, message: AnyMessage) -> AnyMessage:
        """The message redacted (the same object when nothing was found)."""
        fields: dict[str, Any] = {}
        content = self.value(message.content)
        if content is not message.content:
            fields["content"] = content
        for name in ("additional_kwargs", "response_metadata"):
            old = getattr(message, name)
            new = self.value(old) if old else old
            if new is not old:
                fields[name] = new
        if message.name:
            name = self.string(message.name)
            if name is not message.name:
                fields["name"] = name
        if isinstance(message, AIMessage):
            calls = [self._call(call) for call in message.tool_calls]
            if any(a is not b for a, b in zip(calls, message.tool_calls, strict=True)):
                fields["tool_calls"] = calls
            invalid = [self._call(call) for call in message.invalid_tool_calls]
            if any(a is not b for a, b in zip(invalid, message.invalid_tool_calls, strict=True)):
                fields["invalid_tool_calls"] = invalid
        if message.type == "tool" and message.artifact is not None:
            artifact = self.value(message.artifact, frozenset(), keys=True)
            if artifact is not message.artifact:
                fields["artifact"] = artifact
        return _replace(message, fields) if fields else message

    def _call(self, call: Any) -> Any:
        """A tool call with its arguments redacted, keys and all, and an invalid call's
        error (which may quote the arguments)."""
        fields = {}
        for name in ("args", "error"):
            old = call.get(name)
            new = self.value(old, frozenset(), keys=True) if old is not None else old
            if new is not old:
                fields[name] = new
        return {**call, **fields} if fields else call

    def __call__(self, conversation: Conversation) -> Conversation:
        self._changed = False
        meta = self.value(conversation.meta)
        messages = conversation.messages
        if isinstance(messages, list):
            messages = [self.message(m) for m in messages]
        else:  # a log's messages, redacted as they are read
            messages = map(self.message, messages)
        redacted = Conversation(
            messages, meta, conversation.location, conversation.messages_key, conversation.start
        )
        if self._changed:
            self.conversations += 1
        return redacted

    def summary(self, dry_run: bool | None = None) -> str:
        """What was replaced (or, ``dry_run``, found), in a line for people."""
        dry_run = self.dry_run if dry_run is None else dry_run
        total = sum(self.counts.values())
        if not total:
            return "redact: found nothing to replace"
        kinds = ", ".join(f"{kind} {self.counts[kind]}" for kind in KINDS if self.counts[kind])
        verb = "would replace" if dry_run else "replaced"
        return f"redact: {verb} {total} value{'s' * (total != 1)}: {kinds}"

    def report_data(self, dry_run: bool | None = None) -> dict[str, Any]:
        """What was replaced per kind, as JSON."""
        dry_run = self.dry_run if dry_run is None else dry_run
        counts = self.counts
        by_kind = {kind: counts[kind] for kind in KINDS if counts[kind]}
        return {"dry_run": dry_run, "replaced": sum(counts.values()), "by_kind": by_kind}

    # -- a dry run --------------------------------------------------------------------

    def hit_lines(self, as_json: bool = False) -> Any:
        """A dry run's lines for a conversation (a function of it): a hit each, as
        ``CONVERSATION: PLACE: KIND: VALUE`` or a JSON object, each counted; the
        conversations are numbered in the order they come (a run of one process)."""
        number = itertools.count()

        def lines(conversation: Conversation) -> Iterator[bytes]:
            for hit in self.hits(conversation, next(number)):
                self.counts[hit.kind] += 1
                if as_json:
                    yield orjson.dumps(dataclasses.asdict(hit))
                else:
                    text = f"{hit.conversation}: {hit.place}: {hit.kind}: {hit.value}"
                    yield text.encode("utf-8", "surrogateescape")

        return lines

    def hits(self, conversation: Conversation, position: int = 0) -> Iterator[Hit]:
        """What would be replaced in the conversation, with its place; nothing changed."""
        places = conversation.places  # (a log read with its places: each message's line)
        conversation, messages = facts.listed(conversation)
        label = facts.label(conversation, position)
        placed = places is not None and len(places) == len(messages)
        yield from self._found(label, "meta", conversation.meta, SKIP)
        for index, message in enumerate(messages):
            name = str(places[index]) if placed else label  # type: ignore[index]
            where = f"messages[{index}]"
            yield from self._found(name, f"{where}.content", message.content, SKIP)
            if message.name:
                yield from self._found(name, f"{where}.name", message.name, SKIP)
            for field in ("additional_kwargs", "response_metadata"):
                yield from self._found(name, f"{where}.{field}", getattr(message, field), SKIP)
            if isinstance(message, AIMessage):
                for kind in ("tool_calls", "invalid_tool_calls"):
                    for number, call in enumerate(getattr(message, kind)):
                        for field in ("args", "error"):
                            place = f"{where}.{kind}[{number}].{field}"
                            yield from self._found(name, place, call.get(field), frozenset(), True)
            if message.type == "tool" and message.artifact is not None:
                place = f"{where}.artifact"
                yield from self._found(name, place, message.artifact, frozenset(), True)

    def _found(
        self, name: str, place: str, value: Any, skip: frozenset[str], keys: bool = False
    ) -> Iterator[Hit]:
        if isinstance(value, str):
            end = payload_end(value) if value.startswith("data:") else 0
            for match in self.scanner.scan(value[end:] if end else value):
                yield _hit(name, place, value, match, end)
        elif isinstance(value, dict):
            for key, item in value.items():
                if keys and isinstance(key, str):
                    for match in self.scanner.scan(key):
                        yield _hit(name, f"{place} (a key)", key, match)
                if key not in skip and not is_payload(value, key):
                    yield from self._found(name, f"{place}.{key}", item, skip, keys)
        elif isinstance(value, list):
            for number, item in enumerate(value):
                yield from self._found(name, f"{place}[{number}]", item, skip, keys)


def _hit(name: str, place: str, text: str, match: Match, shift: int = 0) -> Hit:
    start, end = match.start + shift, match.end + shift
    return Hit(name, place, match.kind, text[start:end], start, end)


def _unique(key: str, taken: dict[Any, Any]) -> str:
    """A redacted key that two keys became (``[EMAIL]``), made distinct: ``[EMAIL] 2``."""
    if key not in taken:
        return key
    number = 2
    while f"{key} {number}" in taken:
        number += 1
    return f"{key} {number}"


def _replace(message: AnyMessage, fields: dict[str, Any]) -> AnyMessage:
    """A shallow copy of the message with some fields set."""
    clone = object.__new__(type(message))
    for slot in type(message)._all_slots():
        setattr(clone, slot, getattr(message, slot))
    for key, value in fields.items():
        setattr(clone, key, value)
    return clone


def redact(conversations: Iterable[Conversation], **options: Any) -> Iterator[Conversation]:
    """The conversations redacted (``Redactor``'s options as keywords)."""
    return map(Redactor(**options), conversations)


def find(conversations: Iterable[Conversation], **options: Any) -> Iterator[Hit]:
    """What ``redact`` would replace, each with its place (a dry run)."""
    redactor = Redactor(**options)
    for position, conversation in enumerate(conversations):
        yield from redactor.hits(conversation, position)
