"""Bounds on one render of a chat template: the text it writes, the values it builds, its
loop iterations and its time, each broken one error of that conversation.

A template is a program from a model's files, and Jinja's sandbox keeps it from reaching
Python, not from asking for ten gigabytes (``'a' * 10**10``, ``'x'.ljust(10**10)``,
``tojson(indent=10**9)``) or from looping for ever (nested ``range(100000)`` loops). The
environment (environment.py) routes every operation that can make a value much larger
than its operands through ``Budget.check_*`` before it runs, and every loop iteration,
call and filter through ``Budget.loop``/``tick``; the budget of the render under way is
the thread's (``current``), opened by ``Budget.open``. The clock is looked at between
operations, and, in the main thread, from inside a long one too (a filter such as
``urlize`` or ``wordwrap`` on a text of megabytes: io/alarm.py).

Sizes are counted as the memory a value takes, roughly: a string's characters, eight
bytes an item for a list. No value may pass ``max_output``, and the process may grow by
``MEMORY_FACTOR`` times that during one render (read from /proc where there is one).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..io import alarm

MEMORY_FACTOR = 16
_ITEM = 8  # bytes an item of a list or tuple counts for
_CHECK_EVERY = 255  # ticks between two looks at the clock (a mask: 2**n - 1)
_MEMORY_EVERY = 32 << 20  # bytes built between two looks at the process's memory
# a string shorter than this, made by an operation, is not counted: what a template makes
# of message text is mostly such (its loops are counted, and the memory looked at, still)
SMALL = 1 << 16
# a whole number a template may compute: past this, Python would spend seconds on one
# operator, for a number it refuses to print (more than 4,300 digits)
_MAX_INT_BITS = 1 << 17


@dataclass(frozen=True)
class TemplateLimits:
    """What one render may do: write and build at most ``max_output`` characters (and take
    ``MEMORY_FACTOR`` times that in memory), loop ``max_loops`` times, run ``timeout`` s."""

    max_output: int = 64 << 20
    max_loops: int = 1_000_000
    timeout: float = 10.0


DEFAULT_LIMITS = TemplateLimits()


class LimitBroken(Exception):
    """A render passed one of its limits (the message says which, and the option)."""


def size_text(size: int) -> str:
    """A size as people read it: 64 MiB, 1.5 GiB, 512 KiB, 900 bytes."""
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            value = size / (1 << shift)
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size} bytes"


def parse_size(text: str, flag: str) -> int:
    """``64M``, ``1G``, ``500k``, ``4096``: a size in bytes (K, M, G are powers of 1024)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)(?:i?[bB])?\s*", text)
    if match is None:
        raise ValueError(f"{flag} takes a size such as 64M, 1G or 500K, got {text!r}")
    number, unit = match.groups()
    size = int(float(number) * (1 << {"": 0, "k": 10, "m": 20, "g": 30}[unit.lower()]))
    if size < 1:
        raise ValueError(f"{flag} must be at least 1 byte, got {text!r}")
    return size


def _resident() -> int | None:
    """The process's resident memory in bytes (Linux), None where it cannot be read."""
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


try:
    import os as _os

    _PAGE = _os.sysconf("SC_PAGE_SIZE")
except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
    _PAGE = 4096

_local = threading.local()


def current() -> Budget:
    """The budget of the render under way in this thread; outside a render (Jinja folds
    constant filter calls while compiling), the default limits' with no clock."""
    budget = getattr(_local, "budget", None)
    return budget if budget is not None else Budget(DEFAULT_LIMITS, clock=False)


def size_of(value: Any) -> int:
    kind = type(value)
    if kind is str or isinstance(value, str):
        return len(value)
    if kind in (list, tuple) or isinstance(value, (list, tuple)):
        return len(value) * _ITEM
    return 0


