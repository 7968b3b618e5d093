"""SillyTavern chats (``data/<user>/chats/<character>/*.jsonl``, group chats in
``group chats/``): a header line ``{user_name, character_name, create_date,
chat_metadata}`` (group chats may have none), then a line per message ``{name, is_user,
is_system, send_date, mes, extra, swipes?, swipe_id?, swipe_info?}``.

``swipes`` are the alternative replies generated for a message, ``swipe_id`` the one
chosen (its text is ``mes``), ``swipe_info`` each one's date and ``extra``: the chosen
swipes are the live branch, each other swipe a branch of its own ending there
(``--branch all``). ``is_system`` marks a narrator's or hidden message; ``extra.reasoning``
is the reply's reasoning (newer versions), ``extra.image`` / ``extra.file`` its
attachments. Dates come as epoch milliseconds, ``2024-06-01@12h30m15s`` or ``June 19, 2023
2:20pm`` (local time, as written: no offset is added), or ISO 8601.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..errors import ChatpipeError, DataError, Location
from ..model import AIMessage, AnyMessage, HumanMessage, SystemMessage
from .base import CERTAIN, STREAM, Conversation, Guess, RecordsDialect, Sample
from .exports import ReadOptions
from .trees import dated, seconds, tree_conversations

_READ = ("mes", "is_user", "is_system", "swipes", "swipe_id", "swipe_info")
_FORMATS = ("%B %d, %Y %I:%M%p", "%B %d, %Y %I:%M %p", "%Y-%m-%d@%Hh%Mm%Ss", "%Y-%m-%d @%Hh%Mm%Ss")


def is_header(value: Any) -> bool:
    """A chat file's first line (a conversation that kept a header's fields beside its
    messages, as chatpipe writes it, is no header: it holds its messages)."""
    return (
        isinstance(value, dict)
        and "user_name" in value
        and "character_name" in value
        and "mes" not in value
        and not any(k in value for k in ("messages", "conversations", "contents", "input"))
    )


def is_message(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("mes"), str) and "is_user" in value


def st_time(value: Any) -> Any:
    """A SillyTavern date as ISO 8601 (its own formats read) or epoch seconds; None for
    what is not a date."""
    if isinstance(value, str):
        text = " ".join(value.split())
        for pattern in _FORMATS:
            try:
                return dt.datetime.strptime(text, pattern).isoformat()
            except ValueError:
                continue
        return value if seconds(value) is not None else None
    found = seconds(value)
    return None if found is None else int(found) if found == int(found) else found


def _blocks(text: str, extra: dict[str, Any]) -> Any:
    """A message's content: its reasoning, text and attachments."""
    blocks: list[dict[str, Any]] = []
    reasoning = extra.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        blocks.append({"type": "reasoning", "reasoning": reasoning})
    blocks.append({"type": "text", "text": text})
    for key in ("image", "inline_image"):
        if isinstance(extra.get(key), str) and extra[key]:
            blocks.append({"type": "image", "url": extra[key]})
    files = extra.get("files") if isinstance(extra.get("files"), list) else [extra.get("file")]
    for item in files:
        if isinstance(item, dict):
            block: dict[str, Any] = {"type": "file", "extras": item}
            if item.get("url"):
                block["url"] = item["url"]
            else:
                block["file_id"] = str(item.get("name") or "")
            blocks.append(block)
    return text if len(blocks) == 1 else blocks


def read_line(value: dict[str, Any], text: str, extra: Any, kept: dict[str, Any]) -> AnyMessage:
    """A message line (or one of its swipes: ``text`` and ``extra`` its own)."""
    extra = extra if isinstance(extra, dict) else {}
    fields: dict[str, Any] = {"additional_kwargs": {"sillytavern": kept}}
    content = _blocks(text, extra)
    if value.get("is_user"):
        return HumanMessage(content, **fields)
    if value.get("is_system"):
        return SystemMessage(content, **fields)
    name = value.get("name")
    model = extra.get("model")
    if isinstance(model, str) and model:
        fields["response_metadata"] = {"model_name": model}
    return AIMessage(content, name=name if isinstance(name, str) and name else None, **fields)


