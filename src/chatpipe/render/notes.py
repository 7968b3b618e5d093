"""Conversations as a folder of Markdown notes (``--to markdown --output-dir DIR``), as
people keep exports in Obsidian and other notes apps: a file per conversation, named by
its date and title, each opening with YAML front matter (title, id, created, updated,
model, source); the images an export zip holds go into ``files/`` beside them."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from urllib.parse import quote

import yaml

from ..model import Conversation
from .markdown import conversation_facts, conversation_markdown_parts, titled

# what a file name cannot hold on some system, or a notes app reads as link syntax, and
# the characters that turn the text's direction
_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|#^\[\]\u202a-\u202e\u2066-\u2069]')
_RESERVED = re.compile(r"(con|prn|aux|nul|com\d|lpt\d)(\..*)?", re.I)  # Windows' devices
_LONGEST = 120  # bytes of UTF-8 for a name's stem: far under 255 with the suffix added


def note_name(title: str, created: str | None) -> str:
    """A file name's stem for a note: ``2024-05-01 Title``, with what a file system or a
    notes app cannot take made spaces, no leading dot, not too long."""
    stem = " ".join(_UNSAFE.sub(" ", title).split()).strip(" .")
    if created and re.match(r"\d{4}-\d{2}-\d{2}", created):
        stem = f"{created[:10]} {stem}".strip()
    while len(stem.encode("utf-8")) > _LONGEST:
        stem = stem[:-1]
    stem = stem.rstrip(" .") or "Untitled"
    return f"{stem}_" if _RESERVED.fullmatch(stem) else stem


def unique(stem: str, taken: set[str]) -> str:
    """``stem.md``, or ``stem (2).md``... when a note already has that name (compared
    as a case-insensitive file system compares them)."""
    name, number = f"{stem}.md", 1
    while name.casefold() in taken:
        number += 1
        name = f"{stem} ({number}).md"
    taken.add(name.casefold())
    return name


def front_matter(fields: dict[str, str]) -> str:
    """YAML front matter: strings double-quoted by YAML's own writer (which escapes what
    YAML reads otherwise: DEL, C1 controls, NEL and the line separators), dates bare."""
    lines = ["---"]
    for key, value in fields.items():
        bare = key in ("created", "updated") and re.fullmatch(r"[\dT:Z.+-]+", value)
        lines.append(f"{key}: {value if bare else _quoted(value)}")
    return "\n".join(lines) + "\n---\n\n"


def _quoted(value: str) -> str:
    written = yaml.safe_dump(value, default_style='"', allow_unicode=True, width=math.inf)
    return written.rstrip("\n")


def notes(conversations: Iterable[Conversation]) -> Iterator[tuple[str, str | bytes]]:
    """(file name, text) of each conversation's note, one conversation held at a time;
    after a note, the images its export zip holds that it shows (``files/NAME``, each
    written once), which it links to."""
    taken: set[str] = set()
    beside = Beside()
    for index, conversation in enumerate(conversations):
        conversation = conversation.with_messages(list(conversation.messages))
        title, _, _ = titled(conversation, index)
        facts = conversation_facts(conversation)
        fields = {"title": title, **facts}
        if conversation.location is not None:
            fields["source"] = conversation.location.file
        images = beside.linker(conversation.files) if conversation.files is not None else None
        text = front_matter(fields) + "".join(
            conversation_markdown_parts(conversation, index, facts=False, images=images)
        )
        yield unique(note_name(title, facts.get("created")), taken), text
        yield from beside.new()


class Beside:
    """The images notes link to, written into ``files/`` beside them: each once, under
    its file name in the zip (made safe and unique)."""

    def __init__(self) -> None:
        self.paths: dict[tuple[int, str], str] = {}  # (zip, member): its path
        self.taken: set[str] = set()
        self.pending: list[tuple[str, bytes]] = []

    def linker(self, files: Any) -> Callable[[Any], str | None]:
        def link(pointer: Any) -> str | None:
            found = files.image(pointer)
            if found is None:
                return None
            member, _, data = found
            key = (id(files.archive), member)
            path = self.paths.get(key)
            if path is None:
                path = self.paths[key] = self._path(member)
                self.pending.append((path, data))
            return quote(path)

        return link

    def _path(self, member: str) -> str:
        stem = " ".join(_UNSAFE.sub(" ", member.rsplit("/", 1)[-1]).split()).strip(" .")
        stem, dot, suffix = stem.rpartition(".") if "." in stem else (stem, "", "")
        name, number = f"files/{stem or 'image'}{dot}{suffix}", 1
        while name.casefold() in self.taken:
            number += 1
            name = f"files/{stem or 'image'} ({number}){dot}{suffix}"
        self.taken.add(name.casefold())
        return name

    def new(self) -> Iterator[tuple[str, bytes]]:
        pending, self.pending = self.pending, []
        return iter(pending)
