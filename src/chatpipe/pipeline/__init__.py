"""chatpipe's work from Python, on your own iterators: ``read`` sources into
conversations, change them (``Trim``, or any function of a conversation), ``write`` them
in any writable dialect. The commands run the same code."""

from __future__ import annotations

from .reading import ErrorLog, read
from .trim import Trim
from .writing import write

__all__ = ["ErrorLog", "Trim", "read", "write"]
