"""Message-likes made messages, as langchain-core's ``convert_to_messages`` does:
message objects, strings, (role, content) pairs and role dicts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..model import AnyMessage
from .openai_messages import message_from_like
from .openai_writer import OpenAIWriter
from .tool_links import link_tool_results

__all__ = ["convert_to_messages"]


def convert_to_messages(messages: Iterable[Any] | Any) -> list[AnyMessage]:
    """Messages from message objects, strings, (role, content) pairs and role dicts.

    Everything langchain-core accepts gives the same messages; shapes it rejects but
    real logs hold (see docs/langchain-differences.md) give the message they mean.
    """
    if hasattr(messages, "to_messages"):  # a langchain PromptValue
        messages = messages.to_messages()
    return list(link_tool_results(message_from_like(m) for m in messages))


def convert_to_openai_messages(
    messages: Any,
    *,
    text_format: str = "string",
    include_id: bool = False,
    pass_through_unknown_blocks: bool = True,
) -> dict[str, Any] | list[dict[str, Any]]:
    """OpenAI chat dicts for one message-like (a dict back) or a sequence (a list back)."""
    writer = OpenAIWriter(text_format, include_id, pass_through_unknown_blocks)
    single = isinstance(messages, (AnyMessage, dict, str))
    out = list(writer.write(convert_to_messages([messages] if single else messages)))
    return out[0] if single else out
