"""LibreChat conversation exports (the chat's Export, JSON): ``{conversationId, title,
endpoint, exportAt, branches, recursive, options, messages | messagesTree}``.

Messages are linked by ``parentMessageId`` (the all-zero UUID, or null, at a root); a
``recursive`` export nests each message's replies in its ``children`` (under
``messagesTree`` in newer versions, ``messages`` before), a flat one lists them all, every
branch included when ``branches`` is true (an edited first prompt gives two roots). The
export does not say which branch the user last saw: the newest leaf's branch is read (as
the app shows the newest reply at each fork). ``isCreatedByUser`` is the role, ``sender`` a
display name (the model's label, or ``options.chatGptLabel``); ``options.promptPrefix`` is
the system prompt. Newer messages hold typed ``content`` parts (``text``, ``think``,
``tool_call`` with its output, images) beside or instead of ``text``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

from ..errors import DataError, Location
from ..model import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage
from .base import CERTAIN, CONVERSATIONS, Conversation, Dialect, Guess, Sample
from .exports import ReadOptions
from .trees import dated, span, tree_conversations

ROOT = "00000000-0000-0000-0000-000000000000"
_READ = ("messageId", "parentMessageId", "isCreatedByUser", "text", "content", "children")


def _messages(value: dict[str, Any]) -> list[Any] | None:
    found = value.get("messagesTree")
    if not isinstance(found, list):
        found = value.get("messages")
    return found if isinstance(found, list) else None


def is_export(value: Any) -> bool:
    """A LibreChat export: its conversationId beside messages linked by messageId."""
    if not isinstance(value, dict) or not isinstance(value.get("conversationId"), str):
        return False
    messages = _messages(value)
    return messages is not None and all(
        isinstance(m, dict) and "messageId" in m and "isCreatedByUser" in m for m in messages[:5]
    )


def _flat(messages: list[Any]) -> Iterator[dict[str, Any]]:
    """Every message of the export, a nested one after its parent (depth first)."""
    stack = list(reversed(messages))
    while stack:
        message = stack.pop()
        if isinstance(message, dict):
            yield message
            children = message.get("children")
            stack.extend(reversed(children if isinstance(children, list) else []))


def _file_block(item: dict[str, Any]) -> dict[str, Any]:
    kind = str(item.get("type") or "")
    block: dict[str, Any] = {"type": "image" if kind.startswith("image") else "file"}
    where = item.get("filepath") or item.get("url")
    if where:
        block["url"] = where
    else:
        block["file_id"] = str(item.get("file_id") or "")
    if "/" in kind:
        block["mime_type"] = kind
    block["extras"] = {k: v for k, v in item.items() if k not in ("filepath", "url")}
    return block


def _part(part: Any, blocks: list[Any], calls: list[Any], results: list[Any]) -> None:
    """One ``content`` part into the message's blocks, calls and their results."""
    if not isinstance(part, dict):
        blocks.append({"type": "text", "text": str(part)})
        return
    kind = part.get("type")
    value = part.get(kind) if isinstance(kind, str) else None
    if kind == "text":
        text = value.get("value") if isinstance(value, dict) else value
        block = {"type": "text", "text": str(text if text is not None else part.get("text") or "")}
        noted = value.get("annotations") if isinstance(value, dict) else None
        if noted:  # (an Assistants answer's citations of files: kept as read)
            block["extras"] = {"annotations": noted}
        blocks.append(block)
    elif kind == "think":
        blocks.append({"type": "reasoning", "reasoning": str(value or "")})
    elif kind == "tool_call" and isinstance(value, dict):
        args = value.get("args")
        if isinstance(args, str):
            with contextlib.suppress(ValueError):
                args = json.loads(args)
        ident = str(value.get("id") or f"call_{len(calls)}")
        calls.append(
            {
                "name": str(value.get("name") or ""),
                "args": args if isinstance(args, dict) else {"input": args},
                "id": ident,
            }
        )
        if value.get("output") is not None:
            rest = {k: v for k, v in value.items() if k not in ("id", "name", "args", "output")}
            results.append((ident, value["output"], rest))
    elif kind in ("image_url", "image_file"):
        url = (value.get("url") or value.get("filepath")) if isinstance(value, dict) else value
        blocks.append(
            {"type": "image", "url": url} if url else {"type": "non_standard", "value": part}
        )
    else:
        blocks.append({"type": "non_standard", "value": part})


