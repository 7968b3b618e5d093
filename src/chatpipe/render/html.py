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
from ..model.media import MEDIA_KINDS
from .artifacts import segments
from .commands import markup_html, message_markup
from .facts import (
    attachments,
    call_gist,
    conversation_date,
    conversation_model,
    conversation_title,
    message_model,
    message_time,
    recap_text,
    size_text,
    when,
)
from .markdown import LABELS
from .markup import LONG, code_block, escape, markdown, marked, safe_image, safe_link
from .sessions import message_label, note_text, notes_after, notes_before, subagent_line

# -- content ---------------------------------------------------------------------------


def _media_size(block: dict[str, Any]) -> str:
    extras = block.get("extras") if isinstance(block.get("extras"), dict) else {}
    for source in (block, extras):
        for key in ("size", "size_bytes", "file_size", "bytes"):
            if isinstance(source.get(key), (int, float)):
                return size_text(source[key])
    data = block.get("base64") or block.get("data")
    if isinstance(data, str):
        return size_text(len(data) * 3 // 4)
    url = block.get("url")
    if isinstance(url, str) and url.startswith("data:") and "," in url:
        return size_text(len(url.split(",", 1)[1]) * 3 // 4)
    return ""


def _media(block: dict[str, Any], kind: str, files: Any = None) -> str:
    """An image, audio clip, video or file: a data image inline, and an image its
    export zip holds (``files``: a ChatGPT ``file-service://`` pointer); anything else
    named."""
    extras = block.get("extras") if isinstance(block.get("extras"), dict) else {}
    source = block.get("source")
    if isinstance(source, dict):  # Anthropic's blocks: {"source": {"type": "base64", ...}}
        block = {**block, **{k: v for k, v in source.items() if k != "type"}}
        block.setdefault("mime_type", source.get("media_type"))
    url = block.get("url")
    if kind == "image_url":
        image = block.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        kind = "image"
    mime = block.get("mime_type") or extras.get("mime_type") or ""
    if kind == "image":
        data = block.get("base64") or block.get("data")
        if isinstance(data, str) and str(mime).startswith("image/"):
            url = f"data:{mime};base64,{data}"
        inline = safe_image(url)
        if inline is None and files is not None:
            inline = safe_image(files.data_url(url))
        if inline is not None:
            return f'<figure class="media"><img src="{escape(inline)}" alt="image"></figure>'
    name = (
        extras.get("file_name")
        or extras.get("filename")
        or block.get("filename")
        or block.get("name")
        or (url if isinstance(url, str) and not url.startswith("data:") else "")
        or block.get("file_id")
        or mime
        or kind
    )
    size = _media_size(block)
    label = f"{_KINDS.get(kind, kind)}: {escape(str(name))}"
    if size:
        label += f' <span class="size">({size})</span>'
    href = safe_link(url)
    if href is not None:
        return (
            f'<a class="media" href="{escape(href)}" rel="noopener noreferrer nofollow" '
            f'target="_blank">{label}</a>'
        )
    return f'<span class="media">{label}</span>'


# words, not emoji: a machine without an emoji font draws those as empty boxes
_KINDS = {"input_audio": "audio", "text-plain": "file", "document": "file"}


def _citations(block: dict[str, Any]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    extras = block.get("extras") if isinstance(block.get("extras"), dict) else {}
    for source in (block, extras):
        for key in ("annotations", "citations"):
            items = source.get(key)
            for item in items if isinstance(items, list) else ():
                if not isinstance(item, dict):
                    continue
                inner = (
                    item.get("url_citation") if isinstance(item.get("url_citation"), dict) else item
                )
                url = safe_link(inner.get("url"))
                if url is not None:
                    found.append((url, str(inner.get("title") or url)))
    return found


def _sources(links: list[tuple[str, str]]) -> str:
    if not links:
        return ""
    seen: dict[str, str] = {}
    for url, title in links:
        seen.setdefault(url, title)
    items = "".join(
        f'<li><a href="{escape(url)}" rel="noopener noreferrer nofollow" target="_blank">'
        f"{escape(title)}</a></li>"
        for url, title in seen.items()
    )
    return f'<ol class="sources">{items}</ol>'


def _json_block(value: Any) -> str:
    return code_block(json.dumps(value, ensure_ascii=False, indent=2, default=str), "json")


def _text_output(value: Any) -> str:
    """A tool's output: JSON pretty-printed, other text as it is, lists as blocks."""
    if isinstance(value, str):
        stripped = value.strip()
        # (a long output is shown as it is: parsed and indented, it would cost many
        # times its size)
        if stripped[:1] in ("{", "[") and len(stripped) <= LONG:
            try:
                return _json_block(json.loads(stripped))
            except ValueError:
                pass
        return code_block(value)
    if isinstance(value, list):
        return "".join(_block(b, {}) for b in value)
    return _json_block(value)


def _reasoning(text: str) -> str:
    body = markdown(text) if text else "<p><em>(redacted)</em></p>"
    return f'<details class="reasoning"><summary>Reasoning</summary>{body}</details>'


def _text(text: str, ai: bool) -> str:
    """A text as Markdown; an answer's Claude artifacts as titled code blocks and its
    ``<antThinking>`` as reasoning."""
    if not ai:
        return markdown(text)
    shown = []
    for segment in segments(text):
        if segment.kind == "text":
            shown.append(markdown(segment.text))
        elif segment.kind == "thinking":
            shown.append(_reasoning(segment.text))
        else:
            language = segment.language
            kind = " · ".join(x for x in (language, segment.attributes.get("identifier")) if x)
            shown.append(
                f'<figure class="artifact"><figcaption><span class="artifact-title">'
                f"{escape(marked(segment.title))}</span>"
                + (f' <span class="artifact-kind">{escape(kind)}</span>' if kind else "")
                + f"</figcaption>{code_block(segment.text, language)}</figure>"
            )
    return "".join(shown)


def _block(block: Any, skip_ids: dict[str, Any], ai: bool = False, files: Any = None) -> str:
    if isinstance(block, str):
        return _text(block, ai)
    if not isinstance(block, dict):
        return _json_block(block)
    kind = block.get("type")
    if kind == "text":
        return _text(str(block.get("text") or ""), ai) + _sources(_citations(block))
    recap = recap_text(block)
    if recap is not None:  # ChatGPT's "Thought for 4 seconds"
        return f'<p class="note">{escape(recap)}</p>'
    if kind in ("reasoning", "thinking", "redacted_thinking"):
        return _reasoning(str(block.get("reasoning") or block.get("thinking") or ""))
    if kind in MEDIA_KINDS:
        return _media(block, kind, files)
    if kind in ("tool_use", "tool_call", "server_tool_call", "function_call"):
        if block.get("id") in skip_ids:
            return ""  # shown with the message's tool calls
        args = block.get("input", block.get("args", block.get("arguments")))
        return _tool_panel(str(block.get("name") or "tool"), block.get("id"), args, None)
    if kind in ("tool_result", "server_tool_result", "web_search_tool_result"):
        output = block.get("content", block.get("output"))
        title = f"Result of {block.get('tool_use_id') or block.get('tool_call_id') or 'a tool'}"
        return (
            f'<details class="tool"><summary>{escape(str(title))}</summary>'
            f"{_text_output(output)}</details>"
        )
    label = escape(str(kind or "block"))
    return (
        f'<details class="raw"><summary>{label}</summary>'
        f"{_json_block(block.get('value', block))}</details>"
    )


def _tool_panel(name: str, call_id: Any, args: Any, result: ToolMessage | None) -> str:
    if isinstance(args, dict) and list(args) == ["input"] and isinstance(args["input"], str):
        shown = code_block(
            args["input"].replace("\r\n", "\n"), "python" if name == "python" else ""
        )
    else:
        shown = _json_block(args)
    if result is None:
        status, output = '<span class="status none">no result</span>', "<p><em>none</em></p>"
    else:
        failed = result.status == "error"
        status = (
            f'<span class="status {"error" if failed else "ok"}">'
            f"{'error' if failed else 'result'}</span>"
        )
        output = _text_output(result.content)
    ident = f' <code class="call-id">{escape(str(call_id))}</code>' if call_id else ""
    gist = call_gist(args)  # the command, or the first argument: what the call does
    gist = f' <code class="tool-arg">{escape(marked(gist))}</code>' if gist else ""
    return (
        f'<details class="tool"><summary><span class="tool-name">{escape(marked(name))}</span>'
        f"{gist}{ident} {status}</summary>"
        f'<div class="tool-grid"><div class="tool-call"><h4>Call</h4>{shown}</div>'
        f'<div class="tool-result"><h4>Result</h4>{output}</div></div></details>'
    )


def _attachments(message: AnyMessage) -> str:
    chips = []
    for name, detail, _ in attachments(message):
        chip = f"attached: {escape(marked(name))}"
        if detail:
            chip += f' <span class="size">({escape(detail)})</span>'
        chips.append(f'<span class="media">{chip}</span>')
    return f'<div class="attachments">{"".join(chips)}</div>' if chips else ""


def _usage(message: AnyMessage) -> str:
    usage = getattr(message, "usage_metadata", None)
    if not isinstance(usage, dict):
        return ""
    parts = [
        f"{usage[key]:,} {label}"
        for key, label in (("input_tokens", "in"), ("output_tokens", "out"))
        if isinstance(usage.get(key), int)
    ]
    return " / ".join(parts) + " tokens" if parts else ""


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
    details = [message_model(message), _usage(message), when(message_time(message))]
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
        body = _text(content, ai)
    else:
        body = "".join(_block(block, call_ids, ai, files) for block in content)
    if isinstance(message, ToolMessage):
        body = _text_output(content) if isinstance(content, str) else body
        head.append(f'<code class="call-id">{escape(str(message.tool_call_id))}</code>')
    panels = [
        _tool_panel(call["name"], call.get("id"), call["args"], results.get(call.get("id") or ""))
        for call in calls
    ]
    for bad in getattr(message, "invalid_tool_calls", None) or ():
        panels.append(
            _tool_panel(
                str(bad.get("name") or "tool"),
                bad.get("id"),
                {"arguments": bad.get("args"), "error": bad.get("error")},
                None,
            )
        )
    return (
        f'<article class="msg {role}"><header>{"".join(head)}</header>'
        f'<div class="body">{body}{_attachments(message)}</div>{"".join(panels)}</article>'
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
