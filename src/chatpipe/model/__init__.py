"""The message model: langchain-core's message and chunk classes, tool calls, content
blocks, chunk merging, the canonical mapping and ``Conversation``. Imports nothing of
chatpipe above it (errors aside)."""

from __future__ import annotations

from .chunks import (
    CHUNK_TO_MESSAGE,
    MESSAGE_CLASSES,
    AIMessageChunk,
    ChatMessageChunk,
    FunctionMessageChunk,
    HumanMessageChunk,
    SystemMessageChunk,
    ToolMessageChunk,
    _rank_ids,
    add_ai_message_chunks,
    message_chunk_to_message,
)
from .conversation import Conversation
from .messages import (
    LC_AUTO_PREFIX,
    LC_ID_PREFIX,
    AIMessage,
    AnyMessage,
    BaseMessage,
    BaseMessageChunk,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)

__all__ = [
    "CHUNK_TO_MESSAGE",
    "LC_AUTO_PREFIX",
    "LC_ID_PREFIX",
    "MESSAGE_CLASSES",
    "AIMessage",
    "AIMessageChunk",
    "AnyMessage",
    "BaseMessage",
    "BaseMessageChunk",
    "ChatMessage",
    "ChatMessageChunk",
    "Conversation",
    "FunctionMessage",
    "FunctionMessageChunk",
    "HumanMessage",
    "HumanMessageChunk",
    "RemoveMessage",
    "SystemMessage",
    "SystemMessageChunk",
    "ToolMessage",
    "ToolMessageChunk",
    "_rank_ids",
    "add_ai_message_chunks",
    "message_chunk_to_message",
]
