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
from .base import VARIANT, Dialect, Guess, Sample

REQUESTS, RESULTS = "requests", "results"
NO_RESULT = "no result for this custom_id in the output files"
# the conversation fields that may name it, in the order a custom_id is taken from them
_ID_FIELDS = ("custom_id", "id", "conversation_id", "uuid", "session_id")
# what every batch writer takes besides its own settings
_COMMON = ("until_last_user",)
# said of the requests that end with the answer their conversation already has (the run's
# report says a kind that starts "left out: " as what follows it: pipeline/losses.py)
ANSWERED = (
    "left out: requests that end with their conversation's own answer, which the model "
    "would go on from (--until-last-user ends each at its last user turn)"
)
NO_USER = "left out: requests that end with an answer and hold no user turn to end at instead"


class BatchDialect(Dialect):
    """What both providers' batch files share: roles, joins, custom ids, settings."""

    writable = True
    conversation_records = True
    takes_settings = True  # --model, --max-tokens...: its requests numbered in order
    settings: dict[str, Any] = {}  # noqa: RUF012 - replaced, never changed, by configured
    required: tuple[str, ...] = ("model",)
    optional: tuple[str, ...] = ()
    id_rule: re.Pattern[str] | None = None  # what a custom_id may be, when it is restricted
    # the keys a batch file's lines hold: a line with others is a conversation record of
    # another dialect that kept a batch's fields (as chatpipe writes them), not a batch line
    line_keys: frozenset[str] = frozenset()

    def score(self, sample: Sample) -> Guess | None:
        guess = super().score(sample)
        first = sample.first
        if guess is not None and isinstance(first, dict) and first.keys() - self.line_keys:
            return Guess(VARIANT, guess.shape)
        return guess

    def role(self, value: Any) -> str | None:
        """REQUESTS or RESULTS: which file a record of this dialect belongs to."""
        raise NotImplementedError

    @property
    def writer_settings(self) -> tuple[str, ...]:  # type: ignore[override]
        return (*self.required, *self.optional, *_COMMON, *SETTINGS)

    def configured(self, **settings: Any) -> BatchDialect:
        """This dialect set to write requests for a model (a copy, numbering from 1). With
        ``keep_extras`` and no model (a batch's requests written back as they came) each
        request is written for the model it names (``as_read``)."""
        own = {k: v for k, v in settings.items() if k not in SETTINGS and v is not None}
        unknown = [k for k in own if k not in (*self.required, *self.optional, *_COMMON)]
        if unknown:
            flags = ", ".join("--" + k.replace("_", "-") for k in unknown)
            raise UsageError(f"--to {self.name} takes no {flags}")
        for key, value in own.items():  # (an empty --model names no model)
            if isinstance(value, str) and not value.strip():
                flag = "--" + key.replace("_", "-")
                raise UsageError(f"{flag} is empty", hint=f"give {flag} {key.upper()}")
        missing = [k for k in self.required if own.get(k) is None]
        if missing and (own or not settings.get("keep_extras")):
            flags = " ".join(f"--{k.replace('_', '-')} {k.upper()}" for k in missing)
            raise UsageError(
                f"--to {self.name} needs {flags}", hint="what every request of the batch asks for"
            )
        writing = {k: v for k, v in settings.items() if k in SETTINGS}
        made = copy.copy(self)
        made.writing = Dialect.configured(self, **writing).writing
        made.settings = own
        made.count, made.used = 0, set()
        return made

    def _lost(self, kind: str, detail: str | None = None) -> None:
        self.writing.left(kind, None, detail)

    def write_conversation(self, conversation: Conversation) -> dict[str, Any]:
        if not self.settings:  # the input's own dialect, written back (head, redact...)
            return self.as_read(conversation)
        self.count += 1
        custom_id = self._custom_id(conversation.meta, self.count)
        return self.request(custom_id, self._ending(conversation), self.count, self.settings)

    def _ending(self, conversation: Conversation) -> Conversation:
        """The conversation a request asks with: up to its last user turn with
        --until-last-user; else as it is, a request ending with its own answer said (the
        model would continue that answer, or follow it, not answer the question again)."""
        messages = list(conversation.messages)
        asked = [i for i, m in enumerate(messages) if _from_user(m)]
        if self.settings.get("until_last_user") and asked:
            return conversation.with_messages(messages[: asked[-1] + 1])
        if messages and messages[-1].type == "ai":
            self._lost(NO_USER if self.settings.get("until_last_user") else ANSWERED)
        return conversation.with_messages(messages)

    def as_read(self, conversation: Conversation) -> dict[str, Any]:
        """A conversation read from a batch file written back as its line was: a result
        as a result, a request as a request for its own model (and settings), under its
        own custom_id. A conversation that holds no request's model is said."""
        meta = conversation.meta
        if self.is_result(meta):
            return self.write_result(conversation)
        settings = self.own_settings(meta)
        missing = [k for k in self.required if settings.get(k) is None]
        if missing or not isinstance(meta.get("custom_id"), str):
            flags = " ".join(f"--{k.replace('_', '-')} {k.upper()}" for k in self.required)
            raise DataError(
                f"this conversation is not a {self.name} request (it has no "
                + (f"{missing[0]!r})" if missing else "custom_id)"),
                conversation.location,
                hint=f"write a batch of it with --to {self.name} {flags}",
            )
        return self.request(meta["custom_id"], conversation, 0, settings)

    def is_result(self, meta: dict[str, Any]) -> bool:
        """Whether a conversation's fields are a result line's (not a request's)."""
        raise NotImplementedError

    def own_settings(self, meta: dict[str, Any]) -> dict[str, Any]:
        """The settings a request read from a batch file was made with (its model...)."""
        return {k: meta.get(k) for k in self.required}

    def write_result(self, conversation: Conversation) -> dict[str, Any]:
        raise NotImplementedError

    def request(
        self, custom_id: str, conversation: Conversation, number: int, settings: dict[str, Any]
    ) -> dict[str, Any]:
        raise NotImplementedError

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


def _from_user(message: Any) -> bool:
    return message.type == "human" or getattr(message, "role", None) == "user"
