"""What the writers of an API's wire format share (docs/adding-a-dialect.md, "Writing for
an API"): their settings, the kinds of what they leave out, and the one way they say it.

A dialect whose records are an API's input declares ``api`` (what they are the input of:
"Anthropic Messages"); its writer's default output holds only what that API takes. What
it leaves out (a conversation's own fields, a reader's bookkeeping, reasoning where the
API has no field for it, media it cannot take) it says as it writes, through
``Writing.left``: a kind, said once per run, the message it was left out of (None for a
conversation's own fields) and what was left out, by name, which ``-v`` lists.
``--keep-extras`` (``Writing.keep_extras``) writes the faithful superset instead, for
chatpipe to read back. ``--reasoning`` (``Writing.reasoning``) says where reasoning goes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..model.reasoning import FIELDS, field_blocks
from .media import NAME_KEYS

# --reasoning: the API's own field where it has one (signed Anthropic thinking, Gemini
# thought parts, Responses reasoning items; Chat Completions has none); left out everywhere;
# or, for Chat Completions, the ``reasoning_content`` field that OpenAI-compatible servers
# (DeepSeek, vLLM, OpenRouter) take
FIELD, DROP, REASONING_CONTENT = "field", "drop", "reasoning-content"
REASONING = (FIELD, DROP, REASONING_CONTENT)
# the settings every API dialect's writer takes (``Dialect.writer_settings``)
SETTINGS = ("keep_extras", "reasoning")

# kinds of what an API writer leaves out, said once a run each (with what, by name, -v)
CONVERSATION_FIELDS = "conversation fields the API does not take"
MESSAGE_FIELDS = "message fields the API does not take"
PART_FIELDS = "content-part fields the API does not take"
TOOL_FIELDS = "tool fields the API does not take"
SETTING_VALUES = "settings whose values the API does not take"
ASKED_REASONING = "reasoning (left out, as --reasoning drop asks)"
EMPTIED = "turns that held nothing the API takes (left out whole)"
# (the reasoning's text is written: its token, which only the API that signed it checks, not)
SIGNATURES = "another API's signatures of reasoning (only the API that signed one takes it back)"
NO_REQUEST = "conversations with no turns to send (no request is written for them)"
STREAMING = "streaming settings (stream, stream_options: the sender chooses how answers come)"
_STREAMING = ("stream", "stream_options")


class Writing:
    """One writer's settings, and where it says what it leaves out: ``report`` (a
    LossReport of the run, or None when no one listens) takes ``note(kind, message,
    detail)``."""

    __slots__ = ("keep_extras", "reasoning", "report")

    def __init__(
        self, keep_extras: bool = False, reasoning: str = FIELD, report: Any = None
    ) -> None:
        self.keep_extras, self.reasoning, self.report = keep_extras, reasoning, report

    def __reduce__(self) -> Any:  # (sent to workers without the run's report)
        return Writing, (self.keep_extras, self.reasoning)

    def heard_by(self, report: Any) -> Writing:
        return Writing(self.keep_extras, self.reasoning, report)

    @property
    def strict(self) -> bool:
        """Whether only what the API takes is written (the default)."""
        return not self.keep_extras

    def left(self, kind: str, message: int | None = None, detail: str | None = None) -> None:
        """Say that ``kind`` was left out of message ``message`` (its index among those
        the writer was given; None: of the conversation), ``detail`` naming what."""
        if self.report is not None:
            self.report.note(kind, message, detail)

    def fields(
        self,
        record: dict[str, Any],
        taken: Callable[[str], bool] | frozenset[str],
        kind: str = CONVERSATION_FIELDS,
        message: int | None = None,
    ) -> dict[str, Any]:
        """``record`` with only the keys the API takes (``taken``: their set, or a test
        of a key); the others said, by name, once for the record. With ``keep_extras``,
        ``record`` as it is."""
        if self.keep_extras:
            return record
        test = taken.__contains__ if isinstance(taken, frozenset) else taken
        kept, left = {}, []
        for key, value in record.items():
            if test(key):
                kept[key] = value
            elif value is not None:
                left.append(key)
        if left:
            self.left(kind, message, names(left))
        return kept


def without_streaming(meta: dict[str, Any], writing: Writing) -> dict[str, Any]:
    """A conversation's fields without its streaming settings, said (a request written
    for sending is sent as its sender chooses; a batch's requests take none)."""
    if writing.keep_extras or not (meta.get("stream") or meta.get("stream_options")):
        return meta  # (``stream: false`` asks for one answer, as a request written is sent)
    writing.left(STREAMING, None, names(k for k in _STREAMING if meta.get(k) is not None))
    return {k: v for k, v in meta.items() if k not in _STREAMING}


