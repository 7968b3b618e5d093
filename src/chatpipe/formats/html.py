"""The HTML viewer: a page (or, with ``--output-dir``, a folder of pages) to read
transcripts in a browser; written only."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..model import AnyMessage
from .base import Conversation, Dialect


class HtmlDialect(Dialect):
    name = "html"
    writable = True
    document = True
    readable = False
    pages = True  # can also be written as a folder of pages (``render_pages``)
    description = "an HTML viewer for people: a self-contained page, or pages with --output-dir"

    def write_messages(self, messages: Iterable[AnyMessage]) -> Iterator[Any]:
        from ..render.html import message_html

        return (message_html(m, {}) for m in messages)

    def render(self, conversations: Iterable[Conversation], per_message: bool) -> Iterator[str]:
        from ..render.viewer import document

        return document(conversations)

    def render_pages(self, conversations: Iterable[Conversation]) -> Iterator[tuple[str, str]]:
        from ..render.viewer import pages

        return pages(conversations)
