"""What every dialect shares: the Dialect interface, its capabilities and what it declares.

A dialect is the whole of what chatpipe knows about one format: how sure it is that a
sample of records is its own (``score``), how it reads a message or conversation record
into messages, how it writes them back (when writable), and what its records hold: the
facts the loss report and ``validate`` ask for instead of naming dialects
(docs/adding-a-dialect.md). The shared reading of ``{"messages": [...], ...}``
conversation records lives here.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..errors import ChatpipeError, DataError, Location, UsageError, ValidationError
from ..model import AnyMessage, Conversation
from .api import FIELD, NO_REQUEST, REASONING, Writing
from .evidence import (  # (what a dialect's score answers with, named here for its modules)
    CERTAIN,
    CONVERSATIONS,
    EMPTY,
    GENERIC,  # noqa: F401
    LIKELY,
    MESSAGES,
    STREAM,
    VARIANT,  # noqa: F401
    Guess,
    Sample,
    holds_messages,  # noqa: F401
)
from .record_errors import SHAPE_ERRORS, keys_hint, report, shape_error

if TYPE_CHECKING:
    from .rules import RecordRules

# where system messages stand in a dialect's records (``Dialect.system_messages``)
ANYWHERE = "anywhere"  # a session log: the context an agent adds, where it came
TURNS = "turns"  # among the turns, as written
ONE = "one"  # one system prompt before the turns: later ones are lifted into it


class Kept(str):
    """A kind of loss that is not one: what a target keeps in another form than the
    input's, said all the same, with ``how`` it was written."""

    how: str

    def __new__(cls, kind: str, how: str) -> Kept:
        made = super().__new__(cls, kind)
        made.how = how
        return made

    def __reduce__(self) -> Any:  # (sent to and from workers)
        return Kept, (str(self), self.how)


