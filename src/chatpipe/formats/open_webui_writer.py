"""Writing Open WebUI's import file (``--to open-webui``): one JSON array of
``{chat, meta, pinned, folder_id, created_at, updated_at}``, each ``chat`` a history tree
``{messages: {id: message}, currentId}`` with the linear copy of its live branch, as
Settings > Data Controls > Import chats takes it.

The branches ``--branch all`` gives of one conversation come one after another; they are
written back into one tree (messages with the same id, or with the same content under the
same parent, are one node), its ``currentId`` the live branch's leaf. An assistant's
turn, its tool calls, their results and the answer after them are one Open WebUI message,
the calls folded into its content as Open WebUI writes them (``<details
type="tool_calls">``, reasoning as ``<details type="reasoning">``)."""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..model import AnyMessage, Conversation
from .trees import seconds

# message times as the dialects read them keep them (their own fields)
_TIME_KEYS = ("timestamp", "create_time", "created_at", "createdAt", "send_date")
_HELD = frozenset(("text", "reasoning", "image", "image_url", "file"))
# the ids of the fields where the dialects keep the conversation's live leaf
_LIVE_KEYS = ("current_node", "current_leaf_message_uuid", "leaf_response_id", "currentId")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(
        b if isinstance(b, str) else str(b.get("text") or "")
        for b in content or ()
        if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text")
    )


def _own(message: AnyMessage) -> dict[str, Any]:
    """The Open WebUI fields a message read from Open WebUI kept (not its content)."""
    own = message.additional_kwargs.get("open_webui")
    if not isinstance(own, dict):
        return {}
    return {k: v for k, v in own.items() if k not in ("content", "output", "calls", "source")}


def _time(message: AnyMessage) -> int | None:
    for fields in [message.additional_kwargs, *message.additional_kwargs.values()]:
        if isinstance(fields, dict):
            for key in _TIME_KEYS:
                found = seconds(fields.get(key))
                if found is not None:
                    return int(found)
    return None


def _model(turn: list[AnyMessage], meta: dict[str, Any]) -> str | None:
    """The model that wrote a turn, as its reader kept it: response metadata, the
    record's own ``model`` (or ChatGPT's ``metadata.model_slug``), the conversation's."""
    for message in turn:
        found = message.response_metadata.get("model_name") or message.response_metadata.get(
            "model"
        )
        for fields in message.additional_kwargs.values():
            if found or not isinstance(fields, dict):
                continue
            metadata = fields.get("metadata") if isinstance(fields.get("metadata"), dict) else {}
            found = fields.get("model") or metadata.get("model_slug")
        if isinstance(found, str) and found:
            return found
    found = meta.get("model") or meta.get("default_model_slug")
    return found if isinstance(found, str) and found else None


def _files(content: Any) -> list[dict[str, Any]]:
    """The image and file blocks of a content as Open WebUI ``files`` entries."""
    files = []
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "image_url":  # (OpenAI's part)
            url = block.get("image_url")
            url = url.get("url") if isinstance(url, dict) else url
            files.append({"type": "image", "url": url})
            continue
        if not isinstance(block, dict) or block.get("type") not in ("image", "file"):
            continue
        extras = block.get("extras") if isinstance(block.get("extras"), dict) else {}
        url = block.get("url")
        if url is None and block.get("base64"):
            mime = block.get("mime_type") or "application/octet-stream"
            url = f"data:{mime};base64,{block['base64']}"
        entry = {"type": block["type"], **extras}
        if url is not None:
            entry["url"] = url
        elif block.get("file_id"):
            entry.setdefault("id", block["file_id"])
        files.append(entry)
    return files


def _reasoning(block: dict[str, Any]) -> str:
    extras = block.get("extras") if isinstance(block.get("extras"), dict) else {}
    details = extras.get("details") if isinstance(extras.get("details"), dict) else {}
    duration = details.get("duration") or extras.get("duration") or 0
    summary = extras.get("summary") or f"Thought for {duration} seconds"
    text = str(block.get("reasoning") or "")
    quoted = "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))
    return (
        f'<details type="reasoning" done="true" duration="{html.escape(str(duration))}">\n'
        f"<summary>{html.escape(str(summary))}</summary>\n{html.escape(quoted, quote=False)}\n"
        "</details>\n"
    )


