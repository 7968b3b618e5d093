"""ChatGPT data exports (``conversations.json``): each conversation's node mapping, the
current branch by default, hidden messages left out unless asked for."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..errors import DataError, Location
from ..model import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage
from .base import Conversation, Dialect
from .exports import ReadOptions, branch_meta, branch_paths, tree_field, unlinked_chain


def is_chatgpt_export(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("mapping"), dict)


def _chatgpt_text(content: dict[str, Any]) -> tuple[str | list[Any], bool]:
    """(content, is_known) for one ChatGPT content object."""
    kind = content.get("content_type", "text")
    if kind in ("text", "multimodal_text"):
        if not content.get("parts") and isinstance(content.get("text"), str):
            return content["text"], True  # (a text with no parts: its ``text``)
        parts: list[Any] = []
        for part in content.get("parts") or []:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and part.get("content_type") == "image_asset_pointer":
                extras = {k: v for k, v in part.items() if k != "asset_pointer"}
                parts.append({"type": "image", "url": part.get("asset_pointer"), "extras": extras})
            elif isinstance(part, dict) and part.get("content_type") == "audio_transcription":
                parts.append(part.get("text", ""))
            else:
                parts.append({"type": "non_standard", "value": part})
        if all(isinstance(p, str) for p in parts):
            return "".join(parts), True
        return [{"type": "text", "text": p} if isinstance(p, str) else p for p in parts], True
    if kind in _TOOL_TEXTS:
        return _plain(content), True
    return "", False


# content types whose text is in ``text``, in ``parts`` (older exports), or in ``result``
_TOOL_TEXTS = (
    "code",
    "execution_output",
    "system_error",
    "tether_quote",
    "tether_browsing_display",
)


def _plain(content: dict[str, Any]) -> str:
    """The text of a content that is not a message's own text: its ``text``, else the
    text of its ``parts``, else its ``result`` (a browsing display), else its summary."""
    text = content.get("text")
    if isinstance(text, str):
        return text
    parts = content.get("parts")
    if isinstance(parts, list) and parts:
        return "".join(
            p if isinstance(p, str) else str(p.get("text") or "")
            for p in parts
            if isinstance(p, (str, dict))
        )
    for key in ("result", "summary"):
        if isinstance(content.get(key), str) and content[key]:
            return content[key]
    return ""


def _recap_block(content: dict[str, Any]) -> dict[str, Any]:
    """A ``reasoning_recap`` ("Thought for 29s") as a reasoning block that says so."""
    text = content.get("content")
    text = text if isinstance(text, str) else _plain(content)
    extras = {k: v for k, v in content.items() if k not in ("content", "parts", "text")}
    return {"type": "reasoning", "reasoning": text, "extras": extras}


def _thoughts_block(content: dict[str, Any]) -> dict[str, Any]:
    """An o-series ``thoughts`` message as one reasoning block.

    The text is each thought's ``content`` (its ``summary`` when it has none), or the
    ``parts`` older exports hold instead; the thoughts themselves stay in ``extras``.
    """
    thoughts = content.get("thoughts")
    texts = [
        str(t.get("content") or t.get("summary") or "")
        for t in thoughts or ()
        if isinstance(t, dict)
    ]
    texts += [p for p in content.get("parts") or () if isinstance(p, str)]
    block: dict[str, Any] = {
        "type": "reasoning",
        "reasoning": "\n\n".join(t for t in texts if t),
    }
    extras = {k: v for k, v in content.items() if k not in ("content_type", "parts")}
    if extras:
        block["extras"] = extras
    return block


def _chatgpt_messages(nodes: list[dict[str, Any]], include_hidden: bool) -> list[AnyMessage]:
    out: list[AnyMessage] = []
    calls_by_recipient: dict[str, str] = {}
    for node in nodes:
        message = node.get("message")
        if not isinstance(message, dict):
            continue
        author = message.get("author") or {}
        role = author.get("role")
        content = message.get("content") or {}
        metadata = message.get("metadata") or {}
        kind = content.get("content_type", "text")
        hidden = metadata.get("is_visually_hidden_from_conversation") or kind in (
            "user_editable_context",
            "model_editable_context",
        )
        text, known = _chatgpt_text(content)
        known = known or kind == "reasoning_recap"
        if role == "system" and not text and known:
            hidden = True
        if hidden and not include_hidden:
            continue
        if not known:
            text = [{"type": "non_standard", "value": content}]
        keep = {k: v for k, v in message.items() if k not in ("id", "author", "content")}
        keep["content_type"] = kind
        taken = ("content_type", "parts", "text", "content" if kind == "reasoning_recap" else "")
        rest = {k: v for k, v in content.items() if k not in taken}
        if rest and known:
            keep["content"] = rest  # code language, quote urls, and the like
        if author.get("name"):
            keep["author_name"] = author["name"]
        if author.get("metadata"):
            keep["author_metadata"] = author["metadata"]
        keep["parent"] = node.get("parent")
        message_id = message.get("id") or node.get("id") or node.get("_key")
        fields = {"id": message_id, "additional_kwargs": {"chatgpt": keep}}
        recipient = message.get("recipient") or "all"
        if kind == "thoughts":
            out.append(AIMessage([_thoughts_block(content)], **fields))
        elif kind == "reasoning_recap" and not hidden:
            out.append(AIMessage([_recap_block(content)], **fields))
        elif hidden:
            out.append(SystemMessage(text, **fields))
        elif role == "user":
            out.append(HumanMessage(text, **fields))
        elif role == "assistant" and recipient != "all":
            body = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
            try:
                args = json.loads(body)
            except ValueError:
                args = None
            if not isinstance(args, dict):
                args = {"input": body}
            calls_by_recipient[recipient] = message.get("id") or ""
            out.append(
                AIMessage(
                    "",
                    tool_calls=[{"name": recipient, "args": args, "id": message.get("id")}],
                    **fields,
                )
            )
        elif role == "assistant":
            out.append(AIMessage(text, **fields))
        elif role == "tool":
            name = author.get("name") or ""
            call_id = calls_by_recipient.get(name, "")
            status = "error" if kind == "system_error" else "success"
            out.append(
                ToolMessage(text, tool_call_id=call_id, name=name or None, status=status, **fields)
            )
        else:
            out.append(SystemMessage(text, **fields))
    return out


def _parents(
    nodes: dict[str, dict[str, Any]], order: list[str], times: dict[str, Any]
) -> dict[str, str | None]:
    """Each node's parent: its ``parent`` link, else the node whose ``children`` name it
    (exports that write only one of the two); a tree with no links at all is one path in
    creation time order."""
    parents = {key: node.get("parent") for key, node in nodes.items()}
    if any(parent is not None for parent in parents.values()):
        return parents
    for key, node in nodes.items():
        children = node.get("children")
        for child in children if isinstance(children, list) else ():
            if isinstance(child, str) and child in parents and child != key:
                parents[child] = key
    if any(parent is not None for parent in parents.values()):
        return parents
    return unlinked_chain(order, times)


class ChatGPTExportDialect(Dialect):
    name = "chatgpt-export"
    description = "ChatGPT data export conversations.json (array, object, or shards)"
    example = "chatgpt_export__pkuppens_2023_conversations_subset.json"
    extras_key = "chatgpt"  # (the rest of each record, under additional_kwargs)

    def is_conversation(self, value: Any) -> bool:
        return is_chatgpt_export(value)

    def read_message(self, value: Any) -> AnyMessage:
        raise DataError("a ChatGPT export is read a conversation at a time")

    def read_conversations(
        self, value: Any, location: Location, options: ReadOptions
    ) -> Iterator[Conversation]:
        mapping = tree_field(value, "mapping", dict, "an object of message nodes", location)
        meta = {k: v for k, v in value.items() if k != "mapping"}
        if not mapping:
            yield Conversation([], meta, location)
            return
        nodes_by_key = {
            key: node if isinstance(node, dict) else {} for key, node in mapping.items()
        }
        order = list(nodes_by_key)
        times = {
            key: (node.get("message") or {}).get("create_time")
            for key, node in nodes_by_key.items()
        }
        parents = _parents(nodes_by_key, order, times)
        active = value.get("current_node")
        paths, dropped = branch_paths(parents, order, active, times, options, location)
        for number, path in enumerate(paths):
            # (a link the file does not give: the one the path was read by)
            nodes = [{"_key": key, "parent": parents[key], **nodes_by_key[key]} for key in path]
            branch = branch_meta(path, number, len(paths), dropped, active, options)
            yield Conversation(
                _chatgpt_messages(nodes, options.include_hidden),
                {**meta, "branch": branch},
                location,
            )

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        return next(self.read_conversations(value, location, ReadOptions()))