class Dialect:
    """A chat-log format. Subclasses set ``name`` and their capabilities, and override
    what they support."""

    name = ""
    description = ""
    # -- capabilities ---------------------------------------------------------------
    readable = True  # False for the write-only dialects (markdown, yaml)
    writable = False
    stream = False  # records are events that spell out messages (``read_stream``)
    # records are whole conversations when written (``write_conversation``: anthropic,
    # gemini, sharegpt), not message records
    conversation_records = False
    # written as one document for people or tools (``render``: markdown, yaml)
    document = False
    # written as a folder of files too (``render_pages``: html, with --output-dir)
    pages = False
    # a log's message lines are read one by one and written one by one (a log of it can
    # be cut into ranges of lines); other dialects chain their lines (trees, events)
    messages_by_line = False
    # a record may be a turn of several messages (an Anthropic user turn answering tools):
    # a log of such records is read whole (``read_turn``), one bad record failing all of it
    turn_records = False
    # where a conversation record holds its messages: a bare list of messages (a JSONL
    # line that is an array) reads as a record with the list there
    list_key = "messages"

    # -- what its records hold: asked by the loss report and validate ----------------
    # a tool message's structured result (Claude Code's toolUseResult, LangChain's artifact)
    holds_artifacts = True
    # where system messages stand in its records: ANYWHERE, TURNS or ONE (above)
    system_messages = TURNS
    # the key of additional_kwargs under which its reader keeps the rest of a record, as
    # the record names its fields (text there is in a field the reader knows, not lost)
    extras_key: str | None = None
    # the dialect whose loss checks its records' messages take (a batch's requests)
    checked_as: str | None = None
    # its writer takes settings of its own (``configured``: a batch's --model) and numbers
    # what it writes in order, so it writes in one process
    takes_settings = False

    # -- an API's wire format (docs/adding-a-dialect.md, "Writing for an API") ---------
    # what its records are the input of ("Anthropic Messages"); None for a format that is
    # no API's. Its writer's default output then holds only what that API takes, and says
    # what it leaves out as it writes (``writing.left``); ``configured(keep_extras=True)``
    # writes the faithful superset
    api: str | None = None
    # the settings ``configured`` takes, by name (an API's: keep_extras, reasoning)
    writer_settings: tuple[str, ...] = ()
    # the writer's settings and where it says what it leaves out (``configured``,
    # ``report_to``): the API's input, said to no one, until configured
    writing = Writing()
    # the rule sets ``validate --as NAME`` checks its records with (``record_rules(NAME)``)
    checks: tuple[str, ...] = ()

    # -- its row in docs/formats.md ---------------------------------------------------
    # a fixture of it (its file name in fixtures/), the example its row shows
    example = ""

    # -- recognising ----------------------------------------------------------------
    # how sure a match of ``is_message`` / ``is_conversation`` makes it (the default score)
    evidence = LIKELY

    def score(self, sample: Sample) -> Guess | None:
        """How sure this dialect is that ``sample`` is its own, and the shape it reads it
        as; None when it is not. By default: ``is_stream_event`` (stream dialects) is
        certain; ``is_message``, then ``is_conversation``, of the first record, as sure as
        ``evidence`` says. A dialect whose evidence lies elsewhere (across records, in
        keys of its own) overrides this."""
        value = sample.first
        if self.stream and self.is_stream_event(value):
            return Guess(CERTAIN, STREAM)
        if self.is_message(value):
            return Guess(self.evidence, MESSAGES)
        if self.is_conversation(value):
            listed = value.get(self.list_key) if isinstance(value, dict) else None
            return Guess(EMPTY if listed == [] else self.evidence, CONVERSATIONS)
        return None

    def is_message(self, value: Any) -> bool:
        return False

    def is_conversation(self, value: Any) -> bool:
        return (
            isinstance(value, dict)
            and isinstance(value.get("messages"), list)
            and (not value["messages"] or self.is_message(value["messages"][0]))
        )

    # -- reading --------------------------------------------------------------------

    def read_message(self, value: Any) -> AnyMessage:
        raise NotImplementedError

    def read_turn(self, value: Any) -> list[AnyMessage]:
        """The messages one message record gives (one, but for ``turn_records`` dialects)."""
        return [self.read_message(value)]

    def finish(
        self, messages: Iterable[AnyMessage], links: Any = None, start: int = 0
    ) -> Iterable[AnyMessage]:
        """A pass over a conversation's messages after reading (e.g. linking tools);
        ``links`` and ``start``: the linking state and the number of the first message,
        for messages that continue a log (``tool_links.link_tool_results``)."""
        return messages

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
            raise DataError(
                f"expected a conversation record with a 'messages' list for {self.name}",
                location,
                hint=keys_hint(value),
            )
        messages = []
        for index, item in enumerate(value["messages"]):
            try:
                messages.append(self.read_message(item))
            except ChatpipeError as exc:
                raise exc.located(location.at_message(index)) from None
        meta = {k: (None if k == "messages" else v) for k, v in value.items()}
        return Conversation(list(self.finish(messages)), meta, location, "messages")

    def read_conversations(
        self, value: Any, location: Location, options: Any = None
    ) -> Iterator[Conversation]:
        """The conversations one record holds: one, or (trees of exports, with
        ``options``) each branch asked for. A bare list is a conversation's messages."""
        if isinstance(value, list):
            value = {self.list_key: value}
        yield self.read_conversation(value, location)

    # -- writing --------------------------------------------------------------------

    def write_messages(self, messages: Iterable[AnyMessage]) -> Iterator[Any]:
        raise DataError(f"cannot write {self.name}")

    def write_conversation(self, conversation: Conversation) -> Any:
        """The record of a whole conversation (``conversation_records`` dialects)."""
        raise DataError(f"cannot write {self.name}")

    def render(self, conversations: Iterable[Conversation], per_message: bool) -> Iterator[str]:
        """The text of a whole document (``document`` dialects)."""
        raise DataError(f"cannot write {self.name}")

    def render_pages(self, conversations: Iterable[Conversation]) -> Iterator[tuple[str, str]]:
        """(path, text) of each file of a folder (``pages`` dialects)."""
        raise DataError(f"cannot write {self.name} as a folder")

    def writes(self, conversation: Conversation) -> bool:
        """Whether a conversation (its messages a list, or a row lane's) is written as a
        record: an API's request needs something to ask (a conversation with no turns, an
        export's empty chat, a failed batch request, makes none: left out and said)."""
        if not self.api or self.writing.keep_extras:
            return True
        if any(m.type != "system" for m in conversation.messages):
            return True
        self.writing.left(NO_REQUEST)
        return False

    def record_meta(self, meta: dict[str, Any]) -> dict[str, Any]:
        """A conversation's fields as this dialect's records hold them."""
        return meta

    def configured(self, **settings: Any) -> Dialect:
        """This dialect set up with its writer's settings (``writer_settings``): a copy of
        its own for a dialect that takes any (what it says goes to its run's report)."""
        unknown = [k for k in settings if k not in self.writer_settings]
        if unknown:
            flags = ", ".join("--" + k.replace("_", "-") for k in unknown)
            raise UsageError(f"--to {self.name} takes no {flags}")
        if not self.writer_settings:
            return self
        reasoning = settings.get("reasoning") or FIELD
        if reasoning not in REASONING:
            asked = ", ".join(REASONING)
            raise UsageError(f"--reasoning must be one of {asked}, got {reasoning!r}")
        made = copy.copy(self)
        made.writing = Writing(bool(settings.get("keep_extras")), reasoning)
        return made

    # -- what its writer leaves out -------------------------------------------------

    def losses(self) -> Callable[[AnyMessage], list[str]] | None:
        """What this dialect's records cannot hold of a message: a check made anew for
        each conversation and called on each of its messages in order, giving the kinds
        it leaves out (a ``Kept`` kind is kept in another form, and said); None when its
        records hold every message whole."""
        return None

    def record_rules(self, name: str | None = None) -> RecordRules | None:
        """The rule set ``name`` that its raw records are checked with (``validate
        --rules``), or with None its own; None when it has none (the structure checks of
        the messages read from them are every dialect's)."""
        return None

    def request_rules(self, check: str) -> RecordRules | None:
        """The rule set ``validate --as CHECK`` runs on records of its API (one of
        ``checks``): chatpipe's own, from the tables its writer writes by
        (formats/api_request_rules.py); None for a check it does not declare."""
        return None

    def tools_left_out(self, tools: Any) -> list[str]:
        """The names of a conversation's tools that its records have no form for."""
        return []

    def report_to(self, report: Any) -> None:
        """Where its writer says what it leaves out as it writes (a LossReport, whose
        ``note`` takes it): for a dialect ``configured`` for its run (a copy), never the
        registry's own."""
        if self.writer_settings:
            self.writing = self.writing.heard_by(report)


