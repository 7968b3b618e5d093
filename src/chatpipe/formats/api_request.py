"""What the writers of the provider requests added in issue 49 share (Bedrock Converse,
Ollama ``/api/chat``): their settings (``--model``, ``--max-tokens``, and every API
writer's ``--keep-extras`` and ``--reasoning``: formats/api.py), and the one way they say
what they leave out of a conversation as they write it.

Their default output holds only what the API takes (docs/formats.md, "Requests an API
takes"): what a message cannot hold is said by the dialect's ``losses`` check, made with
the very mapping the writer uses; what only the writer meets (a conversation's fields, a
tool schema's keys, a turn left with nothing, tool names and ids made to fit) it says
through ``left``, which is its ``Writing``'s: to the run's loss report.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from .api import CONVERSATION_FIELDS, EMPTIED, SETTING_VALUES, SETTINGS, SIGNATURES, STREAMING
from .base import Dialect, StreamDialect

__all__ = [
    "CONVERSATION_FIELDS",
    "EMPTIED",
    "SETTING_VALUES",
    "SIGNATURES",
    "STREAMING",
    "RequestDialect",
]


class RequestDialect(StreamDialect):
    """A provider's request format, read (its records any of its kinds) and written."""

    writable = True
    conversation_records = True
    # --model and --max-tokens beside an API's own; a dialect of its own for the run, which
    # says what it leaves out to the run's report as it writes (so in one process)
    takes_settings = True
    writer_settings = ("model", "max_tokens", *SETTINGS)
    settings: ClassVar[dict[str, Any]] = {}

    @property
    def keep_extras(self) -> bool:
        """Whether the faithful superset is written (``--keep-extras``), not the request."""
        return self.writing.keep_extras

    def configured(self, **settings: Any) -> RequestDialect:
        made = Dialect.configured(self, **settings)  # (unknown settings refused there)
        assert isinstance(made, RequestDialect)
        made.settings = {k: v for k, v in settings.items() if k not in SETTINGS and v is not None}
        return made

    def left(self, kind: str, message: int | None = None, detail: str | None = None) -> None:
        """Say that ``kind`` (``detail`` naming what) was left out of message ``message``
        (None: of the conversation) of the conversation being written."""
        self.writing.left(kind, message, detail)

    def fields(self, meta: dict[str, Any], taken: frozenset[str]) -> dict[str, Any]:
        """The conversation's fields the request takes as they are (all of them with
        ``keep_extras``); the others said."""
        given = {k: v for k, v in meta.items() if v is not None}
        return self.writing.fields(given, taken, CONVERSATION_FIELDS)


# what tool names and call ids may hold (Bedrock's pattern; Ollama takes any)
_NOT_NAME = re.compile(r"[^a-zA-Z0-9_-]")


def fitted(text: Any, limit: int = 64) -> str:
    """A name or id made of letters, digits, ``_`` and ``-`` only, at most ``limit`` long."""
    return _NOT_NAME.sub("_", str(text))[:limit] or "_"
