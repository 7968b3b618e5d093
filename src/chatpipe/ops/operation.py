"""The operation contract: what a job does to each conversation (``Job(inputs, operation,
target)``), and what else it can do, declared by the classes it derives from.

An operation is called on each conversation and gives the conversation it becomes, or
None to leave it out of the output. Besides, it may be:

- ``Stateless``: it keeps nothing from one conversation to the next, so a copy of it on
  each worker gives what one process gives (select, sample --fraction, trim, filter).
- ``PerPart``: it keeps a state and says how the parts' states merge: ``for_part(part)``
  gives the copy one part of the inputs runs, ``part_state()`` what that copy gathered
  (sent back pickled), ``absorb(state, placed)`` adds one part's to this operation, the
  parts taken in input order (redact's counts, dedupe --by messages).
- ``TwoPasses``: it decides about a conversation only once it has seen them all; in
  parts it is a first pass that gathers (``first_pass()``: a ``PerPart``, whose merged
  state the second needs) and a second that filters by what was gathered
  (``second_pass(gathered)``): dedupe, sample -n.
- ``Streaming``: it takes the run's conversations all at once, in order
  (``stream(conversations)``): head, and sample -n on one process. A run with it is one
  process, unless it has two passes too.
- ``per_message`` (an attribute): it looks at each message alone (filter), so that one
  message log can be cut into ranges of messages.

Why a small base class and not a Protocol: a Protocol matches by shape, and the one thing
an engine must know before it copies an operation onto workers, that the operation keeps
no state or says how its states merge, has no shape: a counter and a pure function look
alike. A base class is a declaration its author makes (``class Tally(PerPart)``), checked
with ``isinstance``, inherited, and typed (``PerPart[S]``: the part's state). The
abilities stay optional: an operation derives from the ones it has.

What keeps state (``undeclared_state``, which the engines that run parts in several
processes ask, refusing an operation that may keep state and says nothing of merging):

- an ``Operation`` declares itself: ``Stateless``, ``PerPart``, ``TwoPasses`` and
  ``Streaming`` say how it runs; one that derives from ``Operation`` alone is taken as
  keeping state;
- a plain function (``def``, ``lambda``) is taken as keeping nothing, as ``dask.bag.map``
  takes it, when nothing it reaches from its own code can change: the values it closes
  over, its defaults and the module globals it names are numbers, strings, tuples of
  them, modules, classes, compiled patterns, declared operations or functions of the
  same kind; one that assigns a global, or reaches a list, a dict, a set or an object,
  may keep state;
- any other callable (an object with ``__call__``, a bound method, a ``partial`` over an
  object) may keep state;
- ``stateless(function)`` is the caller's word that a callable keeps nothing, and
  ``KeepsNothing`` a class's (for a callable that is no operation: ``Trim``, a function
  of messages that ``on_messages`` wraps).
"""

from __future__ import annotations

import functools
import re
import types
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from typing import Any, ClassVar, Generic, TypeVar

from ..model import Conversation

S = TypeVar("S")  # what one part's copy of an operation gathered
Placed = Callable[[Any], Any]  # a part's place (a Location counted from its start) -> the file's


class Operation(ABC):
    """What a job does to each conversation: the conversation it becomes, or None to
    leave it out. An operation that derives from this class alone declares nothing, and
    is taken as keeping state: it runs on one process, or in parts in this process."""

    per_message: ClassVar[bool] = False  # it looks at each message alone: a log can be cut

    @abstractmethod
    def __call__(self, conversation: Conversation) -> Conversation | None: ...

    def undeclared_state(self) -> str | None:
        """None when the operation runs in parts on several processes to one process's
        answer; else what may keep state there, in words."""
        return f"{type(self).__name__} declares no contract (neither Stateless nor PerPart)"


class KeepsNothing:
    """The declaration, for any callable, that it keeps nothing from one call to the
    next: a function of a conversation's messages that ``on_messages`` makes an operation
    of (``Trim``) declares itself so."""


class Stateless(Operation, KeepsNothing):
    """An operation that keeps nothing from one conversation to the next: a copy on each
    worker gives what one process gives."""

    def undeclared_state(self) -> str | None:
        return None


