"""A conversation as HTML for the viewer: turns coloured by role, Markdown rendered, tool
calls beside their results, reasoning collapsed, media named or shown, citations as links,
model and token usage per message; with what the conversation list shows of it (title,
date, model, message count) and the text its search looks through.

The HTML is made here, escaped here (``markup``), and only shown by the page's script.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ..model import AIMessage, AnyMessage, Conversation, ToolMessage
from .commands import markup_html, message_markup
from .facts import (
    conversation_date,
    conversation_model,
    conversation_title,
    message_model,
    message_time,
    when,
)
from .html_blocks import (
    attachments_html,
    block_html,
    text_html,
    text_output,
    tool_panel,
    usage_html,
)
from .markdown import LABELS
from .markup import escape, marked
from .sessions import message_label, note_text, notes_after, notes_before, subagent_line


def message_html(message: AnyMessage, results: dict[str, ToolMessage], files: Any = None) -> str:
    """One turn; the results of its tool calls (by call id) shown beside them; the
    images its conversation's zip holds (``files``) shown."""
    role = message.type if message.type in LABELS else "chat"
    label = (
        message_label(message)
        or LABELS.get(message.type)
        or str(getattr(message, "role", message.type))
    )
    head = [f'<span class="role">{escape(label)}</span>']
    if message.name:
        head.append(f'<span class="name">{escape(marked(str(message.name)))}</span>')
    details = [message_model(message), usage_html(message), when(message_time(message))]
    shown = " · ".join(escape(d) for d in details if d)
    if shown:
        head.append(f'<span class="info">{shown}</span>')
    calls = message.tool_calls if isinstance(message, AIMessage) else []
    call_ids = {call.get("id"): call for call in calls if call.get("id")}
    content = message.content
    ai = isinstance(message, AIMessage)
    markup = message_markup(message)
    if markup is not None:  # Claude Code's tags for a slash command or its output
        body = markup_html(markup)
    elif isinstance(content, str):
        body = text_html(content, ai)
    else:
        body = "".join(block_html(block, call_ids, ai, files) for block in content)
    if isinstance(message, ToolMessage):
        body = text_output(content) if isinstance(content, str) else body
        head.append(f'<code class="call-id">{escape(str(message.tool_call_id))}</code>')
    panels = [
        tool_panel(call["name"], call.get("id"), call["args"], results.get(call.get("id") or ""))
        for call in calls
    ]
    for bad in getattr(message, "invalid_tool_calls", None) or ():
        panels.append(
            tool_panel(
                str(bad.get("name") or "tool"),
                bad.get("id"),
                {"arguments": bad.get("args"), "error": bad.get("error")},
                None,
            )
        )
    return (
        f'<article class="msg {role}"><header>{"".join(head)}</header>'
        f'<div class="body">{body}{attachments_html(message)}</div>{"".join(panels)}</article>'
    )


def _text_of(message: AnyMessage) -> Iterable[str]:
    """What the search looks through in a message."""
    content = message.content
    markup = message_markup(message)
    if markup is not None:
        yield markup.text
    elif isinstance(content, str):
        yield content
    else:
        for block in content:
            if isinstance(block, str):
                yield block
            elif isinstance(block, dict):
                for key in ("text", "reasoning", "thinking"):
                    if isinstance(block.get(key), str):
                        yield block[key]
    for call in getattr(message, "tool_calls", None) or ():
        yield call["name"]
        yield json.dumps(call["args"], ensure_ascii=False, default=str)


def messages_html(messages: list[AnyMessage], files: Any = None) -> list[str]:
    """Each message's HTML; a tool result that answers a call in the conversation is
    shown with the call (its own entry is empty)."""
    calls = {
        call.get("id")
        for message in messages
        if isinstance(message, AIMessage)
        for call in message.tool_calls
        if call.get("id")
    }
    results = {
        m.tool_call_id: m
        for m in messages
        if isinstance(m, ToolMessage) and m.tool_call_id in calls
    }
    paired = {id(m) for m in results.values()}
    return ["" if id(m) in paired else message_html(m, results, files) for m in messages]


