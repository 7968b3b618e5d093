"""What the writers of the provider requests added in issue 49 share (Bedrock Converse,
Ollama ``/api/chat``): their settings (``--model``, ``--max-tokens``), and the one way they
say what they leave out of a conversation as they write it.

Their default output holds only what the API takes (docs/formats.md, "Requests an API
takes"): what a message cannot hold is said by the dialect's ``losses`` check, made with
the very mapping the writer uses; what only the writer meets (a conversation's fields, a
tool schema's keys, a turn left with nothing, tool names and ids made to fit) it says
through ``left``, to the run's loss report. ``keep_extras`` is the faithful superset's
switch (the conversation's other fields written as they are), which issue 48's
``--keep-extras`` turns on.
"""

from __future__ import annotations

import copy
import re
from typing import Any, ClassVar

from ..errors import UsageError
from ..model import Conversation
from .base import StreamDialect

# kinds only the writer meets, said once a run each
FIELDS = "conversation fields the API does not take"
EMPTIED = "turns that held nothing the API takes (left out whole)"
STREAMING = "streaming settings (the sender chooses how answers come)"
SETTING_VALUES = "settings whose values the API does not take"


class RequestDialect(StreamDialect):
    """A provider's request format, read (its records any of its kinds) and written."""

    writable = True
    conversation_records = True
    # --model and --max-tokens; a dialect of its own for the run, which says what it leaves
    # out to the run's report as it writes (so in one process)
    takes_settings = True
    settings_taken = ("model", "max_tokens")
    # the faithful superset instead of the API's request (issue 48's --keep-extras): what
    # the registry's own instance writes, the input's dialect written back by a command
    # with no --to (head, redact...); --to configures a copy that writes the request only
    keep_extras = True
    settings: ClassVar[dict[str, Any]] = {}
    report: Any = None
    count = 0

    def configured(self, **settings: Any) -> RequestDialect:
        unknown = [k for k in settings if k not in (*self.settings_taken, "keep_extras")]
        if unknown:
            flags = ", ".join("--" + k.replace("_", "-") for k in unknown)
            raise UsageError(f"--to {self.name} takes no {flags}")
        made = copy.copy(self)
        made.keep_extras = bool(settings.pop("keep_extras", False))
        made.settings = {k: v for k, v in settings.items() if v is not None}
        made.report, made.count = None, 0
        return made

    def report_to(self, report: Any) -> None:
        self.report = report

    def left(self, kind: str, message: int | None = None) -> None:
        """Say that ``kind`` was left out of message ``message`` (None: of the
        conversation) of the conversation being written."""
        if self.report is not None:
            self.report.cases.setdefault(kind, []).append((self.count - 1, message))

    def write_conversation(self, conversation: Conversation) -> dict[str, Any]:
        self.count += 1
        return self.write_request(conversation)

    def write_request(self, conversation: Conversation) -> dict[str, Any]:
        raise NotImplementedError

    def fields(self, meta: dict[str, Any], taken: frozenset[str]) -> dict[str, Any]:
        """The conversation's fields the request takes as they are (all of them with
        ``keep_extras``); the others said."""
        if self.keep_extras:
            return {k: v for k, v in meta.items() if v is not None}
        left = [k for k, v in meta.items() if k not in taken and v is not None]
        if left:
            self.left(f"{FIELDS} ({', '.join(left)})")
        return {k: v for k, v in meta.items() if k in taken and v is not None}


# what tool names and call ids may hold (Bedrock's pattern; Ollama takes any)
_NOT_NAME = re.compile(r"[^a-zA-Z0-9_-]")


def fitted(text: Any, limit: int = 64) -> str:
    """A name or id made of letters, digits, ``_`` and ``-`` only, at most ``limit`` long."""
    return _NOT_NAME.sub("_", str(text))[:limit] or "_"
