"""The providers' own definitions of their requests, from their SDKs, as ``validate --as``
runs them beside chatpipe's rules (formats/api_request_rules.py) where the SDK is installed
(``pip install 'chatpipe[schemas]'``), and as tests/provider_schemas.py runs them on every
fixture converted to every API target. Each validator takes one record (a dict) and returns
its problems as ``(path in the document, message)`` pairs, none when the provider's own
definition accepts it. The versions the tests pin are named below; another version checks
by its own types.

``openai_chat``
    the ``openai`` package (3.57.0): ``openai.types.chat.completion_create_params.
    CompletionCreateParamsNonStreaming``, the Chat Completions request body. A record
    without ``messages`` (a line of a message-per-line log) is one
    ``ChatCompletionMessageParam``.
``openai_finetune``
    OpenAI's chat fine-tuning row, ``FineTuneChatRequestInput`` of OpenAI's OpenAPI
    document (github.com/openai/openai-openapi, openapi.yaml as of 2025-04-29; later
    revisions keep only ``FineTuneChatCompletionRequestAssistantMessage``), composed here of
    the ``openai`` package's own TypedDicts exactly as that component composes its
    schemas: ``messages`` (at least one) of system, user, tool and function messages and the
    assistant message with ``weight`` (0 or 1), ``tools``, ``parallel_tool_calls`` and
    ``functions``. Developer messages are not in that list. A line of a message-per-line
    log is checked as one of those messages.
``openai_responses``
    ``openai.types.responses.response_create_params.ResponseCreateParamsNonStreaming``.
``openai_batch``
    a batch input line, ``BatchRequestInput`` of the same OpenAPI document (``custom_id``,
    ``method`` POST, ``url``, ``body``), its ``url`` one of the endpoints the ``openai``
    package's ``BatchCreateParams`` names; its ``body`` is checked as the request of that
    endpoint (the two above), as a whole request: ``model`` asked for where the type asks for
    it (Chat Completions; a Responses request may name a stored prompt instead).
``anthropic``, ``anthropic_batch``
    the ``anthropic`` package (2.14.0):
    ``anthropic.types.message_create_params.MessageCreateParamsNonStreaming`` and
    ``anthropic.types.messages.batch_create_params.Request``.
``gemini``
    ``google-genai`` (3.6.1), whose models forbid unknown fields themselves
    (``extra='forbid'``) and take the REST API's camelCase names: the ``generateContent``
    body holds the keys the SDK's own request builders write (``models.
    _GenerateContentParameters_to_mldev`` and ``_to_vertex``, ``batches.
    _InlinedRequest_to_mldev``): ``contents`` (``types.Content``), ``systemInstruction``
    (``Content``), ``tools`` (``types.Tool``), ``toolConfig``, ``safetySettings``,
    ``cachedContent``, ``labels``, ``generationConfig`` (``types.GenerationConfig``) and
    ``model`` (which the batch API's inlined requests carry). One rule is not a type of the
    SDK's but its documentation: ``Content.role`` "Must be either 'user' or 'model'" (the
    field's description, which a test checks is still there).
``bedrock_converse``
    botocore (1.43.11), with no pydantic: bedrock_check.py.
``ollama_chat``
    the ``ollama`` package (0.6.3): ``ollama._types.ChatRequest``, and each message as the
    client checks it (``_copy_messages``: ``Message``, images wrapped as ``Image``). Its
    ``Message.role`` is any string; the roles are those of Ollama's API documentation
    (docs/api.md: system, user, assistant, tool). Ollama's server ignores unknown fields
    and its client drops them without a word, so a problem here is a field lost on the
    way, not a request refused. Its tool model takes a function's ``parameters`` as
    ``type``, ``$defs``, ``items``, ``required`` and ``properties`` only, each property its
    ``type``, ``items``, ``description`` and ``enum``: JSON Schema's other keys
    (``additionalProperties``, ``default``, ``anyOf``...) are such fields, so ``--to
    ollama`` writes the schemas as this model takes them and says the keys it leaves out
    (formats/ollama_writer.py); the faithful superset keeps them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any, Literal

from .bedrock_check import bedrock_converse
from .strict_types import Problem, StrictValidator, _nested, _without, strict_validator

# --- OpenAI -------------------------------------------------------------------------------


@cache
def _openai() -> dict[str, StrictValidator]:
    from openai.types.chat import ChatCompletionMessageParam, completion_create_params

    return {
        "request": strict_validator(completion_create_params.CompletionCreateParamsNonStreaming),
        "message": strict_validator(ChatCompletionMessageParam),
        "responses": strict_validator(_responses_params()),
        "finetune": strict_validator(_finetune_row()[0]),
        "finetune message": strict_validator(_finetune_row()[1]),
    }


def _responses_params() -> Any:
    from openai.types.responses import response_create_params

    return response_create_params.ResponseCreateParamsNonStreaming


@cache
def _finetune_row() -> tuple[Any, Any]:
    """``FineTuneChatRequestInput`` (OpenAI's OpenAPI document, 2025-04-29) of the
    ``openai`` package's TypedDicts (see the module's docstring), and its messages."""
    from typing import Annotated

    from annotated_types import MinLen
    from openai.types.chat import (
        ChatCompletionAssistantMessageParam,
        ChatCompletionFunctionMessageParam,
        ChatCompletionFunctionToolParam,
        ChatCompletionSystemMessageParam,
        ChatCompletionToolMessageParam,
        ChatCompletionUserMessageParam,
    )
    from openai.types.chat.completion_create_params import Function
    from typing_extensions import TypedDict

    class FineTuneChatCompletionRequestAssistantMessage(
        ChatCompletionAssistantMessageParam, total=False
    ):
        weight: Literal[0, 1]

    # (the functional form: its types are values, not names to resolve later)
    message = (
        ChatCompletionSystemMessageParam
        | ChatCompletionUserMessageParam
        | FineTuneChatCompletionRequestAssistantMessage
        | ChatCompletionToolMessageParam
        | ChatCompletionFunctionMessageParam
    )
    FineTuneChatRequestInput = TypedDict(  # noqa: UP013 (values, not names to resolve)
        "FineTuneChatRequestInput",
        {
            "messages": Annotated[list[message], MinLen(1)],
            "tools": list[ChatCompletionFunctionToolParam],
            "parallel_tool_calls": bool,
            "functions": Annotated[list[Function], MinLen(1)],
        },
        total=False,
    )
    return FineTuneChatRequestInput, message


def openai_chat(record: dict) -> list[Problem]:
    """A Chat Completions request (``model`` not asked for), or one message of a log."""
    if "messages" not in record:
        return _openai()["message"](record)
    return _openai()["request"](_without(record, "model", "gpt-4.1-mini"))


def openai_finetune(record: dict) -> list[Problem]:
    """A line of a chat fine-tuning file, or one message of a log (as a message of one)."""
    if "messages" not in record:
        return _openai()["finetune message"](record)
    return _openai()["finetune"](record)


def openai_responses(record: dict) -> list[Problem]:
    """A Responses API request (``model`` not asked for)."""
    return _openai()["responses"](_without(record, "model", "gpt-4.1-mini"))


@cache
def _batch_line() -> StrictValidator:
    from typing import Any as AnyValue

    from openai.types import batch_create_params
    from typing_extensions import TypedDict, get_type_hints

    endpoint = get_type_hints(batch_create_params.BatchCreateParams)["endpoint"]

    BatchRequestInput = TypedDict(  # noqa: UP013 (values, not names to resolve)
        "BatchRequestInput",
        {
            "custom_id": str,
            "method": Literal["POST"],
            "url": endpoint,
            "body": dict[str, AnyValue],
        },
    )
    return strict_validator(BatchRequestInput)


def openai_batch(record: dict) -> list[Problem]:
    """A line of a batch input file; its body as the request of its ``url``."""
    problems = _batch_line()(record)
    body, url = record.get("body"), record.get("url")
    if isinstance(body, dict):
        if url == "/v1/chat/completions":
            problems += _nested(_openai()["request"](body), "body")
        elif url == "/v1/responses":
            problems += _nested(_openai()["responses"](body), "body")
    return problems


# --- Anthropic ----------------------------------------------------------------------------


@cache
def _anthropic() -> dict[str, StrictValidator]:
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
    from anthropic.types.messages.batch_create_params import Request

    return {
        "request": strict_validator(MessageCreateParamsNonStreaming),
        "batch": strict_validator(Request),
    }


def anthropic(record: dict) -> list[Problem]:
    """A Messages API request (``model`` and ``max_tokens`` not asked for)."""
    record = _without(_without(record, "model", "claude-sonnet-4-5"), "max_tokens", 1024)
    return _anthropic()["request"](record)


def anthropic_batch(record: dict) -> list[Problem]:
    """A request of a Message Batch: ``custom_id`` and whole ``params``."""
    return _anthropic()["batch"](record)


# --- Gemini -------------------------------------------------------------------------------

GEMINI_ROLES = ("user", "model")


@cache
def gemini_body() -> Any:
    """The ``generateContent`` body as a model of google-genai's types."""

    from google.genai import _common, types

    class GenerateContentRequest(_common.BaseModel):
        """The body of ``models.generateContent``: the keys the SDK's request builders write
        (see the module's docstring), each of the SDK's type."""

        model: str | None = None
        contents: list[types.Content]
        system_instruction: types.Content | None = None
        tools: list[types.Tool] | None = None
        tool_config: types.ToolConfig | None = None
        safety_settings: list[types.SafetySetting] | None = None
        cached_content: str | None = None
        labels: dict[str, str] | None = None
        generation_config: types.GenerationConfig | None = None

    return GenerateContentRequest


