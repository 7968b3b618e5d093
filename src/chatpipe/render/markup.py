"""Transcript text made safe to show: as HTML, Markdown (markdown-it-py, raw HTML off) with
code highlighted by Pygments (both come with rich, so this adds no dependency); for a
terminal, its control characters made visible (``terminal_safe``).

Transcript content is data, never code: raw HTML in Markdown is shown as text, a link
keeps its address only when its scheme is http, https or mailto, an image is shown
inline only when it is a data URL of a raster image (a remote image is a link: opening
a page never contacts a server), and every attribute is escaped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from .tex import math_rule, render_math

_LINK_SCHEMES = ("http:", "https:", "mailto:")
_IMAGE_DATA = re.compile(r"data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*\Z", re.I)
# longer code is escaped, not highlighted (Pygments and the JSON spans cost many times
# the text's size in memory); a longer run of Markdown with no blank line to cut it at
# (one table, one paragraph) is shown as text, not parsed (markdown-it's tokens cost a
# hundred times the text)
_MAX_HIGHLIGHT = LONG = 200_000
# Markdown is parsed in pieces of about this size, cut at blank lines outside code
# fences: memory stays that of a piece whatever the message's length
_PIECE = 64_000


# what a terminal would act on instead of showing: C0 controls but tab and line feed, DEL,
# the C1 controls (U+009B is a CSI of its own), and the bidi overrides and isolates that
# reorder what a line shows
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# the same and tabs and line ends (U+2028 and U+2029 too): for what must stay on one line
_LINE_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}


def _visible(match: re.Match) -> str:
    code = ord(match.group())
    named = _NAMED.get(code)
    if named is not None:
        return named
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str, one_line: bool = False) -> str:
    """``text`` as a terminal may show it: each control character written out as its
    escape (``\\x1b``, ``\\r``, ``\\u202e``), so that text from the data (an error naming a
    key, a template's own message, a message shown by ``show``, a title or id that grep
    or select prints) cannot set the window's title, move the cursor or hide what
    follows; tabs and line feeds stay, but for ``one_line`` (``\\t``, ``\\n``)."""
    controls = _LINE_CONTROLS if one_line else _CONTROLS
    if controls.search(text) is None:
        return text
    return controls.sub(_visible, text)


def escape(text: str) -> str:
    return html.escape(text, quote=True)


# the characters that turn the direction of the text after them (embeddings, overrides,
# isolates): in a title or a name they could make it read as something else
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def marked(text: str) -> str:
    """``text`` with each bidirectional control shown as its code point (``[U+202E]``),
    so that a title or a name reads as it was written."""
    return _BIDI.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


def safe_link(url: Any) -> str | None:
    """``url`` when a page may link to it (http, https, mailto), else None."""
    if not isinstance(url, str):
        return None
    stripped = url.strip()
    lowered = re.sub(r"[\x00-\x20]", "", stripped).lower()
    return stripped if lowered.startswith(_LINK_SCHEMES) else None


def safe_image(url: Any) -> str | None:
    """``url`` when a page may show it inline: a data URL of a PNG, JPEG, GIF or WebP."""
    if isinstance(url, str) and _IMAGE_DATA.match(url.strip()):
        return url.strip()
    return None


@lru_cache(maxsize=64)
def _lexer(language: str) -> Any:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(language)
    except ClassNotFound:
        return None


@lru_cache(maxsize=1)
def _formatter() -> Any:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(nowrap=True, classprefix="hl-")


_JSON_TOKEN = re.compile(
    r'("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b'
)


def _json_span(match: re.Match) -> str:
    text, colon, number, literal = match.groups()
    if text is not None:
        kind = "hl-nt" if colon else "hl-s2"  # Pygments' classes: a key, a string
        return f'<span class="{kind}">{escape(text)}</span>{colon or ""}'
    if number is not None:
        return f'<span class="hl-mi">{number}</span>'
    return f'<span class="hl-kc">{literal}</span>'


def highlight_json(code: str) -> str:
    """JSON text as escaped HTML with the token spans Pygments would give its keys,
    strings, numbers and constants: one regular expression, many times faster (tool
    arguments and results are most of an agent transcript)."""
    out, last = [], 0
    for match in _JSON_TOKEN.finditer(code):
        out.append(escape(code[last : match.start()]))
        out.append(_json_span(match))
        last = match.end()
    out.append(escape(code[last:]))
    return "".join(out)


def highlight(code: str, language: str = "") -> str:
    """``code`` as escaped HTML, with Pygments' token spans when the language is known."""
    language = (language or "").strip().split()[0].lower() if language else ""
    if language == "json":
        return highlight_json(code) if len(code) <= _MAX_HIGHLIGHT else escape(code)
    lexer = _lexer(language) if language and len(code) <= _MAX_HIGHLIGHT else None
    if lexer is None:
        return escape(code)
    from pygments import highlight as pygments_highlight

    return pygments_highlight(code, lexer, _formatter())


