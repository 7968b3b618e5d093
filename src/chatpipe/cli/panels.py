"""A conversation as rich renderables for ``chatpipe show``: a rule with its title, then a
panel a message, coloured by role; every text from the data shown as text (never markup),
its control characters made visible."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..model import AIMessage, AnyMessage, ToolMessage
from ..model.media import MEDIA_KINDS
from ..render.commands import message_markup
from ..render.markup import terminal_safe
from .folding import Wrapped, fold

STYLES = {"human": "cyan", "ai": "green", "system": "magenta", "chat": "blue", "remove": "red"}
STYLES.update(tool="yellow", function="yellow")
LABELS = {"human": "User", "ai": "Assistant", "system": "System", "remove": "Remove"}
LABELS.update(tool="Tool", function="Function")


def conversation_panels(conversation: Any, number: int, full: bool) -> Iterator[Any]:
    """A rule with the title, then a panel a message, made as they are printed."""
    from rich.rule import Rule
    from rich.text import Text

    from ..render.sessions import note_text, subagent_line, with_notes

    meta = conversation.meta
    title = meta.get("title") or meta.get("name") or f"conversation {number + 1}"
    yield Rule(Text(_safe(title)), style="bold")
    started = subagent_line(conversation)
    if started:
        yield _dim(_safe(started))
    for index, message, note in with_notes(conversation):
        if note is not None:
            yield Rule(Text(_safe(note_text(note)), style="dim"), style="dim", characters="·")
        else:
            yield _panel(message, index, full)


def _panel(message: AnyMessage, index: int, full: bool) -> Any:
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    from ..render.sessions import message_label

    # Text, never markup, and its control characters visible: names, roles and ids come
    # from the data
    label = (
        message_label(message) or LABELS.get(message.type) or getattr(message, "role", message.type)
    )
    title = Text(_safe(label), style="bold")
    if message.name:
        title.append(f" · {_safe(message.name)}")
    if isinstance(message, ToolMessage):
        title.append(f" · result of {_safe(message.tool_call_id)}")
        if message.status == "error":
            title.append(" · ")
            title.append("error", style="red")
    parts: list[Any] = []
    content = message.content
    markup = message_markup(message)  # Claude Code's tags for a slash command, its output
    if markup is not None:
        if markup.text:
            parts.append(Wrapped(_safe(markup.text), full))
    elif isinstance(content, str):
        if content:
            parts.append(_text(content, full, as_json=isinstance(message, ToolMessage)))
    else:
        # a tool_use block is shown once, as the tool call it gives the message
        calls = {c["id"] for c in getattr(message, "tool_calls", ()) if c.get("id")}
        parts.extend(
            _block(b, full)
            for b in content
            if not (isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id") in calls)
        )
    if isinstance(message, AIMessage):
        for call in message.tool_calls:
            parts.append(_heading(f"→ {call['name']}", call["id"]))
            parts.append(_json(call["args"], full))
        for call in message.invalid_tool_calls:
            invalid = {"invalid tool call": call["name"], "args": call["args"]}
            parts.append(_json({**invalid, "error": call["error"]}, full))
    if not parts:
        parts.append(_dim("(empty)"))
    return Panel(
        Group(*parts),
        title=title,
        title_align="left",
        subtitle=f"#{index + 1}",
        subtitle_align="right",
        border_style=STYLES.get(message.type, "white"),
    )


def _heading(name: str, call_id: Any) -> Any:
    from rich.text import Text

    text = Text(_safe(name), style="bold")
    if call_id:
        text.append(f"  ({_safe(call_id)})", style="dim")
    return text


def _dim(text: str) -> Any:
    from rich.text import Text

    return Text(_safe(text), style="dim")


def _safe(text: Any) -> str:
    """Text from the data as the terminal shows it: line ends as line ends, every other
    control character written out (an escape in a message never reaches the terminal)."""
    return terminal_safe(str(text).replace("\r\n", "\n"))


def _json(value: Any, full: bool) -> Any:
    # (JSON escapes C0 controls itself; C1 ones and bidi overrides it leaves as they are)
    return _Json(terminal_safe(json.dumps(value, ensure_ascii=False, indent=2)), full)


class _Json:
    """Indented JSON, highlighted, folded as text is (the fold needs the panel's width)."""

    def __init__(self, text: str, full: bool) -> None:
        self.text, self.full = text, full

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.syntax import Syntax
        from rich.text import Text

        shown, note = (self.text, "") if self.full else fold(self.text, options.max_width)
        yield Syntax(shown, "json", word_wrap=True, background_color="default")
        if note:
            yield Text(note, style="dim")


def _text(text: str, full: bool, as_json: bool = False) -> Any:
    if as_json and text[:1] in "[{":
        try:
            return _json(json.loads(text), full)
        except ValueError:
            pass
    return Wrapped(_safe(text), full)


def _block(block: Any, full: bool) -> Any:
    if isinstance(block, str):
        return _text(block, full)
    kind = block.get("type")
    if kind == "text":
        return _text(str(block.get("text") or ""), full)
    if kind in ("reasoning", "thinking"):
        text = _safe(block.get("reasoning") or block.get("thinking") or "")
        shown = text if full or len(text) < 400 else text[:400] + " …"
        return Wrapped("thinking: " + shown, True, style="italic dim")
    if kind in MEDIA_KINDS:
        url = block.get("url") or block.get("file_id")
        if kind == "image_url":
            image = block.get("image_url")
            url = image.get("url") if isinstance(image, dict) else image
        inline = block.get("base64") or block.get("data") or block.get("input_audio")
        if (isinstance(url, str) and url.startswith("data:")) or (not url and inline):
            url = "inline data"
        name = (block.get("extras") or {}).get("file_name") or url or block.get("mime_type") or ""
        return _dim(f"[{kind.replace('_url', '').replace('input_', '')}: {name}]")
    return _json(block, full)
