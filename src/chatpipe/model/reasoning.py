"""Reasoning that readers keep as a message's field rather than as content blocks: the
``reasoning_content`` of DeepSeek, vLLM and Ollama's OpenAI endpoint, OpenRouter's
``reasoning`` and ``reasoning_details``; what writers and transcripts take it from."""

from __future__ import annotations

from typing import Any

FIELDS = ("reasoning_content", "reasoning", "reasoning_details")


def field_reasoning(message: Any) -> str:
    """The text of a message's reasoning fields (the first that holds any), or ""."""
    kept = getattr(message, "additional_kwargs", None) or {}
    for key in FIELDS:
        value = kept.get(key)
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, list):  # OpenRouter's details: texts and summaries
            texts = [
                d.get("text") or d.get("summary")
                for d in value
                if isinstance(d, dict) and isinstance(d.get("text") or d.get("summary"), str)
            ]
            if any(t.strip() for t in texts):
                return "\n\n".join(texts)
    return ""


def has_reasoning_blocks(message: Any) -> bool:
    content = getattr(message, "content", None)
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") in ("reasoning", "thinking") for b in content
    )


def field_blocks(kwargs: dict[str, Any]) -> list[dict[str, Any]]:
    """A turn's reasoning fields as reasoning blocks, for the writers to route as any."""
    found = [
        {"type": "reasoning", "reasoning": kwargs[k]}
        for k in FIELDS[:2]
        if isinstance(kwargs.get(k), str) and kwargs[k]
    ]
    details = kwargs.get("reasoning_details")
    for item in details if isinstance(details, list) else ():
        text = (item.get("text") or item.get("summary")) if isinstance(item, dict) else None
        if isinstance(text, str) and text:
            found.append({"type": "reasoning", "reasoning": text})
    return found


# the API whose opaque token a reasoning block carries, by where its reader keeps it:
# Anthropic's thinking signature (Bedrock's Claude signs the same way), Gemini's thought
# signature, the Responses API's encrypted content
ANTHROPIC, GEMINI, OPENAI = "anthropic", "gemini", "openai"
_SIGNED = (("signature", ANTHROPIC), ("thought_signature", GEMINI), ("encrypted_content", OPENAI))


def signed_by(block: Any) -> str | None:
    """Which API signed a reasoning block (its token only that API takes back), or None."""
    if not isinstance(block, dict):
        return None
    if block.get("type") == "thinking" and block.get("signature"):
        return ANTHROPIC
    extras = block.get("extras")
    if block.get("type") == "reasoning" and isinstance(extras, dict):
        for key, api in _SIGNED:
            if extras.get(key):
                return api
    return None
