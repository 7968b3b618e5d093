"""A conversation's buffer string piece by piece, for the buffer command: renderings and
separators as they stream, and the check that warns when a text reads as a new turn."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..errors import DataError
from ..model import Conversation
from ..render.buffer import BufferRenderer, TurnLabels
from . import fast_hooks


def buffer_pieces(
    renderer: BufferRenderer, conversation: Conversation, joiner: str, check: Any
) -> Iterator[str]:
    """The conversation's pieces (renderings and separators), one message at a time, or
    a batch at a time (fast/), which gives the same text."""
    chats: dict[int, Any] = {}  # chat messages by index: the check takes their roles as labels

    def one(index: int, message: Any) -> list[str]:
        if check is not None and message.type == "chat":
            chats[index] = message
        return [_rendered(renderer, message, index, conversation)]

    batches = fast_hooks.buffer_batches(conversation, renderer, one)
    if batches is not None:
        yield from _batched(batches, joiner, check, chats, conversation)
        return
    # (messages numbered in their log: a piece of one starts at ``start``)
    start = conversation.start
    for index, message in enumerate(conversation.messages, start):
        text = _rendered(renderer, message, index, conversation)
        if check is not None and not check.warned:
            check(message, index, conversation)
        yield joiner + text if index > start else text


def _rendered(renderer, message, index, conversation) -> str:
    try:
        return renderer.render(message)
    except ValueError:
        raise DataError(
            f"cannot render a {message.type} message in a buffer string",
            conversation.location.at_message(index) if conversation.location else None,
        ) from None


def _batched(batches, joiner, check, chats, conversation):
    """The pieces of batches of rendered texts (strings, or their UTF-8 bytes), encoded
    text by text: joining texts of different widths (most batches hold an emoji) would
    widen every character of the others first, the slowest step of a whole run."""
    breaks = joiner.count("\n")
    between = _encoded(joiner)
    start = index = conversation.start
    for texts in batches:
        data = between.join([t if type(t) is bytes else _encoded(t) for t in texts])
        # only a message with a line break can hold a line that reads as a turn
        if (
            check is not None
            and not check.warned
            and data.count(b"\n") > breaks * (len(texts) - 1)
            and not check.clear(data, texts, chats, joiner)
        ):
            check.texts(texts, index, chats, conversation)
        chats.clear()
        yield between + data if index > start else data
        index += len(texts)


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


class AmbiguityCheck:
    """Warns once (through ``warn``; the target running it sets it to its run's) when
    message text starts a line with a role label ('Human: ')."""

    def __init__(self, renderer: BufferRenderer, warn: Callable[[str], None] | None = None) -> None:
        self.labels = TurnLabels(label for _, label in renderer.labels)
        self.warned = False
        self.warn = warn or (lambda _: None)
        self.run: Any = None

    def clear(self, data, texts, chats, joiner) -> bool:
        """Whether no line inside the messages joined in ``data`` (their UTF-8) starts with
        a label, seen in one pass over it: each rendering starts with its label, so
        ``joiner`` '\\n' makes one such line per message after the first; a line more is
        inside a message. (Chat messages bring their roles as labels: they are checked
        one by one.)"""
        return (
            not chats
            and joiner == "\n"
            and not any("\n" in label for label in self.labels.labels)
            and self.labels.count(data) == len(texts) - 1
        )

    def texts(self, texts, index, chats, conversation) -> None:
        """The check on rendered texts, the messages at ``index`` on; ``chats``: the chat
        messages among them by index, checked as messages (their roles become labels).

        A rendering is its label, ': ', the text, and tool calls as one line: a line it
        starts with a label is a line the text starts with it.
        """
        for k, text in enumerate(texts, index):
            if self.warned:
                return
            if type(text) is bytes:
                text = text.decode("utf-8", "surrogateescape")
            message = chats.get(k)
            if message is not None:
                self(message, k, conversation)
            elif "\n" in text:
                self._found(self.labels.find(text), k, conversation)

    def __call__(self, message, index, conversation) -> None:
        if self.warned:
            return
        content = message.content
        if "\n" not in (content if isinstance(content, str) else message.text):
            return  # one line: nothing in it can start a line
        if message.type == "chat" and isinstance(message.role, str):
            self.labels.add(message.role)
        self._found(self.labels.find(message.text), index, conversation)

    def _found(self, found, index, conversation) -> None:
        if found is not None:
            self.warned = True
            where = f"{conversation.location.file}: " if conversation.location else ""
            self.warn(
                f"warning: {where}message {index + 1} has a line starting {found!r}, which reads "
                "as a new turn in the prefix format (use --format xml to keep turns apart)"
            )
