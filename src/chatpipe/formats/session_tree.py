"""The branches of a session log whose lines link to their parents (Claude Code's
``parentUuid``), as the export dialects' trees give theirs (``--branch``).

A line with several children is not always a branch: parallel tool calls give their
results as children of different call lines, and progress or hook lines hang beside the
turn that goes on. A child's subtree is taken into the path beside it (absorbed) when the
only messages in it are ones the path expects there: tool results, and further lines of
an assistant message already on the path. A branch is what remains: a subtree holding a
turn of its own (a rewind: two prompts under one parent).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..errors import DataError, Location
from .exports import ReadOptions


class Node:
    """One line of the tree: its id, its parent's id, whether it is a message (a turn),
    its number in the file (for order) and whatever the dialect keeps of it."""

    __slots__ = ("ident", "is_message", "number", "parent", "time", "value")

    def __init__(
        self,
        ident: str,
        parent: str | None,
        number: int,
        value: Any,
        is_message: bool,
        time: Any = None,
    ) -> None:
        self.ident = ident
        self.parent = parent
        self.number = number
        self.value = value
        self.is_message = is_message
        self.time = time


class Tree:
    """A session's lines by id, in file order, with their children."""

    def __init__(self, nodes: list[Node]) -> None:
        self.nodes: dict[str, Node] = {}
        for node in nodes:
            self.nodes.setdefault(node.ident, node)  # a repeated id: the first line stands
        self.order = sorted(self.nodes.values(), key=lambda n: n.number)
        self.children: dict[str, list[Node]] = {}
        for node in self.order:
            if node.parent is not None and node.parent in self.nodes:
                self.children.setdefault(node.parent, []).append(node)
        # whether a node has a message below it; children come after their parents in an
        # append-only log, so one pass from the end settles it
        below: dict[str, bool] = {}
        for node in reversed(self.order):
            below[node.ident] = any(
                c.is_message or below.get(c.ident, False) for c in self.children.get(node.ident, ())
            )
        self.leaves = [n for n in self.order if n.is_message and not below[n.ident]]

    def last_message_under(self, ident: str) -> Node | None:
        """The last message line written at or below the line ``ident`` (None when it is
        not in the tree or has no message under it)."""
        top = self.nodes.get(ident)
        found: Node | None = None
        stack = [top] if top is not None else []
        seen: set[str] = set()
        while stack:
            node = stack.pop()
            if node.ident in seen:
                continue
            seen.add(node.ident)
            if node.is_message and (found is None or node.number > found.number):
                found = node
            stack.extend(self.children.get(node.ident, ()))
        return found

    def walk(self, leaf: Node, location: Location) -> list[Node]:
        """The nodes from the root (or the first line whose parent is not in the file) to
        ``leaf``."""
        path: list[Node] = []
        seen: set[str] = set()
        node: Node | None = leaf
        while node is not None:
            if node.ident in seen:
                raise DataError(
                    f"the parentUuid links loop at {node.ident!r}",
                    location,
                    hint="the file is damaged: a line names a later line as its parent",
                )
            seen.add(node.ident)
            path.append(node)
            node = self.nodes.get(node.parent) if node.parent is not None else None
        return path[::-1]

    def branch(
        self, leaf: Node, absorbable: Callable[[Node, list[Node]], bool], location: Location
    ) -> list[Node]:
        """The nodes of the branch ending at ``leaf``: its path and the side subtrees the
        path absorbs, in file order."""
        path = self.walk(leaf, location)
        on_path = {n.ident for n in path}
        taken = list(path)
        for node in path:
            for child in self.children.get(node.ident, ()):
                if child.ident not in on_path:
                    side = self._side(child, path, absorbable)
                    if side is not None:
                        taken.extend(side)
        return sorted(taken, key=lambda n: n.number)

    def _side(
        self, top: Node, path: list[Node], absorbable: Callable[[Node, list[Node]], bool]
    ) -> list[Node] | None:
        """The nodes under ``top`` (itself included) when every message among them is one
        the path takes beside it; None when the subtree holds a turn of its own."""
        found: list[Node] = []
        stack = [top]
        while stack:
            node = stack.pop()
            if node.is_message and not absorbable(node, path):
                return None
            found.append(node)
            stack.extend(self.children.get(node.ident, ()))
        return found


def choose_branches(
    tree: Tree,
    live: Node | None,
    absorbable: Callable[[Node, list[Node]], bool],
    options: ReadOptions,
    location: Location,
) -> tuple[list[list[Node]], int]:
    """The branches ``--branch`` asks for (each its nodes in file order) and how many
    others were left out. ``live`` is the message the session goes on from (its last
    message line, unless the file names another); ``--branch latest`` takes the newest
    leaf by time."""
    if live is None:
        return [], 0
    branches: list[tuple[Node, list[Node]]] = []
    taken: set[str] = set()
    first = live
    if options.branch == "latest" and tree.leaves:
        first = max(tree.leaves, key=lambda n: (str(n.time or ""), n.number))
    # the live branch first, then the other tips newest first: a branch's tip absorbs
    # the results of parallel calls, leaves that come before it in the file
    for leaf in [first, *reversed(tree.leaves)]:
        if leaf.ident in taken:
            continue
        nodes = tree.branch(leaf, absorbable, location)
        taken.update(n.ident for n in nodes)
        branches.append((leaf, nodes))
    if options.branch == "all":
        ordered = sorted(branches, key=lambda b: b[0].number)
        return [nodes for _, nodes in ordered], 0
    return [branches[0][1]], len(branches) - 1


def live_index(branches: list[list[Node]], live: Node | None) -> int | None:
    """Which of ``--branch all``'s branches the session goes on in."""
    for index, nodes in enumerate(branches):
        if live is not None and any(n is live for n in nodes):
            return index
    return None


def branches_from_last(
    tree: Tree,
    last: str | None,
    absorbable: Callable[[Node, list[Node]], bool],
    options: ReadOptions,
    location: Location,
) -> Iterator[tuple[list[Node], dict[str, Any] | None]]:
    """The branches of a log that goes on from its last line, whatever that line is
    (Qwen Code, Copilot CLI): the live branch ends at the last message on the path from
    the line ``last`` to the root (the last message of the file when ``last`` is not in
    the tree). Each branch comes with its ``branch`` field (None when there is nothing to
    say: one branch, and not ``--branch all``)."""
    from .exports import branch_meta

    messages = [n for n in tree.order if n.is_message]
    if not messages:
        return
    live = messages[-1]
    if last is not None and last in tree.nodes:
        on_path = [n for n in tree.walk(tree.nodes[last], location) if n.is_message]
        live = on_path[-1] if on_path else live
    branches, dropped = choose_branches(tree, live, absorbable, options, location)
    active = live_index(branches, live) if len(branches) > 1 else None
    for number, nodes in enumerate(branches):
        leaf = [n.ident for n in nodes if n.is_message][-1:]
        tip = leaf[-1] if leaf else None
        meta = branch_meta(leaf, number, len(branches), dropped, tip, options)
        if number == active:
            meta["active"] = True  # the branch the session goes on in
        yield nodes, meta if options.branch == "all" or dropped else None
