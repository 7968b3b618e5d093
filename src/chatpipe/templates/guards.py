"""The checks a chat template's operations pass before they run (bounds.py holds the limits
and the budget; filter_guards.py wraps Jinja's filters): method calls looked at, and what a
template prints or joins measured as the text it will be.

Each check looks at the operands, not the result: ``'a'.ljust(10**10)`` is refused before
Python allocates ten gigabytes. Operations that cannot grow a value much past their
operands (``lower``, ``trim``, ``first``, ...) only count as a tick of the clock.
"""

from __future__ import annotations

import re
from typing import Any

from .bounds import SMALL, Budget, LimitBroken, current, size_text


def text_size(value: Any, cap: int) -> int:
    """About how many characters ``str(value)`` makes, counting each appearance of a
    container (a list holding the same long string a million times is a long text) and
    stopping once past ``cap``. (Strings inside containers, the most common leaves, are
    counted in the container's loop, without a call each: ``tojson`` measures every value
    it writes; and a container of such leaves alone, most of what it gets, is counted in
    one loop with no look for containers met before.)"""
    kind = type(value)
    if kind is str:
        return len(value) + 2
    if kind is dict:
        total = _flat_dict(value, cap)
        if total is not None:
            return total
    return _walk(value, cap, {})


def _flat_dict(item: dict, cap: int) -> int | None:
    """``_walk`` of a dict whose keys are strings and whose values are strings, whole
    numbers, floats, booleans or None; None for any other dict."""
    total = 2
    for name, value in item.items():
        if type(name) is not str:
            return None
        kind = type(value)
        if kind is str:
            total += len(name) + len(value) + 8
        elif kind is int:
            total += len(name) + value.bit_length() // 3 + 8
        elif value is None or kind is bool or kind is float:
            total += len(name) + 38
        else:
            return None
        if total > cap:
            break
    return total


def _walk(item: Any, cap: int, memo: dict[int, int]) -> int:
    kind = type(item)
    if kind is str:
        return len(item) + 2
    if kind is int:
        return item.bit_length() // 3 + 2
    if isinstance(item, (list, tuple, dict)):
        key = id(item)
        known = memo.get(key)
        if known is not None:
            return known
        memo[key] = 2  # (a container met inside itself counts once)
        total = 2
        if isinstance(item, dict):
            for name, value in item.items():
                # walk(name) + walk(value) + 4, strings counted here
                total += len(name) + 6 if type(name) is str else _walk(name, cap, memo) + 4
                total += len(value) + 2 if type(value) is str else _walk(value, cap, memo)
                if total > cap:
                    break
        else:
            for value in item:
                total += len(value) + 4 if type(value) is str else _walk(value, cap, memo) + 2
                if total > cap:
                    break
        memo[key] = total
        return total
    if isinstance(item, str):
        return len(item) + 2
    return 32


def check_text(budget: Budget, value: Any, what: str = "a text") -> None:
    """``value`` is about to be made text (printed, joined, formatted)."""
    if type(value) is not str:
        budget.check_estimate(text_size(value, budget.limits.max_output + 1), what)


def finalize(value: Any) -> Any:
    """Jinja's ``finalize``: each ``{{ value }}`` a template prints, measured first."""
    if type(value) is not str and isinstance(value, (list, tuple, dict)):
        check_text(current(), value)
    return value


def concat_parts(parts: tuple) -> tuple:
    """The operands of ``~``, measured as the text they will make together."""
    total = 0
    for part in parts:
        if type(part) is not str:
            total = -1
            break
        total += len(part)
    if 0 <= total < SMALL:
        return parts
    budget = current()
    if total >= 0:
        budget.check_size(total)
    else:
        cap = budget.limits.max_output + 1
        budget.check_estimate(sum(len(p) if type(p) is str else text_size(p, cap) for p in parts))
    return parts


# the str methods whose result can be much larger than the string and their arguments
CHECKED_METHODS = frozenset(
    (
        "ljust",
        "rjust",
        "center",
        "zfill",
        "expandtabs",
        "replace",
        "join",
        "format",
        "format_map",
        "translate",
        "split",
        "rsplit",
        "splitlines",
    )
)


def check_call(budget: Budget, function: Any, args: tuple, kwargs: dict) -> tuple:
    """A method call's arguments, checked (and a generator given to ``join`` listed, to be
    measured): the arguments to call with."""
    target = getattr(function, "__wrapped__", function)  # str.format, as the sandbox wraps it
    owner = getattr(target, "__self__", None)
    if not isinstance(owner, str):
        return args
    name = getattr(target, "__name__", "")
    if name in ("ljust", "rjust", "center", "zfill"):
        budget.check_width(args[0] if args else kwargs.get("width"))
    elif name == "expandtabs":
        tabs = owner.count("\t")
        budget.check_width(args[0] if args else kwargs.get("tabsize", 8), tabs + 1)
    elif name == "replace" and len(args) >= 2:
        count = args[2] if len(args) > 2 else kwargs.get("count", -1)
        budget.check_replace(owner, args[0], args[1], count)
    elif name == "join" and args:
        items = list(args[0])
        budget.check_join(items, owner)
        args = (items, *args[1:])
    elif name in ("format", "format_map"):
        named = args[0] if name == "format_map" and args else kwargs
        budget.check_format(owner, args if name == "format" else (), named)
        values = [*args, *(named.values() if isinstance(named, dict) else ())]
        cap = budget.limits.max_output + 1
        budget.check_estimate(len(owner) + sum(text_size(v, cap) for v in values))
    elif name == "translate" and args and isinstance(args[0], dict):
        longest = max((len(v) for v in args[0].values() if isinstance(v, str)), default=1)
        budget.check_size(len(owner) * longest)
    elif name in ("split", "rsplit", "splitlines") and len(owner) * 8 > budget.limits.max_output:
        budget.check_size(_pieces(owner, name, args, kwargs) * 64, "a list of strings")
    return args


def _pieces(text: str, name: str, args: tuple, kwargs: dict) -> int:
    separator = args[0] if args else kwargs.get("sep")
    if name == "splitlines":
        return sum(1 for _ in re.finditer(r"\n", text)) + 1
    if isinstance(separator, str) and separator:
        return text.count(separator) + 1
    return sum(1 for _ in re.finditer(r"\S+", text))


def refusal_text(message: Any) -> str:
    """What ``raise_exception(message)`` says: the message as text, measured first."""
    if type(message) is not str:
        check_text(current(), message, "an error message")
    return str(message)


def strftime_format(budget: Budget, format: str) -> None:
    """``strftime_now(format)``: the C library pads a field to any width it is given."""
    for digits in re.findall(r"%[-_0^#]*(\d+)", format):
        budget.check_width(int(digits))


__all__ = ["LimitBroken", "size_text"]