class PerPart(Operation, Generic[S]):
    """An operation that keeps a state, and says how the parts' states merge."""

    @abstractmethod
    def for_part(self, part: int) -> PerPart[S]:
        """The copy that runs part ``part`` (its number in input order), state empty."""

    @abstractmethod
    def part_state(self) -> S:
        """What this part's copy gathered, sent back to the process that puts the parts
        together (pickled); None: nothing to absorb."""

    @abstractmethod
    def absorb(self, state: S, placed: Placed) -> None:
        """One part's state added to this operation, the parts in input order;
        ``placed`` turns a place the part counted from its start into its file's."""

    def undeclared_state(self) -> str | None:
        return None


class TwoPasses(Operation):
    """An operation that decides about a conversation only once it has seen them all.
    On one process it runs as it is (or as ``Streaming``); in parts, as two passes over
    the same parts."""

    @abstractmethod
    def first_pass(self) -> PerPart[Any] | None:
        """The operation of a first run over the parts, which writes nothing and gathers
        what the second needs (merged by its ``absorb``); None: one pass does (this
        operation itself runs the parts, and must be ``PerPart`` or ``Stateless``)."""

    @abstractmethod
    def second_pass(self, gathered: PerPart[Any]) -> Operation:
        """The operation that runs the parts once ``gathered`` (the first pass, every
        part absorbed) has seen them all."""

    def undeclared_state(self) -> str | None:
        return None


class Streaming(Operation):
    """An operation that takes the run's conversations all at once, in order, and gives
    the ones to write (head: the first N, reading no further). It sees the whole input,
    so a run with it is one process (``--jobs`` and Dask say so), unless it has two
    passes too (``TwoPasses``: sample -n)."""

    @abstractmethod
    def stream(self, conversations: Iterator[Conversation]) -> Iterator[Conversation]: ...

    def __call__(self, conversation: Conversation) -> Conversation | None:
        raise TypeError(f"{type(self).__name__} takes the conversations all at once")

    def undeclared_state(self) -> str | None:
        return None


# -- operations made of functions -------------------------------------------------------


class Declared(Stateless):
    """A callable the caller says keeps nothing (``stateless``)."""

    def __init__(self, function: Callable[[Conversation], Any], per_message: bool):
        self.function = function
        self.per_message = per_message  # type: ignore[misc]

    def __call__(self, conversation: Conversation) -> Any:
        return self.function(conversation)


def stateless(function: Callable[[Conversation], Any], per_message: bool = False) -> Stateless:
    """``function`` as an operation that keeps nothing from one conversation to the next,
    on the caller's word (runs in parts anywhere); ``per_message``: it looks at each
    message alone."""
    return Declared(function, per_message)


class OnMessages(Operation):
    """Each conversation with the messages ``change`` makes of it, its other fields kept;
    as stateless as ``change`` is."""

    def __init__(self, change: Callable[[Conversation], Iterable[Any]], per_message: bool):
        self.change = change
        self.per_message = per_message  # type: ignore[misc]

    def __call__(self, conversation: Conversation) -> Conversation:
        return conversation.with_messages(self.change(conversation))

    def undeclared_state(self) -> str | None:
        return undeclared_state(self.change)


def on_messages(
    change: Callable[[Conversation], Iterable[Any]], per_message: bool = False
) -> Operation:
    """The operation that gives each conversation the messages ``change`` makes of it
    (``Trim``, langchain's filter and merge), its other fields kept. ``per_message``:
    ``change`` looks at each message alone (filter), so a log's messages can be changed
    in pieces. It keeps state as ``change`` does (``undeclared_state``)."""
    return OnMessages(change, per_message)


class OnStream(Streaming):
    """``Streaming`` made of a function of the conversations' iterator."""

    def __init__(self, change: Callable[[Iterator[Conversation]], Iterator[Conversation]]):
        self.change = change

    def stream(self, conversations: Iterator[Conversation]) -> Iterator[Conversation]:
        return self.change(conversations)


