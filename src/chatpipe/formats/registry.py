"""The dialects by name, each imported the first time it is asked for: reading one
dialect loads one module (and the modules it builds on), never all of them."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import import_module

from ..errors import UsageError
from .base import Dialect

# name: (module, class), in detection order: the most specific shapes first
_WHERE = {
    "chatgpt-export": ("chatgpt_export", "ChatGPTExportDialect"),
    "claude-export": ("claude_export", "ClaudeExportDialect"),
    "openai-stream": ("openai_stream", "OpenAIStreamDialect"),
    "anthropic-stream": ("anthropic_stream", "AnthropicStreamDialect"),
    "openai-responses-stream": ("openai_responses", "ResponsesStreamDialect"),
    "gemini-stream": ("gemini_stream", "GeminiStreamDialect"),
    # coding agents' session logs: lines of their own shapes, read as a whole file
    "claude-code": ("claude_code", "ClaudeCodeDialect"),
    "codex": ("codex", "CodexDialect"),
    "gemini-cli": ("gemini_cli", "GeminiCliDialect"),
    "pydantic-ai": ("pydantic_ai", "PydanticAIDialect"),
    "openai-batch": ("openai_batch", "OpenAIBatchDialect"),
    "anthropic-batch": ("anthropic_batch", "AnthropicBatchDialect"),
    "langchain": ("langchain", "LangchainDialect"),
    "canonical": ("canonical", "CanonicalDialect"),
    "alpaca": ("alpaca", "AlpacaDialect"),
    "anthropic": ("anthropic", "AnthropicDialect"),
    "gemini": ("gemini", "GeminiDialect"),
    "openai-responses": ("openai_responses", "ResponsesDialect"),
    "sharegpt": ("sharegpt", "ShareGPTDialect"),
    "ai-sdk-ui": ("ai_sdk_ui", "AiSdkUiDialect"),
    "mellea": ("mellea", "MelleaDialect"),
    "llamafactory": ("llamafactory", "LlamaFactoryDialect"),
    "openai": ("openai", "OpenAIDialect"),
    "markdown": ("markdown", "MarkdownDialect"),
    "yaml": ("yaml", "YamlDialect"),
    "html": ("html", "HtmlDialect"),
}
NAMES = tuple(_WHERE)
_LOADED: dict[str, Dialect] = {}


def get_dialect(name: str) -> Dialect:
    """The dialect of this name (one instance per process)."""
    dialect = _LOADED.get(name)
    if dialect is not None:
        return dialect
    where = _WHERE.get(name) if isinstance(name, str) else None
    if where is None:
        raise UsageError(f"unknown dialect {name!r}", hint="choose from " + ", ".join(NAMES))
    module, cls = where
    dialect = _LOADED[name] = getattr(import_module(f"{__package__}.{module}"), cls)()
    return dialect


def dialects() -> Iterator[Dialect]:
    """Every dialect in detection order (detection needs them all)."""
    return map(get_dialect, NAMES)


def readable() -> list[str]:
    return [d.name for d in dialects() if d.readable]


def writable() -> list[str]:
    return [d.name for d in dialects() if d.writable]


def reading_dialect(name: str | None) -> Dialect | None:
    """The dialect ``--from`` names, or None for ``auto``: one that can be read."""
    if name is None or name == "auto":
        return None
    dialect = get_dialect(name) if name in _WHERE else None
    if dialect is None or not dialect.readable:
        why = "is written only" if dialect is not None else "is not a dialect"
        if name in ("yaml", "json", "jsonl", "sse"):
            why = "is a container, recognised by itself"
        raise UsageError(
            f"--from {name!r} {why}", hint="--from takes auto, " + ", ".join(readable())
        )
    return dialect


def writing_dialect(name: str) -> Dialect:
    """The dialect ``--to`` names: one that can be written."""
    dialect = get_dialect(name) if name in _WHERE else None
    if dialect is None or not dialect.writable:
        raise UsageError(f"cannot write {name}", hint="--to takes " + ", ".join(writable()))
    return dialect
