"""select's checks, count's tokens and trim's budget on rows read by the row lane (from
their items: fast/row_ops.py)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..model import Conversation
from ..ops import facts
from ..ops.count import ApproximateCounter, resolve_counter
from ..ops.select import Selector, tokens_counter
from ..ops.user_regex import PatternTooSlow, compile_regex
from .budget import _ROLE_CHARS
from .rows import RowMessages, message_of, role_of, row_items, text_dict, untouched_row

# -- select -------------------------------------------------------------------------------

Check = Callable[[Conversation, list[Any]], bool]


def selecting(selector: Selector) -> Any:
    """``select``'s call, its checks made on a row's items."""
    checks = matcher(selector)
    if checks is None:
        return selector.__call__
    invert = selector.invert

    def call(conversation: Conversation) -> Conversation | None:
        items = row_items(conversation)
        if items is None:
            return selector(conversation)
        try:
            found = all(check(conversation, items) for check in checks)
        except PatternTooSlow as exc:
            raise exc.located(conversation.location) from None
        return conversation if found is not invert else None

    return call


def matcher(selector: Selector) -> list[Check] | None:
    """``Selector``'s checks, in its order, on a row's items; None when one of them
    cannot be made so (a token counter that does not add up message by message)."""
    c = selector.criteria
    checks: list[Check] = []
    add = checks.append
    if c.ids:
        wanted = frozenset(str(i) for i in c.ids)
        add(lambda conv, _i: facts.conversation_id(conv) in wanted)
    if c.title is not None:
        title = compile_regex(c.title, "--title", c.ignore_case)
        add(lambda conv, _i: title.search(facts.title(conv) or "") is not None)
    if c.min_messages is not None:
        least = c.min_messages
        add(lambda _c, items: len(items) >= least)
    if c.max_messages is not None:
        most = c.max_messages
        add(lambda _c, items: len(items) <= most)
    for what in c.has:
        add(lambda conv, items, what=what: _holds(conv, items, what))
    for name in c.roles:
        wanted_role = facts.user_role(name)
        add(lambda _c, items, r=wanted_role: any(_has_role(item, r) for item in items))
    if c.after is not None or c.before is not None:
        add(_in_time(selector))
    if c.model is not None:
        model = compile_regex(c.model, "--model", c.ignore_case)
        add(lambda conv, items: any(model.search(n) for n in facts.models(conv, _others(items))))
    if c.grep is not None:
        add(_grep(compile_regex(c.grep, "--grep", c.ignore_case), c.grep_roles))
    if c.min_tokens is not None or c.max_tokens is not None:
        tokens = _tokens(c.token_counter, c.min_tokens, c.max_tokens)
        if tokens is None:
            return None
        add(tokens)
    return checks


def _others(items: list[Any]) -> list[Any]:
    """The messages of the items that are not dicts with text (which say no more than
    their role, text and calls)."""
    return [message_of(item) for item in items if not text_dict(item)]


def _has_role(item: Any, wanted: str) -> bool:
    role = role_of(item)
    return role == wanted or (wanted == "system" and role == "developer")


# what a dict with text content holds, of what ``--has`` asks
_HOLDS: dict[str, Callable[[dict[str, Any]], bool]] = {
    "tool-calls": lambda item: item["type"] == "tool" or bool(item.get("tool_calls")),
    "system": lambda item: item["type"] == "system",
    "images": lambda item: False,
    "reasoning": lambda item: False,
    "attachments": lambda item: False,
}


def _holds(conversation: Conversation, items: list[Any], what: str) -> bool:
    held = _HOLDS[what]
    if facts.holds(conversation, [], what):  # (what the record holds beside its messages)
        return True
    return any(
        held(item) if text_dict(item) else facts.holds(conversation, [message_of(item)], what)
        for item in items
    )


def _in_time(selector: Selector) -> Check:
    c = selector.criteria
    after = facts.user_time(c.after, "--after") if isinstance(c.after, str) else c.after
    before = facts.user_time(c.before, "--before") if isinstance(c.before, str) else c.before

    def check(conversation: Conversation, items: list[Any]) -> bool:
        # a dict with text holds no time of its own: only the record's, or a message's
        first = [] if not items or text_dict(items[0]) else [message_of(items[0])]
        when = facts.created(conversation, first)
        if when is None:
            return False
        return (after is None or when >= after) and (before is None or when < before)

    return check


def _grep(pattern: Any, roles: Any) -> Check:
    wanted = [facts.user_role(r) for r in roles]

    def check(_conversation: Conversation, items: list[Any]) -> bool:
        for item in items:
            if wanted and not any(_has_role(item, r) for r in wanted):
                continue
            text = item["content"] if text_dict(item) else message_of(item).text
            if pattern.search(text):
                return True
        return False

    return check


def _tokens(spec: Any, least: int | None, most: int | None) -> Check | None:
    counter = resolve_counter(spec)
    if not adds_up(counter):
        return None

    def check(conversation: Conversation, items: list[Any]) -> bool:
        total = items_tokens(tokens_counter(counter, conversation), items)  # (a row's tools)
        return (least is None or total >= least) and (most is None or total <= most)

    return check


def adds_up(counter: Any) -> bool:
    """Whether ``counter`` counts a conversation as the sum of its messages' costs (the
    approximate count in whole numbers, with no tools of its own), as here."""
    return type(counter) is ApproximateCounter and counter.additive and not counter.tools


def items_tokens(counter: ApproximateCounter, items: list[Any]) -> int:
    """``counter.count`` of the items' messages (for a counter that ``adds_up``, or the
    same with a row's tools): fast/budget.py's ``_plain_cost`` of a dict with text (here
    inline: its characters to tokens, and the extra tokens of every message at once),
    ``counter.cost`` of any other item's message."""
    per_token, extra = counter.chars_per_token, int(counter.extra)
    total = counter.base + extra * len(items)
    for item in items:
        if type(item) is dict and type(content := item["content"]) is str:
            kind = item["type"]
            chars = len(content) + _ROLE_CHARS[kind]
            if len(item) > 2:
                calls = item.get("tool_calls")
                if calls:
                    chars += len(repr(calls))
                elif kind == "tool":
                    chars += len(item["tool_call_id"])
            total += math.ceil(chars / per_token)
        else:
            total += counter.cost(message_of(item)) - extra
    return total


def count_line(line: Any) -> Callable[[Conversation], bytes] | None:
    """``count``'s line (a ``CountLine`` of a counter that ``adds_up``, not ``--json``)
    of a row the row lane read, from its items; None for any other."""
    if line.as_json or not adds_up(line.counter):
        return None
    counter = line.counter

    def call(conversation: Conversation) -> bytes:
        items = row_items(conversation)
        if items is None:
            return line(conversation)
        tools = conversation.meta.get("tools")
        counting = counter.with_tools(tools) if isinstance(tools, list) and tools else counter
        return str(items_tokens(counting, items)).encode()

    return call


def within(conversation: Conversation, counter: Any, budget: int) -> RowMessages | None:
    """The messages of a row the row lane read when they are all within ``budget`` by a
    counter that ``adds_up`` (what trimming the newest keeps: all of them), else None."""
    row = untouched_row(conversation)
    if row is None or not adds_up(counter):
        return None
    return row if items_tokens(counter, row.items) <= budget else None
