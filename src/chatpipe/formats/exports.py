"""ChatGPT and Claude.ai data exports (formats.md §6, §7): trees of messages, walked from
the active leaf to the root (``--branch active``, the default), every root-to-leaf path
(``--branch all``), or the newest leaf (``--branch latest``). A tree that names no active
leaf gives its newest leaf for ``--branch active`` too, and its metadata says so
(``branch.chosen == "newest"``) for the command to tell the user. A cycle in the parent
links is an error. A record with no tree at all (``mapping`` / ``chat_messages`` null or
missing, as conversation listings hold) is an empty conversation with its metadata.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..errors import DataError, Location
from ..model import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage
from .base import Conversation, Dialect

BRANCHES = ("active", "all", "latest")


class ReadOptions:
    """Reading choices for tree-shaped exports."""

    def __init__(self, branch: str = "active", include_hidden: bool = False) -> None:
        if branch not in BRANCHES:
            from ..errors import UsageError

            raise UsageError(f"--branch must be one of {', '.join(BRANCHES)}, got {branch!r}")
        self.branch = branch
        self.include_hidden = include_hidden


def _paths(
    parents: dict[str, str | None],
    order: list[str],
    active: str | None,
    times: dict[str, Any],
    options: ReadOptions,
    location: Location,
) -> tuple[list[list[str]], int]:
    """The node paths (root first) to write, and how many leaves were left out."""
    children: dict[str, list[str]] = {}
    for node in order:
        parent = parents.get(node)
        if parent is not None:
            children.setdefault(parent, []).append(node)
    leaves = [n for n in order if n not in children]

    def walk(leaf: str) -> list[str]:
        path, seen = [], set()
        node: str | None = leaf
        while node is not None:
            if node in seen:
                raise DataError(f"the parent links loop at node {node!r}", location)
            seen.add(node)
            path.append(node)
            node = parents.get(node)
            if node is not None and node not in parents:
                break  # a dangling parent: the path starts here
        return path[::-1]

    if options.branch == "all":
        return [walk(leaf) for leaf in leaves], 0
    if options.branch == "active" and active is not None and active in parents:
        return [walk(active)], max(0, len(leaves) - 1)
        # no active leaf named (a Claude.ai export of a retried answer): the newest leaf
        if order:
            raise DataError("the parent links loop: no message is a leaf", location)
        return [], 0
    latest = max(leaves, key=lambda n: (times.get(n) or 0, order.index(n)))
    return [walk(latest)], len(leaves) - 1


def _branch_meta(
    path: list[str], number: int, count: int, dropped: int, active: Any, options: ReadOptions
) -> dict[str, Any]:
    """What a conversation's ``branch`` metadata says about the path it holds."""
    if options.branch == "all":
        return {"leaf": path[-1], "index": number, "of": count}
    branch: dict[str, Any] = {"leaf": path[-1] if path else None, "left_out": dropped}
    if options.branch == "active" and dropped and path and path[-1] != active:
        branch["chosen"] = "newest"  # no active leaf named: the newest one was taken
    return branch


def _tree(value: dict[str, Any], field: str, kind: type, what: str, location: Location) -> Any:
    """The tree field of an export record; None when the record has none (a listing)."""
    tree = value.get(field)
    if tree is None or isinstance(tree, kind):
        return tree
    raise DataError(
        f'the "{field}" field must be {what}, got {type(tree).__name__}',
        location,
        hint=f'fix or remove "{field}" in this record; null or missing reads as no messages',
    )


# -- ChatGPT --------------------------------------------------------------------------------


def is_chatgpt_export(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("mapping"), dict)


def _chatgpt_text(content: dict[str, Any]) -> tuple[str | list[Any], bool]:
    """(content, is_known) for one ChatGPT content object."""
    kind = content.get("content_type", "text")
    if kind in ("text", "multimodal_text"):
        parts: list[Any] = []
        for part in content.get("parts") or []:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and part.get("content_type") == "image_asset_pointer":
                extras = {
                    k: v for k, v in part.items() if k not in ("content_type", "asset_pointer")
                }
                parts.append({"type": "image", "url": part.get("asset_pointer"), "extras": extras})
            elif isinstance(part, dict) and part.get("content_type") == "audio_transcription":
                parts.append(part.get("text", ""))
            else:
                parts.append({"type": "non_standard", "value": part})
        if all(isinstance(p, str) for p in parts):
            return "".join(parts), True
        return [{"type": "text", "text": p} if isinstance(p, str) else p for p in parts], True
    if kind in ("code", "execution_output", "system_error"):
        return content.get("text", ""), True
    if kind == "tether_quote":
        return content.get("text", ""), True
    if kind == "tether_browsing_display":
        return content.get("result", "") or content.get("summary", "") or "", True
    return "", False


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
        if role == "system" and not text and known:
            hidden = True
        if hidden and not include_hidden:
            continue
        if not known:
            text = [{"type": "non_standard", "value": content}]
        keep = {k: v for k, v in message.items() if k not in ("id", "author", "content")}
        keep["content_type"] = kind
        rest = {k: v for k, v in content.items() if k not in ("content_type", "parts", "text")}
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
            out.append(ToolMessage(text, tool_call_id=call_id, name=name or None, **fields))
        else:
            out.append(SystemMessage(text, **fields))
    return out