class Budget:
    """What one render has used so far, and the checks against its limits."""

    __slots__ = ("_built", "_deadline", "_memory", "_ticks", "_watched", "limits", "loops")

    def __init__(self, limits: TemplateLimits, *, clock: bool = True) -> None:
        self.limits = limits
        self.loops = 0
        self._ticks = 0
        self._built = 0
        self._deadline = time.monotonic() + limits.timeout if clock else None
        # the process's memory when first looked at (only a render that loops or builds
        # much is looked at: most renders never read /proc)
        self._memory = 0 if clock else None
        self._watched: Any = False

    def open(self) -> Budget | None:
        """This budget as the thread's, for one render: the one it replaces, to give back
        to ``close`` (a try/finally, where a context manager would cost more than many
        small renders take). Its clock is also looked at from inside a long call (a
        filter on a huge text): io/alarm.py's alarm, in the main thread."""
        previous = getattr(_local, "budget", None)
        _local.budget = self
        if self._deadline is not None:
            self._watched = alarm.watch(self.check_time)
        return previous

    def close(self, previous: Budget | None) -> None:
        alarm.unwatch(self._watched)
        self._watched = False
        _local.budget = previous

    # -- time and loops --------------------------------------------------------------------

    def tick(self) -> None:
        """A call, filter or operator ran: now and then, a look at the clock."""
        self._ticks += 1
        if not self._ticks & _CHECK_EVERY:
            self.check_time()

    def loop(self) -> None:
        """A loop went round once more (``Bounded`` counts them itself, then calls this
        every ``_CHECK_EVERY + 1`` times, and at the limit)."""
        if self.loops > self.limits.max_loops:
            raise LimitBroken(
                f"the chat template looped more than {self.limits.max_loops:,} times "
                "(see --template-max-loops)"
            )
        self.check_time()

    def check_time(self) -> None:
        if self._deadline is not None and time.monotonic() > self._deadline:
            raise LimitBroken(
                f"the chat template ran for more than {self.limits.timeout:g} s "
                "(see --template-timeout)"
            )
        self._check_memory()

    # -- sizes -------------------------------------------------------------------------------

    def check_size(self, size: int, what: str = "a value") -> None:
        """A value of about ``size`` bytes is about to be made (or was)."""
        if size > self.limits.max_output:
            raise LimitBroken(
                f"the chat template built {what} of {size_text(size)}, more than "
                f"{size_text(self.limits.max_output)} (see --template-max-output)"
            )
        self._built += size
        if self._built > _MEMORY_EVERY:
            self._built = 0
            self._check_memory()

    def check_estimate(self, size: int, what: str = "a text") -> None:
        """``check_size`` for a size measured only up to just past the bound (guards.py's
        ``text_size``): past it, the size is not known, only that it is too large."""
        if size > self.limits.max_output:
            raise LimitBroken(
                f"the chat template built {what} of more than "
                f"{size_text(self.limits.max_output)} (see --template-max-output)"
            )
        self.check_size(size, what)

    def check_output(self, size: int) -> None:
        if size > self.limits.max_output:
            raise LimitBroken(
                f"the chat template wrote more than {size_text(self.limits.max_output)} "
                "for this conversation (see --template-max-output)"
            )

    def _check_memory(self) -> None:
        if self._memory is None:
            return
        now = _resident()
        if now is None:
            self._memory = None
            return
        if not self._memory:
            self._memory = now
        allowed = self.limits.max_output * MEMORY_FACTOR
        if now - self._memory > allowed:
            raise LimitBroken(
                f"the chat template took more than {size_text(allowed)} of memory "
                f"({MEMORY_FACTOR} times --template-max-output)"
            )

    def sized(self, value: Any) -> Any:
        """``value``, once its size is checked (what an operation made)."""
        self.check_size(size_of(value))
        return value

    def check_repeat(self, sequence: Any, times: Any) -> None:
        """``sequence * times``."""
        if isinstance(times, int) and isinstance(sequence, (str, list, tuple)):
            self.check_size(size_of(sequence) * max(times, 0))

    def check_width(self, width: Any, lines: int = 1) -> None:
        """A padding or indent ``width`` (a number, or a string) on ``lines`` lines."""
        if isinstance(width, str):
            self.check_size(len(width) * lines)
        elif isinstance(width, int) and not isinstance(width, bool):
            self.check_size(width * lines)

    def check_power(self, base: Any, exponent: Any) -> None:
        """``base ** exponent`` on whole numbers: its digits, before Python spends them."""
        if isinstance(base, int) and isinstance(exponent, int) and exponent > 1 and abs(base) > 1:
            self._check_bits(base.bit_length() * exponent)

    def check_product(self, left: Any, right: Any) -> None:
        """``left * right``: a repeated sequence, or a product of huge numbers."""
        if isinstance(left, int) and isinstance(right, int):
            self._check_bits(left.bit_length() + right.bit_length())
        elif isinstance(right, int):
            self.check_repeat(left, right)
        elif isinstance(left, int):
            self.check_repeat(right, left)

    def _check_bits(self, bits: int) -> None:
        if bits > _MAX_INT_BITS:
            raise LimitBroken(
                f"the chat template computed a number of more than {_MAX_INT_BITS:,} bits "
                "(Python prints at most 4,300 digits)"
            )

    def check_percent(self, template: str, values: Any) -> None:
        """``template % values``: the widths and precisions its conversions ask for."""
        numbers = values if isinstance(values, tuple) else (values,)
        stars = iter(v for v in numbers if isinstance(v, int))
        for width, precision in _PERCENT.findall(template):
            for field in (width, precision):
                if field == "*":
                    self.check_width(next(stars, 0))
                elif field:
                    self.check_width(int(field))

    def check_format(self, template: str, args: Any, kwargs: Any) -> None:
        """``template.format(...)``: the widths and precisions of its fields' specs (and,
        for a spec with a nested field, every number given)."""
        for spec in _FORMAT_SPEC.findall(template):
            if "{" in spec:
                values = [*args, *(kwargs.values() if isinstance(kwargs, dict) else ())]
                for value in values:
                    self.check_width(value)
            for digits in re.findall(r"\d+", spec):
                self.check_width(int(digits))

    def check_replace(self, text: Any, old: Any, new: Any, count: Any = -1) -> None:
        if not (isinstance(text, str) and isinstance(old, str) and isinstance(new, str)):
            return
        if len(new) <= len(old):
            return
        times = text.count(old) if old else len(text) + 1
        if isinstance(count, int) and count >= 0:
            times = min(times, count)
        self.check_size(len(text) + times * (len(new) - len(old)))

    def check_join(self, items: list, separator: Any) -> None:
        joined = sum(len(item) if isinstance(item, str) else 16 for item in items)
        if isinstance(separator, str):
            joined += len(separator) * max(len(items) - 1, 0)
        self.check_size(joined)


