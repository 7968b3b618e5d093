"""The Markdown writer: a transcript for people, one section per conversation; written only."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..model import AnyMessage
from ..model.media import MEDIA_KINDS
from .base import Conversation, Dialect, dict_blocks


def _cannot_hold(message: AnyMessage) -> list[str]:
    inline = [
        b
        for b in dict_blocks(message)
        if isinstance(b.get("type"), str)
        and b["type"] in MEDIA_KINDS
        and (b.get("base64") or str(b.get("url", "")).startswith("data:"))
    ]
    return ["inline media data (shown as a placeholder)"] if inline else []


class MarkdownDialect(Dialect):
    name = "markdown"
    writable = True
    document = True
    readable = False
    pages = True  # with --output-dir, a note per conversation (``render_pages``)
    description = (
        "a Markdown transcript for people (write only); with --output-dir, a note per "
        "conversation with YAML front matter"
    )

    def losses(self) -> Any:
        return _cannot_hold

    def write_messages(self, messages: Iterable[AnyMessage]) -> Iterator[Any]:
        from ..render.markdown import message_markdown

        return map(message_markdown, messages)

    def render(self, conversations: Iterable[Conversation], per_message: bool) -> Iterator[str]:
        """The transcript a message at a time: nothing is held but the message."""
        from ..render.markdown import conversation_markdown_parts

        for index, conversation in enumerate(conversations):
            if index:
                yield "\n---\n\n"
            yield from conversation_markdown_parts(conversation, index)

    def render_pages(self, conversations: Iterable[Conversation]) -> Iterator[tuple[str, str]]:
        from ..render.notes import notes

        return notes(conversations)


# messages given to the YAML emitter at once: few enough to hold, many enough that the
# emitter's set-up per call does not count