class ChatGPTExportDialect(Dialect):
    name = "chatgpt-export"
    description = "ChatGPT data export conversations.json (array, object, or shards)"

    def is_conversation(self, value: Any) -> bool:
        return is_chatgpt_export(value)

    def read_message(self, value: Any) -> AnyMessage:
        raise DataError("a ChatGPT export is read a conversation at a time")

    def read_conversations(
        self, value: Any, location: Location, options: ReadOptions
    ) -> Iterator[Conversation]:
        mapping = _tree(value, "mapping", dict, "an object of message nodes", location)
        meta = {k: v for k, v in value.items() if k != "mapping"}
        if not mapping:
            yield Conversation([], meta, location)
            return
        nodes_by_key = {
            key: node if isinstance(node, dict) else {} for key, node in mapping.items()
        }
        order = list(nodes_by_key)
        parents = {key: node.get("parent") for key, node in nodes_by_key.items()}
        times = {
            key: (node.get("message") or {}).get("create_time")
            for key, node in nodes_by_key.items()
        }
        active = value.get("current_node")
        paths, dropped = _paths(parents, order, active, times, options, location)
        for number, path in enumerate(paths):
            nodes = [{"_key": key, **nodes_by_key[key]} for key in path]
            branch = _branch_meta(path, number, len(paths), dropped, active, options)
            yield Conversation(
                _chatgpt_messages(nodes, options.include_hidden),
                {**meta, "branch": branch},
                location,
            )

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        return next(self.read_conversations(value, location, ReadOptions()))


# -- Claude.ai ------------------------------------------------------------------------------

ROOT = "00000000-0000-4000-8000-000000000000"


def is_claude_export(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("chat_messages"), list)


def _claude_block(block: Any) -> Any:
    if not isinstance(block, dict):
        return block
    kind = block.get("type")
    rest = {
        k: v
        for k, v in block.items()
        if k not in ("type", "text", "thinking", "id", "name", "input", "tool_use_id", "content")
    }
    if kind == "text":
        out: dict[str, Any] = {"type": "text", "text": block.get("text", "")}
    elif kind == "thinking":
        out = {"type": "reasoning", "reasoning": block.get("thinking", "")}
    elif kind == "tool_use":
        out = {
            "type": "server_tool_call",
            "id": block.get("id") or "",
            "name": block.get("name") or "",
            "args": block.get("input") or {},
        }
    elif kind == "tool_result":
        out = {
            "type": "server_tool_result",
            "tool_call_id": block.get("tool_use_id") or "",
            "status": "error" if block.get("is_error") else "success",
            "output": block.get("content"),
        }
        rest.pop("is_error", None)
    else:
        return {"type": "non_standard", "value": block}
    if rest:
        out["extras"] = rest
    return out


def _claude_message(message: dict[str, Any]) -> AnyMessage:
    content = message.get("content")
    if isinstance(content, list) and content:
        blocks = [_claude_block(b) for b in content]
    else:
        blocks = (
            [{"type": "text", "text": message.get("text") or ""}] if message.get("text") else []
        )
    for attachment in message.get("attachments") or []:
        if isinstance(attachment, dict) and attachment.get("extracted_content"):
            extras = {k: v for k, v in attachment.items() if k != "extracted_content"}
            blocks.append(
                {
                    "type": "text-plain",
                    "mime_type": "text/plain",
                    "text": attachment["extracted_content"],
                    "extras": extras,
                }
            )
    keep = {k: v for k, v in message.items() if k not in ("uuid", "sender", "content")}
    if isinstance(content, list) and content:
        joined = "".join(
            str(b.get("text") or b.get("thinking") or "") for b in content if isinstance(b, dict)
        )
        if keep.get("text") in ("", joined):
            keep.pop("text", None)  # the blocks hold it (the text field repeats them)
    fields = {"id": message.get("uuid"), "additional_kwargs": {"claude": keep}}
    if len(blocks) == 1 and blocks[0]["type"] == "text" and "extras" not in blocks[0]:
        body: Any = blocks[0]["text"]
    else:
        body = blocks
    if message.get("sender") == "assistant":
        return AIMessage(body, **fields)
    return HumanMessage(body, **fields)


class ClaudeExportDialect(Dialect):
    name = "claude-export"
    description = "Claude.ai export conversations (chat_messages), web-app and ZIP shapes"

    def is_conversation(self, value: Any) -> bool:
        return is_claude_export(value)

    def read_message(self, value: Any) -> AnyMessage:
        return _claude_message(value)

    def read_conversations(
        self, value: Any, location: Location, options: ReadOptions
    ) -> Iterator[Conversation]:
        tree = _tree(value, "chat_messages", list, "a list of messages", location)
        messages = [m for m in tree or () if isinstance(m, dict)]
        meta = {k: v for k, v in value.items() if k != "chat_messages"}
        if not any("parent_message_uuid" in m for m in messages):
            ordered = (
                sorted(messages, key=lambda m: m.get("index", 0))
                if all("index" in m for m in messages)
                else messages
            )
            yield Conversation([_claude_message(m) for m in ordered], meta, location)
            return
        by_id = {m.get("uuid"): m for m in messages}
        parents = {
            m.get("uuid"): (
                m.get("parent_message_uuid") if m.get("parent_message_uuid") in by_id else None
            )
            for m in messages
        }
        order = [m.get("uuid") for m in messages]
        times = {m.get("uuid"): m.get("created_at") for m in messages}
        active = value.get("current_leaf_message_uuid")
        paths, dropped = _paths(parents, order, active, times, options, location)
        for number, path in enumerate(paths):
            branch = _branch_meta(path, number, len(paths), dropped, active, options)
            yield Conversation(
                [_claude_message(by_id[i]) for i in path], {**meta, "branch": branch}, location
            )

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        return next(self.read_conversations(value, location, ReadOptions()))
