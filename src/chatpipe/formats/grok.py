"""Grok (xAI) data exports (``prod-grok-backend.json``, or the ``conversations.json``
tools save it as): ``{conversations: [{conversation: {...}, responses: [{response: {...},
share_link}]}], projects?, ...}``.

A conversation's responses are a tree through ``parent_response_id`` (a regenerated
answer is a second child); ``conversation.leaf_response_id`` names the branch the user
last saw when it is set (most exports leave it null: the newest leaf is read then).
``sender`` is ``human`` or ``ASSISTANT`` (``assistant`` in some versions), ``message`` the
text, ``thinking_trace`` the reasoning, ``web_search_results`` / ``cited_web_search_results``
the pages found (citations of the answer's text), ``file_attachments`` /
``image_attachments`` / ``generated_image_urls`` its files. Ids are ``response_id`` and
``conversation_id`` (``_id`` and ``id`` in some versions); times are ISO 8601 or Mongo's
``{"$date": ...}``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import DataError, Location
from ..model import AIMessage, AnyMessage, HumanMessage
from .base import CERTAIN, CONVERSATIONS, Conversation, Dialect, Guess, Sample
from .exports import ReadOptions
from .trees import dated, seconds, span, tree_conversations

_READ = ("response_id", "_id", "parent_response_id", "sender", "message", "thinking_trace")


def is_export(value: Any) -> bool:
    """A Grok export: conversations each wrapping its conversation and its responses."""
    if not isinstance(value, dict) or not isinstance(value.get("conversations"), list):
        return False
    items = value["conversations"]
    return bool(items) and all(
        isinstance(c, dict)
        and isinstance(c.get("conversation"), dict)
        and isinstance(c.get("responses"), list)
        for c in items[:5]
    )


def _response_id(response: dict[str, Any]) -> str:
    return str(response.get("response_id") or response.get("_id") or "")


def _citations(response: dict[str, Any]) -> list[dict[str, Any]]:
    """The pages the answer cites (or, when it names none, found) as citations."""
    cited = response.get("cited_web_search_results")
    pages = cited if isinstance(cited, list) and cited else response.get("web_search_results")
    found = []
    for page in pages if isinstance(pages, list) else ():
        if not isinstance(page, dict):
            continue
        citation: dict[str, Any] = {"type": "citation"}
        for ours, theirs in (("url", "url"), ("title", "title"), ("cited_text", "preview")):
            if isinstance(page.get(theirs), str):
                citation[ours] = page[theirs]
        rest = {k: v for k, v in page.items() if k not in ("url", "title", "preview")}
        if rest:
            citation["extras"] = rest
        found.append(citation)
    return found


def _files(response: dict[str, Any]) -> list[dict[str, Any]]:
    blocks = []
    for key, kind in (
        ("image_attachments", "image"),
        ("file_attachments", "file"),
        ("generated_image_urls", "image"),
    ):
        for item in response.get(key) or ():
            if isinstance(item, str) and item:
                where = "url" if key == "generated_image_urls" else "file_id"
                blocks.append({"type": kind, where: item, "extras": {"grok_field": key}})
    return blocks


def read_response(response: dict[str, Any]) -> AnyMessage:
    """One Grok response as a message."""
    rest = {k: v for k, v in response.items() if k not in _READ}
    text = response.get("message")
    text = text if isinstance(text, str) else ""
    blocks: list[dict[str, Any]] = []
    thinking = response.get("thinking_trace")
    if isinstance(thinking, str) and thinking:
        blocks.append({"type": "reasoning", "reasoning": thinking})
    citations = _citations(response)
    if text or not blocks:
        block: dict[str, Any] = {"type": "text", "text": text}
        if citations:
            block["annotations"] = citations
        blocks.append(block)
    blocks += _files(response)
    plain = len(blocks) == 1 and blocks[0]["type"] == "text" and "annotations" not in blocks[0]
    content: Any = text if plain else blocks
    fields: dict[str, Any] = {
        "id": _response_id(response) or None,
        "additional_kwargs": {"grok": rest},
    }
    if str(response.get("sender") or "").lower() == "human":
        return HumanMessage(content, **fields)
    model = response.get("model")
    if isinstance(model, str) and model:
        fields["response_metadata"] = {"model_name": model}
    return AIMessage(content, **fields)


def read_entry(
    entry: dict[str, Any], location: Location, options: ReadOptions | None
) -> Iterator[Conversation]:
    """One conversation of the export, its branches as ``--branch`` asks."""
    conversation = entry["conversation"]
    responses = [r.get("response") for r in entry["responses"] if isinstance(r, dict)]
    by_id = {_response_id(r): r for r in responses if isinstance(r, dict)}
    meta = dict(conversation)
    if "conversation_id" not in meta and "id" in meta:
        meta["conversation_id"] = meta["id"]
    rest = {k: v for k, v in entry.items() if k not in ("conversation", "responses")}
    meta.update({k: v for k, v in rest.items() if k not in meta})
    times = {key: r.get("create_time") for key, r in by_id.items()}
    first, last = span(list(times.values()))
    dated(meta, conversation.get("create_time") or first, conversation.get("modify_time") or last)
    parents = {
        key: (str(r["parent_response_id"]) if str(r.get("parent_response_id")) in by_id else None)
        for key, r in by_id.items()
    }
    # the file's order is not the tree's: siblings (and roots) by time
    when = {key: seconds(value) for key, value in times.items()}
    order = sorted(by_id, key=lambda k: (when[k] is None, when[k] or 0.0))
    leaf = conversation.get("leaf_response_id")
    active = str(leaf) if leaf is not None and str(leaf) in by_id else None
    yield from tree_conversations(
        parents,
        order,
        active,
        times,
        options,
        location,
        meta,
        lambda path: [read_response(by_id[key]) for key in path],
    )


class GrokDialect(Dialect):
    name = "grok"
    description = "Grok (xAI) data exports: conversations with their response trees"
    example = "grok__owimporter_export.json"
    extras_key = "grok"  # (a response's fields besides those read)

    def score(self, sample: Sample) -> Guess | None:
        # conversations that each wrap a conversation and its responses: Grok's alone
        return Guess(CERTAIN, CONVERSATIONS) if is_export(sample.first) else None

    def is_conversation(self, value: Any) -> bool:
        return is_export(value)

    def read_message(self, value: Any) -> AnyMessage:
        if isinstance(value, dict) and isinstance(value.get("response"), dict):
            value = value["response"]
        if not isinstance(value, dict):
            raise DataError("not a Grok response")
        return read_response(value)

    def read_conversations(
        self, value: Any, location: Location, options: ReadOptions | None = None
    ) -> Iterator[Conversation]:
        if not is_export(value):
            raise DataError(
                "not a Grok export", location, hint="it needs conversations with responses"
            )
        for entry in value["conversations"]:
            yield from read_entry(entry, location, options)

    def read_conversation(self, value: Any, location: Location) -> Conversation:
        return next(self.read_conversations(value, location, ReadOptions()))
