"""The pieces of a message for the viewer: its content blocks (text as Markdown,
reasoning collapsed, media named or shown, citations as links, JSON as code), tool panels
with their results, attachments and token usage. render/html.py puts them together."""

from __future__ import annotations

import json
from typing import Any

from ..model import AnyMessage, ToolMessage
from ..model.media import MEDIA_KINDS
from .artifacts import segments
from .facts import (
    attachments,
    call_gist,
    recap_text,
    size_text,
)
from .markup import LONG, code_block, escape, markdown, marked, safe_image, safe_link

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


def text_output(value: Any) -> str:
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
        return "".join(block_html(b, {}) for b in value)
    return _json_block(value)


def _reasoning(text: str) -> str:
    body = markdown(text) if text else "<p><em>(redacted)</em></p>"
    return f'<details class="reasoning"><summary>Reasoning</summary>{body}</details>'


def text_html(text: str, ai: bool) -> str:
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


def block_html(block: Any, skip_ids: dict[str, Any], ai: bool = False, files: Any = None) -> str:
    if isinstance(block, str):
        return text_html(block, ai)
    if not isinstance(block, dict):
        return _json_block(block)
    kind = block.get("type")
    if kind == "text":
        return text_html(str(block.get("text") or ""), ai) + _sources(_citations(block))
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
        return tool_panel(str(block.get("name") or "tool"), block.get("id"), args, None)
    if kind in ("tool_result", "server_tool_result", "web_search_tool_result"):
        output = block.get("content", block.get("output"))
        title = f"Result of {block.get('tool_use_id') or block.get('tool_call_id') or 'a tool'}"
        return (
            f'<details class="tool"><summary>{escape(str(title))}</summary>'
            f"{text_output(output)}</details>"
        )
    label = escape(str(kind or "block"))
    return (
        f'<details class="raw"><summary>{label}</summary>'
        f"{_json_block(block.get('value', block))}</details>"
    )


def tool_panel(name: str, call_id: Any, args: Any, result: ToolMessage | None) -> str:
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
        output = text_output(result.content)
    ident = f' <code class="call-id">{escape(str(call_id))}</code>' if call_id else ""
    gist = call_gist(args)  # the command, or the first argument: what the call does
    gist = f' <code class="tool-arg">{escape(marked(gist))}</code>' if gist else ""
    return (
        f'<details class="tool"><summary><span class="tool-name">{escape(marked(name))}</span>'
        f"{gist}{ident} {status}</summary>"
        f'<div class="tool-grid"><div class="tool-call"><h4>Call</h4>{shown}</div>'
        f'<div class="tool-result"><h4>Result</h4>{output}</div></div></details>'
    )


def attachments_html(message: AnyMessage) -> str:
    chips = []
    for name, detail, _ in attachments(message):
        chip = f"attached: {escape(marked(name))}"
        if detail:
            chip += f' <span class="size">({escape(detail)})</span>'
        chips.append(f'<span class="media">{chip}</span>')
    return f'<div class="attachments">{"".join(chips)}</div>' if chips else ""


def usage_html(message: AnyMessage) -> str:
    usage = getattr(message, "usage_metadata", None)
    if not isinstance(usage, dict):
        return ""
    parts = [
        f"{usage[key]:,} {label}"
        for key, label in (("input_tokens", "in"), ("output_tokens", "out"))
        if isinstance(usage.get(key), int)
    ]
    return " / ".join(parts) + " tokens" if parts else ""