def _noted(conversation: Conversation, parts: list[str]) -> list[list[str]]:
    """Each message's HTML after the notes that stand before it; one more place at the
    end for the notes after the last message."""
    noted = [
        [*map(_note_html, notes_before(conversation, i)), part] for i, part in enumerate(parts)
    ]
    noted.append([_note_html(n) for n in notes_after(conversation, len(parts))])
    return noted


def _note_html(note: dict[str, Any]) -> str:
    kind = escape(str(note.get("subtype") or note.get("type") or "note"))
    when_text = when(note.get("timestamp"))
    stamp = f' <span class="info">{escape(when_text)}</span>' if when_text else ""
    return f'<p class="note {kind}">{escape(note_text(note))}{stamp}</p>'


def _key(message: AnyMessage) -> Any:
    return message.id or (message.type, repr(message.content))


def _fork(branch: list[AnyMessage], others: list[list[AnyMessage]]) -> int:
    """Where a branch leaves the others: the length of its longest shared start."""
    keys = [_key(m) for m in branch]
    longest = 0
    for other in others:
        shared = 0
        for mine, theirs in zip(keys, other, strict=False):
            if mine != _key(theirs):
                break
            shared += 1
        longest = max(longest, shared)
    return longest


def entry(group: list[Conversation], number: int) -> dict[str, Any]:
    """What the viewer knows of a conversation (or of a tree's branches, ``group``): its
    list fields, search text and HTML. The search text (``s``) and the HTML (``h``) are
    lists of pieces, each one JSON string when written: a long conversation is never
    copied whole."""
    branches = [list(c.messages) for c in group]
    first = group[0]
    title = marked(conversation_title(first.with_messages(branches[0]), number))
    html = []
    tools = False
    shown = next(  # the live branch (an agent session's) opens, else the first
        (
            i
            for i, c in enumerate(group)
            if isinstance(c.meta.get("branch"), dict) and c.meta["branch"].get("active") is True
        ),
        0,
    )
    for index, messages in enumerate(branches):
        parts = messages_html(messages, group[index].files)
        tools = tools or any('<details class="tool">' in part for part in parts)
        noted = _noted(group[index], parts)
        if len(branches) > 1:
            others = branches[:index] + branches[index + 1 :]
            at = min(_fork(messages, others), len(parts))
            buttons = "".join(
                f'<button type="button" data-branch="{i}"'
                f"{' aria-current=true' if i == index else ''}>{i + 1}</button>"
                for i in range(len(branches))
            )
            switch = (
                f'<nav class="fork" aria-label="branches">Branch {index + 1} of '
                f"{len(branches)}: {buttons}</nav>"
            )
            noted[at].insert(0, switch)
        hidden = " hidden" if index != shown else ""
        html.append(f'<section class="branch" data-index="{index}"{hidden}>')
        html.extend(part for piece in noted for part in piece if part)
        html.append("</section>")
    everything = [m for messages in branches for m in messages]
    date = conversation_date(first, everything)
    model = marked(conversation_model(first, everything))
    most = max(map(len, branches), default=0)
    facts = [f"{most} message" if most == 1 else f"{most} messages"]
    if len(branches) > 1:
        facts.append(f"{len(branches)} branches")
    facts += [x for x in (date, model) if x]
    ident = first.meta.get("id") or first.meta.get("uuid")
    if ident:
        facts.append(f"id {ident}")
    started = subagent_line(first)
    if started:
        facts.append(started)
    if first.location is not None:
        facts.append(str(first.location))
    expand = (
        '<button type="button" class="expand" data-expand="tool">Expand all tool calls</button>'
        if tools
        else ""
    )
    html.insert(
        0,
        f"<header class=conv-head><h1>{escape(title)}</h1>"
        f'<p class="facts">{" · ".join(escape(str(f)) for f in facts)}</p>{expand}</header>',
    )
    seen: set[Any] = set()
    texts = [title.lower()]
    for message in everything:
        key = _key(message)
        if key not in seen:
            seen.add(key)
            texts.extend(text.lower() for text in _text_of(message))
    return {"t": title, "d": date, "m": model, "n": most, "b": len(branches), "s": texts, "h": html}
