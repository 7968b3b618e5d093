"""The transcript viewer: one self-contained HTML page (inline CSS and a small script, no
network), or a folder of pages (an ``index.html`` and one page per conversation).

The page holds its conversations as one embedded JSON array, each with its HTML already
made (``render.html``); the script lists them, filters them as the reader types, and shows
one at a time, so a large export opens fast. A Content-Security-Policy lets the page run
its own script and style (by hash) and nothing else: no remote load, no inline handler,
no script of a transcript.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
from collections.abc import Iterable, Iterator
from functools import lru_cache
from importlib import resources
from typing import Any

import orjson

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


def policy(css: str, script: str | None) -> str:
    """What the page may load and run: its own style and script, data images, no more."""
    scripts = f"script-src 'sha256-{_digest(script)}'; " if script is not None else ""
    return (
        "default-src 'none'; "
        f"style-src 'sha256-{_digest(css)}'; {scripts}"
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


def _json(value: Any) -> str:
    """JSON to embed in a script element: ``<`` escaped, so no text can end the element."""
    try:
        text = orjson.dumps(value).decode()
    except TypeError:  # lone surrogates (undecodable bytes kept by the reader)
        text = json.dumps(value, ensure_ascii=True)
    return text.replace("<", "\\u003c")


def page_head(title: str, css: str, script: str | None) -> str:
    """A page's start, to its ``<body>``: the policy, the title and the style."""
    return (
        "<!doctype html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n"
        f'<meta http-equiv="Content-Security-Policy" content="{policy(css, script)}">\n'
        '<meta name=viewport content="width=device-width, initial-scale=1">\n'
        '<meta name=generator content="chatpipe">\n'
        f"<title>{escape(title)}</title>\n<style>{css}</style>\n</head>\n"
    )


def _page_open(title: str, home: str | None) -> str:
    css, script = _assets()
    back = f'<a id=home href="{escape(home)}">← All conversations</a>' if home else ""
    return (
        page_head(title, css, script)
        + "<body>\n<div id=app>\n<aside id=side><div class=top>"
        + back
        + '<input id=q type=search placeholder="Search conversations  ( / )" '
        'aria-label="Search conversations" autocomplete=off><p id=count></p></div>'
        '<ol id=list role=listbox aria-label="Conversations"></ol></aside>\n'
        "<main id=view tabindex=-1><p class=empty>Choose a conversation.</p></main>\n"
        "</div>\n<script type=application/json id=data>["
    )


def _page_close() -> str:
    _, script = _assets()
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
        yield ("," if number else "") + "\n" + _json(entry(group, number))
    yield _page_close()


def pages(
    conversations: Iterable[Conversation], title: str = "Conversations"
) -> Iterator[tuple[str, str]]:
    """(path, text) of a folder of pages: one page per conversation in ``c/``, then
    ``index.html`` listing them (its search looks through every conversation's text)."""
    listed = []
    for number, group in enumerate(groups(conversations)):
        shown = entry(group, number)
        path = f"c/{number + 1:05d}.html"
        yield path, _page_open(shown["t"], "../index.html") + _json(shown) + _page_close()
        listed.append({**{k: v for k, v in shown.items() if k != "h"}, "u": path})
    yield (
        "index.html",
        "".join(
            itertools.chain(
                [_page_open(title, None)],
                (("," if i else "") + "\n" + _json(e) for i, e in enumerate(listed)),
                [_page_close()],
            )
        ),
    )
