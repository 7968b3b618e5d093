"""The Jinja environment chat templates run in, as transformers' ``apply_chat_template`` sets
it up (read in its source, written here anew): Jinja's immutable sandbox with
``trim_blocks`` and ``lstrip_blocks``, loop controls, the ``{% generation %}`` block
(rendered as its body), a ``tojson`` filter that does not escape HTML and takes
``indent``/``separators``/``sort_keys``, and the globals ``raise_exception``,
``strftime_now``, a ``dict`` that only builds dicts and a ``namespace`` that refuses
underscore names; templates compiled with their dict lookups inline.

Unlike transformers' (and Jinja's) default, a variable that nothing defines is not text:
printing it, iterating it or adding to it raises ``MissingVariable`` (testing it with
``is defined``, ``default`` or ``if`` is as in Jinja). Every loop, call, filter and
operator that can grow a value is checked against the render's budget (bounds.py,
guards.py, filter_guards.py) before it runs.

Jinja2 is an optional extra, imported when a template is first compiled.
"""

from __future__ import annotations

import json
import threading
from datetime import datetime
from functools import cache, lru_cache
from types import BuiltinMethodType, FunctionType

from ..errors import UsageError
from .bounds import SMALL, bounded_loop, current, size_of
from .jinja import load_jinja, refusal_class
from .undefined import undefined_class

_DICT_ATTRIBUTES = frozenset(dir(dict))
# the render being followed in this thread, if any (templates/tracking.py): its
# ``current`` hears where each {% generation %} block's text starts and ends
TRACKING = threading.local()
_LOOP_FILTER = "_chatpipe_loop"  # the filter every loop's iterable goes through
_STR_FORMATS = frozenset(("format", "format_map"))


