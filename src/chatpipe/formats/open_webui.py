"""Open WebUI chats: the "Export chats" file (a JSON array of chat rows ``{id, user_id,
title, chat, created_at, updated_at, share_id, archived, pinned, meta, folder_id}``), a
single chat's export (the same array, of one), or bare chat objects (``chat`` itself, as
the import takes them and other tools store them).

A chat's messages are a tree: ``history.messages`` maps ids to messages linked by
``parentId`` / ``childrenIds``, and ``history.currentId`` is the message the user last saw
(a regenerated answer or an edited prompt is a branch). ``chat.messages`` is a linear copy
of one branch (empty in newer versions): the tree is read instead. Assistant messages keep
reasoning and tool calls folded into ``content`` or, in newer versions, in an ``output``
list of Responses-style items (read first: ``content`` is made from it). A chat's system
prompt is ``params.system``; attachments are a message's ``files``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import DataError, Location
from ..model import AnyMessage, ChatMessage, HumanMessage, SystemMessage
from .base import CERTAIN, CONVERSATIONS, Conversation, Dialect, Guess, Sample
from .exports import ReadOptions
from .openai_messages import usage_from_openai
from .trees import dated, span, tree_conversations

# a message's keys read into its content (the rest is kept under additional_kwargs)
_READ = ("id", "parentId", "childrenIds", "role", "content", "files")


def chat_of(value: Any) -> dict[str, Any] | None:
    """The chat object of a record (a row's ``chat``, or the record itself), or None."""
    if not isinstance(value, dict):
        return None
    chat = value.get("chat") if isinstance(value.get("chat"), dict) else value
    history = chat.get("history")
    if isinstance(history, dict) and isinstance(history.get("messages"), dict):
        return chat
    return None


def _message_blocks(message: dict[str, Any]) -> Any:
    """A user or system message's content with its ``files`` as image and file blocks."""
    content = message.get("content")
    text = content if isinstance(content, str) else ""
    files = [f for f in message.get("files") or () if isinstance(f, dict)]
    if not files:
        return text if isinstance(content, str) or content is None else content
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    for item in files:
        blocks.append(file_block(item))
    return blocks


def file_block(item: dict[str, Any]) -> dict[str, Any]:
    """An Open WebUI file entry (``{type: image, url}``, ``{type: file, id, name, url,
    file}``) as a media or file block, the entry's other keys in its extras."""
    kind = "image" if item.get("type") == "image" else "file"
    block: dict[str, Any] = {"type": kind}
    if item.get("url"):
        block["url"] = item["url"]
    elif item.get("id"):
        block["file_id"] = str(item["id"])
    rest = {
        k: v for k, v in item.items() if k not in ("url",) and not (k == "id" and "url" not in item)
    }
    if rest:
        block["extras"] = rest
    return block


def read_message(message: dict[str, Any], key: str) -> list[AnyMessage]:
    """One node of ``history.messages`` (an assistant turn may give several)."""
    role = message.get("role")
    ident = str(message.get("id") or key)
    rest = {k: v for k, v in message.items() if k not in _READ}
    if role == "assistant":
        return _assistant(message, ident, rest)
    if message.get("files"):
        rest["files"] = message["files"]
    fields: dict[str, Any] = {"id": ident, "additional_kwargs": {"open_webui": rest}}
    content = _message_blocks(message)
    if role == "user":
        return [HumanMessage(content, **fields)]
    if role == "system":
        return [SystemMessage(content, **fields)]
    return [ChatMessage(content, role=str(role or "unknown"), **fields)]


def _assistant(message: dict[str, Any], ident: str, rest: dict[str, Any]) -> list[AnyMessage]:
    fields: dict[str, Any] = {}
    model = message.get("model")
    if isinstance(model, str) and model:
        fields["response_metadata"] = {"model_name": model}
    usage = message.get("usage")
    if isinstance(usage, dict):
        counted = usage_from_openai(usage)
        if counted is not None:
            fields["usage_metadata"] = counted
    output = message.get("output")
    content = message.get("content")
    if isinstance(output, list) and output:
        rest.pop("output", None)
        rest["content"] = content  # (Open WebUI's rendering of the items)
    if message.get("files"):
        rest["files"] = message["files"]
    fields["additional_kwargs"] = {"open_webui": rest}
    # (here, not at the top: it imports html, whose entity table every run would load)
    from .open_webui_content import Turn, read_details, read_output

    turn = Turn(ident, fields)
    if isinstance(output, list) and output:
        read_output(turn, output)
    elif isinstance(content, str):
        read_details(turn, content)
    elif content is not None:
        turn.block({"type": "non_standard", "value": {"content": content}})
    for item in message.get("files") or ():
        if isinstance(item, dict):
            turn.block(file_block(item))
    return turn.messages()


def _system(chat: dict[str, Any]) -> list[AnyMessage]:
    params = chat.get("params") if isinstance(chat.get("params"), dict) else {}
    prompt = params.get("system") or chat.get("system")
    if isinstance(prompt, str) and prompt:
        return [
            SystemMessage(prompt, additional_kwargs={"open_webui": {"source": "params.system"}})
        ]
    return []


def _under(tops: set[str], nodes: dict[str, dict[str, Any]]) -> set[str]:
    """The nodes at or below ``tops`` (by ``parentId``)."""
    found, grew = set(tops), True
    while grew:
        grew = False
        for key, node in nodes.items():
            if key not in found and str(node.get("parentId")) in found:
                found.add(key)
                grew = True
    return found


def _meta(record: dict[str, Any], chat: dict[str, Any]) -> dict[str, Any]:
    """The conversation's fields: the row's (its ``chat`` left out) and the chat's own
    (its tree and linear copy left out), the row's first."""
    meta = {k: v for k, v in record.items() if k != "chat"} if record is not chat else {}
    for key, value in chat.items():
        if key not in ("history", "messages") and (meta.get(key) in (None, "") or key not in meta):
            meta[key] = value
    if not meta.get("id") and chat.get("id"):
        meta["id"] = chat["id"]
    return meta


class OpenWebUIDialect(Dialect):
    name = "open-webui"
    description = (
        "Open WebUI chats (Export chats, a chat's JSON export, bare chat objects): the "
        "history tree; written as the file its Import chats takes"
    )
    example = "open_webui__owimporter_chat_object.json"
    extras_key = "open_webui"  # (a message's keys besides those read)
    writable = True
    document = True  # (written as one JSON array, the file Open WebUI's import takes)
    holds_artifacts = False

    def render(self, conversations: Iterable[Conversation], per_message: bool) -> Iterator[str]:
        from ..io.encode import dumps
        from .open_webui_writer import render

        return render(conversations, lambda value: dumps(value).decode("utf-8"))

    def losses(self) -> Any:
        from .open_webui_writer import cannot_hold

        return cannot_hold

    def score(self, sample: Sample) -> Guess | None:
        # a history of messages by id beside its currentId is Open WebUI's alone
        if chat_of(sample.first) is not None:
            return Guess(CERTAIN, CONVERSATIONS)
        return None

    def is_conversation(self, value: Any) -> bool:
        return chat_of(value) is not None

    def read_message(self, value: Any) -> AnyMessage:
        raise DataError("an Open WebUI chat is read a chat at a time")

    def read_conversations(
        self, value: Any, location: Location, options: ReadOptions | None = None
    ) -> Iterator[Conversation]:
        chat = chat_of(value)
        if chat is None:
            raise DataError(
                "not an Open WebUI chat: no history.messages object",
                location,
                hint="an Open WebUI chat holds its messages in chat.history.messages",
            )
        nodes = {str(k): v for k, v in chat["history"]["messages"].items() if isinstance(v, dict)}
        meta = _meta(value, chat)
        first, last = span([n.get("timestamp") for n in nodes.values()])
        created = value.get("created_at") if isinstance(value.get("created_at"), int) else None
        dated(meta, created or chat.get("timestamp") or first, value.get("updated_at") or last)
        parents = {
            key: (str(n["parentId"]) if n.get("parentId") is not None else None)
            for key, n in nodes.items()
        }
        active = chat["history"].get("currentId")
        active = str(active) if active is not None and str(active) in nodes else None
        # a message whose parent is not in the file (a damaged tree) and those under it
        # are never the newest leaf where a rooted one has a time
        stray = {k for k, p in parents.items() if p is not None and p not in nodes}
        times = {key: n.get("timestamp") for key, n in nodes.items()}
        for key in _under(stray, nodes):
            times[key] = None
        system = _system(chat)

        def messages_of(path: list[str]) -> list[AnyMessage]:
            out = list(system)
            for key in path:
                out.extend(read_message(nodes[key], key))
            return out

        yield from tree_conversations(
            parents, list(nodes), active, times, options, location, meta, messages_of
        )

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        return next(self.read_conversations(value, location, ReadOptions()))
