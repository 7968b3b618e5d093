"""chatpipe's work from Python, on your own iterators: ``read`` sources into
conversations, change them (``Trim``, or any function of a conversation), ``write`` them
in any writable dialect; or describe a whole run as a ``Job`` (inputs, operation,
target) and ``execute`` it, in this process or in parts on workers (``Engine``). The
commands run the same code."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._exports import lazy

if TYPE_CHECKING:  # the names for type checkers; at run time they load on first use
    from .executors import Engine, execute, serial
    from .job import Inputs, Job, Run, Target, on_messages
    from .opening import ErrorLog
    from .reading import read
    from .targets import Lines, Stats, ToDialect
    from .text_target import Texts
    from .trim_policy import Trim
    from .writing import write

_EXPORTS = {
    "Engine": ".executors",
    "execute": ".executors",
    "serial": ".executors",
    "Inputs": ".job",
    "Job": ".job",
    "Run": ".job",
    "Target": ".job",
    "on_messages": ".job",
    "ErrorLog": ".opening",
    "read": ".reading",
    "Lines": ".targets",
    "Stats": ".targets",
    "Texts": ".text_target",
    "ToDialect": ".targets",
    "Trim": ".trim_policy",
    "write": ".writing",
}

__all__ = [
    "Engine",
    "ErrorLog",
    "Inputs",
    "Job",
    "Lines",
    "Run",
    "Stats",
    "Target",
    "Texts",
    "ToDialect",
    "Trim",
    "execute",
    "on_messages",
    "read",
    "serial",
    "write",
]

__getattr__, __dir__ = lazy(globals(), _EXPORTS)
