"""What a chat template's variables are when nothing defines them: Jinja's Undefined, strict
for a variable of the template's own (variables.py finds the needed ones before a render;
this catches those reached only at run time)."""

from __future__ import annotations

from functools import cache

from .jinja import load_jinja


@cache
def missing_variable_class():
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
