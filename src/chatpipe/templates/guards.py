"""The checks a chat template's operations pass before they run (bounds.py holds the limits
and the budget): Jinja's filters and globals wrapped, method calls looked at, and what a
template prints or joins measured as the text it will be.

Each check looks at the operands, not the result: ``'a'.ljust(10**10)`` is refused before
Python allocates ten gigabytes. Operations that cannot grow a value much past their
operands (``lower``, ``trim``, ``first``, ...) only count as a tick of the clock.
"""

from __future__ import annotations

import functools
import itertools
import re
from typing import Any

from .bounds import _ITEM, SMALL, Budget, LimitBroken, current, size_of, size_text

# filters that make text of their value with str(): a list or dict given to them is
# printed whole, so it is measured as the text it will be
_STRINGIFY = frozenset(
    (
        "capitalize",
        "center",
        "e",
        "escape",
        "forceescape",
        "indent",
        "lower",
        "pprint",
        "replace",
        "string",
        "striptags",
        "title",
        "trim",
        "truncate",
        "upper",
        "urlencode",
        "urlize",
        "wordcount",
        "wordwrap",
        "xmlattr",
    )
)
# filters that make a list of a string's characters
_LISTING = frozenset(("list", "sort", "unique", "batch", "slice", "groupby"))
_ESCAPED = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;"})


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


def _value_index(function: Any) -> int:
    """Where a filter's value is among its arguments: after the context, eval context or
    environment that Jinja passes first to some."""
    from jinja2.utils import _PassArg

    return 0 if _PassArg.from_obj(function) is None else 1


def bounded_filter(name: str, function: Any) -> Any:
    """Jinja's filter ``name``, its operands checked before it runs and its result after;
    a filter that cannot make much more than it is given, as it is."""
    check = _CHECKS.get(name)
    stringify = name in _STRINGIFY
    listing = name in _LISTING
    if check is None and not stringify and not listing:
        return function
    at = _value_index(function)
    if at == 0 and check is None and not listing:  # (trim, lower, string...: most calls)

        @functools.wraps(function)
        def stringifying(value: Any, *args: Any, **kwargs: Any) -> Any:
            if type(value) is not str:
                check_text(current(), value)
            result = function(value, *args, **kwargs)
            if type(result) is str and len(result) < SMALL:
                return result
            return current().sized(result)

        return stringifying

    @functools.wraps(function)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        if len(args) > at:
            value = args[at]
            if type(value) is not str:
                if stringify:
                    check_text(current(), value)
            elif listing and len(value) * _ITEM > SMALL:
                current().check_size(len(value) * _ITEM, "a list")
            if check is not None:
                args = (*args[:at], *check(current(), args[:at], args[at:], kwargs))
        result = function(*args, **kwargs)
        if type(result) is str and len(result) < SMALL:
            return result
        return current().sized(result)

    return bounded


def _arg(args: tuple, kwargs: dict, index: int, name: str, default: Any = None) -> Any:
    """A filter's argument, given by position (the value is 0) or by name."""
    return args[index] if len(args) > index else kwargs.get(name, default)


def _center(budget: Budget, passed: tuple, args: tuple, kwargs: dict) -> tuple:
    budget.check_width(_arg(args, kwargs, 1, "width", 80))
    return args


def _indent(budget: Budget, passed: tuple, args: tuple, kwargs: dict) -> tuple:
    lines = str(args[0]).count("\n") + 1
    budget.check_width(_arg(args, kwargs, 1, "width", 4), lines)
    return args


def _format(budget: Budget, passed: tuple, args: tuple, kwargs: dict) -> tuple:
    value, values = args[0], args[1:]
    if isinstance(value, str):
        budget.check_percent(value, kwargs or values)
        shown = [*values, *kwargs.values()]
        cap = budget.limits.max_output + 1
        budget.check_estimate(len(value) + sum(text_size(v, cap) for v in shown))
    return args


def _replace(budget: Budget, passed: tuple, args: tuple, kwargs: dict) -> tuple:
    count = _arg(args, kwargs, 3, "count")
    text = args[0] if isinstance(args[0], str) else str(args[0])
    old, new = _arg(args, kwargs, 1, "old"), _arg(args, kwargs, 2, "new")
    budget.check_replace(text, old, new, -1 if count is None else count)
    return args


def _join(budget: Budget, passed: tuple, args: tuple, kwargs: dict) -> tuple:
    items = list(args[0])
    attribute = _arg(args, kwargs, 2, "attribute")
    shown = items
    if attribute is not None:
        from jinja2.filters import make_attrgetter

        environment = getattr(passed[0], "environment", None) if passed else None
        shown = list(map(make_attrgetter(environment, attribute), items))
    for item in shown:
        if type(item) is not str:
            check_text(budget, item)
    budget.check_join(shown, _arg(args, kwargs, 1, "d", ""))
    return (items, *args[1:])