@cache
def _environment():
    jinja2 = load_jinja()
    Refusal = refusal_class()
    from jinja2 import nodes
    from jinja2.ext import Extension, loopcontrols
    from jinja2.runtime import LoopContext
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from . import filter_guards, guards

    class Generation(Extension):
        """``{% generation %}...{% endgeneration %}``: the assistant's tokens, rendered as is."""

        tags = {"generation"}  # noqa: RUF012 (Jinja reads it from the class)

        def parse(self, parser):
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

        def _body(self, caller):
            text = caller()
            tracker = getattr(TRACKING, "current", None)
            if tracker is not None:  # (the output before the block is its start)
                tracker.generated(len(text))
            return text

    def raise_exception(message):
        raise Refusal(guards.refusal_text(message))

    plain_json = json.JSONEncoder(ensure_ascii=False).encode  # made once, not at each call

    def tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        if not ensure_ascii and indent is None and separators is None and not sort_keys:
            return plain_json(value)
        return json.dumps(
            value,
            ensure_ascii=ensure_ascii,
            indent=indent,
            separators=separators,
            sort_keys=sort_keys,
        )

    def strftime_now(format):
        if isinstance(format, str) and "%" in format:
            guards.strftime_format(current(), format)
        return datetime.now().strftime(format)

    class Dicts:
        """``dict(...)`` and ``dict.fromkeys(...)``, and nothing else of the type."""

        def __call__(self, *args, **kwargs):
            return dict(*args, **kwargs)

        def fromkeys(self, keys, *args, **kwargs):
            keys = list(keys)
            current().check_size(len(keys) * 64, "a dict")
            return dict.fromkeys(keys, *args, **kwargs)

    class Namespace(jinja2.utils.Namespace):
        """Jinja's namespace, refusing attributes that start with an underscore."""

        def __init__(*args, **kwargs):
            self, rest = args[0], args[1:]
            attrs = dict(*rest, **kwargs)
            for name in attrs:
                Namespace._check(name)
            jinja2.utils.Namespace.__init__(self, attrs)

        def __setitem__(self, name, value):
            Namespace._check(name)
            jinja2.utils.Namespace.__setitem__(self, name, value)

        @staticmethod
        def _check(name):
            if isinstance(name, str) and name.startswith("_"):
                raise jinja2.exceptions.SecurityError(
                    f"Chat templates cannot store underscore-prefixed attributes on a namespace, "
                    f"but got {name!r}. Please rename the attribute."
                )

    class Sandbox(ImmutableSandboxedEnvironment):
        """Jinja's immutable sandbox; reaching an unsafe attribute (``__class__``,
        ``__globals__``, ...) is refused at once, where Jinja's would render it as empty.
        Its loops, calls and growing operators count against the render's budget."""

        intercepted_binops = frozenset(("+", "*", "%", "**"))

        def call_binop(self, context, operator, left, right):
            if operator == "+":  # most of a template's operators
                kind = type(left)
                if kind is type(right) and (
                    (kind is str and len(left) + len(right) < SMALL)
                    or kind is int  # (a count: a sum is one bit longer at most)
                ):
                    return left + right
            budget = current()
            budget.tick()
            if operator == "+":
                if isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
                    budget.check_size(size_of(left) + size_of(right))
            elif operator == "*":
                budget.check_product(left, right)
            elif operator == "%":
                if isinstance(left, str):
                    budget.check_percent(left, right)
                    guards.check_text(budget, right)
            else:
                budget.check_power(left, right)
            return budget.sized(self.binop_table[operator](left, right))

        def call(__self, __context, __obj, /, *args, **kwargs):
            budget = current()
            budget.tick()  # (a macro that calls itself twice loops without a loop)
            kind = type(__obj)
            if kind is LoopContext:  # loop(children) in a recursive loop
                if args:
                    args = (bounded_loop(args[0]), *args[1:])
            elif (kind is BuiltinMethodType or kind is FunctionType) and (
                __obj.__name__ in guards.CHECKED_METHODS
            ):
                args = guards.check_call(budget, __obj, args, kwargs)
            # (the sandbox's own call, inline)
            if not __self.is_safe_callable(__obj):
                raise jinja2.exceptions.SecurityError(f"{__obj!r} is not safely callable")
            result = __context.call(__obj, *args, **kwargs)
            if type(result) is str and len(result) < SMALL:
                return result
            return budget.sized(result)

        def add_chain(self, context, operands):
            """``a + b + c`` (as _inline_lookups writes it), each ``+`` checked, in order;
            short strings (most chains: a template's markup around a message's text) joined
            at once, as each ``+`` of them would be."""
            if all(type(operand) is str for operand in operands) and (
                sum(map(len, operands)) < SMALL
            ):
                return "".join(operands)
            if all(type(operand) is int for operand in operands):
                return sum(operands)  # (``loop.index0 + 1``: as each + of them would be)
            total = operands[0]
            for operand in operands[1:]:
                total = self.call_binop(context, "+", total, operand)
            return total

        def concat(self, pieces):
            """What a macro, a ``{% set %}`` block or a ``{% filter %}`` block wrote, joined
            once measured (its pieces are held as references: one string printed a
            million times is a long text)."""
            total = sum(map(len, pieces))
            if total >= SMALL:
                current().check_size(total, "a text")
            return "".join(pieces)

        def printed(self, value):
            """A value ``{{ }}`` prints that is not a string, measured first (the code for
            printing a string is inline: see _inline_lookups)."""
            return guards.finalize(value)

        def measured(self, parts):
            """The operands the code for ``~`` joins, measured first (_inline_lookups)."""
            return guards.concat_parts(parts)

        def _parse(self, source, name, filename):
            # every loop's iterable counted (bounds.bounded_loop)
            tree = super()._parse(source, name, filename)
            for loop in tree.find_all(nodes.For):
                loop.iter = nodes.Filter(loop.iter, _LOOP_FILTER, [], [], None, None)
            return tree

        # the data a template reads is plain JSON (dicts, lists, strings): a key of a dict
        # that is not one of dict's own attributes is looked up at once, which is what
        # the sandbox's full path ends in for such data, at a third of its cost
        def getattr(self, obj, attribute):
            kind = type(obj)
            if kind is dict and attribute not in _DICT_ATTRIBUTES:
                # (a key tested, not a KeyError caught: templates ask for many absent ones)
                if attribute in obj:
                    return obj[attribute]
                return self.undefined(obj=obj, name=attribute)
            # str's methods are safe but for format and format_map, which the sandbox wraps
            # (a format string reaches attributes: "{0.__class__}"); all of a loop's public
            # face is safe (``loop.first``, ``loop.index0``: the sandbox's full check of those
            # was a third of rendering), and a namespace's (it holds only what was set)
            if (
                (kind is str and attribute not in _STR_FORMATS)
                or kind is LoopContext
                or kind is Namespace
            ) and attribute[:1] != "_":
                try:
                    return getattr(obj, attribute)
                except AttributeError:
                    return self.undefined(obj=obj, name=attribute)
            return super().getattr(obj, attribute)

        def getitem(self, obj, argument):
            if type(obj) is dict and type(argument) is str:
                try:
                    return obj[argument]
                except KeyError:
                    pass
            elif type(obj) is list and type(argument) is int:
                try:
                    return obj[argument]
                except IndexError:
                    pass
            return super().getitem(obj, argument)

        def unsafe_undefined(self, obj, attribute):
            raise jinja2.exceptions.SecurityError(
                f"access to attribute {attribute!r} of a {type(obj).__name__!r} object is unsafe"
            )

    Sandbox.code_generator_class = _inline_lookups()
    env = Sandbox(
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=[Generation, loopcontrols],
        undefined=undefined_class(),
    )
    env.filters["tojson"] = tojson
    env.filters = {name: filter_guards.bounded_filter(name, f) for name, f in env.filters.items()}
    env.filters["tojson"] = filter_guards.bounded_tojson(tojson)
    env.filters[_LOOP_FILTER] = bounded_loop
    env.globals["lipsum"] = filter_guards.bounded_lipsum(env.globals["lipsum"])
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    env.globals["dict"] = Dicts()
    env.globals["namespace"] = Namespace
    return env