@cache
def _gemini() -> StrictValidator:
    return strict_validator(gemini_body())


def gemini(record: dict) -> list[Problem]:
    """A ``generateContent`` request body."""
    problems = _gemini()(record)
    for at, content in _gemini_contents(record):
        role = content.get("role")
        if role is not None and role not in GEMINI_ROLES:
            problems.append(
                (f"{at}.role", f"Must be either 'user' or 'model' (got {json.dumps(role)})")
            )
    return problems


def _gemini_contents(record: dict) -> Iterable[tuple[str, dict]]:
    contents = record.get("contents")
    if isinstance(contents, list):
        for i, content in enumerate(contents):
            if isinstance(content, dict):
                yield f"contents[{i}]", content
    for key in ("systemInstruction", "system_instruction"):
        if isinstance(record.get(key), dict):
            yield key, record[key]


# --- Ollama -------------------------------------------------------------------------------

OLLAMA_ROLES = ("system", "user", "assistant", "tool")


@cache
def _ollama() -> dict[str, StrictValidator]:
    from ollama._types import ChatRequest, Message

    return {"request": strict_validator(ChatRequest), "message": strict_validator(Message)}


def ollama_chat(record: dict) -> list[Problem]:
    """An ``/api/chat`` request (``model`` not asked for); each message as the client
    checks it."""
    checks = _ollama()
    problems = checks["request"](_without(record, "model", "llama3.2"))
    messages = record.get("messages")
    for i, message in enumerate(messages if isinstance(messages, list) else ()):
        if not isinstance(message, dict):
            continue
        # the client's _copy_messages: images become Image(value=...), empty values go
        copied = {
            k: [{"value": image} if isinstance(image, str) else image for image in v]
            if k == "images" and isinstance(v, list)
            else v
            for k, v in message.items()
            if v
        }
        found = checks["message"](copied)
        found = [(re.sub(r"^(images\[\d+\])\.value$", r"\1", p), m) for p, m in found]
        problems += _nested(found, f"messages[{i}]")
        role = message.get("role")
        if isinstance(role, str) and role not in OLLAMA_ROLES:
            problems.append(
                (
                    f"messages[{i}].role",
                    "the role of the message, either system, user, "
                    f"assistant, or tool (got {json.dumps(role)})",
                )
            )
    return problems


