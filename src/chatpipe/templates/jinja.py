"""Jinja2, loaded when a chat template is first met (the extra ``chatpipe[templates]``),
checked for a version without known sandbox escapes; and the exception its templates'
``raise_exception`` raises."""

from __future__ import annotations

from functools import cache

from ..errors import UsageError, install_hint


@cache
def load_jinja():
    try:
        import jinja2
        import jinja2.ext
        import jinja2.sandbox
    except ImportError:
        raise UsageError(
            "chat templates need the jinja2 package",
            hint=install_hint("templates"),
        ) from None
    version = tuple(int(p) if p.isdigit() else 0 for p in jinja2.__version__.split(".")[:3])
    if version < (3, 1, 6):
        raise UsageError(
            f"jinja2 {jinja2.__version__} has known sandbox escapes; "
            "chat templates need 3.1.6 or newer",
            hint="pip install -U 'jinja2>=3.1.6'",
        )
    return jinja2


@cache
def refusal_class():
    jinja2 = load_jinja()

    class Refusal(jinja2.exceptions.TemplateError):
        """What a template's ``raise_exception(message)`` raises."""

    return Refusal