def _call(call: dict[str, Any], result: Any) -> str:
    """A tool call (and its result, when it has one) as Open WebUI writes it."""
    attributes = {
        "id": str(call.get("id") or ""),
        "name": str(call.get("name") or ""),
        "arguments": json.dumps(call.get("args") or {}, ensure_ascii=False),
    }
    done, summary = "false", "Executing..."
    if result is not None:
        text = _text(result) if isinstance(result, list) else result
        attributes["result"] = json.dumps(text, ensure_ascii=False)
        attributes["files"] = ""
        attributes["embeds"] = '""'
        done, summary = "true", "Tool Executed"
    written = " ".join(f'{k}="{html.escape(v)}"' for k, v in attributes.items())
    opening = f'<details type="tool_calls" done="{done}" {written}>'
    return f"{opening}\n<summary>{summary}</summary>\n</details>\n"


def assistant_content(turn: list[AnyMessage]) -> tuple[str, list[dict[str, Any]]]:
    """The content Open WebUI shows for an assistant turn (AI and tool messages), and its
    files."""
    results = {m.tool_call_id: m.content for m in turn if m.type == "tool"}
    answered: set[str] = set()
    out, files = [], []
    for message in turn:
        if message.type == "tool":
            if message.tool_call_id not in answered:  # a result with no call in the turn
                call = {"id": message.tool_call_id, "name": message.name or "tool", "args": {}}
                out.append(_call(call, message.content))
            continue
        content = message.content
        for block in content if isinstance(content, list) else [content]:
            if isinstance(block, str):
                out.append(block)
            elif block.get("type") == "text":
                out.append(str(block.get("text") or ""))
            elif block.get("type") == "reasoning":
                out.append(_reasoning(block))
        files += _files(content)
        for call in getattr(message, "tool_calls", []):
            answered.add(call.get("id"))
            out.append(_call(call, results.get(call.get("id"))))
    return "".join(out), files


def turns(messages: list[AnyMessage]) -> Iterator[tuple[str, list[AnyMessage]]]:
    """(role, messages) of each Open WebUI message: a user or system message alone, an
    assistant's AI and tool messages up to the next other message together."""
    turn: list[AnyMessage] = []
    for message in messages:
        if message.type in ("ai", "tool"):
            turn.append(message)
            continue
        if turn:
            yield "assistant", turn
            turn = []
        role = {"human": "user", "system": "system"}.get(message.type)
        yield role or str(getattr(message, "role", None) or "user"), [message]
    if turn:
        yield "assistant", turn


