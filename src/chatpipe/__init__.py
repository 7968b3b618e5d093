"""chatpipe: convert, trim and render LLM chat transcripts.

The library half: langchain-core's message model and message utilities, with the same
names, reimplemented without langchain-core (``from chatpipe import HumanMessage``).
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the names for type checkers; at run time they load on first use
    from .errors import ChatpipeError, DataError, UsageError, ValidationError
    from .formats.coerce import convert_to_messages
    from .formats.langchain import message_from_dict, messages_from_dict, messages_to_dict
    from .formats.openai_writer import convert_to_openai_messages
    from .model import (
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
    from .model.blocks import (
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
    from .model.canonical import message_from_canonical, message_to_canonical
    from .model.chunk_merge import merge_content, merge_dicts, merge_lists
    from .model.tool_calls import (
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
    from .ops.count import count_tokens_approximately
    from .ops.filter import filter_messages, merge_message_runs
    from .ops.trim import trim_messages
    from .render.buffer import get_buffer_string

# public name -> module; imported on first use, so the command line starts fast
_EXPORTS = {
    "KNOWN_BLOCK_TYPES": ".model.blocks",
    "create_audio_block": ".model.blocks",
    "create_citation": ".model.blocks",
    "create_file_block": ".model.blocks",
    "create_image_block": ".model.blocks",
    "create_non_standard_block": ".model.blocks",
    "create_plaintext_block": ".model.blocks",
    "create_reasoning_block": ".model.blocks",
    "create_text_block": ".model.blocks",
    "create_video_block": ".model.blocks",
    "ensure_id": ".model.blocks",
    "is_data_content_block": ".model.blocks",
    "message_from_canonical": ".model.canonical",
    "message_to_canonical": ".model.canonical",
    "convert_to_messages": ".formats.coerce",
    "message_from_dict": ".formats.langchain",
    "messages_from_dict": ".formats.langchain",
    "messages_to_dict": ".formats.langchain",
    "ChatpipeError": ".errors",
    "DataError": ".errors",
    "UsageError": ".errors",
    "ValidationError": ".errors",
    "convert_to_openai_messages": ".formats.openai_writer",
    "merge_content": ".model.chunk_merge",
    "merge_dicts": ".model.chunk_merge",
    "merge_lists": ".model.chunk_merge",
    "AIMessage": ".model",
    "AIMessageChunk": ".model",
    "AnyMessage": ".model",
    "BaseMessage": ".model",
    "BaseMessageChunk": ".model",
    "ChatMessage": ".model",
    "ChatMessageChunk": ".model",
    "FunctionMessage": ".model",
    "FunctionMessageChunk": ".model",
    "HumanMessage": ".model",
    "HumanMessageChunk": ".model",
    "RemoveMessage": ".model",
    "SystemMessage": ".model",
    "SystemMessageChunk": ".model",
    "ToolMessage": ".model",
    "ToolMessageChunk": ".model",
    "add_ai_message_chunks": ".model",
    "message_chunk_to_message": ".model",
    "count_tokens_approximately": ".ops.count",
    "filter_messages": ".ops.filter",
    "merge_message_runs": ".ops.filter",
    "trim_messages": ".ops.trim",
    "get_buffer_string": ".render.buffer",
    "InputTokenDetails": ".model.tool_calls",
    "InvalidToolCall": ".model.tool_calls",
    "OutputTokenDetails": ".model.tool_calls",
    "ToolCall": ".model.tool_calls",
    "ToolCallChunk": ".model.tool_calls",
    "UsageMetadata": ".model.tool_calls",
    "add_usage": ".model.tool_calls",
    "invalid_tool_call": ".model.tool_calls",
    "parse_partial_json": ".model.tool_calls",
    "tool_call": ".model.tool_calls",
    "tool_call_chunk": ".model.tool_calls",
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
