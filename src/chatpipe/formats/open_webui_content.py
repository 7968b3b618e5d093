"""An Open WebUI assistant message's turn: its ``output`` items (newer versions: Responses-
style ``reasoning``, ``message``, ``function_call``, ``function_call_output``) or, where it
has none, its ``content`` with reasoning and tool calls folded in as ``<details>`` blocks.

Open WebUI writes reasoning as ``<details type="reasoning" done duration><summary>Thought
for N seconds</summary>`` followed by the thought with each line quoted (``> ``) and the
whole HTML-escaped; a tool call as ``<details type="tool_calls" done id name arguments
result files embeds>`` (``arguments`` and ``result`` HTML-escaped JSON; older versions and
other clients put the result in the element's body); code the model ran as
``<details type="code_interpreter" output=...>`` around the fenced code. One Open WebUI
message may hold a whole tool loop, so it reads as an assistant message, the tool
messages answering it, and the assistant message that goes on. What the tags hold beside
the text (their attributes, the summary) stays in the blocks' ``extras``."""

from __future__ import annotations

import html
import json
import re
from typing import Any

from ..model import AIMessage, AnyMessage, ToolMessage
from .openai_messages import parse_arguments

_DETAILS = re.compile(r'<details\s+type="(\w+)"([^>]*)>(.*?)</details>\n?', re.S)
_ATTRIBUTE = re.compile(r'(\w+)="([^"]*)"')
_FENCE = re.compile(r"```(\w*)\n(.*?)\n?```", re.S)
_SUMMARY = re.compile(r"\s*<summary>(.*?)</summary>\n?", re.S)


class Turn:
    """An assistant turn being gathered: blocks and calls, closed into an AI message at
    each tool result (which follows it as a tool message)."""

    def __init__(self, ident: str | None, fields: dict[str, Any]) -> None:
        self.ident, self.fields = ident, fields
        self.out: list[AnyMessage] = []
        self.blocks: list[dict[str, Any]] = []
        self.calls: list[dict[str, Any]] = []
        self.kept: list[dict[str, Any]] = []  # what the calls' tags or items hold besides

    def keep(self, value: dict[str, Any]) -> None:
        self.kept.append(value)

    def text(self, text: str, extras: dict[str, Any] | None = None) -> None:
        if not text and not extras:
            return
        block: dict[str, Any] = {"type": "text", "text": text}
        if extras:
            block["extras"] = extras
        self.blocks.append(block)

    def block(self, block: dict[str, Any]) -> None:
        self.blocks.append(block)

    def call(self, name: str, args: Any, ident: str) -> None:
        self.calls.append({"name": name, "args": args, "id": ident})

    def result(self, call_id: str, content: Any, extras: dict[str, Any] | None = None) -> None:
        self.close()
        kwargs = {"additional_kwargs": {"open_webui": extras}} if extras else {}
        self.out.append(ToolMessage(content, tool_call_id=call_id, **kwargs))

    def close(self, last: bool = False) -> None:
        if not (self.blocks or self.calls or (last and not self.out)):
            return
        first = not any(isinstance(m, AIMessage) for m in self.out)
        ident = self.ident if first else f"{self.ident}#{len(self.out)}"
        blocks = self.blocks
        plain = all(b["type"] == "text" and "extras" not in b for b in blocks)
        content: Any = "".join(b["text"] for b in blocks) if plain else blocks
        fields = dict(self.fields) if first else {}
        if self.kept:
            kwargs = dict(fields.get("additional_kwargs") or {})
            kwargs["open_webui"] = {**kwargs.get("open_webui", {}), "calls": self.kept}
            fields["additional_kwargs"] = kwargs
        self.out.append(AIMessage(content, tool_calls=self.calls, id=ident, **fields))
        self.blocks, self.calls, self.kept = [], [], []

    def messages(self) -> list[AnyMessage]:
        self.close(last=True)
        return self.out


# -- content with <details> ------------------------------------------------------------


def _attributes(text: str) -> dict[str, str]:
    return {k: html.unescape(v) for k, v in _ATTRIBUTE.findall(text)}


def _unquoted(body: str) -> str:
    """A reasoning block's text: HTML-unescaped, each line's ``> `` taken off."""
    lines = html.unescape(body.strip("\n")).split("\n")
    return "\n".join(
        line[2:] if line.startswith("> ") else "" if line == ">" else line for line in lines
    )