def node_id(parent: str | None, role: str, turn: list[AnyMessage], nodes: dict[str, Any]) -> str:
    """A node's id: its first message's id (unless another node under another parent has
    it), else one made from its place and content (the same message of two branches is
    one node)."""
    ident = turn[0].id
    if ident and (ident not in nodes or nodes[ident]["parentId"] == parent):
        return str(ident)
    made = json.dumps([parent, role, [repr(m.content) for m in turn]], ensure_ascii=False)
    digest = hashlib.sha1(made.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


class ChatTree:
    """One Open WebUI chat being built from the branches of one conversation."""

    def __init__(self, first: Conversation) -> None:
        self.meta = first.meta
        self.nodes: dict[str, dict[str, Any]] = {}
        self.system: str | None = None
        self.models: list[str] = []
        self.leaves: list[str] = []
        self.live: str | None = None

    def add(self, conversation: Conversation) -> None:
        messages = list(conversation.messages)
        if messages and messages[0].type == "system":
            prompt = _text(messages[0].content)
            if self.system in (None, prompt):  # (each branch repeats it)
                self.system = prompt
                messages = messages[1:]
        parent: str | None = None
        for role, turn in turns(messages):
            key = node_id(parent, role, turn, self.nodes)
            if key not in self.nodes:
                self.nodes[key] = self._node(key, parent, role, turn)
                if parent is not None:
                    self.nodes[parent]["childrenIds"].append(key)
            parent = key
        if parent is not None:
            self.leaves.append(parent)
            branch = conversation.meta.get("branch")
            if isinstance(branch, dict) and branch.get("live"):
                self.live = parent

    def _node(
        self, key: str, parent: str | None, role: str, turn: list[AnyMessage]
    ) -> dict[str, Any]:
        node: dict[str, Any] = {"id": key, "parentId": parent, "childrenIds": [], "role": role}
        if role == "assistant":
            content, files = assistant_content(turn)
            model = _model(turn, self.meta)
            node.update({"content": content, "model": model or "", "done": True})
            if model and model not in self.models:
                self.models.append(model)
            usage = next(
                (m.usage_metadata for m in turn if getattr(m, "usage_metadata", None)), None
            )
            if usage:
                node["usage"] = {
                    "prompt_tokens": usage.get("input_tokens", 0),
                    "completion_tokens": usage.get("output_tokens", 0),
                    "total_tokens": usage.get("total_tokens", 0),
                }
        else:
            content, files = _text(turn[0].content), _files(turn[0].content)
            node["content"] = content
        if files:
            node["files"] = files
        when = _time(turn[0])
        if when is not None:
            node["timestamp"] = when
        for key_, value in _own(turn[0]).items():
            node.setdefault(key_, value)
        return node

    def chat(self) -> dict[str, Any]:
        meta = self.meta
        live = self.live or self._named_live() or (self.leaves[-1] if self.leaves else None)
        path, at = [], live
        while at is not None:
            path.append(self.nodes[at])
            at = self.nodes[at]["parentId"]
        created = seconds(
            meta.get("created_at") or meta.get("create_time") or meta.get("createdAt")
        )
        updated = seconds(
            meta.get("updated_at") or meta.get("update_time") or meta.get("modify_time")
        )
        title = meta.get("title") or meta.get("name") or "New Chat"
        for node in self.nodes.values():
            if node["role"] == "user":
                node.setdefault("models", self.models)
            if "timestamp" not in node and created is not None:
                node["timestamp"] = int(created)
        chat: dict[str, Any] = {
            "id": "",
            "title": str(title),
            "models": self.models,
            "params": {"system": self.system} if self.system else {},
            "history": {"messages": self.nodes, "currentId": live},
            "messages": path[::-1],
            "tags": [],
            "files": [],
        }
        if created is not None:
            chat["timestamp"] = int(created * 1000)
        own = meta.get("meta") if isinstance(meta.get("meta"), dict) else {}
        tags = own.get("tags") if isinstance(own.get("tags"), list) else []
        return {
            "chat": chat,
            "meta": {"tags": tags} if tags else {},
            "pinned": bool(meta.get("pinned")) if isinstance(meta.get("pinned"), bool) else False,
            "folder_id": None,
            "created_at": int(created) if created is not None else None,
            "updated_at": int(updated)
            if updated is not None
            else (int(created) if created is not None else None),
        }

    def _named_live(self) -> str | None:
        for key in _LIVE_KEYS:
            value = self.meta.get(key)
            if isinstance(value, str) and value in self.leaves:
                return value
        return None


def _same_tree(
    conversation: Conversation, tree: ChatTree | None, last: Conversation | None
) -> bool:
    """Whether a conversation is the next branch of the one before it (``--branch all``)."""
    if tree is None or last is None:
        return False
    branch, before = conversation.meta.get("branch"), last.meta.get("branch")
    return (
        isinstance(branch, dict)
        and isinstance(before, dict)
        and branch.get("index") == (before.get("index") or 0) + 1
        and branch.get("of") == before.get("of")
        and conversation.location == last.location
    )


def chats(conversations: Iterable[Conversation]) -> Iterator[dict[str, Any]]:
    """Each conversation as an import entry, the branches of one conversation as one."""
    tree: ChatTree | None = None
    last: Conversation | None = None
    for conversation in conversations:
        if not _same_tree(conversation, tree, last):
            if tree is not None:
                yield tree.chat()
            tree = ChatTree(conversation)
        assert tree is not None
        tree.add(conversation)
        last = conversation
    if tree is not None:
        yield tree.chat()


def render(conversations: Iterable[Conversation], dumps: Callable[[Any], str]) -> Iterator[str]:
    """The import file, a chat at a time: ``[``, the entries, ``]``."""
    opening = "["
    for entry in chats(conversations):
        yield opening + dumps(entry)
        opening = ",\n"
    yield "[]\n" if opening == "[" else "]\n"


def cannot_hold(message: AnyMessage) -> list[str]:
    """What an Open WebUI message leaves out of one of ours."""
    content = message.content
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    if message.type == "tool":
        return (
            ["tool results other than text"] if any(b.get("type") != "text" for b in blocks) else []
        )
    if any(b.get("type") not in _HELD for b in blocks):
        return ["content other than text, reasoning, images and files"]
    if message.type == "human" and any(b.get("type") == "reasoning" for b in blocks):
        return ["reasoning in user turns"]
    return []
