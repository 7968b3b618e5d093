"""The variables a chat template needs from whoever renders it, read from its source.

transformers gives every template ``messages``, ``tools``, ``documents``,
``add_generation_prompt`` and the tokenizer's special tokens (``bos_token``, ...); a
template may read more (``enable_thinking``, ``date_string``). A template that prints a
variable nothing gives (a bare ``.jinja`` file without its ``bos_token``) would print
nothing there, silently: ``needed`` finds such variables before anything is rendered.

A variable the template tests (``is defined``, ``| default``, ``{% if x %}``, ``not x``,
``x == ...``) or sets itself is optional: the template has a way without it. Those it only
reads as values (prints, adds, iterates, looks into) are needed; what static reading
cannot see (a variable tested in one place and printed unguarded in another) is caught
when rendered (``undefined_class``).
"""

from __future__ import annotations

from functools import cache, lru_cache

# what render() gives every template (render.py's _OWN_VARIABLES)
GIVEN = frozenset(("messages", "tools", "documents", "add_generation_prompt"))
_DEFAULTS = frozenset(("default", "d"))


@lru_cache(maxsize=32)
def needed(text: str) -> frozenset[str]:
    """The variables ``text`` reads as values and never tests or sets, beyond those
    every render gives it and Jinja's globals: what the caller must define."""
    from jinja2 import meta, nodes

    from .environment import _environment

    environment = _environment()
    tree = environment.parse(text)
    free = meta.find_undeclared_variables(tree) - GIVEN - set(environment.globals)
    if not free:
        return frozenset()
    tested: set[str] = set()
    used: set[str] = set()
    stored = {name.name for name in tree.find_all(nodes.Name) if name.ctx != "load"}

    def tests(parent: object, field: str) -> bool:
        if isinstance(parent, (nodes.Test, nodes.Not, nodes.And, nodes.Or)):
            return True
        if isinstance(parent, (nodes.If, nodes.CondExpr)):
            return field == "test"
        if isinstance(parent, (nodes.Compare, nodes.Operand)):
            return True
        return isinstance(parent, nodes.Filter) and parent.name in _DEFAULTS and field == "node"

    stack: list[tuple[object, object, str]] = [(tree, None, "")]
    while stack:
        node, parent, field = stack.pop()
        if isinstance(node, nodes.Name) and node.ctx == "load" and node.name in free:
            (tested if tests(parent, field) else used).add(node.name)
        for name in node.fields:
            value = getattr(node, name)
            for child in value if isinstance(value, list) else (value,):
                if isinstance(child, nodes.Node):
                    stack.append((child, node, name))
    return frozenset(used - tested - stored)


@cache
def missing_variable_class():
    from .environment import load_jinja

    jinja2 = load_jinja()

    class MissingVariable(jinja2.exceptions.UndefinedError):
        """A template used a variable that nothing defines as a value."""

        def __init__(self, name: str) -> None:
            super().__init__(f"{name!r} is undefined")
            self.name = name

    return MissingVariable


@cache
def undefined_class():
    """Jinja's Undefined, strict for a variable of the template's own (not an attribute or
    key that a message lacks, which templates test all the time): made text, iterated,
    measured or operated on, it raises ``MissingVariable`` instead of being empty."""
    from .environment import load_jinja

    jinja2 = load_jinja()
    from jinja2.utils import missing

    MissingVariable = missing_variable_class()
    base = jinja2.Undefined

    class ChatUndefined(base):
        __slots__ = ()

        def _variable(self) -> bool:
            return self._undefined_obj is missing and self._undefined_hint is None

        def _fail_with_undefined_error(self, *args, **kwargs):
            if self._variable() and self._undefined_name is not None:
                raise MissingVariable(self._undefined_name)
            return base._fail_with_undefined_error(self, *args, **kwargs)

        def __str__(self) -> str:
            if self._variable():
                self._fail_with_undefined_error()
            return ""

        def __iter__(self):
            if self._variable():
                self._fail_with_undefined_error()
            return iter(())

        def __len__(self) -> int:
            if self._variable():
                self._fail_with_undefined_error()
            return 0

        def __contains__(self, item) -> bool:
            return False

    # the operators Jinja's Undefined refuses, refused with the variable's name
    for name, value in vars(base).items():
        if value is base._fail_with_undefined_error and name != "_fail_with_undefined_error":
            setattr(ChatUndefined, name, ChatUndefined._fail_with_undefined_error)
    return ChatUndefined
