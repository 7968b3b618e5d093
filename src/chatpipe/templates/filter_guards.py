"""Jinja's filters, ``tojson`` and ``lipsum`` as a chat template runs them: their operands
checked before they run and their results measured after (guards.py measures a value as
the text it will be; bounds.py holds the limits and the budget). A filter that cannot make
much more than it is given (``lower``, ``trim``, ``first``, ...) is left as it is."""

from __future__ import annotations

import functools
import itertools
from typing import Any

from .bounds import _ITEM, SMALL, Budget, current, size_of
from .guards import check_text, text_size

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