def _sum(budget: Budget, passed: tuple, args: tuple, kwargs: dict) -> tuple:
    items = list(args[0])
    attribute = _arg(args, kwargs, 1, "attribute")
    start = _arg(args, kwargs, 2, "start", 0)
    if isinstance(start, (list, tuple)) and attribute is None:
        budget.check_size(size_of(start) + sum(size_of(i) for i in items), "a list")
        if all(type(i) is type(start) for i in items) and not kwargs and len(args) <= 3:
            # the concatenation in one pass (sum's is quadratic), given as a sum of one
            return ([type(start)(itertools.chain(start, *items))], None, type(start)())
    return (items, *args[1:])


def _batch(budget: Budget, passed: tuple, args: tuple, kwargs: dict) -> tuple:
    linecount = _arg(args, kwargs, 1, "linecount", 1)
    if _arg(args, kwargs, 2, "fill_with") is not None and isinstance(linecount, int):
        budget.check_size(linecount * _ITEM, "a list")
    return args


def _slice(budget: Budget, passed: tuple, args: tuple, kwargs: dict) -> tuple:
    slices = _arg(args, kwargs, 1, "slices", 1)
    if isinstance(slices, int):
        budget.check_size(slices * _ITEM * 8, "a list of lists")
    return args


def _wordwrap(budget: Budget, passed: tuple, args: tuple, kwargs: dict) -> tuple:
    text, width = args[0], _arg(args, kwargs, 1, "width", 79)
    wrap = _arg(args, kwargs, 3, "wrapstring")
    if isinstance(wrap, str) and isinstance(text, str) and isinstance(width, int) and width > 0:
        breaks = len(text) // width + text.count("\n") + 1
        budget.check_size(len(text) + breaks * len(wrap))
    return args


def _escape(budget: Budget, passed: tuple, args: tuple, kwargs: dict) -> tuple:
    value = args[0]
    if isinstance(value, str) and len(value) * 5 > budget.limits.max_output:
        budget.check_size(len(value.translate(_ESCAPED)))  # (a copy, at most 5 times)
    return args


_CHECKS = {
    "center": _center,
    "indent": _indent,
    "format": _format,
    "replace": _replace,
    "join": _join,
    "sum": _sum,
    "batch": _batch,
    "slice": _slice,
    "wordwrap": _wordwrap,
    "e": _escape,
    "escape": _escape,
    "forceescape": _escape,
}


def bounded_lipsum(lipsum: Any) -> Any:
    """Jinja's ``lipsum(n, html, min, max)``: about ``n * max`` words of seven letters."""

    @functools.wraps(lipsum)
    def bounded(n: Any = 5, html: Any = True, min: Any = 20, max: Any = 100) -> Any:
        budget = current()
        if isinstance(n, int) and isinstance(max, int):
            budget.check_size(n * max * 8, "lorem ipsum")
        return budget.sized(lipsum(n, html, min, max))

    return bounded


def bounded_tojson(encode: Any) -> Any:
    """The ``tojson`` filter: the value measured first, and with ``indent``, what the
    indentation adds on each of its lines."""

    @functools.wraps(encode)
    def tojson(value: Any, *args: Any, **kwargs: Any) -> Any:
        budget = current()
        budget.tick()
        compact = text_size(value, budget.limits.max_output + 1)
        if compact >= SMALL:  # (a small one, most of them, is not counted: as concat_parts)
            budget.check_estimate(compact, "JSON")
        if args or kwargs:
            indent = args[1] if len(args) > 1 else kwargs.get("indent")
            width = len(indent) if isinstance(indent, str) else indent
            if isinstance(width, int) and width > 0:
                # a line a value at most, each indented by its depth (at most the nesting's)
                budget.check_size(compact + compact * width * _depth(value), "JSON")
        text = encode(value, *args, **kwargs)
        if len(text) >= SMALL:
            budget.check_size(len(text))
        return text

    return tojson


def _depth(value: Any) -> int:
    """How deep lists and dicts nest in ``value`` (each container looked at once)."""
    memo: dict[int, int] = {}

    def walk(item: Any) -> int:
        if not isinstance(item, (list, tuple, dict)):
            return 0
        known = memo.get(id(item))
        if known is None:
            memo[id(item)] = 1  # (a container met inside itself)
            values = item.values() if isinstance(item, dict) else item
            known = memo[id(item)] = 1 + max(map(walk, values), default=0)
        return known

    return walk(value)


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
