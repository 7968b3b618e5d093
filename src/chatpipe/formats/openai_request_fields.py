"""A conversation's fields as Chat Completions takes them: the fields of a request (the
``openai`` package's ``CompletionCreateParams``, 3.57.0), those a ``--to openai`` row holds
(what a fine-tuning row takes too), and what an openai-batch's request body holds; tools
and tool choices of other providers said OpenAI's way (openai_request.py writes the
messages)."""

from __future__ import annotations

from typing import Any

from .api import Writing, names

# the keys of a Chat Completions request (CompletionCreateParams), and those of them a
# --to openai row holds: what a fine-tuning row takes too (the sender adds the rest)
_REQUEST_KEYS = """
    messages model audio frequency_penalty function_call functions logit_bias logprobs
    max_completion_tokens max_tokens metadata modalities moderation n parallel_tool_calls
    prediction presence_penalty prompt_cache_key prompt_cache_options
    prompt_cache_retention reasoning_effort response_format safety_identifier seed
    service_tier stop store stream stream_options temperature tool_choice tools
    top_logprobs top_p user verbosity web_search_options"""
REQUEST_FIELDS = frozenset(_REQUEST_KEYS.split())
ROW_FIELDS = frozenset(("messages", "tools", "parallel_tool_calls", "functions"))
ROW_SETTINGS = (
    "request settings (a row holds messages and tools, as a fine-tuning row; the sender "
    "adds the model and settings, and --to openai-batch --model M writes whole requests)"
)


def row_fields(meta: dict[str, Any], writing: Writing) -> dict[str, Any]:
    """A conversation's fields as a --to openai row holds them: its tools (as OpenAI
    declares them), ``parallel_tool_calls`` and ``functions``; request settings and the
    conversation's own fields left out, each kind said."""
    from .tool_specs import api_tools

    settings = [k for k, v in meta.items() if k in REQUEST_FIELDS - ROW_FIELDS and v is not None]
    if settings:
        writing.left(ROW_SETTINGS, None, names(settings))
    kept = writing.fields(meta, lambda k: k in ROW_FIELDS or k in REQUEST_FIELDS)
    kept = {k: v for k, v in kept.items() if k in ROW_FIELDS}
    if kept.get("tools") is not None:
        kept["tools"] = api_tools(kept["tools"], "openai", writing)
    return {k: v for k, v in kept.items() if v is not None or k == "messages"}


# what each field of a request holds, as JSON (another provider's field of the same name
# and another kind of value is said, not written)
_KINDS: dict[str, type | tuple[type, ...]] = {
    "temperature": (int, float),
    "top_p": (int, float),
    "max_tokens": int,
    "max_completion_tokens": int,
    "n": int,
    "seed": int,
    "stop": (str, list),
    "metadata": dict,
    "user": str,
    "response_format": dict,
    "reasoning_effort": str,
    "parallel_tool_calls": bool,
    "logprobs": bool,
    "top_logprobs": int,
    "presence_penalty": (int, float),
    "frequency_penalty": (int, float),
    "logit_bias": dict,
    "store": bool,
    "modalities": list,
    "audio": dict,
    "prediction": dict,
    "web_search_options": dict,
    "verbosity": str,
    "service_tier": str,
    "tools": list,
    "stream": bool,
}


def chat_fields(meta: dict[str, Any], writing: Writing) -> dict[str, Any]:
    """A conversation's fields as a Chat Completions request's body holds them (an
    openai-batch's): its settings and tools in OpenAI's form; with ``keep_extras``, the
    fields given, tools translated."""
    from .api import SETTING_VALUES, renamed
    from .tool_specs import api_choice, api_tools, for_target, parsed

    if writing.keep_extras:
        if meta.get("tools") is None:
            return meta
        return {**meta, "tools": for_target(parsed(meta["tools"]), "openai")[0]}
    meta = renamed(meta, {"max_output_tokens": "max_completion_tokens", "stop_sequences": "stop"})
    kept = writing.fields(meta, REQUEST_FIELDS)
    if kept.get("tools") is not None:
        kept["tools"] = api_tools(kept["tools"], "openai", writing)
    if kept.get("tool_choice") is not None:
        kept["tool_choice"] = api_choice(kept["tool_choice"], "openai")
    wrong = [
        k
        for k, v in kept.items()
        if (v is None and meta.get(k) is not None and k != "tools")
        or (v is not None and k in _KINDS and not isinstance(v, _KINDS[k]))
    ]
    if wrong:
        writing.left(SETTING_VALUES, None, names(wrong))
    return {k: v for k, v in kept.items() if k not in wrong and v is not None}
