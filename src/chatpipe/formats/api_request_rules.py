"""Each API's requests as chatpipe checks them (``validate --as NAME``, the rule sets the
dialects declare through ``record_rules``), from the tables the writers write by: Chat
Completions requests and fine-tuning rows, Responses requests, Anthropic Messages, Gemini
``generateContent`` bodies, and the two batch formats (formats/api_rules.py has the
walking of messages and parts they share)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import kind_of
from .api_rules import Checking, RequestRules, check_messages, check_parts

# -- each API ------------------------------------------------------------------------------


def chat(finetune: bool = False) -> RequestRules:
    """Chat Completions requests (``openai-chat``) or fine-tuning rows (``openai-finetune``):
    a record without ``messages`` is one message of a log."""
    from .openai_request import PART_KEYS, PARTS, ROLE_KEYS
    from .openai_request_fields import REQUEST_FIELDS, ROW_FIELDS

    roles = dict(ROLE_KEYS)
    if finetune:  # (rows have no developer messages; assistants may carry a weight)
        del roles["developer"]
        roles["assistant"] = roles["assistant"] | {"weight"}
    fields = ROW_FIELDS if finetune else REQUEST_FIELDS

    def check(checking: Checking, record: dict) -> None:
        if "messages" not in record:
            check_messages(checking, [record], "", roles, _parts(PARTS), PART_KEYS)
            return
        checking.keys(record, fields, "", "request")
        messages = record["messages"]
        check_messages(checking, messages, "messages", roles, _parts(PARTS), PART_KEYS)
        if finetune and isinstance(messages, list):
            _weights_and_turns(checking, messages)

    return RequestRules("openai-finetune" if finetune else "openai-chat", check)


def _parts(table: dict[str, frozenset[str]]) -> Callable[[str], frozenset[str]]:
    text = frozenset(("text",))
    return lambda role: table.get(role, text)


def _weights_and_turns(checking: Checking, messages: list) -> None:
    if not messages:
        checking.add("empty_request", "messages", "no messages", "a row needs at least one")
    for i, message in enumerate(messages):
        if isinstance(message, dict) and message.get("weight", 0) not in (0, 1):
            checking.add(
                "wrong_type",
                f"messages[{i}].weight",
                "a weight other than 0 or 1",
                "weight an assistant message 0 or 1",
                i,
            )


def anthropic(batch: bool = False) -> RequestRules:
    """Messages API requests (``anthropic``), or Message Batches' requests."""
    from .anthropic_writer import BLOCK_KEYS, REQUEST_FIELDS, SERVER_RESULTS

    keys = {**BLOCK_KEYS, **{k: None for k in SERVER_RESULTS}}
    roles = {r: frozenset(("role", "content")) for r in ("user", "assistant")}

    def parts(role: str) -> frozenset[str]:
        return frozenset(keys) - ({"thinking", "redacted_thinking"} if role == "user" else set())

    def check(checking: Checking, record: dict) -> None:
        checking.keys(record, (*REQUEST_FIELDS, "messages"), "", "request")
        for k, kinds in REQUEST_FIELDS.items():
            if record.get(k) is not None:
                checking.kind(record[k], kinds, k, k)
        check_messages(checking, record.get("messages"), "messages", roles, parts, keys)
        messages = record.get("messages") if isinstance(record.get("messages"), list) else []
        for i, message in enumerate(messages):
            content = message.get("content") if isinstance(message, dict) else None
            last_answer = i == len(messages) - 1 and message.get("role") == "assistant"
            if content in ("", []) and not last_answer:  # (an answer's prefill may be empty)
                hint = "leave the turn out: convert --to anthropic does, and says so"
                checking.add("empty_content", f"messages[{i}].content", "an empty turn", hint, i)
            for j, block in enumerate(content if isinstance(content, list) else ()):
                if isinstance(block, dict) and block.get("type") == "thinking":
                    checking.needs(block, ("signature",), f"messages[{i}].content[{j}]", i)
                if (
                    isinstance(block, dict)
                    and block.get("type") == "text"
                    and not block.get("text")
                ):
                    hint = "leave the block out: the API refuses an empty text block"
                    at = f"messages[{i}].content[{j}]"
                    checking.add("empty_content", at, "an empty text block", hint, i)

    if not batch:
        return RequestRules("anthropic", check)

    def check_batch(checking: Checking, record: dict) -> None:
        checking.keys(record, ("custom_id", "params"), "", "request")
        checking.needs(record, ("custom_id", "params"), "")
        params = record.get("params")
        if "params" in record and checking.kind(params, dict, "params", "params"):
            checking.needs(params, ("model", "max_tokens", "messages"), "params")
            inner = Checking(checking.location, "params.")
            check(inner, params)
            checking.found.extend(inner.found)

    return RequestRules("anthropic-batch", check_batch)