# --- what validate --as runs ---------------------------------------------------------------

# each check, with the package whose types it is
CHECKS: dict[str, tuple[str, Callable[[dict], list[Problem]]]] = {
    "openai-chat": ("openai", openai_chat),
    "openai-finetune": ("openai", openai_finetune),
    "openai-responses": ("openai", openai_responses),
    "openai-batch": ("openai", openai_batch),
    "anthropic": ("anthropic", anthropic),
    "anthropic-batch": ("anthropic", anthropic_batch),
    "gemini": ("google-genai", gemini),
    "bedrock-converse": ("botocore", bedrock_converse),
    "ollama-chat": ("ollama", ollama_chat),
}
# the strictness above (extra="forbid" at validation) is pydantic 2.12's
_PYDANTIC = (2, 12)


def sdk_check(name: str) -> tuple[Callable[[dict], list[Problem]], str] | None:
    """The check ``validate --as NAME`` runs with the provider's SDK, and what it runs
    with ("anthropic 2.14.0"); None where there is none, or its package (or a pydantic
    that validates this strictly) is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    found = CHECKS.get(name)
    if found is None:
        return None
    package, check = found
    try:
        if package != "botocore":
            numbers = tuple(int(n) for n in version("pydantic").split(".")[:2])
            if numbers < _PYDANTIC:
                return None
        return check, f"{package} {version(package)}"
    except (PackageNotFoundError, ValueError):
        return None
