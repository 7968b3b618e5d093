"""TeX in transcript Markdown, kept as it was written: ``\\( … \\)`` and ``$ … $`` inline,
``\\[ … \\]`` and ``$$ … $$`` displayed. Markdown would read ``\\(`` as an escaped ``(`` and
``_`` or ``*`` inside a formula as emphasis (``\\int_0^1`` became ``int_0^1``); a formula is
one token here, shown with its delimiters and every character as written (the page runs
no script but its own, so no renderer is loaded; a reader copies the TeX as it was).

A single ``$`` opens a formula only as Pandoc reads it: a non-space after it, a non-space
before the closing ``$``, and no digit after that (``it costs $5 and $10`` is prose).
"""

from __future__ import annotations

import html
from typing import Any

# (opener, closer, displayed)
_PAIRS = (("\\(", "\\)", False), ("\\[", "\\]", True), ("$$", "$$", True))


def _closing_dollar(src: str, start: int, limit: int) -> int:
    """Where the ``$`` that closes an inline ``$`` formula opened before ``start`` is, or
    -1: a non-space before it, no digit after it, no blank line on the way."""
    at = start
    while True:
        end = src.find("$", at, limit)
        if end < 0:
            return -1
        blank = src.find("\n\n", start, end)
        if blank >= 0:
            return -1
        if src[end - 1] == "\\":  # an escaped dollar inside the formula
            at = end + 1
            continue
        after = src[end + 1 : end + 2]
        if src[end - 1] in " \t\n" or after.isdigit():
            return -1
        return end


def math_rule(state: Any, silent: bool) -> bool:
    """markdown-it inline rule: a formula at ``state.pos`` becomes one ``math`` token whose
    content is the formula with its delimiters."""
    src, pos, limit = state.src, state.pos, state.posMax
    char = src[pos]
    if char not in "\\$":
        return False
    pair = next((p for p in _PAIRS if src.startswith(p[0], pos)), None)
    if pair is not None:
        opener, closer, displayed = pair
        end = src.find(closer, pos + len(opener), limit)
        if end < 0 or not src[pos + len(opener) : end].strip():
            return False
        stop = end + len(closer)
    else:
        if char != "$" or pos + 1 >= limit or src[pos + 1] in " \t\n$":
            return False
        end = _closing_dollar(src, pos + 1, limit)
        if end < 0:
            return False
        stop, displayed = end + 1, False
    if not silent:
        token = state.push("math", "", 0)
        token.content = src[pos:stop]
        token.meta = {"display": displayed}
    state.pos = stop
    return True


def render_math(tokens: list, idx: int, options: Any, env: dict) -> str:
    token = tokens[idx]
    kind = "math display" if token.meta.get("display") else "math"
    return f'<span class="{kind}">{html.escape(token.content, quote=True)}</span>'