def _json_text(text: str) -> Any:
    """An attribute's JSON (Open WebUI writes ``json.dumps`` of the value); the text as it
    is where it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _call_args(text: str | None) -> Any:
    value = _json_text(text) if text else {}
    args, _ = parse_arguments(value) if isinstance(value, (str, dict)) else (None, None)
    return args if isinstance(args, dict) else {"arguments": text}


def _result_text(value: Any) -> Any:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def read_details(turn: Turn, content: str) -> None:
    """An assistant ``content`` into ``turn``: text between the details blocks, the blocks
    as reasoning, calls and results."""
    at = 0
    for number, found in enumerate(_DETAILS.finditer(content)):
        text = content[at : found.start()]
        turn.text(text.lstrip("\n") if at else text)  # (the line break after a block)
        at = found.end()
        kind, attributes, body = found[1], _attributes(found[2]), found[3]
        summary = _SUMMARY.match(body)
        if summary is not None:
            body = body[summary.end() :]
        extras: dict[str, Any] = {"details": {"type": kind, **attributes}}
        if summary is not None:
            extras["summary"] = html.unescape(summary[1])
        if kind == "reasoning":
            turn.block({"type": "reasoning", "reasoning": _unquoted(body), "extras": extras})
        elif kind in ("tool_calls", "code_interpreter"):
            _tool_details(turn, kind, attributes, body, extras, number)
        else:  # a kind this reader does not know: its text kept as written
            turn.text(found[0])
    turn.text(content[at:].lstrip("\n") if at else content)


def _tool_details(
    turn: Turn,
    kind: str,
    attributes: dict[str, str],
    body: str,
    extras: dict[str, Any],
    number: int,
) -> None:
    ident = attributes.get("id") or f"{turn.ident}-call-{number}"
    body = html.unescape(body.strip("\n"))
    if kind == "code_interpreter":
        fenced = _FENCE.fullmatch(body)
        args = {"code": fenced[2], "language": fenced[1]} if fenced else {"code": body}
        turn.call("code_interpreter", args, ident)
        result = attributes.get("output")
    else:
        turn.call(attributes.get("name") or "", _call_args(attributes.get("arguments")), ident)
        result = attributes.get("result")
        if result is None and body:
            result = body  # (older versions: the result in the element's body)
    turn.keep({"id": ident, **extras})
    if result is not None:
        turn.result(ident, _result_text(_json_text(result)))


# -- output items ------------------------------------------------------------------------


def _texts(parts: Any) -> str:
    if isinstance(parts, str):
        return parts
    return "".join(
        str(p.get("text") or "") for p in parts or () if isinstance(p, dict) and "text" in p
    )


def read_output(turn: Turn, items: list[Any]) -> None:
    """Open WebUI's ``output`` items into ``turn``."""
    for item in items:
        if not isinstance(item, dict):
            turn.block({"type": "non_standard", "value": {"output_item": item}})
            continue
        kind = item.get("type")
        rest = {k: v for k, v in item.items() if k not in ("type", "content")}
        if kind == "reasoning":
            text = _texts(item.get("content")) or _texts(item.get("summary"))
            turn.block({"type": "reasoning", "reasoning": text, "extras": rest})
        elif kind == "message":
            parts = item.get("content")
            if isinstance(parts, list) and all(
                isinstance(p, dict) and p.get("type") in ("output_text", "text") for p in parts
            ):
                turn.text(_texts(parts), {"output_item": rest})
            else:
                turn.block({"type": "non_standard", "value": {"output_item": item}})
        elif kind == "function_call":
            call_id = str(item.get("call_id") or item.get("id") or "")
            args, _ = parse_arguments(item.get("arguments"))
            args = args if isinstance(args, dict) else {"arguments": item.get("arguments")}
            turn.call(str(item.get("name") or ""), args, call_id)
            kept = {k: v for k, v in rest.items() if k not in ("arguments", "name")}
            turn.keep({"output_item": kept})
        elif kind == "function_call_output":
            output = item.get("output")
            text = _texts(output) if isinstance(output, list) else output
            kept = {k: v for k, v in rest.items() if k not in ("call_id", "output")}
            if isinstance(output, list) and any(
                not (isinstance(p, dict) and "text" in p) for p in output
            ):
                kept["output"] = output  # (parts that are not text: kept whole)
            turn.result(str(item.get("call_id") or ""), _result_text(text or ""), kept)
        else:
            turn.block({"type": "non_standard", "value": {"output_item": item}})