class Chat:
    """A chat's lines as a tree: each message a node under the one before it, each swipe
    not chosen a leaf beside the chosen one."""

    def __init__(self) -> None:
        self.header: dict[str, Any] = {}
        self.nodes: dict[str, tuple[dict[str, Any], str, Any, dict[str, Any]]] = {}
        self.parents: dict[str, str | None] = {}
        self.order: list[str] = []
        self.last: str | None = None
        self.times: dict[str, Any] = {}

    def add(self, value: dict[str, Any], number: int) -> None:
        parent = self.last
        key = str(number)
        kept = {k: v for k, v in value.items() if k not in _READ}
        self._node(key, parent, value, value["mes"], value.get("extra"), kept)
        self.last = key
        swipes = value.get("swipes")
        chosen = value.get("swipe_id")
        infos = value.get("swipe_info") if isinstance(value.get("swipe_info"), list) else []
        for index, swipe in enumerate(swipes if isinstance(swipes, list) else ()):
            if index == chosen or not isinstance(swipe, str):
                continue
            info = infos[index] if index < len(infos) and isinstance(infos[index], dict) else {}
            own = {**{k: v for k, v in info.items() if k != "extra"}, "swipe": index}
            self._node(f"{key}~{index}", parent, value, swipe, info.get("extra"), own)
        if isinstance(swipes, list):
            kept["swipe_id"] = chosen

    def _node(
        self, key: str, parent: str | None, value: Any, text: str, extra: Any, kept: Any
    ) -> None:
        self.nodes[key] = (value, text, extra, kept)
        self.parents[key] = parent
        self.order.append(key)
        self.times[key] = kept.get("send_date")

    def messages(self, path: list[str]) -> list[AnyMessage]:
        return [read_line(*self.nodes[key]) for key in path]


class SillyTavernDialect(RecordsDialect):
    name = "sillytavern"
    description = "SillyTavern chats (JSONL: a header line, then mes / is_user lines with swipes)"
    example = "sillytavern__documented_swipes_reasoning_narrator.jsonl"
    extras_key = "sillytavern"  # (a line's fields besides those read)

    def score(self, sample: Sample) -> Guess | None:
        # a header naming the user and the character, or mes / is_user lines: ST's alone
        if is_header(sample.first) or is_message(sample.first):
            return Guess(CERTAIN, STREAM)
        return None

    def is_stream_event(self, value: Any) -> bool:
        return is_header(value) or is_message(value)

    def read_records(
        self,
        records: Iterable[Any],
        location: Location,
        options: Any = None,
        handle: Callable[[ChatpipeError], None] | None = None,
    ) -> Iterator[Conversation]:
        from ..io.records import BadRecord

        chat = Chat()
        for number, record in enumerate(records):
            if isinstance(record, BadRecord):
                if handle is None:
                    raise record.error
                handle(record.error)
            elif number == 0 and is_header(record.value):
                chat.header = record.value
            elif is_message(record.value):
                chat.add(record.value, number)
            else:
                error = DataError(
                    "not a SillyTavern message: it needs mes and is_user",
                    record.location,
                    hint="a SillyTavern chat is a header line, then a line per message",
                )
                if handle is None:
                    raise error
                handle(error)
        meta = dict(chat.header)
        times = [st_time(t) for t in chat.times.values()]
        known = [t for t in times if t is not None]
        dated(
            meta,
            st_time(chat.header.get("create_date")) or (known[0] if known else None),
            known[-1] if known else None,
        )
        options = options if isinstance(options, ReadOptions) else ReadOptions()
        yield from tree_conversations(
            chat.parents,
            chat.order,
            chat.last,
            {k: st_time(v) for k, v in chat.times.items()},
            options,
            location,
            meta,
            chat.messages,
        )

    def read_message(self, value: Any) -> AnyMessage:
        if not is_message(value):
            raise DataError("not a SillyTavern message: it needs mes and is_user")
        return read_line(value, value["mes"], value.get("extra"), {})
