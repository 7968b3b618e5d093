"""chatpipe's work from Python, on your own iterators: ``read`` sources into
conversations, change them (``Trim``, or any function of a conversation), ``write`` them
in any writable dialect; or describe a whole run as a ``Job`` (inputs, operation,
target) and hand it to an executor (``serial``, ``processes``). The commands run the
same code."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._exports import lazy

if TYPE_CHECKING:  # the names for type checkers; at run time they load on first use
    from .executors import execute, processes, serial
    from .job import Inputs, Job, Run, on_messages
    from .reading import ErrorLog, read
    from .targets import Lines, Stats, Texts, ToDialect
    from .trim import Trim
    from .writing import write

_EXPORTS = {
    "execute": ".executors",
    "processes": ".executors",
    "serial": ".executors",
    "Inputs": ".job",
    "Job": ".job",
    "Run": ".job",
    "on_messages": ".job",
    "ErrorLog": ".reading",
    "read": ".reading",
    "Lines": ".targets",
    "Stats": ".targets",
    "Texts": ".targets",
    "ToDialect": ".targets",
    "Trim": ".trim",
    "write": ".writing",
}

__all__ = [
    "ErrorLog",
    "Inputs",
    "Job",
    "Lines",
    "Run",
    "Stats",
    "Texts",
    "ToDialect",
    "Trim",
    "execute",
    "on_messages",
    "processes",
    "read",
    "serial",
    "write",
]

__getattr__, __dir__ = lazy(globals(), _EXPORTS)
