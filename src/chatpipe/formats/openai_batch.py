"""OpenAI Batch API files: input lines ``{custom_id, method, url, body}`` (a Chat
Completions or Responses request) and output lines ``{id, custom_id, response:
{status_code, request_id, body}, error}``; written with ``--endpoint chat|responses``."""

from __future__ import annotations

from typing import Any

from ..errors import DataError, Location, UsageError
from ..model import Conversation
from .batch import REQUESTS, RESULTS, BatchDialect, not_chat
from .openai import OpenAIDialect, is_openai_response
from .openai_responses import ResponsesDialect, is_responses_response
from .openai_responses_items import conversation_from_response
from .openai_responses_writer import REQUEST_FIELDS as RESPONSES_FIELDS
from .openai_responses_writer import write_request

ENDPOINTS = {"chat": "/v1/chat/completions", "responses": "/v1/responses"}
# what a Chat Completions request body holds besides its messages and model
CHAT_FIELDS = frozenset(
    (
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "functions",
        "function_call",
        "temperature",
        "top_p",
        "max_tokens",
        "max_completion_tokens",
        "response_format",
        "stop",
        "seed",
        "n",
        "presence_penalty",
        "frequency_penalty",
        "logit_bias",
        "logprobs",
        "top_logprobs",
        "user",
        "metadata",
        "reasoning_effort",
        "verbosity",
        "store",
        "modalities",
        "audio",
        "prediction",
        "service_tier",
        "web_search_options",
        "prompt_cache_key",
        "safety_identifier",
    )
)


def is_request_line(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("custom_id"), str)
        and isinstance(value.get("body"), dict)
        and isinstance(value.get("url"), str)
    )


def is_result_line(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("custom_id"), str)
        and "response" in value
        and "error" in value
        and (value["response"] is None or isinstance(value["response"], dict))
    )


def _failure(value: dict[str, Any]) -> str | None:
    """What went wrong with a result, in a line; None when it holds an answer."""
    error, response = value.get("error"), value.get("response")
    if isinstance(error, dict):
        return ": ".join(str(error[k]) for k in ("code", "message") if error.get(k))
    if error:
        return str(error)
    status = response.get("status_code") if isinstance(response, dict) else None
    if status == 200:
        return None
    body = response.get("body") if isinstance(response, dict) else None
    said = body.get("error") if isinstance(body, dict) else None
    message = said.get("message") if isinstance(said, dict) else None
    return f"HTTP {status}" + (f": {message}" if message else "")


