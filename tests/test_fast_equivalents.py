"""The quick ways of the one path (issue #50) against the plain definitions they stand for:
digest's normalisation, grep's text on one line and its snippets, a plain string's spans.

Each quick way skips work on the texts that need none (a printable text holds no
whitespace but the space; a plain string is found by ``str.find``); these check that it
gives what the definition gives on texts of every kind of whitespace and control.
"""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from chatpipe.ops.digest import normalise
from chatpipe.ops.grep import GrepLines, _shown
from chatpipe.ops.user_regex import compile_regex
from chatpipe.render.markup import terminal_safe

# every kind of whitespace str.split knows, controls, a combining accent, wide characters
ALPHABET = [
    *"ab ",
    " ",
    "  ",
    "\n",
    "\n\n",
    "\t",
    "\r",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1f",
    "\x85",
    "\xa0",
    "\u2028",
    "\u2029",
    "\u3000",
    "\x00",
    "\x1b",
    "\u202e",
    "e\u0301",
    "é",
    "東",
    "🚀",
    "Paris",
]
TEXT = st.lists(st.sampled_from(ALPHABET), max_size=30).map("".join)


def _normalised(text: str) -> str:
    """The definition (ops/digest.py): NFC, whitespace runs one space, none at the ends."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def _shown_by_definition(text: str) -> str:
    return terminal_safe(re.sub(r"\s+", " ", text), one_line=True)


@settings(max_examples=600)
@given(text=TEXT)
def test_normalise_is_its_definition(text):
    assert normalise(text) == _normalised(text)


@settings(max_examples=600)
@given(text=TEXT)
def test_a_text_shown_on_one_line_is_its_definition(text):
    assert _shown(text) == _shown_by_definition(text)


def _snippet_by_definition(text, spans, mark, width):
    """GrepLines._snippet as it was: each piece between the matches shown on its own."""
    if not spans:
        flat = re.sub(r"\s+", " ", text).strip()
        return _shown_by_definition(flat if len(flat) <= 2 * width else flat[: 2 * width] + "…")
    low, high = max(0, spans[0][0] - width), min(len(text), spans[-1][1] + width)
    pieces = ["…" if low else ""]
    at = low
    for start, end in spans:
        pieces.append(_shown_by_definition(text[at:start]))
        match = _shown_by_definition(text[start:end])
        pieces.append(f"{mark[0]}{match}{mark[1]}" if mark else match)
        at = end
    pieces.append(_shown_by_definition(text[at:high]))
    pieces.append("…" if high < len(text) else "")
    return "".join(pieces).strip()


@settings(max_examples=600)
@given(
    text=TEXT,
    pattern=st.sampled_from(["a", "Paris", r"\s+", "a\\s", r"\s?b", "x*", "東|🚀", "é"]),
    mark=st.sampled_from([None, ("[", "]")]),
    width=st.sampled_from([2, 5, 100]),
)
def test_a_snippet_is_its_pieces_shown_one_by_one(text, pattern, mark, width):
    lines = GrepLines(None, mark=mark)  # type: ignore[arg-type]
    lines.WIDTH = width
    matches = [m.span() for m in re.finditer(pattern, text)]
    spans = [s for s in matches if s[1] > s[0]] or matches[:1]
    assert lines._snippet(text, spans) == _snippet_by_definition(text, spans, mark, width)


@settings(max_examples=400)
@given(text=TEXT, literal=st.sampled_from(["a", "aa", "Paris", " ", "\n", "é", "e\u0301", "-~"]))
def test_a_plain_string_is_found_where_the_engine_finds_it(text, literal):
    pattern = compile_regex(literal, "PATTERN")
    assert pattern.literal == literal
    assert pattern.spans(text) == [m.span() for m in re.finditer(literal, text)]


def test_what_is_more_than_a_plain_string_goes_to_the_engine():
    for pattern, ignore_case in (("a.b", False), ("a", True), ("(x)", False), ("", False)):
        assert compile_regex(pattern, "PATTERN", ignore_case).literal is None