class StreamDialect(Dialect):
    """Records are events that spell out messages; ``read_stream`` reassembles them."""

    stream = True

    def is_stream_event(self, value: Any) -> bool:
        return False

    def is_conversation(self, value: Any) -> bool:
        return False

    def read_message(self, value: Any) -> AnyMessage:
        raise ValidationError(f"{self.name} records are stream events, read as a whole")

    def read_stream(self, values: Iterable[Any], location: Location) -> Iterator[Conversation]:
        raise NotImplementedError

    def read_records(
        self,
        records: Iterable[Any],
        location: Location,
        options: Any = None,
        handle: Callable[[ChatpipeError], None] | None = None,
    ) -> Iterator[Conversation]:
        """The conversations a source's records spell: ``records`` are ``io.records``
        records with their places (a ``BadRecord`` goes to ``handle``, which raises or
        counts it), ``options`` the reading options (``ReadOptions``). By default the
        values go to ``read_stream``; the session-log dialects read lines in their places."""
        from ..io.records import BadRecord

        place = [location]  # the event being read: where a fault in it is said

        def good() -> Iterator[Any]:
            for record in records:
                if isinstance(record, BadRecord):
                    if handle is None:
                        raise record.error
                    handle(record.error)
                else:
                    place[0] = record.location
                    yield record.value

        try:
            yield from self.read_stream(good(), location)
        except ChatpipeError as exc:
            raise exc.located(place[0]) from None
        except SHAPE_ERRORS as exc:
            raise shape_error(self, exc, place[0]) from None


class RecordsDialect(StreamDialect):
    """A stream dialect that reads its records in their places (``read_records``, each
    message's line kept, a bad line handled where it stands); given bare values (the
    library's ``read_stream``), each is placed at the source."""

    def read_stream(self, values: Iterable[Any], location: Location) -> Iterator[Conversation]:
        from ..io.records import Record

        return self.read_records((Record(v, location) for v in values), location)


class SessionDialect(RecordsDialect):
    """A coding agent's session log (Claude Code, Codex, Gemini CLI, ...): its lines are
    read in their places by ``read_records`` (each message's line in ``Conversation.places``,
    a bad line handled where it stands); ``read_stream`` gives it bare values, each placed at
    the source. The context such an agent adds stands where it came (``ANYWHERE``)."""

    system_messages = ANYWHERE

    def read_records(
        self,
        records: Iterable[Any],
        location: Location,
        options: Any = None,
        handle: Callable[[ChatpipeError], None] | None = None,
    ) -> Iterator[Conversation]:
        raise NotImplementedError

    # what a line of the log is, for the error that names a line that is not one
    line_hint = ""

    def lines(
        self, records: Iterable[Any], handle: Callable[[ChatpipeError], None] | None
    ) -> Iterator[tuple[Any, Location]]:
        """The log's good lines with their places: a bad record, or a line that is not one
        of this log's (``is_stream_event``), goes to ``handle`` (None: raised)."""
        from ..io.records import BadRecord

        for record in records:
            error = record.error if isinstance(record, BadRecord) else None
            if error is None and not self.is_stream_event(record.value):
                error = DataError(
                    f"not a {self.name} line", record.location, hint=self.line_hint or None
                )
            if error is not None:
                report(error, handle)
                continue
            yield record.value, record.location

    @contextlib.contextmanager
    def line_errors(
        self, location: Location, handle: Callable[[ChatpipeError], None] | None
    ) -> Iterator[None]:
        """A line that cannot be read is reported at its place (``handle``) and the reading
        goes on with the next line."""
        try:
            yield
        except ChatpipeError as exc:
            report(exc.located(location), handle)
        except SHAPE_ERRORS as exc:
            report(shape_error(self, exc, location), handle)


def dict_blocks(message: AnyMessage) -> list[dict]:
    """A message's content blocks that are objects (none for text content)."""
    content = message.content
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