def read_message(message: dict[str, Any]) -> list[AnyMessage]:
    """One LibreChat message (an answer with tool calls gives their results after it)."""
    rest = {k: v for k, v in message.items() if k not in _READ}
    blocks: list[Any] = []
    calls: list[Any] = []
    results: list[Any] = []
    content = message.get("content")
    text = message.get("text")
    if isinstance(content, list) and content:
        for part in content:
            _part(part, blocks, calls, results)
        joined = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
        if isinstance(text, str) and text and text != joined:
            rest["text"] = text  # (a text that says other than the parts: kept)
    elif isinstance(text, str):
        blocks.append({"type": "text", "text": text})
    for item in message.get("files") or ():
        if isinstance(item, dict):
            blocks.append(_file_block(item))
    plain = all(b.get("type") == "text" and "extras" not in b for b in blocks)
    body: Any = "".join(b["text"] for b in blocks) if plain else blocks
    fields: dict[str, Any] = {
        "id": str(message.get("messageId") or "") or None,
        "additional_kwargs": {"librechat": rest},
    }
    if message.get("isCreatedByUser"):
        return [HumanMessage(body, **fields)]
    if isinstance(message.get("model"), str):
        fields["response_metadata"] = {"model_name": message["model"]}
    out: list[AnyMessage] = [AIMessage(body, tool_calls=calls, **fields)]
    for ident, output, extra in results:
        kwargs = {"additional_kwargs": {"librechat": extra}} if extra else {}
        text_output = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
        out.append(ToolMessage(text_output, tool_call_id=ident, **kwargs))
    return out


class LibreChatDialect(Dialect):
    name = "librechat"
    description = (
        "LibreChat conversation exports (messages or messagesTree linked by parentMessageId)"
    )
    example = "librechat__librechat-tests_recursive_branches_promptPrefix.json"
    extras_key = "librechat"  # (a message's keys besides those read)

    def score(self, sample: Sample) -> Guess | None:
        # a conversationId beside messages with messageId and isCreatedByUser: LibreChat's
        return Guess(CERTAIN, CONVERSATIONS) if is_export(sample.first) else None

    def is_conversation(self, value: Any) -> bool:
        return is_export(value)

    def read_message(self, value: Any) -> AnyMessage:
        raise DataError("a LibreChat export is read a conversation at a time")

    def read_conversations(
        self, value: Any, location: Location, options: ReadOptions | None = None
    ) -> Iterator[Conversation]:
        if not is_export(value):
            raise DataError(
                "not a LibreChat export", location, hint="it needs conversationId and messages"
            )
        flat = list(_flat(_messages(value) or []))
        by_id = {str(m.get("messageId")): m for m in flat}
        parents: dict[str, str | None] = {}
        for key, message in by_id.items():
            parent = message.get("parentMessageId")
            parents[key] = (
                str(parent) if parent not in (None, ROOT) and str(parent) in by_id else None
            )
        meta = {k: v for k, v in value.items() if k not in ("messages", "messagesTree")}
        times = {key: m.get("createdAt") for key, m in by_id.items()}
        dated(meta, *span(list(times.values())))
        options_ = value.get("options") if isinstance(value.get("options"), dict) else {}
        prompt = options_.get("promptPrefix")
        system = (
            [
                SystemMessage(
                    prompt, additional_kwargs={"librechat": {"source": "options.promptPrefix"}}
                )
            ]
            if isinstance(prompt, str) and prompt
            else []
        )

        def messages_of(path: list[str]) -> list[AnyMessage]:
            out = list(system)
            for key in path:
                out.extend(read_message(by_id[key]))
            return out

        yield from tree_conversations(
            parents, list(by_id), None, times, options, location, meta, messages_of
        )

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        return next(self.read_conversations(value, location, ReadOptions()))
