"""The transcript viewer: one self-contained HTML page (inline CSS and a small script, no
network), or a folder of pages (an ``index.html`` and one page per conversation, which
share one style sheet and one script in ``assets/``).

The page holds its conversations as one embedded JSON array, each with its HTML already
made (``render.html``); the script lists them, filters them as the reader types, and shows
one at a time, so a large export opens fast. A Content-Security-Policy lets the page run
its own script and style and nothing else: no remote load, no inline handler, no script
of a transcript. A single page names its script and style by hash; a folder's pages load
the shared two from their own folder (``'self'``: a browser checks no hash of a file it
reads from the disk, and a copy in every page made a 100,000-conversation folder 2 GB).
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from importlib import resources
from json.encoder import encode_basestring, encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any

from ...model import Conversation
from ..html import entry
from ..markup import escape, highlight_css


@lru_cache(maxsize=1)
def _assets() -> tuple[str, str]:
    folder = resources.files(__package__)
    css = folder.joinpath("viewer.css").read_text("utf-8") + "\n" + highlight_css() + "\n"
    script = folder.joinpath("viewer.js").read_text("utf-8")
    return css, script


def _digest(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def policy(css: str, script: str | None, shared: bool = False) -> str:
    """What the page may load and run: its own style and script (by hash; ``script``
    None: no script), data images, no more; ``shared``: the style sheet and script of its
    folder, not inline ones."""
    if shared:
        style, scripts = "style-src 'self'; ", "script-src 'self'; "
    else:
        style = f"style-src 'sha256-{_digest(css)}'; "
        scripts = f"script-src 'sha256-{_digest(script)}'; " if script is not None else ""
    return f"default-src 'none'; {style}{scripts}img-src data:; base-uri 'none'; form-action 'none'"


_SURROGATE = re.compile("[\\ud800-\\udfff]")


def _string(text: str) -> str:
    """The inside of a JSON string holding ``text``, ``<`` escaped, so that no text can
    end the script element it stands in (lone surrogates, undecodable bytes the reader
    kept, written as escapes)."""
    if _SURROGATE.search(text):
        return encode_basestring_ascii(text)[1:-1].replace("<", "\\u003c")
    return encode_basestring(text)[1:-1].replace("<", "\\u003c")


def _json(value: Any) -> Iterator[str]:
    """An entry as JSON to embed in a script element, in pieces: a list is one string
    made of its pieces (``s`` joined by newlines), so a long text is never copied whole."""
    yield "{"
    for number, (key, item) in enumerate(value.items()):
        yield f'{"," if number else ""}"{key}":'
        if isinstance(item, list):
            yield '"'
            joiner = "\\n" if key == "s" else ""
            for index, piece in enumerate(item):
                yield (joiner if index else "") + _string(piece)
            yield '"'
        elif isinstance(item, str):
            yield f'"{_string(item)}"'
        else:
            yield json.dumps(item)
    yield "}"


def page_head(title: str, css: str, script: str | None, assets: str | None = None) -> str:
    """A page's start, to its ``<body>``: the policy, the title and the style (inline, or
    the shared sheet in the folder ``assets``)."""
    if assets is None:
        style, shown = f"<style>{css}</style>", policy(css, script)
    else:
        style = f'<link rel=stylesheet href="{assets}viewer.css">'
        shown = policy(css, script, shared=True)
    return (
        "<!doctype html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n"
        f'<meta http-equiv="Content-Security-Policy" content="{shown}">\n'
        '<meta name=viewport content="width=device-width, initial-scale=1">\n'
        '<meta name=generator content="chatpipe">\n'
        f"<title>{escape(title)}</title>\n{style}\n</head>\n"
    )


def _page_open(title: str, home: str | None, assets: str | None = None) -> str:
    css, script = _assets()
    back = f'<a id=home href="{escape(home)}">← All conversations</a>' if home else ""
    return (
        page_head(title, css, script, assets)
        + "<body>\n<div id=app>\n<aside id=side><div class=top>"
        + back
        + '<input id=q type=search placeholder="Search conversations  ( / )" '
        'aria-label="Search conversations" autocomplete=off><p id=count></p>'
        "<div id=hits hidden><span id=hit-count></span> "
        '<button type=button id=hit-prev aria-label="Previous match">↑</button>'
        '<button type=button id=hit-next aria-label="Next match">↓</button></div></div>'
        '<ol id=list role=listbox aria-label="Conversations"></ol></aside>\n'
        "<main id=view tabindex=-1><p class=empty>Choose a conversation.</p></main>\n"
        "</div>\n<script type=application/json id=data>["
    )


def _page_close(assets: str | None = None) -> str:
    _, script = _assets()
    if assets is not None:
        return f']</script>\n<script src="{assets}viewer.js"></script>\n</body>\n</html>\n'
    return f"]</script>\n<script>{script}</script>\n</body>\n</html>\n"


def groups(conversations: Iterable[Conversation]) -> Iterator[list[Conversation]]:
    """Conversations with the branches of one tree together (``--branch all`` gives a
    tree's branches one after another, each saying it is ``index`` of ``of``)."""
    pending: list[Conversation] = []
    for conversation in conversations:
        branch = conversation.meta.get("branch")
        of = branch.get("of") if isinstance(branch, dict) else None
        if pending and (not isinstance(of, int) or conversation.location != pending[0].location):
            yield pending
            pending = []
        if isinstance(of, int) and of > 1:
            pending.append(conversation)
            if len(pending) >= of:
                yield pending
                pending = []
        else:
            yield [conversation]
    if pending:
        yield pending


def document(conversations: Iterable[Conversation], title: str = "Conversations") -> Iterator[str]:
    """One self-contained page, a conversation at a time: nothing is held but one
    conversation (or one tree's branches)."""
    yield _page_open(title, None)
    for number, group in enumerate(groups(conversations)):
        yield ",\n" if number else "\n"
        yield from _json(entry(group, number))
    yield _page_close()


def pages(
    conversations: Iterable[Conversation], title: str = "Conversations"
) -> Iterator[tuple[str, str]]:
    """(path, text) of a folder of pages: the shared style and script in ``assets/``, a
    page per conversation in ``c/``, then ``index.html`` listing them (its search looks
    through every conversation's text)."""
    css, script = _assets()
    yield "assets/viewer.css", css
    yield "assets/viewer.js", script
    listed = []
    for number, group in enumerate(groups(conversations)):
        shown = entry(group, number)
        path = f"c/{number + 1:05d}.html"
        page = [_page_open(shown["t"], "../index.html", "../assets/"), "\n"]
        page.extend(_json(shown))
        page.append(_page_close("../assets/"))
        yield path, "".join(page)
        del shown["h"]
        shown["u"] = path
        listed.append("".join(_json(shown)))
    yield (
        "index.html",
        "".join(
            itertools.chain(
                [_page_open(title, None, "assets/")],
                (("," if i else "") + "\n" + e for i, e in enumerate(listed)),
                [_page_close("assets/")],
            )
        ),
    )
