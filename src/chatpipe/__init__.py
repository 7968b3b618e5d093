"""chatpipe: convert, trim and render LLM chat transcripts.

The library half: langchain-core's message model and message utilities, with the same
names, reimplemented without langchain-core (``from chatpipe import HumanMessage``).
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the names for type checkers; at run time they load on first use
    from .blocks import (
        KNOWN_BLOCK_TYPES,
        create_audio_block,
        create_citation,
        create_file_block,
        create_image_block,
        create_non_standard_block,
        create_plaintext_block,
        create_reasoning_block,
        create_text_block,
        create_video_block,
        ensure_id,
        is_data_content_block,
    )
    from .canonical import message_from_canonical, message_to_canonical
    from .convert import (
        convert_to_messages,
        message_from_dict,
        messages_from_dict,
        messages_to_dict,
    )
    from .errors import ChatpipeError, DataError, UsageError, ValidationError
    from .formats.openai_writer import convert_to_openai_messages
    from .merge import merge_content, merge_dicts, merge_lists
    from .messages import (
        AIMessage,
        AIMessageChunk,
        AnyMessage,
        BaseMessage,
        BaseMessageChunk,
        ChatMessage,
        ChatMessageChunk,
        FunctionMessage,
        FunctionMessageChunk,
        HumanMessage,
        HumanMessageChunk,
        RemoveMessage,
        SystemMessage,
        SystemMessageChunk,
        ToolMessage,
        ToolMessageChunk,
        add_ai_message_chunks,
        message_chunk_to_message,
    )
    from .ops.count import count_tokens_approximately
    from .ops.filter import filter_messages, merge_message_runs
    from .ops.trim import trim_messages
    from .render.buffer import get_buffer_string
    from .tool_calls import (
        InputTokenDetails,
        InvalidToolCall,
        OutputTokenDetails,
        ToolCall,
        ToolCallChunk,
        UsageMetadata,
        add_usage,
        invalid_tool_call,
        parse_partial_json,
        tool_call,
        tool_call_chunk,
    )

# public name -> module; imported on first use, so the command line starts fast
_EXPORTS = {
    "KNOWN_BLOCK_TYPES": ".blocks",
    "create_audio_block": ".blocks",
    "create_citation": ".blocks",
    "create_file_block": ".blocks",
    "create_image_block": ".blocks",
    "create_non_standard_block": ".blocks",
    "create_plaintext_block": ".blocks",
    "create_reasoning_block": ".blocks",
    "create_text_block": ".blocks",
    "create_video_block": ".blocks",
    "ensure_id": ".blocks",
    "is_data_content_block": ".blocks",
    "message_from_canonical": ".canonical",
    "message_to_canonical": ".canonical",
    "convert_to_messages": ".convert",
    "message_from_dict": ".convert",
    "messages_from_dict": ".convert",
    "messages_to_dict": ".convert",
    "ChatpipeError": ".errors",
    "DataError": ".errors",
    "UsageError": ".errors",
    "ValidationError": ".errors",
    "convert_to_openai_messages": ".formats.openai_writer",
    "merge_content": ".merge",
    "merge_dicts": ".merge",
    "merge_lists": ".merge",
    "AIMessage": ".messages",
    "AIMessageChunk": ".messages",
    "AnyMessage": ".messages",
    "BaseMessage": ".messages",
    "BaseMessageChunk": ".messages",
    "ChatMessage": ".messages",
    "ChatMessageChunk": ".messages",
    "FunctionMessage": ".messages",
    "FunctionMessageChunk": ".messages",
    "HumanMessage": ".messages",
    "HumanMessageChunk": ".messages",
    "RemoveMessage": ".messages",
    "SystemMessage": ".messages",
    "SystemMessageChunk": ".messages",
    "ToolMessage": ".messages",
    "ToolMessageChunk": ".messages",
    "add_ai_message_chunks": ".messages",
    "message_chunk_to_message": ".messages",
    "count_tokens_approximately": ".ops.count",
    "filter_messages": ".ops.filter",
    "merge_message_runs": ".ops.filter",
    "trim_messages": ".ops.trim",
    "get_buffer_string": ".render.buffer",
    "InputTokenDetails": ".tool_calls",
    "InvalidToolCall": ".tool_calls",
    "OutputTokenDetails": ".tool_calls",
    "ToolCall": ".tool_calls",
    "ToolCallChunk": ".tool_calls",
    "UsageMetadata": ".tool_calls",
    "add_usage": ".tool_calls",
    "invalid_tool_call": ".tool_calls",
    "parse_partial_json": ".tool_calls",
    "tool_call": ".tool_calls",
    "tool_call_chunk": ".tool_calls",
}

__version__ = "0.1.0.dev0"

__all__ = [
    "KNOWN_BLOCK_TYPES",
    "AIMessage",
    "AIMessageChunk",
    "AnyMessage",
    "BaseMessage",
    "BaseMessageChunk",
    "ChatMessage",
    "ChatMessageChunk",
    "ChatpipeError",
    "DataError",
    "FunctionMessage",
    "FunctionMessageChunk",
    "HumanMessage",
    "HumanMessageChunk",
    "InputTokenDetails",
    "InvalidToolCall",
    "OutputTokenDetails",
    "RemoveMessage",
    "SystemMessage",
    "SystemMessageChunk",
    "ToolCall",
    "ToolCallChunk",
    "ToolMessage",
    "ToolMessageChunk",
    "UsageError",
    "UsageMetadata",
    "ValidationError",
    "__version__",
    "add_ai_message_chunks",
    "add_usage",
    "convert_to_messages",
    "convert_to_openai_messages",
    "count_tokens_approximately",
    "create_audio_block",
    "create_citation",
    "create_file_block",
    "create_image_block",
    "create_non_standard_block",
    "create_plaintext_block",
    "create_reasoning_block",
    "create_text_block",
    "create_video_block",
    "ensure_id",
    "filter_messages",
    "get_buffer_string",
    "invalid_tool_call",
    "is_data_content_block",
    "merge_content",
    "merge_dicts",
    "merge_lists",
    "merge_message_runs",
    "message_chunk_to_message",
    "message_from_canonical",
    "message_from_dict",
    "message_to_canonical",
    "messages_from_dict",
    "messages_to_dict",
    "parse_partial_json",
    "tool_call",
    "tool_call_chunk",
    "trim_messages",
]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'chatpipe' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
