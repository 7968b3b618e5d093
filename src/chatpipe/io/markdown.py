"""Markdown text as a record: chat logs written for people (aider's
``.aider.chat.history.md``) are a text to read whole, not JSON or YAML. A Markdown
document is one record, a ``TextDocument``: its text and where it starts, which the
dialects that read such logs take apart (no other dialect claims it)."""

from __future__ import annotations

from collections.abc import Iterator

from ..errors import Location
from .records import Record, utf8_error
from .sources import UTF8_BOM as BOM
from .sources import Source

MARKDOWN_SUFFIXES = (".md", ".markdown")


class TextDocument:
    """A text read whole: ``text``, from line ``line`` of the file ``name``."""

    __slots__ = ("line", "name", "text")
    described_as = "Markdown text"  # (what errors call it: no JSON kind)

    def __init__(self, text: str, name: str, line: int = 1) -> None:
        self.text, self.name, self.line = text, name, line

    def lines(self) -> Iterator[tuple[int, str]]:
        """Each line (without its line break) and its number in the file."""
        for number, line in enumerate(self.text.split("\n"), self.line):
            yield number, line.removesuffix("\r")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TextDocument) and (self.text, self.line) == (
            other.text,
            other.line,
        )

    def __hash__(self) -> int:
        return hash((self.text, self.line))

    def __reduce__(self) -> tuple[type, tuple[str, str, int]]:  # (sent to and from workers)
        return TextDocument, (self.text, self.name, self.line)


def is_markdown_heading(line: bytes) -> bool:
    """Whether a line is a Markdown ATX heading (``# Title``)."""
    stripped = line.lstrip(b"#")
    return 1 <= len(line) - len(stripped) <= 6 and stripped[:1] in (b" ", b"\t")


def markdown_records(source: Source, data: bytes, line_offset: int = 0) -> Iterator[Record]:
    """The one record of a Markdown document: its text from its first line."""
    if data.startswith(BOM):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        error = utf8_error(source, data, line_offset)
        assert error is not None
        raise error from None
    yield Record(
        TextDocument(text, source.name, 1 + line_offset), Location(source.name, 1 + line_offset, 1)
    )