def _inline_lookups():
    """Jinja's code generator, writing ``x.key`` and ``x["key"]`` on a dict as an inline
    lookup: ``(v["key"] if type(v := x) is dict and "key" in v else environment...)``.

    The environment's own ``getattr``/``getitem`` give the same value for a dict that holds
    the key (a key that is not one of dict's attributes); anything else still goes to them,
    the sandbox's checks included. A template reads message fields this way hundreds of
    times a conversation, and a call each was a sixth of rendering.

    Likewise ``a + b`` on two short strings is added inline, anything else going to the
    sandbox's ``call_binop`` (which checks what it would make); the operands of ``~``, and
    what ``{{ }}`` prints that is not a string, are measured before they become text.
    """
    from jinja2 import nodes
    from jinja2.compiler import CodeGenerator, optimizeconst

    class InlineLookups(CodeGenerator):
        @optimizeconst
        def visit_Add(self, node, frame):
            # ``a + b + c``: one sum of short strings inline (constants as they are), else
            # the sandbox's checked ``+``, left to right (Sandbox.add_chain)
            operands = []
            spine = node
            while isinstance(spine, nodes.Add):
                operands.append(spine.right)
                spine = spine.left
            operands.append(spine)
            operands.reverse()
            names, temps, known = [], [], 0
            for operand in operands:
                if isinstance(operand, nodes.Const) and type(operand.value) is str:
                    names.append(repr(operand.value))
                    known += len(operand.value)
                else:
                    names.append(self.temporary_identifier())
                    temps.append((names[-1], operand))
            if not temps:
                self.write(repr("".join(o.value for o in operands)))
                return
            self.write(f"({' + '.join(names)} if (")
            for name, operand in temps:
                self.write(f"({name} := ")
                self.visit(operand, frame)
                self.write("), ")
            checks = " and ".join(f"type({name}) is str" for name, _ in temps)
            lengths = " + ".join(f"len({name})" for name, _ in temps)
            self.write(
                f") and {checks} and {lengths} < {SMALL - known} else "
                f"environment.add_chain(context, ({', '.join(names)},)))"
            )

        def _output_child_pre(self, node, frame, finalize):
            # what ``{{ }}`` prints: a string as it is, anything else measured first
            # (Sandbox.printed), then made text as Jinja makes it
            if frame.eval_ctx.volatile or frame.eval_ctx.autoescape:
                super()._output_child_pre(node, frame, finalize)
                self.write("environment.printed(")
            else:
                self.write("(_cp_o if type(_cp_o := ")

        def _output_child_post(self, node, frame, finalize):
            if frame.eval_ctx.volatile or frame.eval_ctx.autoescape:
                self.write(")")
                super()._output_child_post(node, frame, finalize)
            else:
                self.write(") is str else str(environment.printed(_cp_o)))")

        def visit_Concat(self, node, frame):
            # the operands of ``~`` measured before they are joined (Sandbox.measured)
            if frame.eval_ctx.volatile:
                join = "(markup_join if context.eval_ctx.volatile else str_join)"
            else:
                join = "markup_join" if frame.eval_ctx.autoescape else "str_join"
            self.write(f"{join}(environment.measured((")
            for arg in node.nodes:
                self.visit(arg, frame)
                self.write(", ")
            self.write(")))")

        def _inline(self, node, key, method, frame):
            self.write(f"(_cp_v[{key!r}] if type(_cp_v := ")
            self.visit(node.node, frame)
            self.write(f") is dict and {key!r} in _cp_v else environment.{method}(_cp_v, {key!r}))")

        @optimizeconst
        def visit_Getattr(self, node, frame):
            if self.environment.is_async or node.attr in _DICT_ATTRIBUTES:
                return super().visit_Getattr(node, frame)
            self._inline(node, node.attr, "getattr", frame)

        @optimizeconst
        def visit_Getitem(self, node, frame):
            key = node.arg
            if self.environment.is_async or not (
                isinstance(key, nodes.Const) and type(key.value) is str
            ):
                return super().visit_Getitem(node, frame)
            self._inline(node, key.value, "getitem", frame)

    return InlineLookups


@lru_cache(maxsize=32)
def compile_template(text: str, origin: str = "chat template"):
    """The compiled template; a syntax error is a usage error naming ``origin`` and the line."""
    jinja2 = load_jinja()
    try:
        template = _environment().from_string(text)
    except jinja2.TemplateSyntaxError as exc:
        raise UsageError(
            f"{origin}:{exc.lineno}: the chat template is not valid Jinja ({exc.message})"
        ) from None
    # Jinja keeps a template's globals as a ChainMap over the environment's and copies them
    # into a new dict at every render: a plain dict copies at a fraction of the cost (the
    # environment's globals are set once, before any template is compiled)
    template.globals = dict(template.globals)
    return template
