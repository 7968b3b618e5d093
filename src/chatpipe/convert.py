"""Library conversions with langchain-core's names (spec §8, §9)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .formats.langchain import message_from_dict, messages_from_dict, messages_to_dict
from .formats.openai import link_tool_results, message_from_like
from .model import AnyMessage

__all__ = ["convert_to_messages", "message_from_dict", "messages_from_dict", "messages_to_dict"]


def convert_to_messages(messages: Iterable[Any] | Any) -> list[AnyMessage]:
    """Messages from message objects, strings, (role, content) pairs and role dicts.

    Everything langchain-core accepts gives the same messages; shapes it rejects but
    real logs hold (see the README's differences) give the message they mean.
    """
    if hasattr(messages, "to_messages"):  # a langchain PromptValue
        messages = messages.to_messages()
    return list(link_tool_results(message_from_like(m) for m in messages))