def renamed(meta: dict[str, Any], names_: dict[str, str]) -> dict[str, Any]:
    """A conversation's fields with another provider's names for a setting (``names_``:
    theirs to this API's) given this API's, where it has none of its own: the same
    setting, said the API's way (``stop`` of text made a list of stop sequences)."""
    if not any(k in meta for k in names_):
        return meta
    out = dict(meta)
    for theirs, ours in names_.items():
        if theirs in out and ours not in out:
            value = out.pop(theirs)
            out[ours] = [value] if ours.endswith("sequences") and isinstance(value, str) else value
    return out


# a text block's keys that hold no more than its text: its kind, the text, langchain's ids
# (and ``source_type``, the Responses part a reader found it in: bookkeeping)
_TEXT_OWN = frozenset(("type", "text", "id", "index", "extras", "source_type"))


def text_fields(block: dict[str, Any], own: Iterable[str] = ()) -> list[str]:
    """What a text block holds beside its text (another API's citations or cache control,
    a reader's extras), but the keys ``own`` (those the writer writes): the names a writer
    that writes the text says it left out."""
    taken = _TEXT_OWN.union(own)
    left = [k for k, v in block.items() if k not in taken and v not in (None, [], {})]
    extras = block.get("extras")
    if isinstance(extras, dict):
        left += [k for k, v in extras.items() if k not in taken and v not in (None, [], {})]
    return left


# the standard media blocks, whose other keys a writer reads (their extras it may not)
MEDIA_TYPES = frozenset(("image", "file", "audio", "video", "text-plain"))


def extras_left(block: Any, own: Iterable[str] = ()) -> list[str]:
    """What a standard media block's extras hold (a reader's fields: a caption, a size,
    an export's asset pointer) but a file's name and the keys ``own`` (those the writer
    writes): the names a writer that writes the media says it left out."""
    if not isinstance(block, dict) or block.get("type") not in MEDIA_TYPES:
        return []
    extras = block.get("extras")
    if not isinstance(extras, dict) or "source" in block:  # (Anthropic's own: no extras)
        return []
    # (a file's name a writer takes where the API names documents; no API names images)
    taken = set(own).union(NAME_KEYS if block["type"] in ("file", "text-plain") else ())
    return [k for k, v in extras.items() if k not in taken and v not in (None, [], {})]


def names(keys: Iterable[Any]) -> str:
    """What was left out, as ``-v`` lists it: the names in their order, once each."""
    return ", ".join(dict.fromkeys(map(str, keys)))


def reasoning_text(blocks: Iterable[Any]) -> str:
    """The text of reasoning blocks (standard ``reasoning``, Anthropic ``thinking``)."""
    texts = []
    for block in blocks:
        if isinstance(block, dict):
            text = block.get("reasoning") if block.get("type") == "reasoning" else None
            if block.get("type") == "thinking":
                text = block.get("thinking")
            if isinstance(text, str) and text:
                texts.append(text)
    return "\n\n".join(texts)


REASONING_TYPES = frozenset(("reasoning", "thinking", "redacted_thinking"))


# the fields readers keep a turn's reasoning in beside its content (model/reasoning.py):
# DeepSeek's and vLLM's ``reasoning_content``, OpenRouter's and Ollama's ``reasoning``,
# ``reasoning_details``
REASONING_FIELDS = FIELDS


def with_reasoning(message: Any, content: Any) -> Any:
    """An assistant turn's content with the reasoning its reader kept in fields before it
    (as reasoning blocks: the writer routes them as it routes any)."""
    found = field_blocks(message.additional_kwargs) if message.type == "ai" else []
    if not found:
        return content
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    return [*found, *(b for b in blocks if b != {"type": "text", "text": ""})]


def with_refusal(message: Any) -> Any:
    """A message's content with the refusal a reader kept beside it (OpenAI's
    ``refusal`` field) as a refusal block, where the content holds none: what the
    assistant said, for APIs with no refusal field."""
    refusal = message.additional_kwargs.get("refusal")
    content = message.content
    if not isinstance(refusal, str) or not refusal:
        return content
    if isinstance(content, str):
        blocks = [{"type": "text", "text": content}] if content else []
    else:
        blocks = list(content)
    if any(_is_refusal(b) for b in blocks):
        return content
    return [*blocks, {"type": "refusal", "refusal": refusal}]


def _is_refusal(block: Any) -> bool:
    """A refusal part, as a writer's or as a reader kept it (a Responses part, whole)."""
    if not isinstance(block, dict):
        return False
    value = block.get("value") if block.get("type") == "non_standard" else block
    return isinstance(value, dict) and value.get("type") == "refusal"
