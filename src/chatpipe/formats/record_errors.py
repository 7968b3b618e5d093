"""A record a dialect cannot read, in words: the located error for a record of an
unexpected shape (a reader's Python error is never shown), and the hint that names a
record's keys."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from ..errors import ChatpipeError, DataError, Location, ValidationError, kind_of
from ..model import AnyMessage
from .shapes import check_message


class Dialect(Protocol):
    """What these words need of a dialect (base.py's, which imports this module)."""

    name: str

    def read_message(self, value: Any) -> AnyMessage: ...

    def read_turn(self, value: Any) -> list[AnyMessage]: ...


def report(error: ChatpipeError, handle: Callable[[ChatpipeError], None] | None) -> None:
    """A bad line's error: raised, or given to the run's handler, which counts it."""
    if handle is None:
        raise error
    handle(error)


def keys_hint(value: Any) -> str:
    if isinstance(value, dict):
        keys = ", ".join(map(str, list(value)[:8])) or "none"
        return f"top-level keys: {keys}"
    return f"got {kind_of(value)}"


def not_a_message(dialect: str, value: Any) -> ValidationError:
    return ValidationError(f"not a {dialect} message", hint=keys_hint(value))


# what malformed records make readers raise, below the checks they make themselves
SHAPE_ERRORS = (TypeError, AttributeError, KeyError, IndexError, ValueError)


@contextlib.contextmanager
def shape_errors(dialect: Dialect, location: Location) -> Iterator[None]:
    """A record of an unexpected shape is bad input: a located DataError, not a crash."""
    try:
        yield
    except ChatpipeError as exc:  # (placed by the reader where it knew the place)
        raise exc.located(location) from None
    except SHAPE_ERRORS as exc:
        raise shape_error(dialect, exc, location) from None


def shape_error(dialect: Dialect, exc: Exception, location: Location) -> DataError:
    """Words for a record a reader met with a shape it did not check for."""
    if isinstance(exc, KeyError):
        what = f"it has no {exc.args[0]!r} field" if exc.args else "a field is missing"
    elif isinstance(exc, IndexError):
        what = "a list in it is shorter than this dialect needs"
    else:  # Python's own words ("'int' object has no attribute 'get'") mean nothing to a user
        what = "a field holds a value of another kind than this dialect needs"
    return DataError(
        f"cannot read this record as {dialect.name}: {what}",
        location,
        hint="check the record against the dialect, or name another with --from",
    )


def turn_of(dialect: Dialect, value: Any, location: Location) -> list[AnyMessage]:
    """The messages one message record gives (``Dialect.read_turn``), as ``message_of``."""
    try:
        return [check_message(message) for message in dialect.read_turn(value)]
    except ChatpipeError as exc:
        raise exc.located(location) from None
    except SHAPE_ERRORS as exc:
        raise shape_error(dialect, exc, location) from None


def message_of(dialect: Dialect, value: Any, location: Location) -> AnyMessage:
    """One message record read by a dialect; every failure a DataError at its place."""
    try:
        return check_message(dialect.read_message(value))
    except ChatpipeError as exc:
        raise exc.located(location) from None
    except SHAPE_ERRORS as exc:
        raise shape_error(dialect, exc, location) from None
