"""The one exception hierarchy of chatpipe.

Every error can carry the place it is about (file, line, column, and where useful the
message index inside a conversation); the command line turns it into one line on stderr
and an exit code, and nothing else in the core prints.
"""

from __future__ import annotations

from typing import Any


class Location:
    """Where a record (or a message inside it) came from: ``file:line:col``.

    Line and column may be worked out only when first asked for (``resolve`` gives them),
    so that records of a large JSON document cost nothing until an error names one.
    """

    __slots__ = ("_col", "_line", "_resolve", "file", "message_index")

    def __init__(
        self,
        file: str,
        line: int | None = None,
        col: int | None = None,
        message_index: int | None = None,
        resolve: object = None,
    ) -> None:
        self.file = file
        self._line = line
        self._col = col
        self.message_index = message_index
        self._resolve = resolve

    def _resolved(self) -> None:
        if self._resolve is not None:
            self._line, self._col = self._resolve()  # type: ignore[operator]
            self._resolve = None

    @property
    def line(self) -> int | None:
        self._resolved()
        return self._line

    @property
    def col(self) -> int | None:
        self._resolved()
        return self._col

    def at_message(self, index: int) -> Location:
        return Location(self.file, self._line, self._col, index, self._resolve)

    def __str__(self) -> str:
        text = self.file
        if self.line is not None:
            text += f":{self.line}"
            if self.col is not None:
                text += f":{self.col}"
        if self.message_index is not None:
            text += f": message {self.message_index + 1}"  # counted from 1, as lines are
        return text

    def __repr__(self) -> str:
        return f"Location({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Location) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


_JSON_KINDS = {
    type(None): "null",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    str: "a string",
    list: "a list",
    tuple: "a list",
    dict: "an object",
    bytes: "bytes",
}


def kind_of(value: Any) -> str:
    """A value's kind in the words of JSON ("a string", "null", "an object"), for messages
    to people who wrote JSON, not Python."""
    # (a record that is no JSON value says what it is: io/markdown.py's text)
    described = getattr(type(value), "described_as", None)
    return _JSON_KINDS.get(type(value)) or described or f"a {type(value).__name__} object"


def kind_name(cls: type) -> str:
    """What ``kind_of`` says of a value of this class."""
    return _JSON_KINDS.get(cls) or f"a {cls.__name__} object"


class ChatpipeError(Exception):
    """Base class: a problem with a place and, where we know one, a way out."""

    exit_code = 1

    def __init__(self, message: str, location: Location | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location
        self.hint = hint

    def located(self, location: Location | None) -> ChatpipeError:
        """Fill in the location if the raiser did not know it; returns self."""
        if self.location is None:
            self.location = location
        return self

    def __str__(self) -> str:
        text = self.message
        if self.hint:
            text += f" ({self.hint})"
        if self.location is not None:
            text = f"{self.location}: {text}"
        return text


def install_hint(extra: str) -> str:
    """How to install chatpipe's ``extra``, from a package index and in a clone (editable,
    as a clone is installed for work on it: a plain install would replace it with a copy),
    in the words every "needs the X package" error gives as its hint."""
    return f"pip install 'chatpipe[{extra}]', or from a clone: pip install -e '.[{extra}]'"


class DataError(ChatpipeError):
    """The input cannot be read or converted: exit 1."""


class NotAChatLog(DataError):
    """An input that holds no chat log at all (an image, a README, an account's details
    in JSON): an error for a file named alone, a member skipped with a note in a zip read
    whole. ``kind``: what it is instead, in a few words (``a PNG image``)."""

    def __init__(
        self,
        message: str,
        location: Location | None = None,
        hint: str | None = None,
        kind: str = "",
    ) -> None:
        super().__init__(message, location, hint)
        self.kind = kind or message


class OutputError(ChatpipeError):
    """The output cannot be written (a full disk, a missing directory): exit 1."""


class WorkerLost(ChatpipeError):
    """A worker process died before its part was done (killed, out of memory): exit 1,
    nothing written."""


class ValidationError(DataError, ValueError):
    """A message or block was built from values the model does not accept."""


class ConversionError(DataError, ValueError):
    """The messages cannot be written in the asked format (langchain-core raises too)."""


class UsageError(ChatpipeError, ValueError):
    """The command line (or a library call) asks for something impossible: exit 2. A
    ``ValueError``, as langchain-core's for the same options."""

    exit_code = 2


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP while an output file is being written: unwinds as Ctrl-C does
    (temporary files removed), and the process ends with 128 + the signal's number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def interrupted_code(exc: KeyboardInterrupt) -> tuple[str, int]:
    """What to say and the exit code for Ctrl-C or a terminating signal."""
    if isinstance(exc, Terminated):
        return "terminated", 128 + exc.signum
    return "interrupted", 130
