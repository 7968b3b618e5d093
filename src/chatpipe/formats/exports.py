"""What the ChatGPT and Claude.ai export dialects share (docs/formats.md): trees of
messages, walked from
the active leaf to the root (``--branch active``, the default), every root-to-leaf path
(``--branch all``), or the newest leaf (``--branch latest``). A tree that names no active
leaf gives its newest leaf for ``--branch active`` too, and its metadata says so
(``branch.chosen == "newest"``) for the command to tell the user. A cycle in the parent
links is an error. A record with no tree at all (``mapping`` / ``chat_messages`` null or
missing, as conversation listings hold) is an empty conversation with its metadata.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ..errors import DataError, Location, kind_of

BRANCHES = ("active", "all", "latest")


class ReadOptions:
    """Reading choices for tree-shaped exports and session logs: which branch, hidden
    messages (ChatGPT), and subagents' conversations (coding-agent sessions); and whether
    a message log's messages keep their places."""

    def __init__(
        self,
        branch: str = "active",
        include_hidden: bool = False,
        include_subagents: bool = False,
        places: bool = False,
    ) -> None:
        if branch not in BRANCHES:
            from ..errors import UsageError

            raise UsageError(f"--branch must be one of {', '.join(BRANCHES)}, got {branch!r}")
        self.branch = branch
        self.include_hidden = include_hidden
        self.include_subagents = include_subagents
        # a message log's conversation keeps each message's place (``Conversation.places``):
        # for what names messages by their line (redact --dry-run); it costs a place each
        self.places = places
        # what a reader says under -v of what it read (a line of a kind it does not know)
        self.note: Callable[[str], None] = _unheard

    def hearing(self, note: Callable[[str], None]) -> ReadOptions:
        """These options, a reader's notes told to ``note``."""
        heard = copy.copy(self)
        heard.note = note
        return heard


def _unheard(text: str) -> None:
    """Where a reader's notes go when no run listens."""


def branch_paths(
    parents: dict[str, str | None],
    order: list[str],
    active: str | None,
    times: dict[str, Any],
    options: ReadOptions,
    location: Location,
) -> tuple[list[list[str]], int]:
    """The node paths (root first) to write, and how many leaves were left out."""
    children: dict[str, list[str]] = {}
    for node in order:
        parent = parents.get(node)
        if parent is not None:
            children.setdefault(parent, []).append(node)
    leaves = [n for n in order if n not in children]

    def walk(leaf: str) -> list[str]:
        path, seen = [], set()
        node: str | None = leaf
        while node is not None:
            if node in seen:
                raise DataError(f"the parent links loop at node {node!r}", location)
            seen.add(node)
            path.append(node)
            node = parents.get(node)
            if node is not None and node not in parents:
                break  # a dangling parent: the path starts here
        return path[::-1]

    if options.branch == "all":
        return [walk(leaf) for leaf in leaves], 0
    if options.branch == "active" and active is not None and active in parents:
        return [walk(active)], max(0, len(leaves) - 1)
    # no active leaf named (a Claude.ai export of a retried answer): the newest leaf
    if not leaves:
        if order:
            raise DataError("the parent links loop: no message is a leaf", location)
        return [], 0
    latest = max(leaves, key=lambda n: (times.get(n) or 0, order.index(n)))
    return [walk(latest)], len(leaves) - 1


def unlinked_chain(order: list[str], times: dict[str, Any]) -> dict[str, str | None]:
    """Parent links for a tree whose nodes hold none (as some exporters and re-importers
    write them): one path, in creation time order, then node order (a node with no time
    keeps its place before the timed ones)."""

    def when(key: str) -> float:
        time = times.get(key)
        return float(time) if isinstance(time, (int, float)) else float("-inf")

    chain = sorted(order, key=when)  # (a stable sort: node order among equal times)
    return {key: (chain[i - 1] if i else None) for i, key in enumerate(chain)}


def branch_meta(
    path: list[str], number: int, count: int, dropped: int, active: Any, options: ReadOptions
) -> dict[str, Any]:
    """What a conversation's ``branch`` metadata says about the path it holds."""
    if options.branch == "all":
        return {"leaf": path[-1], "index": number, "of": count}
    branch: dict[str, Any] = {"leaf": path[-1] if path else None, "left_out": dropped}
    if options.branch == "active" and dropped and path and path[-1] != active:
        branch["chosen"] = "newest"  # no active leaf named: the newest one was taken
    return branch


def tree_field(value: dict[str, Any], field: str, kind: type, what: str, location: Location) -> Any:
    """The tree field of an export record; None when the record has none (a listing)."""
    tree = value.get(field)
    if tree is None or isinstance(tree, kind):
        return tree
    raise DataError(
        f'the "{field}" field must be {what}, got {kind_of(tree)}',
        location,
        hint=f'fix or remove "{field}" in this record; null or missing reads as no messages',
    )