def code_block(code: str, language: str = "") -> str:
    label = f' data-lang="{escape(language)}"' if language else ""
    return f"<pre class=code{label}><code>{highlight(code, language)}</code></pre>"


def highlight_css() -> str:
    """The token colours of ``highlight``, light and dark."""
    from pygments.formatters import HtmlFormatter

    light = HtmlFormatter(classprefix="hl-", style="friendly").get_style_defs(".code")
    dark = HtmlFormatter(classprefix="hl-", style="monokai").get_style_defs(".code")
    # only the token rules: the page sets the block's own background
    light = "\n".join(line for line in light.splitlines() if " .hl-" in line)
    dark = "\n".join(line for line in dark.splitlines() if " .hl-" in line)
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}"


@lru_cache(maxsize=1)
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "breaks": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.validateLink = lambda url: True  # decided per link and image below, with the reason
    md.options["highlight"] = lambda code, lang, attrs: (
        f"<pre class=code{_lang_attr(lang)}><code>{highlight(code, lang)}</code></pre>"
    )
    md.inline.ruler.before("escape", "math", math_rule)
    rules = md.renderer.rules
    rules["math"] = render_math
    rules["link_open"] = _link_open
    rules["link_close"] = _link_close
    rules["image"] = _image
    return md


def _lang_attr(language: str) -> str:
    return f' data-lang="{escape(language)}"' if language else ""


def _link_open(tokens: list, idx: int, options: Any, env: dict) -> str:
    token = tokens[idx]
    href = safe_link(token.attrGet("href"))
    env.setdefault("links", []).append(href is not None)
    if href is None:
        return '<span class="unsafe-link">'
    title = token.attrGet("title")
    extra = f' title="{escape(str(title))}"' if title else ""
    return f'<a href="{escape(href)}"{extra} rel="noopener noreferrer nofollow" target="_blank">'


def _link_close(tokens: list, idx: int, options: Any, env: dict) -> str:
    kept = env.get("links") or [True]
    return "</a>" if kept.pop() else "</span>"


def _image(tokens: list, idx: int, options: Any, env: dict) -> str:
    token = tokens[idx]
    src = token.attrGet("src")
    alt = "".join(child.content for child in token.children or ())
    shown = safe_image(src)
    if shown is not None:
        return f'<img src="{escape(shown)}" alt="{escape(alt)}">'
    href = safe_link(src)
    label = escape(alt or "image")
    if href is None:
        return f'<span class="media">image: {label}</span>'
    return (
        f'<a class="media" href="{escape(href)}" rel="noopener noreferrer nofollow" '
        f'target="_blank">image: {label}</a>'
    )


_PLAIN = re.compile(r"[\\`*_\[\]<>&#!|~\-+=.:)$\d]|^ {4}|^\t|\n\s*\n", re.M)


def markdown(text: str) -> str:
    """``text`` read as Markdown, as HTML; raw HTML in it is shown as text. A long text
    is read a piece at a time (``pieces``)."""
    if not _PLAIN.search(text):  # a plain sentence: one paragraph, no parse needed
        return f"<p>{escape(text)}</p>" if text.strip() else ""
    if len(text) <= _PIECE:
        return _markdown().render(text, {})
    return "".join(_piece_html(piece) for piece in pieces(text))


def _piece_html(piece: str) -> str:
    if len(piece) > _MAX_HIGHLIGHT and not _FENCE.match(piece):
        return f'<pre class="long-text">{escape(piece)}</pre>'
    return _markdown().render(piece, {})


# a blank line, or a line that opens or closes a code fence
_CUTS = re.compile(r"\n[ \t\r]*\n|^ {0,3}(`{3,}|~{3,})[^\n]*$", re.M)
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def pieces(text: str) -> Iterator[str]:
    """``text`` cut at blank lines outside code fences into pieces of about ``_PIECE``
    characters (one piece is longer only where no such line comes sooner)."""
    start = 0
    fence = ""  # the open fence's marker
    for match in _CUTS.finditer(text):
        marker = match.group(1)
        if marker is not None:
            if not fence:
                fence = marker
            elif (
                marker[0] == fence[0]
                and len(marker) >= len(fence)
                and not (text[match.start() : match.end()].strip()[len(marker) :].strip())
            ):
                fence = ""
            continue
        if fence or match.end() - start < _PIECE:
            continue
        yield text[start : match.end()]
        start = match.end()
    if start < len(text):
        yield text[start:]
