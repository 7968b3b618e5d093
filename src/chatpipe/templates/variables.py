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

from functools import lru_cache

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