# a %-conversion: %(name)-08.3f; its width and precision (a number, or * for the next value)
_PERCENT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?[a-zA-Z%]")
# the spec after the colon of a format field: "{0:>{width}}" gives ">{width}"
_FORMAT_SPEC = re.compile(r"(?<!\{)\{[^{}:!]*(?:![rsa])?:((?:[^{}]|\{[^{}]*\})*)\}")


def bounded_loop(iterable: Any) -> Any:
    """``iterable`` with its iterations counted against the render's budget (each loop of a
    template goes through here). A short one with a length is counted at once and given
    back as it is; a long one, or one without a length, counts as it goes round (and
    looks at the clock)."""
    budget = current()
    try:
        length = len(iterable)
    except TypeError:
        return _counted(iterable, budget)
    if length > _CHECK_EVERY:
        return _counted(iterable, budget)
    before = budget.loops
    budget.loops = after = before + length
    if after > budget.limits.max_loops or (after ^ before) > _CHECK_EVERY:
        budget.loop()
    return iterable


def _counted(iterable: Any, budget: Budget) -> Iterator[Any]:
    most = budget.limits.max_loops
    for item in iterable:
        budget.loops = loops = budget.loops + 1
        if loops > most or not loops & _CHECK_EVERY:
            budget.loop()
        yield item
