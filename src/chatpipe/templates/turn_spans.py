"""Where a conversation's counted assistant turns stand in its template's text (the
``per-turn`` and ``prefix`` methods of token_ids.py), and the tokens that cover a span of
characters (the tokenizer's offsets)."""

from __future__ import annotations

from typing import Any

from ..errors import DataError
from .prompt import ChatTemplate
from .render import render


def common_length(a: str, b: str) -> int:
    """The length of the text ``a`` and ``b`` start with (slices compared, halving)."""
    size = min(len(a), len(b))
    if a[:size] == b[:size]:
        return size
    low, high = 0, size  # a[:low] == b[:low], a[:high] != b[:high]
    while high - low > 1:
        middle = (low + high) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle
    return low


def render_plain(
    owner: ChatTemplate, template: Any, chat: list[dict], extras: dict, prompt: bool
) -> str:
    return render(
        template,
        [dict(m) for m in chat],
        add_generation_prompt=prompt,
        variables=owner.variables,
        plain=True,
        **extras,
    )


def owner_of(span: tuple[int, int], parts: list) -> int | None:
    """The message whose part holds a span (the innermost), if any."""
    best = None
    for k, part in enumerate(parts):
        inside = part is not None and part[0] <= span[0] and span[1] <= part[1]
        if inside and (best is None or part[1] - part[0] < parts[best][1] - parts[best][0]):
            best = k
    return best


def per_turn_spans(
    chat: list[dict], counted: list[int], followed: Any, heads: dict[int, Any], eos: Any
) -> list[tuple[int, int]] | None:
    """Each counted turn's text in the whole rendering: its part, less its assistant
    header (``heads``) and the parts of other messages written inside it; when the template closes
    the conversation with the end-of-sequence token (Phi 3.5), the last message's turn
    runs on to it. None when a counted turn has no part."""
    text, spans = followed.text, []
    for k in counted:
        part = followed.parts[k]
        if part is None:
            return None
        start, end = part
        start += common_length(heads[k], text[start:end])
        if k == len(chat) - 1 and isinstance(eos, str) and eos and text[end:].strip() == eos:
            end = len(text)
        for inner_start, inner_end in sorted(followed.nested[k]):
            if inner_start > start:
                spans.append((start, min(inner_start, end)))
            start = max(start, inner_end)
        if end > start:
            spans.append((start, end))
    return spans


def prefix_spans(
    full: str,
    chat: list[dict],
    counted: list[int],
    template: Any,
    extras: dict,
    owner: ChatTemplate,
) -> list[tuple[int, int]] | None:
    """Each counted turn between the rendering of the conversation up to just before it
    (with the generation prompt) and up to and including it; None when a prefix is not
    the start of the whole rendering (or the template refuses a prefix)."""
    spans = []
    for k in counted:
        try:
            upto = render_plain(owner, template, chat[: k + 1], extras, False)
            before = render_plain(owner, template, chat[:k], extras, True) if k else ""
        except DataError:
            return None
        if not full.startswith(upto):
            return None
        start = common_length(before, upto)
        if len(upto) > start:
            spans.append((start, len(upto)))
    return spans


def token_range(encoding: Any, start: int, end: int, size: int) -> tuple[int, int]:
    """The tokens whose characters overlap ``[start, end)``: ``(first, after last)``."""
    char_to_token, token_chars = encoding.char_to_token, encoding.token_to_chars
    first = last = None
    for at in range(start, end):  # (a character no token covers: the next one)
        first = char_to_token(at)
        if first is not None:
            break
    for at in range(end - 1, start - 1, -1):
        last = char_to_token(at)
        if last is not None:
            break
    if first is None or last is None:
        return 0, 0
    # a character split into several tokens (bytes of one character) gives them all
    while first > 0 and token_chars(first - 1)[1] > start:
        first -= 1
    while last + 1 < size and token_chars(last + 1)[0] < end:
        last += 1
    return first, last + 1