class OpenAIBatchDialect(BatchDialect):
    name = "openai-batch"
    description = "OpenAI Batch API input {custom_id, method, url, body} and output lines"
    example = "openai_batch__litellm_chat_input.jsonl"
    optional = ("endpoint", "max_tokens")
    line_keys = frozenset(("custom_id", "method", "url", "body", "id", "response", "error"))

    def is_conversation(self, value: Any) -> bool:
        return is_request_line(value) or is_result_line(value)

    def role(self, value: Any) -> str | None:
        if is_request_line(value):
            return REQUESTS
        return RESULTS if is_result_line(value) else None

    def configured(self, **settings: Any) -> OpenAIBatchDialect:
        endpoint = settings.get("endpoint") or "chat"
        if endpoint not in ENDPOINTS:
            raise UsageError(f"--endpoint must be chat or responses, got {endpoint!r}")
        made = super().configured(**settings)
        made.settings = {**settings, "endpoint": endpoint}
        made.checked_as = "openai-responses" if endpoint == "responses" else "openai"
        return made

    checked_as = "openai"  # whose loss checks the requests' messages go through

    def read_request(self, value: dict[str, Any], location: Location) -> Conversation:
        body, url = value["body"], value["url"]
        if url.endswith("/responses"):
            read = ResponsesDialect().read_conversation(body, location)
        elif not url.endswith("/chat/completions"):  # embeddings, moderations...: no chat
            raise not_chat(f"url {url}", location)
        elif isinstance(body.get("messages"), list):
            read = OpenAIDialect().read_conversation(body, location)
        else:
            raise DataError(
                'the request\'s body has no "messages" list',
                location,
                hint=f"a {url} request holds its conversation in body.messages",
            )
        envelope = {k: v for k, v in value.items() if k != "body"}
        meta = {**envelope, **{k: v for k, v in read.meta.items() if k != "messages"}}
        return Conversation(read.messages, meta, location)

    def read_result(self, value: dict[str, Any], location: Location) -> Conversation:
        failure = _failure(value)
        response = value.get("response")
        body = response.get("body") if isinstance(response, dict) else None
        messages: list[Any] = []
        if failure is None and is_openai_response(body):
            read = OpenAIDialect().read_conversation(body, location)
            messages, body = list(read.messages), read.meta
        elif failure is None and is_responses_response(body):
            read = conversation_from_response(body, location)
            messages, body = list(read.messages), read.meta
        elif failure is None:
            raise not_chat("its body is neither a chat completion nor a response", location)
        meta = {k: v for k, v in value.items() if k not in ("response",)}
        if isinstance(response, dict):
            meta["response"] = {**response, "body": body}
        else:
            meta["response"] = response
        meta = {k: meta[k] for k in value if k in meta}  # in the line's order
        if failure is not None:
            meta["batch_error"] = failure
        return Conversation(messages, meta, location)

    def is_result(self, meta: dict[str, Any]) -> bool:
        return "url" not in meta and ("response" in meta or "error" in meta)

    def own_settings(self, meta: dict[str, Any]) -> dict[str, Any]:
        url = meta.get("url")
        responses = isinstance(url, str) and url.endswith("/responses")
        return {"model": meta.get("model"), "endpoint": "responses" if responses else "chat"}

    def write_result(self, conversation: Conversation) -> dict[str, Any]:
        """A result line as it was read, its answer written back from the messages."""
        line = {k: v for k, v in conversation.meta.items() if k != "batch_error"}
        response, messages = line.get("response"), list(conversation.messages)
        if not messages or not isinstance(response, dict):
            return line  # (a failure: its line holds no answer)
        body = dict(response.get("body") or {})
        if body.get("object") == "response":
            body["output"] = write_request(messages)["input"]
        else:
            body = _with_choice(body, messages)
        line["response"] = {**response, "body": body}
        return line

    def request(
        self, custom_id: str, conversation: Conversation, number: int, settings: dict[str, Any]
    ) -> dict[str, Any]:
        responses = settings["endpoint"] == "responses"
        fields = self.body_fields(
            conversation.meta, RESPONSES_FIELDS if responses else CHAT_FIELDS, number
        )
        if responses:
            body = write_request(conversation.messages, fields)
            body = {"model": settings["model"], **{k: v for k, v in body.items() if k != "model"}}
            if settings.get("max_tokens") is not None:
                body["max_output_tokens"] = settings["max_tokens"]
        else:
            chat = OpenAIDialect()
            messages = list(chat.write_messages(conversation.messages))
            body = {"model": settings["model"], "messages": messages}
            body.update(chat.record_meta({k: v for k, v in fields.items() if k != "model"}))
            if settings.get("max_tokens") is not None:
                body["max_tokens"] = settings["max_tokens"]
        url = ENDPOINTS[settings["endpoint"]]
        return {"custom_id": custom_id, "method": "POST", "url": url, "body": body}


def _with_choice(body: dict[str, Any], messages: list[Any]) -> dict[str, Any]:
    """A chat completion's body with its first choice made again from its message (what
    the reader took out of it: its fields in the message's response_metadata)."""
    [written, *_] = OpenAIDialect().write_messages(messages[-1:])
    said = messages[-1].response_metadata
    choice = {"index": said.get("index", 0), "message": written}
    choice.update({k: v for k, v in said.items() if k not in ("index", "model_name")})
    choices = [choice, *(body.get("choices") or [])]
    out: dict[str, Any] = {}
    for key, value in body.items():
        if key != "choices":
            out[key] = value
        if key == "model":  # where a completion has its choices
            out["choices"] = choices
    out.setdefault("choices", choices)
    return out
