"""``select``: keep the conversations that match every criterion given, by id, title,
time, model, size in messages or tokens, what they hold, their roles or their text.

``Selector`` is the criteria checked and compiled once; called on a conversation it gives
the conversation back (its messages listed) when it matches, None when not, so that it
is a job's operation as it stands.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError
from ..model import AnyMessage, Conversation
from . import facts
from .count import ApproximateCounter, TokenCounter, counter_for, resolve_counter
from .operation import Stateless
from .user_regex import PatternTooSlow, UserPattern, compile_regex

Check = Callable[[Conversation, list[AnyMessage]], bool]


@dataclass(frozen=True)
class Criteria:
    """What ``select`` asks of a conversation; every field left at its default (or None)
    asks nothing. Times are seconds since the epoch: ``after`` keeps times at or after it,
    ``before`` times before it (a conversation without a time matches neither)."""

    ids: Sequence[str] = ()
    title: str | None = None
    after: float | str | None = None
    before: float | str | None = None
    model: str | None = None
    min_messages: int | None = None
    max_messages: int | None = None
    min_tokens: int | None = None
    max_tokens: int | None = None
    token_counter: Any = "approximate"
    has: Sequence[str] = ()
    roles: Sequence[str] = ()
    grep: str | None = None
    grep_roles: Sequence[str] = ()
    ignore_case: bool = False
    invert: bool = False

    def __post_init__(self) -> None:
        # (a repeatable option given no value is None, and asks nothing)
        for name in ("ids", "has", "roles", "grep_roles"):
            object.__setattr__(self, name, tuple(getattr(self, name) or ()))


class Selector(Stateless):
    """The criteria compiled into checks, cheapest first; ``matches(conversation)`` says
    whether a conversation passes them all (or, ``invert``, fails one). As an operation
    it keeps nothing from one conversation to the next."""

    def __init__(self, criteria: Criteria) -> None:
        self.criteria = criteria
        self.invert = criteria.invert
        self.checks: list[Check] = []
        self._build(criteria)

    def _build(self, c: Criteria) -> None:
        add = self.checks.append
        if c.ids:
            wanted = frozenset(str(i) for i in c.ids)
            add(lambda conv, _m: facts.conversation_id(conv) in wanted)
        if c.title is not None:
            title = compile_regex(c.title, "--title", c.ignore_case)
            add(lambda conv, _m: title.search(facts.title(conv) or "") is not None)
        counts = (
            (c.min_messages, "--min-messages"),
            (c.max_messages, "--max-messages"),
            (c.min_tokens, "--min-tokens"),  # (-5 was taken, and matched nothing: #51)
            (c.max_tokens, "--max-tokens"),
        )
        for value, flag in counts:
            if value is not None and value < 0:
                raise UsageError(f"{flag} must be 0 or more, got {value}")
        if c.min_messages is not None:
            least = c.min_messages
            add(lambda _c, messages: len(messages) >= least)
        if c.max_messages is not None:
            most = c.max_messages
            add(lambda _c, messages: len(messages) <= most)
        for what in c.has:
            facts.user_has(what)
            add(lambda conv, messages, what=what: facts.holds(conv, messages, what))
        for name in c.roles:
            wanted_role = facts.user_role(name)
            add(lambda _c, ms, r=wanted_role: any(facts.has_role(m, r) for m in ms))
        after = _time(c.after, "--after")
        before = _time(c.before, "--before")
        if after is not None or before is not None:
            add(_in_time(after, before))
        if c.model is not None:
            model = compile_regex(c.model, "--model", c.ignore_case)
            add(lambda conv, ms: any(model.search(name) for name in facts.models(conv, ms)))
        if c.grep is not None:
            add(_grep_check(compile_regex(c.grep, "--grep", c.ignore_case), c.grep_roles))
        elif c.grep_roles:
            raise UsageError("--grep-role narrows --grep; give --grep REGEX too")
        if c.min_tokens is not None or c.max_tokens is not None:
            add(_token_check(c.token_counter, c.min_tokens, c.max_tokens))

    def matches(self, conversation: Conversation, messages: list[AnyMessage]) -> bool:
        found = all(check(conversation, messages) for check in self.checks)
        return found is not self.invert

    def __call__(self, conversation: Conversation) -> Conversation | None:
        """The conversation when it is selected (its messages in a list), None when not."""
        conversation, messages = facts.listed(conversation)
        try:
            return conversation if self.matches(conversation, messages) else None
        except PatternTooSlow as exc:
            raise exc.located(conversation.location) from None


def _time(value: float | str | None, flag: str) -> float | None:
    if value is None or isinstance(value, (int, float)):
        return value
    return facts.user_time(value, flag)


def _in_time(after: float | None, before: float | None) -> Check:
    def check(conversation: Conversation, messages: list[AnyMessage]) -> bool:
        when = facts.created(conversation, messages)
        if when is None:
            return False
        return (after is None or when >= after) and (before is None or when < before)

    return check


def _grep_check(pattern: UserPattern, roles: Sequence[str]) -> Check:
    wanted = [facts.user_role(r) for r in roles]

    def check(_conversation: Conversation, messages: list[AnyMessage]) -> bool:
        for message in messages:
            if wanted and not any(facts.has_role(message, r) for r in wanted):
                continue
            if pattern.search(message.text):
                return True
        return False

    return check


def _token_check(spec: Any, least: int | None, most: int | None) -> Check:
    counter = resolve_counter(spec)
    approximate = isinstance(counter, ApproximateCounter) and not counter.tools

    def check(conversation: Conversation, messages: list[AnyMessage]) -> bool:
        tokens = tokens_of(counter, conversation, messages, approximate)
        return (least is None or tokens >= least) and (most is None or tokens <= most)

    return check


def tokens_of(
    counter: TokenCounter,
    conversation: Conversation,
    messages: list[AnyMessage],
    with_tools: bool | None = None,
) -> int:
    """The conversation's tokens as ``chatpipe count`` gives them: the approximate count
    takes a row's tools too, a counter through a chat template its tools and documents."""
    return tokens_counter(counter, conversation, with_tools).count(messages)


def tokens_counter(
    counter: TokenCounter, conversation: Conversation, with_tools: bool | None = None
) -> Any:
    """The counter ``tokens_of`` counts a conversation's messages with."""
    tools = conversation.meta.get("tools")
    if with_tools is None:
        with_tools = isinstance(counter, ApproximateCounter) and not counter.tools
    if with_tools and isinstance(tools, list) and tools:
        assert isinstance(counter, ApproximateCounter)
        counter = ApproximateCounter(
            chars_per_token=counter.chars_per_token,
            extra_tokens_per_message=counter.extra,
            count_name=counter.count_name,
            tokens_per_image=counter.tokens_per_image,
            use_usage_metadata_scaling=counter.scaling,
            tools=tools,
        )
    return counter_for(counter, conversation)


def selector(**criteria: Any) -> Selector:
    """The criteria (``Criteria``'s fields as keywords) checked and compiled."""
    return Selector(Criteria(**criteria))


def select(conversations: Iterable[Conversation], **criteria: Any) -> Iterator[Conversation]:
    """The conversations that match every criterion (``Criteria``'s fields), in order."""
    keep = selector(**criteria)
    for conversation in conversations:
        kept = keep(conversation)
        if kept is not None:
            yield kept
