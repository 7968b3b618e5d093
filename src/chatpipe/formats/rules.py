"""Problems, and the rule sets a dialect checks its own raw records with (``validate``):
a problem has a kind, a place (file:line:col and message index) and a hint in words."""

from __future__ import annotations

from typing import Any, Protocol

from ..errors import Location


class Problem:
    __slots__ = ("hint", "kind", "location", "text")

    def __init__(self, kind: str, text: str, location: Location | None, hint: str = "") -> None:
        self.kind = kind
        self.text = text
        self.location = location
        self.hint = hint

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location is not None else ""
        hint = f" ({self.hint})" if self.hint else ""
        return f"{where}{self.kind}: {self.text}{hint}"

    def to_dict(self) -> dict[str, Any]:
        loc = self.location
        return {
            "kind": self.kind,
            "message": self.text,
            "hint": self.hint,
            "file": loc.file if loc else None,
            "line": loc.line if loc else None,
            "col": loc.col if loc else None,
            "message_index": loc.message_index if loc else None,
        }


class RecordRules(Protocol):
    """A rule set of a format's raw records (``Dialect.record_rules``)."""

    name: str

    def row_problems(self, row: Any, location: Location) -> list[Problem]:
        """The problems of a conversation record."""
        ...

    def log(self) -> LogRules:
        """A fresh check of a message-per-record log, record by record."""
        ...


class LogRules(Protocol):
    def message_problems(self, message: Any, location: Location) -> list[Problem]: ...

    def end_problems(self, location: Location) -> list[Problem]:
        """What the whole log lacks, said at its first record's place."""
        ...
