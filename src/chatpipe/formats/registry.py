"""The dialects by name, each imported the first time it is asked for: reading one
dialect loads one module (and the modules it builds on), never all of them."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import import_module

from ..errors import UsageError
from .base import Dialect

# One line a dialect: its name, then its module and class (imported the first time the
# dialect is asked for) and whether it is read and written ("rw", "r-", "-w"), so that help
# and completion list the dialects without importing them (tests/test_dialects.py checks
# these flags against the classes). The order is the order of listings, and of the
# dialects asked first when two tie in detection and read a sample alike.
_WHERE = {
    "openai": ("openai", "OpenAIDialect", "rw"),
    "canonical": ("canonical", "CanonicalDialect", "rw"),
    "langchain": ("langchain", "LangchainDialect", "rw"),
    "anthropic": ("anthropic", "AnthropicDialect", "rw"),
    "gemini": ("gemini", "GeminiDialect", "rw"),
    "openai-responses": ("openai_responses", "ResponsesDialect", "rw"),
    "bedrock-converse": ("bedrock", "BedrockConverseDialect", "rw"),
    "ollama": ("ollama", "OllamaDialect", "rw"),
    "cohere": ("cohere", "CohereDialect", "r-"),
    "sharegpt": ("sharegpt", "ShareGPTDialect", "rw"),
    "alpaca": ("alpaca", "AlpacaDialect", "rw"),
    "ms-swift": ("swift", "MsSwiftDialect", "rw"),
    "mellea": ("mellea", "MelleaDialect", "r-"),
    "llamafactory": ("llamafactory", "LlamaFactoryDialect", "r-"),
    "ai-sdk-ui": ("ai_sdk_ui", "AiSdkUiDialect", "r-"),
    "chatgpt-export": ("chatgpt_export", "ChatGPTExportDialect", "r-"),
    "claude-export": ("claude_export", "ClaudeExportDialect", "r-"),
    "chatbot-ui": ("chatbot_ui", "ChatbotUiDialect", "r-"),
    "open-webui": ("open_webui", "OpenWebUIDialect", "rw"),
    "librechat": ("librechat", "LibreChatDialect", "r-"),
    "grok": ("grok", "GrokDialect", "r-"),
    "ai-studio": ("ai_studio", "AiStudioDialect", "r-"),
    "sillytavern": ("sillytavern", "SillyTavernDialect", "r-"),
    "aider": ("aider", "AiderDialect", "r-"),
    "openai-stream": ("openai_stream", "OpenAIStreamDialect", "r-"),
    "anthropic-stream": ("anthropic_stream", "AnthropicStreamDialect", "r-"),
    "gemini-stream": ("gemini_stream", "GeminiStreamDialect", "r-"),
    "openai-responses-stream": ("openai_responses_stream", "ResponsesStreamDialect", "r-"),
    "claude-code": ("claude_code", "ClaudeCodeDialect", "r-"),
    "codex": ("codex", "CodexDialect", "r-"),
    "gemini-cli": ("gemini_cli", "GeminiCliDialect", "r-"),
    "cursor": ("cursor", "CursorDialect", "r-"),
    "qwen-code": ("qwen_code", "QwenCodeDialect", "r-"),
    "copilot-cli": ("copilot_cli", "CopilotCliDialect", "r-"),
    "autogen": ("autogen", "AutoGenDialect", "r-"),
    "smolagents": ("smolagents", "SmolagentsDialect", "r-"),
    "smolagents-bus": ("smolagents", "SmolagentsBusDialect", "r-"),
    "openai-agents": ("openai_agents", "OpenAIAgentsDialect", "r-"),
    "pydantic-ai": ("pydantic_ai", "PydanticAIDialect", "rw"),
    "openai-batch": ("openai_batch", "OpenAIBatchDialect", "rw"),
    "anthropic-batch": ("anthropic_batch", "AnthropicBatchDialect", "rw"),
    "markdown": ("markdown", "MarkdownDialect", "-w"),
    "yaml": ("yaml", "YamlDialect", "-w"),
    "html": ("html", "HtmlDialect", "-w"),
}
NAMES = tuple(_WHERE)
DEFAULT = "canonical"  # chatpipe's own: what is written when nothing else can be
_LOADED: dict[str, Dialect] = {}


def get_dialect(name: str) -> Dialect:
    """The dialect of this name (one instance per process)."""
    dialect = _LOADED.get(name)
    if dialect is not None:
        return dialect
    where = _WHERE.get(name) if isinstance(name, str) else None
    if where is None:
        raise UsageError(f"unknown dialect {name!r}", hint="choose from " + ", ".join(NAMES))
    module, cls, _ = where
    dialect = _LOADED[name] = getattr(import_module(f"{__package__}.{module}"), cls)()
    return dialect


def dialects() -> Iterator[Dialect]:
    """Every dialect in detection order (detection needs them all)."""
    return map(get_dialect, NAMES)


def readable() -> list[str]:
    """The names of the dialects ``--from`` takes (none imported)."""
    return [name for name, (_, _, flags) in _WHERE.items() if flags[0] == "r"]


def writable() -> list[str]:
    """The names of the dialects ``--to`` takes (none imported)."""
    return [name for name, (_, _, flags) in _WHERE.items() if flags[1] == "w"]


def record_dialects() -> list[str]:
    """The writable dialects whose output is records (not a document for people)."""
    return [d.name for d in map(get_dialect, writable()) if not d.document and not d.pages]


def extras_keys() -> dict[str, str]:
    """The keys of additional_kwargs under which readers keep the rest of their records
    (``Dialect.extras_key``), and whose they are."""
    return {d.extras_key: d.name for d in dialects() if d.extras_key is not None}


def default_dialect() -> Dialect:
    """The dialect written when none is named and the input's cannot be: chatpipe's own."""
    return get_dialect(DEFAULT)


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


def docs_table() -> str:
    """docs/formats.md's table of dialects, made from what each dialect declares (its
    name, what it is, its example fixture); ``python -m chatpipe.cli.docs --dialects
    docs/formats.md`` puts it in the page, and tests/test_dialects.py keeps it so."""
    lines = [
        "| dialect | read | written | what it is | example |",
        "|---|---|---|---|---|",
    ]
    for dialect in dialects():
        example = f"[{dialect.example}](../fixtures/{dialect.example})" if dialect.example else ""
        read = "`--from`" if dialect.readable else ""
        written = "`--to`" if dialect.writable else ""
        lines.append(
            f"| `{dialect.name}` | {read} | {written} | {dialect.description} | {example} |"
        )
    return "\n".join(lines) + "\n"
