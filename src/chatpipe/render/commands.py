"""Claude Code's markup for slash commands, as a person reads it.

Claude Code records a slash command the user typed as a turn (or a ``local_command``
system line) of tags: ``<command-name>/model</command-name>
<command-message>model</command-message> <command-args>sonnet</command-args>``, and what
the command printed as ``<local-command-stdout>`` (with the terminal's colour escapes)
or ``<local-command-stderr>``, after a ``<local-command-caveat>`` telling the model to
ignore them. The transcripts for people show the command as typed (``/model sonnet``)
and its output as text; the data itself is never changed."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

_OUTPUTS = {
    "local-command-stdout": "output",
    "local-command-stderr": "error",
    "local-command-caveat": "caveat",
}
_TAG = re.compile(r"<(command-(?:name|message|args)|local-command-(?:stdout|stderr|caveat))>")
# a CSI sequence (colours, cursor moves), an OSC one (a window title, a link), or another
# two-character escape
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")


class Shown(NamedTuple):
    """What a markup turn is: ``command`` (the line typed), ``output`` (what it printed),
    ``error`` (what it printed on stderr) or ``caveat`` (the note to the model); its text."""

    kind: str
    text: str


def without_escapes(text: str) -> str:
    """Text a terminal was sent, as it reads: its escape sequences (colours) left out."""
    return _ANSI.sub("", text) if "\x1b" in text else text


def command_markup(text: Any) -> Shown | None:
    """The command or output a text of Claude Code's tags stands for; None for a text
    that is not made of them alone."""
    if not isinstance(text, str) or "<" not in text[:40] or not _TAG.search(text):
        return None
    fields: dict[str, str] = {}
    rest = text
    for tag in ("command-name", "command-message", "command-args", *_OUTPUTS):
        opened, closed = f"<{tag}>", f"</{tag}>"
        start = rest.find(opened)
        if start < 0:
            continue
        end = rest.find(closed, start)
        if end < 0:
            return None
        fields[tag] = rest[start + len(opened) : end]
        rest = rest[:start] + rest[end + len(closed) :]
    if rest.strip():
        return None  # other text around the tags: shown as written
    for tag, kind in _OUTPUTS.items():
        if tag in fields:
            return Shown(kind, without_escapes(fields[tag]).strip())
    name = fields.get("command-name", "").strip() or fields.get("command-message", "").strip()
    if not name:
        return None
    name = name if name.startswith("/") else "/" + name
    args = " ".join(fields.get("command-args", "").split())
    return Shown("command", f"{name} {args}" if args else name)


def message_markup(message: Any) -> Shown | None:
    """A user (or meta) turn that is a command's markup (its text alone, or one text block): what it
    stands for; None for any other message."""
    if message.type not in ("human", "system"):  # (Claude Code's meta lines: system)
        return None
    content = message.content
    if isinstance(content, list):
        if len(content) != 1:
            return None
        block = content[0]
        if isinstance(block, dict):
            content = block.get("text") if block.get("type") == "text" else None
        else:
            content = block
    return command_markup(content)


# what a person calls each (a caveat is Claude Code's context for the model)
LABELS = {
    "command": "Command",
    "output": "Command output",
    "error": "Command error",
    "caveat": "Context",
}


def markup_html(shown: Shown) -> str:
    """A command as the code it is, its output as a block of text, a caveat as prose."""
    from .markup import code_block, escape, markdown, marked

    if shown.kind == "command":
        return f'<p class="command"><code>{escape(marked(shown.text))}</code></p>'
    if shown.kind == "caveat":
        return markdown(shown.text)
    return code_block(shown.text) if shown.text else "<p><em>(no output)</em></p>"
