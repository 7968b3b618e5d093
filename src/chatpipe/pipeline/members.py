"""The members of the zips a run reads whole (io/sources.py lists them in the zip's
place): each read as a file of its own; one that holds no chat log (an image, a README,
an account's details beside an export's conversations) skipped and one that is empty (an
export's `[]` files), each said under -v; a zip none
of whose members is a chat log, an error. A member's conversations carry the files the
zip holds beside them (an export's images), for the pages that show them. A zip inside
the zip is not read, and said without -v: it may be what holds the chat logs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import DataError, Location, NotAChatLog
from ..io.sources import Source
from ..model import Conversation


class Members:
    """The members of the zips a run reads whole: each read as a file of its own, and
    one that is no chat log (an image, a README, an account's details) skipped, said
    under -v; a zip none of whose members is a chat log is an error."""

    def __init__(self, reading: Any) -> None:
        self.reading = reading  # a Reading, whose ``notes`` hear what was skipped
        self.skipped: list[tuple[str, str]] = []  # (member, what it is) of this zip
        self.empty: list[str] = []  # members of this zip that held nothing
        self.read_any = False
        self.open: set[Any] = set()  # archives being read (closed at the end)

    def read(self, source: Source, conversations: Iterator[Any]) -> Iterator[Any]:
        """A member's conversations (or problems: validate's), or none when it holds no
        chat log; after its zip's last member, what was skipped said (or refused)."""
        archive = source.archive
        self.open.add(archive)
        given = False
        empty = len(self.reading.empty)
        try:
            for conversation in conversations:
                given = True
                yield conversation
            self.read_any = True
            if len(self.reading.empty) > empty:
                self.empty.append(source.member)
        except NotAChatLog as exc:
            if given:
                raise
            self.skipped.append((source.member, exc.kind))
        if source.last:
            self._done(archive)

    def _done(self, archive: Any) -> None:
        skipped, self.skipped = self.skipped, []
        empty, self.empty = self.empty, []
        read_any, self.read_any = self.read_any, False
        self.open.discard(archive)
        archive.close()
        if empty:
            listed = ", ".join(empty[:5]) + (
                f" and {len(empty) - 5} more" if len(empty) > 5 else ""
            )
            self.reading.notes.append(
                f"{archive.name}: {len(empty)} member{'s' if len(empty) != 1 else ''} empty, "
                f"no conversations in {'them' if len(empty) != 1 else 'it'}: {listed}"
            )
        nested = [member for member, kind in skipped if kind == NESTED_ZIP]
        if nested and read_any:  # a zip inside: said without -v (it may hold the logs)
            self.reading.warnings.append(nested_zips_said(archive.name, nested))
            skipped = [(member, kind) for member, kind in skipped if kind != NESTED_ZIP]
        if not skipped:
            return
        said = _skipped_said(skipped)
        if not read_any:
            raise DataError(
                f"no chat log in this zip: {said}",
                Location(archive.name),
                "name a member to read it alone (ZIP:MEMBER) with --from DIALECT",
            )
        many = len(skipped) != 1
        self.reading.notes.append(
            f"{archive.name}: skipped {len(skipped)} member"
            + ("s that are not chat logs" if many else " that is not a chat log")
            + f": {said}"
        )

    def close(self) -> None:
        for archive in self.open:
            archive.close()
        self.open.clear()


def with_files(conversations: Iterator[Conversation], files: Any) -> Iterator[Conversation]:
    """The conversations of a zip's member, with the files the zip holds beside them."""
    for conversation in conversations:
        if files is not None:
            conversation.files = files
        yield conversation


NESTED_ZIP = "a zip archive inside a zip"  # what io/readers.py calls a zip's member zip


def nested_zips_said(archive: str, members: list[str], shown: int = 5) -> str:
    """The warning for the zips inside a zip, which are not read."""
    listed = ", ".join(members[:shown])
    if len(members) > shown:
        listed += f" and {len(members) - shown} more"
    many = len(members) != 1
    return (
        f"warning: {archive}: {'zips' if many else 'a zip'} inside it not read: {listed} "
        f"(unzip it and name the {'zips' if many else 'zip'} inside it)"
    )


def _skipped_said(skipped: list[tuple[str, str]], shown: int = 5) -> str:
    """``a PNG image (a.png, b.png); HTML or XML (chat.html)``: the members skipped, by
    what they are, a few named of each."""
    kinds: dict[str, list[str]] = {}
    for member, kind in skipped:
        kinds.setdefault(kind, []).append(member)
    said = []
    for kind, names in kinds.items():
        listed = ", ".join(names[:shown])
        if len(names) > shown:
            listed += f" and {len(names) - shown} more"
        said.append(f"{kind} ({listed})")
    return "; ".join(said)
