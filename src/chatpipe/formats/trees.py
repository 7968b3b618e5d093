"""What the chat-app dialects share beyond exports.py's branch walking: their message
trees made into conversations (``--branch``), a reader's choice of branch said on stderr,
and the times apps write (epoch seconds or milliseconds, ISO 8601, Mongo's ``$date``) made
comparable and put where ``select --after`` and the viewer look (``created_at``,
``updated_at`` of a conversation's fields)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import Location
from ..model import AnyMessage, Conversation
from .exports import ReadOptions, branch_meta, branch_paths

# what a reader leaves out when the file names the live branch (said once per run)
OTHER_BRANCHES = (
    "branches besides the live one (regenerations, edits) left out (--branch all writes them)"
)


def seconds(value: Any) -> float | None:
    """Seconds since the epoch of a time as chat apps write it: a number (seconds, or
    milliseconds past the year 5138), an ISO 8601 string (no offset: UTC), Mongo's
    extended JSON ``{"$date": ...}``; None for anything else."""
    if isinstance(value, dict) and "$date" in value:
        value = value["$date"]
        if isinstance(value, dict):
            value = value.get("$numberLong")
        if isinstance(value, str) and value.lstrip("-").isdigit():
            value = int(value)
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
        return number / 1000 if abs(number) >= 1e11 else number
    if isinstance(value, str) and value:
        try:
            found = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        if found.tzinfo is None:
            found = found.replace(tzinfo=dt.timezone.utc)
        return found.timestamp()
    return None


def plain_time(value: Any) -> Any:
    """A time as the conversation's fields give it to ``select`` and the viewer: epoch
    seconds or an ISO 8601 string as written; milliseconds and ``$date`` as seconds;
    None for what is not a time."""
    if isinstance(value, str):
        return value if seconds(value) is not None else None
    found = seconds(value)
    if found is None:
        return None
    return int(found) if found == int(found) else found


def dated(meta: dict[str, Any], created: Any, updated: Any = None) -> dict[str, Any]:
    """``meta`` with ``created_at`` and ``updated_at`` set from the times given (when
    they are times and the fields are not taken)."""
    for key, value in (("created_at", created), ("updated_at", updated)):
        shown = plain_time(value)
        if shown is not None and meta.get(key) is None:
            meta[key] = shown
    return meta


def span(times: list[Any]) -> tuple[Any, Any]:
    """The first and last of some times (as written), by when they are; (None, None)
    when none is a time."""
    known = [(seconds(t), t) for t in times]
    known = [(s, t) for s, t in known if s is not None]
    if not known:
        return None, None
    return min(known, key=lambda k: k[0])[1], max(known, key=lambda k: k[0])[1]


def tree_conversations(
    parents: dict[str, str | None],
    order: list[str],
    active: str | None,
    times: dict[str, Any],
    options: ReadOptions | None,
    location: Location,
    meta: dict[str, Any],
    messages_of: Callable[[list[str]], list[AnyMessage]],
) -> Iterator[Conversation]:
    """The conversations of a message tree: its live branch (``active``, else the newest
    leaf by ``times``), or each branch ``--branch`` asks for, ``messages_of`` reading a
    path of node ids. A file that names its live branch and holds others says what was
    left out (one that names none is said by the run, as for Claude.ai exports)."""
    options = options if isinstance(options, ReadOptions) else ReadOptions()
    when = {key: seconds(value) for key, value in times.items()}
    paths, dropped = branch_paths(parents, order, active, when, options, location)
    if not paths:
        yield Conversation([], dict(meta), location)
        return
    for number, path in enumerate(paths):
        branch = branch_meta(path, number, len(paths), dropped, active, options)
        if options.branch == "all" and active is not None and path[-1] == active:
            branch["live"] = True  # (the branch the file names, among all of them)
        conversation = Conversation(messages_of(path), {**meta, "branch": branch}, location)
        if dropped and branch.get("chosen") != "newest":
            conversation.left_out = [OTHER_BRANCHES]
        yield conversation