def on_stream(
    change: Callable[[Iterator[Conversation]], Iterator[Conversation]],
) -> Streaming:
    """The operation that takes the run's conversations all at once, in order, and gives
    the ones to write (head). A run with it is one process."""
    return OnStream(change)


# -- what keeps state -------------------------------------------------------------------


def undeclared_state(operation: Any) -> str | None:
    """None when ``operation`` runs in parts on several processes to one process's
    answer (declared so, or a plain function that reaches nothing that can change); else
    what may keep state, in words (the module docstring gives the rule)."""
    if operation is None:
        return None
    if isinstance(operation, Operation):
        return operation.undeclared_state()
    if isinstance(operation, types.FunctionType):
        return _function_state(operation, set())
    why = _changeable(operation, set())
    return why and f"it is {why}, which declares neither Stateless nor PerPart"


_UNCHANGING = (
    type(None),
    bool,
    int,
    float,
    complex,
    str,
    bytes,
    range,
    type(Ellipsis),
    re.Pattern,
    type,
    types.ModuleType,
)


def _changeable(value: Any, seen: set[int]) -> str | None:
    """None when ``value`` cannot change (nor anything changed through it); else what
    it is, in words."""
    if isinstance(value, (_UNCHANGING, KeepsNothing)):
        return None
    if isinstance(value, (tuple, frozenset)):
        return next(filter(None, (_changeable(item, seen) for item in value)), None)
    if isinstance(value, Operation):
        return value.undeclared_state()
    if isinstance(value, types.FunctionType):
        return _function_state(value, seen)
    if isinstance(value, types.BuiltinFunctionType):  # len; or a set's add, bound to it
        owner = value.__self__
        if owner is None or isinstance(owner, types.ModuleType):
            return None
        why = _changeable(owner, seen)
        return why and f"the method {value.__name__} of {why}"
    if isinstance(value, types.MethodType):
        return f"a method of {_a(value.__self__)}"
    if isinstance(value, functools.partial):
        given = (value.func, *value.args, *value.keywords.values())
        return next(filter(None, (_changeable(item, seen) for item in given)), None)
    return _a(value)


def _a(value: Any) -> str:
    """``a list``, ``a Tally object``: what a value is, in words."""
    name = type(value).__name__
    if not isinstance(value, (list, dict, set, bytearray)):
        name += " object"
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _function_state(function: types.FunctionType, seen: set[int]) -> str | None:
    """What may keep state in a plain function: a value it closes over, a default, a
    global it names or assigns; None when there is none."""
    if id(function) in seen:
        return None
    seen.add(id(function))
    name = function.__qualname__
    cells = function.__closure__ or ()
    for variable, cell in zip(function.__code__.co_freevars, cells, strict=True):
        try:
            value = cell.cell_contents
        except ValueError:  # (a cell not yet filled)
            continue
        why = _changeable(value, seen)
        if why:
            return f"the function {name} closes over {variable}, {why}"
    for value in (*(function.__defaults__ or ()), *(function.__kwdefaults__ or {}).values()):
        why = _changeable(value, seen)
        if why:
            return f"the function {name} has a default that can change, {why}"
    module = function.__globals__
    for opname, global_name in _globals_named(function.__code__):
        if opname == "STORE_GLOBAL":
            return f"the function {name} assigns the global {global_name}"
        if global_name not in module:
            continue  # a builtin
        value = module[global_name]
        if isinstance(value, types.FunctionType) and value.__module__ != function.__module__:
            continue  # another module's function: taken as that module gives it
        why = _changeable(value, seen)
        if why:
            return f"the function {name} uses the global {global_name}, {why}"
    return None


def _globals_named(code: types.CodeType) -> Iterator[tuple[str, str]]:
    """(instruction, name) of each global a code object and those inside it load or
    store."""
    import dis  # (only when a function is judged: not at start-up)

    for instruction in dis.get_instructions(code):
        if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME", "STORE_GLOBAL", "DELETE_GLOBAL"):
            opname = "LOAD_GLOBAL" if instruction.opname.startswith("LOAD") else "STORE_GLOBAL"
            yield opname, instruction.argval
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _globals_named(constant)
