"""Batch API files: a request per line (the input file) and a result per line (the output
file), OpenAI's and Anthropic's. Each line is one conversation carrying its ``custom_id``;
``join`` puts a request and its result together (pipeline/batch_join.py finds them across
the two files). A result with no answer (failed, errored, canceled, expired) keeps what it
says in its fields and a one-line ``batch_error``, which a run reports.

Written (``--to openai-batch --model M``, ``--to anthropic-batch --model M --max-tokens
N``), any conversations become a ready input file: a request each, its ``custom_id`` the
conversation's own id where it has one that fits, ``request-N`` (its number) otherwise.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from ..errors import DataError, Location, UsageError
from ..model import Conversation
from .api import CONVERSATION_FIELDS, SETTINGS, names
from .base import Dialect

REQUESTS, RESULTS = "requests", "results"
NO_RESULT = "no result for this custom_id in the output files"
# the conversation fields that may name it, in the order a custom_id is taken from them
_ID_FIELDS = ("custom_id", "id", "conversation_id", "uuid", "session_id")


class BatchDialect(Dialect):
    """What both providers' batch files share: roles, joins, custom ids, settings."""

    writable = True
    conversation_records = True
    takes_settings = True  # --model, --max-tokens...: its requests numbered in order
    settings: dict[str, Any] = {}  # noqa: RUF012 - replaced, never changed, by configured
    required: tuple[str, ...] = ("model",)
    optional: tuple[str, ...] = ()
    id_rule: re.Pattern[str] | None = None  # what a custom_id may be, when it is restricted
    configured_ = False  # (the registry's own instance is not: it asks for its settings)

    @property
    def writer_settings(self) -> tuple[str, ...]:  # type: ignore[override]
        return (*self.required, *self.optional, *SETTINGS)

    def role(self, value: Any) -> str | None:
        """REQUESTS or RESULTS: which file a record of this dialect belongs to."""
        raise NotImplementedError

    def configured(self, **settings: Any) -> BatchDialect:
        """This dialect set to write requests for a model (a copy, numbering from 1). With
        ``keep_extras`` (a batch's requests written back as they came) each request may
        keep the model it names instead."""
        own = {k: v for k, v in settings.items() if k not in SETTINGS}
        unknown = [k for k in own if k not in (*self.required, *self.optional)]
        if unknown:
            flags = ", ".join("--" + k.replace("_", "-") for k in unknown)
            raise UsageError(f"--to {self.name} takes no {flags}")
        missing = [k for k in self.required if own.get(k) is None]
        if missing and not settings.get("keep_extras"):
            raise self._needs(missing)
        writing = {k: v for k, v in settings.items() if k in SETTINGS}
        made = copy.copy(self)
        made.writing = Dialect.configured(self, **writing).writing
        made.settings, made.configured_ = own, True
        made.count, made.used = 0, set()
        return made

    def _needs(self, missing: list[str]) -> UsageError:
        flags = " ".join(f"--{k.replace('_', '-')} {k.upper()}" for k in missing)
        return UsageError(
            f"--to {self.name} needs {flags}", hint="what every request of the batch asks for"
        )

    def setting(self, key: str, meta: dict[str, Any]) -> Any:
        """A setting every request asks for (--model): the one given, else (requests
        written back as they came) the request's own."""
        value = self.settings.get(key)
        if value is None and self.writing.keep_extras:
            value = meta.get(key)
        if value is None:
            raise self._needs([key])
        return value

    def _lost(self, kind: str, detail: str | None = None) -> None:
        self.writing.left(kind, None, detail)

    def write_conversation(self, conversation: Conversation) -> dict[str, Any]:
        if not self.configured_:  # the registry's own instance: not set up for a model
            self.configured()
        self.count += 1
        custom_id = self._custom_id(conversation.meta, self.count)
        return self.request(custom_id, conversation, self.count)

    def request(self, custom_id: str, conversation: Conversation, number: int) -> dict[str, Any]:
        raise NotImplementedError

    def not_written_back(self, conversation: Conversation) -> str | None:
        """A request is written back as one; a result (an answer, an error) is not."""
        if any(k in conversation.meta for k in ("response", "result", "batch_error")):
            return "results are answers, and chatpipe writes batch requests only"
        return None

    def _custom_id(self, meta: dict[str, Any], number: int) -> str:
        given = next(
            (
                str(meta[k])
                for k in _ID_FIELDS
                if isinstance(meta.get(k), (str, int))
                and not isinstance(meta.get(k), bool)
                and str(meta[k])
            ),
            None,
        )
        fits = given is not None and (self.id_rule is None or self.id_rule.fullmatch(given))
        chosen = given if fits and given not in self.used else f"request-{number}"
        if given is not None and chosen != given:
            self._lost("conversation ids that are not a unique custom_id here", given)
        while chosen in self.used:  # a conversation's own id took this number's name
            chosen += "-"
        self.used.add(chosen)
        return chosen

    def body_fields(self, meta: dict[str, Any], allowed: frozenset[str]) -> dict[str, Any]:
        """The conversation's fields a request can hold; others said, once a conversation
        (a batch line's own fields, and the ids its custom_id is made of, are not)."""
        kept = {k: v for k, v in meta.items() if k in allowed and v is not None}
        left = [
            k
            for k, v in meta.items()
            if k not in allowed and k not in _ID_FIELDS and k not in _ENVELOPE and v is not None
        ]
        if left:
            self._lost(CONVERSATION_FIELDS, names(left))
        return kept

    # -- reading ------------------------------------------------------------------------

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        if self.role(value) == REQUESTS:
            return self.read_request(value, location)
        return self.read_result(value, location)

    def read_request(self, value: dict[str, Any], location: Location) -> Conversation:
        raise NotImplementedError

    def read_result(self, value: dict[str, Any], location: Location) -> Conversation:
        raise NotImplementedError

    def join(self, request: Conversation, result: Conversation) -> Conversation:
        """A request with its result: the request's messages, then the answer's; the
        result's fields after the request's."""
        messages = [*request.messages, *result.messages]
        extra = {k: v for k, v in result.meta.items() if k != "custom_id"}
        meta = {**request.meta, **extra}
        return Conversation(messages, meta, request.location, request.messages_key)

    def unanswered(self, request: Conversation) -> Conversation:
        """A request no output file answers: kept, said."""
        meta = {**request.meta, "batch_error": NO_RESULT}
        return Conversation(request.messages, meta, request.location, request.messages_key)


# fields of the batch line itself (not of the request body), kept on the conversation
_ENVELOPE = frozenset(("method", "url", "response", "error", "result", "batch_error"))
# what a request's body does not hold, and needs no saying: its line's own fields and the
# ids its custom_id is made of
LINE_FIELDS = _ENVELOPE | frozenset(_ID_FIELDS)


def not_chat(what: str, location: Location) -> DataError:
    return DataError(
        f"this batch line is not a chat request ({what})",
        location,
        hint="chatpipe reads batches of chat completions, Responses and Messages requests",
    )
