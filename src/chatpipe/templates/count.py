"""Exact token counts of the prompt a model sees: the chat template's text, tokenized.

A count through a template is not a sum over messages (the template adds its own
framing, system prompt and tool list), so trimming renders candidate suffixes instead of
adding up per-message costs: ``trim_to_fit`` keeps the newest messages whose rendered
prompt fits, found by bisection over where the kept part starts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import UsageError
from ..model import AnyMessage, SystemMessage
from ..ops.count import TokenCounter
from ..ops.trim import is_message_type
from .prompt import ChatTemplate


class TemplateCounter(TokenCounter):
    """Counts the tokens of a conversation's rendered prompt, as ``len(apply_chat_template(
    messages, tokenize=True))`` does: the template's text encoded without added specials."""

    additive = False

    def __init__(
        self, template: ChatTemplate, encoder: TokenCounter, meta: dict[str, Any] | None = None
    ) -> None:
        if not hasattr(encoder, "encode_len"):
            raise UsageError(
                "--chat-template counts the rendered prompt with a real tokenizer",
                hint="add --token-counter hf:PATH/tokenizer.json (or tiktoken:ENCODING)",
            )
        self.template = template
        self.encoder = encoder
        self.meta = meta
        self.name = f"{encoder.name} through the chat template"

    def for_conversation(self, meta: dict[str, Any] | None) -> TemplateCounter:
        """The counter with a conversation's own tools and documents."""
        return TemplateCounter(self.template, self.encoder, meta)

    def count(self, messages: Iterable[AnyMessage], location: Any = None) -> int:
        text = self.template.render(list(messages), self.meta, location)
        return self.encoder.encode_len(text)

    def cost(self, message: AnyMessage) -> int:
        raise TypeError("a chat template's count is not a sum over messages")


def trim_to_fit(
    messages: list[AnyMessage],
    counter: TemplateCounter,
    max_tokens: int,
    *,
    include_system: bool = False,
    start_on: Any = None,
    location: Any = None,
) -> list[AnyMessage]:
    """The newest messages whose rendered prompt has at most ``max_tokens`` tokens.

    With ``include_system`` a leading system message is always kept (and counted); with
    ``start_on`` the kept part starts on a message of that type. Nothing fits: ``[]``.
    """
    head: list[AnyMessage] = []
    body = messages
    if include_system and messages and isinstance(messages[0], SystemMessage):
        head, body = messages[:1], messages[1:]
    starts = [k for k in range(len(body)) if start_on is None or is_message_type(body[k], start_on)]
    starts.append(len(body))  # keeping none of the body

    def fits(k: int) -> bool:
        kept = head + body[k:]
        return bool(kept) and counter.count(kept, location) <= max_tokens

    if head and not fits(len(body)):
        return []  # the system message alone does not fit
    # the prompt grows as the kept part starts earlier: bisect for the earliest start
    # that fits, among the candidates keeping at least one message of the body
    best = None
    low, high = 0, len(starts) - 2
    while low <= high:
        middle = (low + high) // 2
        if fits(starts[middle]):
            best = middle
            high = middle - 1
        else:
            low = middle + 1
    return head if best is None else head + body[starts[best] :]