def gemini() -> RequestRules:
    """``generateContent`` bodies: contents of user and model turns, parts of Gemini's
    fields (camelCase or snake_case, as the REST API takes either)."""
    from .gemini_writer import PART_KEYS, REQUEST_FIELDS, camel

    def check(checking: Checking, record: dict) -> None:
        checking.keys(
            record,
            {
                *REQUEST_FIELDS,
                "system_instruction",
                "generation_config",
                "tool_config",
                "safety_settings",
                "cached_content",
            },
            "",
            "request",
        )
        contents = record.get("contents")
        if not checking.kind(contents, list, "contents", "contents"):
            return
        for i, content in enumerate(contents):
            at = f"contents[{i}]"
            if not isinstance(content, dict):
                checking.add(
                    "data_type",
                    at,
                    "a content must be an object {role, parts}",
                    "write {role, parts}",
                    i,
                )
                continue
            checking.keys(content, ("role", "parts"), at, "message", i)
            if content.get("role", "user") not in ("user", "model"):
                checking.add(
                    "unknown_role", at, f"role {content.get('role')!r}", "use user or model", i
                )
            if not content.get("parts"):
                hint = "leave the turn out: convert --to gemini does, and says so"
                checking.add("empty_content", f"{at}.parts", "a turn of no parts", hint, i)
            for j, part in enumerate(content.get("parts") or ()):
                if isinstance(part, dict):
                    left = [k for k in part if camel(k) not in PART_KEYS]
                    if left:
                        text = f"unknown key(s) {', '.join(left)}"
                        checking.add(
                            "unknown_part_field",
                            f"{at}.parts[{j}]",
                            text,
                            "a part holds Gemini's fields only",
                            i,
                        )

    return RequestRules("gemini", check)


def responses() -> RequestRules:
    """Responses API requests: ``input`` a string or items, each with its type's keys."""
    from .openai_responses_parts import BUILT_IN_ITEMS, PART_KEYS
    from .openai_responses_writer import ITEM_KEYS, REQUEST_FIELDS

    return RequestRules(
        "openai-responses",
        lambda c, r: _responses(c, r, "", REQUEST_FIELDS, ITEM_KEYS, BUILT_IN_ITEMS, PART_KEYS),
    )


_EASY = frozenset(("type", "role", "content", "phase"))
_INPUT_PARTS = frozenset(("input_text", "input_image", "input_file"))


def _responses(
    checking: Checking,
    record: dict,
    path: str,
    fields: Any,
    items: Any,
    built_in: Any,
    part_keys: Any,
) -> None:
    checking.keys(record, (*fields, "input"), path, "request")
    given = record.get("input")
    if isinstance(given, str) or given is None:
        return
    if not checking.kind(given, list, f"{path}input", "input"):
        return
    for i, item in enumerate(given):
        at = f"{path}input[{i}]"
        if not isinstance(item, dict):
            checking.add(
                "data_type",
                at,
                f"an item must be an object, got {kind_of(item)}",
                "write items as objects",
                i,
            )
            continue
        kind = item.get("type", "message")
        if kind == "message":
            output = "id" in item or "status" in item
            role = item.get("role")
            if role not in ("user", "assistant", "system", "developer"):
                checking.add(
                    "unknown_role",
                    at,
                    f"role {role!r}",
                    "use user, assistant, system or developer",
                    i,
                )
            checking.keys(item, _EASY | ({"id", "status"} if output else set()), at, "item", i)
            if output and role == "assistant":
                checking.needs(item, ("id", "status"), at, i)
            taken = (
                frozenset(("output_text", "refusal"))
                if role == "assistant" and output
                else _INPUT_PARTS
            )
            if isinstance(item.get("content"), list):
                check_parts(checking, item["content"], f"{at}.content", taken, part_keys, i)
        elif kind in items:
            checking.keys(item, items[kind], at, "item", i)
            if kind == "reasoning":
                checking.needs(item, ("id", "summary"), at, i)
        elif kind in built_in:
            needed, more = built_in[kind][0].split(), built_in[kind][1].split()
            checking.keys(item, (*needed, *more), at, "item", i)
            checking.needs(item, needed, at, i)
        else:
            checking.add(
                "unknown_item",
                at,
                f"an item of type {kind!r}",
                "the Responses API has no such input item",
                i,
            )


_ENDPOINTS = (
    "/v1/chat/completions",
    "/v1/responses",
    "/v1/embeddings",
    "/v1/completions",
    "/v1/moderations",
)


def openai_batch() -> RequestRules:
    """Batch input lines: ``{custom_id, method: POST, url, body}``, the body checked as a
    whole request of its endpoint (its model asked for)."""
    request, items = chat(), responses()

    def check(checking: Checking, record: dict) -> None:
        checking.keys(record, ("custom_id", "method", "url", "body"), "", "request")
        checking.needs(record, ("custom_id", "method", "url", "body"), "")
        if record.get("method", "POST") != "POST":
            checking.add(
                "wrong_type", "method", f"method {record['method']!r}", "batch requests are POST"
            )
        url, body = record.get("url"), record.get("body")
        if "url" in record and url not in _ENDPOINTS:
            checking.add("wrong_type", "url", f"url {url!r}", "one of " + ", ".join(_ENDPOINTS))
        if not isinstance(body, dict):
            if "body" in record:  # (one missing is said above)
                checking.kind(body, dict, "body", "body")
            return
        inner = Checking(checking.location, "body.")
        if url == "/v1/chat/completions":
            checking.needs(body, ("model", "messages"), "body")
            request.check(inner, body)
        elif url == "/v1/responses":
            items.check(inner, body)
        checking.found.extend(inner.found)

    return RequestRules("openai-batch", check)
