"""chatpipe's own checks of an API's requests (``validate --as``): what each request,
message and content part may hold, from the same tables the API writers write by
(openai_request.py, openai_responses_writer.py, anthropic_writer.py, gemini_writer.py), so
that what chatpipe writes and what it checks cannot drift apart. They need no provider SDK;
where one is installed ``validate --as`` runs its types too (formats/sdk_checks.py).

Each check is a rule set (``formats/rules.py:RecordRules``) of raw records: a record is a
request (or, for Chat Completions, one message of a log). A problem names its kind
(``unknown_field``, ``unknown_role``, ``unknown_part``, ``reasoning_part``, ...), the path
in the record and the fix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..errors import Location, kind_of
from .rules import Problem

Found = list[Problem]


class Checking:
    """One record's problems, found as its parts are walked."""

    def __init__(self, location: Location, prefix: str = "") -> None:
        self.location, self.found = location, []
        self.prefix = prefix  # where the value checked stands in the record (a batch's body)

    def add(self, kind: str, path: str, text: str, hint: str, message: int | None = None) -> None:
        place = self.location if message is None else self.location.at_message(message)
        path = (self.prefix + path).rstrip(".")
        where = f"{path}: " if path else ""
        self.found.append(Problem(kind, where + text, place, hint))

    def keys(
        self, value: dict, taken: Iterable[str], path: str, what: str, message: int | None = None
    ) -> None:
        """Each key of ``value`` that ``taken`` does not hold, said once for the value."""
        left = [k for k in value if k not in taken]
        if left:
            kind = "unknown_field" if what == "request" else f"unknown_{what}_field"
            keys = ", ".join(map(str, left))
            hint = f"the API does not take these {what} fields; convert --to writes without them"
            self.add(kind, path, f"unknown key(s) {keys}", hint, message)

    def needs(
        self, value: dict, needed: Iterable[str], path: str, message: int | None = None
    ) -> None:
        missing = [k for k in needed if k not in value]
        if missing:
            text = f"missing {', '.join(missing)}"
            self.add("missing_field", path, text, "the API asks for these fields", message)

    def kind(self, value: Any, kinds: type | tuple[type, ...], path: str, what: str) -> bool:
        if isinstance(value, kinds):
            return True
        self.add(
            "wrong_type",
            path,
            f"{what} is {kind_of(value)}",
            f"the API takes {what} of another kind",
        )
        return False


class RequestRules:
    """A rule set of one API's requests: ``check(checking, record)`` finds the problems."""

    def __init__(self, name: str, check: Callable[[Checking, Any], None]) -> None:
        self.name, self.check = name, check

    def row_problems(self, row: Any, location: Location) -> list[Problem]:
        checking = Checking(location)
        if not isinstance(row, dict):
            checking.add(
                "data_type",
                "",
                f"a request must be an object, got {kind_of(row)}",
                "one JSON object per record",
            )
        else:
            self.check(checking, row)
        return checking.found

    def log(self) -> _EachRecord:
        return _EachRecord(self)


class _EachRecord:
    """A message-per-record log: each record checked on its own."""

    def __init__(self, rules: RequestRules) -> None:
        self.rules = rules

    def message_problems(self, message: Any, location: Location) -> list[Problem]:
        return self.rules.row_problems(message, location)

    def end_problems(self, location: Location) -> list[Problem]:
        return []


# -- messages of a role, with parts of a type ---------------------------------------------


def check_messages(
    checking: Checking,
    messages: Any,
    path: str,
    roles: dict[str, frozenset[str]],
    parts: Callable[[str], frozenset[str]],
    part_keys: dict[str, Any],
) -> None:
    """``messages`` (a list of ``{role, content, ...}``): each role one of ``roles``, with
    the keys of its role, its content a string or parts of the types ``parts(role)``
    allows, each with its type's keys; reasoning parts said as such."""
    if not checking.kind(messages, list, path, "the message list"):
        return
    for i, message in enumerate(messages):
        at = f"{path}[{i}]" if path else ""  # ("": a log's record, one message)
        i = i if path else None  # type: ignore[assignment]
        if not isinstance(message, dict):
            checking.add(
                "data_type",
                at,
                f"a message must be an object, got {kind_of(message)}",
                "write each message as an object",
                i,
            )
            continue
        role = message.get("role")
        if role not in roles:
            hint = "use one of " + ", ".join(roles)
            checking.add("unknown_role", at, f"role {role!r}", hint, i)
            continue
        checking.keys(message, roles[role], at, "message", i)
        content = message.get("content")
        if isinstance(content, list):
            check_parts(checking, content, f"{at}.content", parts(role), part_keys, i)


def check_parts(
    checking: Checking,
    content: list,
    path: str,
    allowed: frozenset[str],
    part_keys: dict[str, Any],
    message: int | None = None,
) -> None:
    for j, part in enumerate(content):
        at = f"{path}[{j}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in ("reasoning", "thinking", "redacted_thinking") and kind not in allowed:
            hint = "the API has no reasoning part here; convert --to leaves it out"
            checking.add("reasoning_part", at, f"a {kind} part", hint, message)
        elif kind not in allowed:
            hint = "parts here are " + ", ".join(sorted(allowed))
            checking.add("unknown_part", at, f"a part of type {kind!r}", hint, message)
        elif part_keys.get(kind, ()) is not None:  # (None: a kind whose keys are its own)
            checking.keys(part, part_keys.get(kind, ()), at, "part", message)
