"""Gemini function calls: ids for calls and responses, and arguments in pieces.

Calls and the ``functionResponse`` parts that answer them are paired by id, else by
order and name; an id the file gives wins over one made up, on both sides of the pair.

Gemini 3 streams function-call arguments in pieces: ``functionCall: {name, willContinue:
true}`` opens a call, the parts after it
hold ``partialArgs: [{jsonPath: "$.a.b[0]", stringValue | numberValue | boolValue |
nullValue, willContinue}]``, and a part whose ``willContinue`` is not set (often an empty
``functionCall: {}``) closes it. A string value may come in several pieces, joined.

The same pieces appear in a stream's chunks and in a request that replays such a call, so
both readers assemble them here.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from ..model import AIMessage

_VALUES = ("stringValue", "numberValue", "boolValue", "nullValue")
_SNAKE_VALUES = {"string_value": "stringValue", "number_value": "numberValue"}
_SNAKE_VALUES.update({"bool_value": "boolValue", "null_value": "nullValue"})
# one step of a JSON path: .key, [index], ['key'] or ["key"]
_STEP = re.compile(r"\.([^.\[\]]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\[\"((?:[^\"\\]|\\.)*)\"\]")


def path_steps(path: str) -> list[str | int] | None:
    """The keys and indices of a ``$.a.b[0]`` path, or None when it is not one."""
    if not path.startswith("$"):
        return None
    steps: list[str | int] = []
    at = 1
    while at < len(path):
        match = _STEP.match(path, at)
        if match is None:
            return None
        key, index, single, double = match.groups()
        if index is not None:
            steps.append(int(index))
        else:
            text = key if key is not None else (single if single is not None else double)
            steps.append(re.sub(r"\\(.)", r"\1", text) if key is None else text)
        at = match.end()
    return steps


def _piece_value(piece: dict[str, Any]) -> tuple[str, Any] | None:
    for key, value in piece.items():
        kind = _SNAKE_VALUES.get(key, key)
        if kind in _VALUES and (value is not None or kind == "nullValue"):
            return kind, None if kind == "nullValue" else value
    return None


def apply_piece(args: dict[str, Any], piece: Any) -> bool:
    """Set one ``partialArgs`` value in ``args`` at its path (a string continues the string
    already there). False when the piece has no path or value it can be set by."""
    if not isinstance(piece, dict):
        return False
    path = piece.get("jsonPath", piece.get("json_path"))
    steps = path_steps(path) if isinstance(path, str) else None
    found = _piece_value(piece)
    if not steps or found is None:
        return False
    kind, value = found
    if not _within(args, steps):
        return False
    target: Any = args
    for step, after in itertools.pairwise(steps):
        empty: Any = [] if isinstance(after, int) else {}
        target = _child(target, step, empty)
        if target is None:
            return False
    last = steps[-1]
    here = _get(target, last)
    if kind == "stringValue" and isinstance(here, str):
        value = here + str(value)
    return _set(target, last, value)


def _within(args: dict[str, Any], steps: list[str | int]) -> bool:
    """Whether each list index of a path names an item of its list or the one after its
    end: a list is filled in order, never padded with nulls up to an index (2000000 made
    a list of two million). One past it is kept unread, nothing made on its way."""
    target: Any = args
    for step in steps:
        if isinstance(step, int) and step > (len(target) if isinstance(target, list) else 0):
            return False
        target = _get(target, step)
    return True


def _get(container: Any, step: str | int) -> Any:
    if isinstance(container, dict) and isinstance(step, str):
        return container.get(step)
    if isinstance(container, list) and isinstance(step, int) and step < len(container):
        return container[step]
    return None


def _set(container: Any, step: str | int, value: Any) -> bool:
    if isinstance(container, dict) and isinstance(step, str):
        container[step] = value
        return True
    if isinstance(container, list) and isinstance(step, int):
        if step == len(container):  # (``_within`` allows no index past it)
            container.append(value)
        else:
            container[step] = value
        return True
    return False


def _child(container: Any, step: str | int, empty: Any) -> Any:
    """The container at ``step``, made (``empty``) when nothing is there yet; None when
    a value that is no container is."""
    here = _get(container, step)
    if isinstance(here, (dict, list)):
        return here
    if here is not None:  # a value set before: not overwritten by a path through it
        return None
    return empty if _set(container, step, empty) else None


def _field(call: dict[str, Any], key: str) -> Any:
    snake = re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), key)
    return call.get(key, call.get(snake))


class CallPieces:
    """The call being assembled from pieces, across parts (and chunks, or contents)."""

    def __init__(self) -> None:
        self.open: dict[str, Any] | None = None  # the open call's args, filled in place
        self.unread: list[Any] = []  # pieces with no path or value they could be set by

    def starts(self, call: dict[str, Any]) -> bool:
        """True when this ``functionCall`` starts a call (it names one); False when it
        only carries pieces of the open call (or closes it)."""
        return bool(_field(call, "name"))

    def start(self, call: dict[str, Any]) -> dict[str, Any]:
        """The arguments of a call that starts here: its ``args`` and any pieces it holds
        already; kept open for the parts after it when it says it will continue."""
        args = _field(call, "args")
        args = dict(args) if isinstance(args, dict) else {}
        self.open = args
        self._pieces(call)
        if not _field(call, "willContinue"):
            self.open = None
        return args

    def add(self, call: dict[str, Any]) -> None:
        """A part that continues the open call: its pieces, and whether it ends it."""
        self._pieces(call)
        if not _field(call, "willContinue"):
            self.open = None

    def _pieces(self, call: dict[str, Any]) -> None:
        pieces = _field(call, "partialArgs")
        for piece in pieces if isinstance(pieces, list) else ():
            if self.open is None or not apply_piece(self.open, piece):
                self.unread.append(piece)


class Pairing:
    """Ids for calls that have none, and the calls waiting for their responses."""

    def __init__(self) -> None:
        self.waiting: list[tuple[str, str, bool]] = []  # (name, id, made up), oldest first
        self.messages: dict[str, AIMessage] = {}  # a waiting call's id: its message

    def call_id(self, call: dict[str, Any], turn: int, n: int) -> str:
        given = call.get("id")
        call_id = given if isinstance(given, str) and given else f"call_{turn}_{n}"
        self.waiting.append((call.get("name") or "", call_id, call_id is not given))
        return call_id

    def made(self, message: AIMessage) -> None:
        """The message whose calls were just given ids (for a response that renames one)."""
        for call in message.tool_calls:
            self.messages[call["id"] or ""] = message

    def response_id(self, response: dict[str, Any]) -> str:
        given = response.get("id")
        given = given if isinstance(given, str) and given else None
        name = response.get("name") or ""
        for i, (waiting_name, call_id, _) in enumerate(self.waiting):
            if call_id == given or (given is None and waiting_name == name):
                del self.waiting[i]
                return call_id
        if given is None:
            return ""
        # an id the call did not have: the call takes it (a made-up id never wins)
        for i, (waiting_name, call_id, made_up) in enumerate(self.waiting):
            if made_up and waiting_name == name:
                del self.waiting[i]
                self._rename(call_id, given)
                return given
        return given

    def _rename(self, old: str, new: str) -> None:
        message = self.messages.pop(old, None)
        if message is None:
            return
        for call in message.tool_calls:
            if call["id"] == old:
                call["id"] = new
        signatures = message.additional_kwargs.get("thought_signatures")
        if isinstance(signatures, dict) and old in signatures:
            signatures[new] = signatures.pop(old)
