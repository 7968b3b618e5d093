"""Is a record chatpipe wrote one that the provider's API accepts? Each validator here takes
one written record (a dict) and returns its problems as ``(path in the document, message)``
pairs, none when the provider's own definition accepts it (issue #48).

The definitions are the providers', at the versions pinned in pyproject.toml's ``test``
extra, never chatpipe's rules:

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
    the ``anthropic`` package (2.14.0): ``anthropic.types.message_create_params.MessageCreateParamsNonStreaming``
    and ``anthropic.types.messages.batch_create_params.Request``.
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
    botocore (1.43.11): the ``bedrock-runtime`` service model's ``Converse`` input shape,
    with botocore's own ``ParamValidator`` (types, required and unknown members, lengths,
    tagged unions); ParamValidator does not check enums, so the string values of the same
    shapes are also checked against each shape's ``enum`` (role, image format, ...).
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

Why the SDK types and not the OpenAPI document for OpenAI: they are what the SDK itself
sends and are generated from the same specification, they name every key of every message
and part, and pydantic validates them; the OpenAPI document (openapi.yaml of 2026-08-21)
says ``additionalProperties: false`` on 65 of its schemas only (not on the messages: an
unknown key would pass there), and its ``allOf`` compositions make "no other key" hard to
say in JSON Schema. What the SDK types do not carry is the document's ``minItems``: an
empty ``content`` array passes here (the document says at least one part).

Strictness: the SDK types are TypedDicts (OpenAI, Anthropic) or pydantic models, some of
which take unknown keys by their own configuration (Anthropic's response blocks, which its
requests take back; Ollama's). Records are validated as JSON, as they go over the wire
(``validate_json``, strict, and ``extra="forbid"``, which pydantic 2.12 applies to every
model and typed dict at every depth). ``strict_schema`` also rewrites the core schema
built from the types: extra keys forbidden in every typed dict and model, ``Iterable``
fields validated as lists (pydantic checks the items of an ``Iterable`` only when it is
iterated: never, here), and each union whose members all carry a required literal field
(``role``, ``type``) tagged by it, so that an unknown ``type`` is one problem, named, not
one per member. Where a union has no such field (a string or a list of parts; Responses
input items), every member failed and the record is refused either way; the problems
shown are those of the member the value came closest to (``_pick_members``).

Values the caller adds when sending: a record with no ``model`` (chatpipe's ``--to
openai`` rows, a log's messages) is checked with every other key as it is and ``model`` not
asked for; likewise Anthropic's ``max_tokens`` and Bedrock's ``modelId``. The batch
targets' lines are whole requests: there the types ask for them.

Run as a script, ``python tests/provider_schemas.py [FIXTURE...]`` converts the fixtures
(all of them by default) to every API target with ``chatpipe convert --on-error skip`` in
this process and prints, per target, the records validated and accepted and the most
common problems.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any, Literal

Problem = tuple[str, str]  # (path in the document, the definition's message)
Validator = Callable[[dict], list[Problem]]

# a union member's label in an error's location: stripped from the path shown
_MEMBER = "\x00"


# --- strict validation from a pydantic core schema --------------------------------------


def _refs(schema: Any) -> dict[str, dict]:
    """Every schema in ``schema`` that has a ``ref``, by it."""
    found: dict[str, dict] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("ref"), str) and node.get("type") != "definition-ref":
                found[node["ref"]] = node
            for value in node.values():
                walk(value)
        elif isinstance(node, (list, tuple)):
            for value in node:
                walk(value)

    walk(schema)
    return found


def _literal_fields(schema: dict, refs: dict[str, dict]) -> dict[str, list] | None:
    """The required fields of a typed dict or model schema whose values are literals."""
    while schema.get("type") == "definition-ref":
        schema = refs[schema["schema_ref"]]
    if schema.get("type") == "model":
        schema = schema["schema"]
        while schema.get("type") == "definition-ref":
            schema = refs[schema["schema_ref"]]
    if schema.get("type") not in ("typed-dict", "model-fields"):
        return None
    found = {}
    for name, field in schema["fields"].items():
        value = field["schema"]
        required = field.get("required", True) if field["type"] == "typed-dict-field" else True
        if required and value.get("type") == "literal":
            found[name] = list(value["expected"])
    return found


def _tagged(choices: list, refs: dict[str, dict]) -> dict | None:
    """The union of ``choices`` tagged by a required literal field all of them have (members
    sharing a value become a union under it), or None."""
    schemas = [m for c in choices for m in _members(c[0] if isinstance(c, tuple) else c, refs)]
    fields = [_literal_fields(s, refs) for s in schemas]
    if any(f is None for f in fields):
        return None
    common = set.intersection(*(set(f) for f in fields))  # type: ignore[arg-type]
    for key in sorted(common, key=lambda k: (k not in ("type", "role"), k)):
        by_tag: dict[Any, list] = {}
        for schema, found in zip(schemas, fields, strict=True):
            for value in found[key]:  # type: ignore[index]
                by_tag.setdefault(value, []).append(schema)
        return {
            "type": "tagged-union",
            "discriminator": key,
            "choices": {
                tag: members[0] if len(members) == 1 else _labelled(members, refs)
                for tag, members in by_tag.items()
            },
        }
    return None


def _members(schema: dict, refs: dict[str, dict]) -> list[dict]:
    """A union's members, those of the unions among them too (Anthropic's content blocks
    are its request blocks and, as one union, its response blocks)."""
    resolved = schema
    while resolved.get("type") == "definition-ref":
        resolved = refs[resolved["schema_ref"]]
    if resolved.get("type") == "union":
        return [
            m
            for c in resolved["choices"]
            for m in _members(c[0] if isinstance(c, tuple) else c, refs)
        ]
    if resolved.get("type") == "tagged-union":
        return [m for c in resolved["choices"].values() for m in _members(c, refs)]
    return [schema]


def _label(schema: dict, refs: dict[str, dict]) -> str:
    while schema.get("type") == "definition-ref":
        schema = refs[schema["schema_ref"]]
    name = schema.get("cls_name") or getattr(schema.get("cls"), "__name__", None)
    return _MEMBER + str(name or schema.get("ref") or schema.get("type"))


def _labelled(members: list, refs: dict[str, dict]) -> dict:
    """A smart union whose members' labels are marked as such (see ``_pick_members``)."""
    return {
        "type": "union",
        "choices": [(m, _label(m, refs)) for m in members],
    }


def strict_schema(schema: Any) -> Any:
    """``schema`` (a pydantic core schema) with extra keys forbidden in every typed dict and
    model, ``Iterable`` fields (generators) validated as lists, and unions tagged where
    their members carry a required literal field."""
    refs = _refs(schema)

    def go(node: Any) -> Any:
        if isinstance(node, list):
            return [go(v) for v in node]
        if isinstance(node, tuple):
            return tuple(go(v) for v in node)
        if not isinstance(node, dict):
            return node
        node = {k: go(v) for k, v in node.items()}
        kind = node.get("type")
        if kind in ("typed-dict", "model-fields"):
            node["extra_behavior"] = "forbid"
            node.pop("extras_schema", None)
            node.pop("extras_keys_schema", None)
        elif kind == "model":
            node["config"] = {**node.get("config", {}), "extra_fields_behavior": "forbid"}
        elif kind == "generator":
            node = {
                "type": "list",
                **{
                    k: node[k]
                    for k in ("items_schema", "min_length", "max_length", "ref")
                    if k in node
                },
            }
        elif kind == "union":
            node = _tagged(node["choices"], refs) or {
                **node,
                "choices": [
                    (c[0], _MEMBER + c[1].lstrip(_MEMBER))
                    if isinstance(c, tuple)
                    else (c, _label(c, refs))
                    for c in node["choices"]
                ],
            }
        return node

    return go(schema)


def _pick_members(errors: list[tuple[tuple, dict]]) -> list[tuple[tuple, dict]]:
    """Of a smart union's errors, those of the member the value comes closest to: one whose
    errors are inside the value (not "not a list") and the fewest. Every member failed, so
    the value is refused either way; this chooses what to say."""
    done: list[tuple[tuple, dict]] = []
    unions: dict[tuple, list[tuple[tuple, dict]]] = {}
    for loc, error in errors:
        at = next(
            (i for i, s in enumerate(loc) if isinstance(s, str) and s.startswith(_MEMBER)), None
        )
        if at is None:
            done.append((loc, error))
        else:
            unions.setdefault(loc[:at], []).append((loc, error))
    for prefix, found in unions.items():
        at = len(prefix)
        members: dict[str, list[tuple[tuple, dict]]] = {}
        for loc, error in found:
            members.setdefault(loc[at], []).append((loc, error))

        def score(item: tuple[str, list], at: int = at) -> tuple[bool, bool, int]:
            errors = item[1]
            return (
                # not even of the member's kind (a list given for a string)
                any(len(loc) == at + 1 for loc, _ in errors),
                # a member of another type or role than the value's
                any(len(loc) == at + 2 and e["type"] == "literal_error" for loc, e in errors),
                len(errors),
            )

        _, chosen = min(members.items(), key=score)
        done.extend(_pick_members([(loc[:at] + loc[at + 1 :], e) for loc, e in chosen]))
    return done


def _path(record: Any, loc: tuple, tags: set[str]) -> str:
    """The JSON path of ``loc`` in ``record``: the tags of tagged unions (the value of the
    member's ``type``/``role`` field, which pydantic puts in the location) left out."""
    node, out, tagged = record, "", False
    for step in loc:
        if isinstance(node, list) and isinstance(step, int):
            node, out, tagged = node[step] if step < len(node) else None, f"{out}[{step}]", False
            continue
        if (
            isinstance(node, dict)
            and not tagged
            and isinstance(step, str)
            and any(node.get(key) == step for key in tags)
        ):
            tagged = True
            continue
        out = (
            f"{out}.{step}"
            if re.fullmatch(r"[A-Za-z_$][\w$-]*", str(step))
            else (f"{out}[{json.dumps(step)}]")
        )
        node = node.get(step) if isinstance(node, dict) else None
        tagged = False
    return out.lstrip(".") or "(record)"


def _discriminators(schema: Any) -> set[str]:
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "tagged-union":
                found.add(node["discriminator"])
            for v in node.values():
                walk(v)
        elif isinstance(node, (list, tuple)):
            for v in node:
                walk(v)

    walk(schema)
    return found


def _message(error: dict) -> str:
    message = error["msg"]
    if error["type"] in ("literal_error", "enum"):
        message += f" (got {json.dumps(error.get('input'))[:60]})"
    return message


class StrictValidator:
    """A pydantic core schema (``TypeAdapter(T).core_schema``, a model's
    ``__pydantic_core_schema__``), made strict by ``strict_schema``, as a validator."""

    def __init__(self, schema: Any):
        from pydantic_core import SchemaValidator

        self.schema = strict_schema(schema)
        self.validator = SchemaValidator(self.schema)
        self.tags = _discriminators(self.schema)

    def __call__(self, record: Any, prefix: tuple = ()) -> list[Problem]:
        from pydantic_core import ValidationError

        try:
            # extra="forbid" (pydantic 2.12): every model too, at every depth, whatever its
            # own configuration
            self.validator.validate_json(json.dumps(record), strict=True, extra="forbid")
        except ValidationError as exc:
            errors = [(tuple(e["loc"]), e) for e in exc.errors(include_url=False)]
            return [
                (_path(record, loc, self.tags), _message(e)) for loc, e in _pick_members(errors)
            ]
        return []


def strict_validator(kind: Any) -> StrictValidator:
    """A TypedDict or pydantic type, strict at every depth."""
    from pydantic import BaseModel, TypeAdapter

    if isinstance(kind, type) and issubclass(kind, BaseModel):
        kind.model_rebuild()
        return StrictValidator(kind.__pydantic_core_schema__)
    return StrictValidator(TypeAdapter(kind).core_schema)


def _nested(problems: list[Problem], at: str) -> list[Problem]:
    return [(at if path == "(record)" else f"{at}.{path}", msg) for path, msg in problems]


def _without(record: dict, key: str, placeholder: Any) -> dict:
    """The record with ``key`` present: a value the caller adds when sending."""
    return record if key in record else {**record, key: placeholder}


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


# --- Bedrock Converse ---------------------------------------------------------------------


@cache
def _converse() -> Any:
    import botocore.session

    service = botocore.session.get_session().get_service_model("bedrock-runtime")
    return service.operation_model("Converse").input_shape


def _enum_problems(value: Any, shape: Any, at: str) -> Iterable[Problem]:
    """String values outside their shape's ``enum`` (botocore's ParamValidator does not
    check enums; the service does)."""
    kind = shape.type_name
    if kind == "structure" and isinstance(value, dict):
        for name, member in shape.members.items():
            if name in value:
                yield from _enum_problems(value[name], member, f"{at}.{name}".lstrip("."))
    elif kind == "list" and isinstance(value, list):
        for i, item in enumerate(value):
            yield from _enum_problems(item, shape.member, f"{at}[{i}]")
    elif kind == "map" and isinstance(value, dict):
        for key, item in value.items():
            yield from _enum_problems(item, shape.value, f"{at}[{json.dumps(key)}]")
    elif kind == "string" and shape.enum and isinstance(value, str) and value not in shape.enum:
        yield (
            at or "(record)",
            f"Invalid value for parameter {at}, value: {value}, valid values: "
            + ", ".join(shape.enum),
        )


def bedrock_converse(record: dict) -> list[Problem]:
    """A ``Converse`` request (``modelId`` not asked for)."""
    from botocore.validate import ParamValidator

    shape = _converse()
    record = _without(record, "modelId", "anthropic.claude-sonnet-4-5")
    report = ParamValidator().validate(record, shape)
    problems = []
    for reason, name, details in report._errors:
        text = report._format_error((reason, name, details))
        path = name.lstrip(".")
        if reason == "unknown field":
            path = f"{path}.{details['unknown_param']}".lstrip(".")
        problems.append((path or "(record)", text))
    return problems + list(_enum_problems(record, shape, ""))


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


# --- chatpipe's targets -------------------------------------------------------------------

# chatpipe convert --to TARGET [settings]: the checks each record of it goes through
Target = tuple[str, tuple[str, ...], tuple[tuple[str, Validator], ...]]
TARGETS: tuple[Target, ...] = (
    ("openai", (), (("openai-chat", openai_chat), ("openai-finetune", openai_finetune))),
    ("openai-responses", (), (("openai-responses", openai_responses),)),
    ("openai-batch", ("--model", "gpt-4.1-mini"), (("openai-batch", openai_batch),)),
    (
        "openai-batch",
        ("--model", "gpt-4.1-mini", "--endpoint", "responses"),
        (("openai-batch-responses", openai_batch),),
    ),
    ("anthropic", (), (("anthropic", anthropic),)),
    (
        "anthropic-batch",
        ("--model", "claude-sonnet-4-5", "--max-tokens", "1024"),
        (("anthropic-batch", anthropic_batch),),
    ),
    ("gemini", (), (("gemini", gemini),)),
    # the writers the wave-four issue adds
    ("bedrock-converse", (), (("bedrock-converse", bedrock_converse),)),
    ("ollama", (), (("ollama-chat", ollama_chat),)),
)

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
# not chat logs: what the tests compare with, chat templates
NOT_LOGS = ("expected", "chat_templates")


def fixture_files() -> list[Path]:
    return sorted(
        p
        for p in FIXTURES.rglob("*")
        if p.is_file()
        and p.suffix != ".md"
        and not set(p.relative_to(FIXTURES).parts[:-1]) & set(NOT_LOGS)
    )


def targets() -> list[Target]:
    """The TARGETS chatpipe can write now."""
    from chatpipe.formats.registry import writable

    names = set(writable())
    return [t for t in TARGETS if t[0] in names]


@cache
def _command() -> Any:
    import typer.main

    from chatpipe.cli import app

    return typer.main.get_command(app)


def convert(path: Path, target: str, settings: tuple[str, ...] = ()) -> tuple[int, list, str]:
    """``chatpipe convert PATH --to TARGET --on-error skip``, in this process: its exit
    status, the records it wrote, what it said on stderr."""
    from unittest import mock

    import typer.testing

    argv = ["convert", str(path), "--to", target, *settings, "--on-error", "skip"]
    # typer's runner builds the click command anew each time (a quarter of a second per
    # conversion here): it is built once
    with mock.patch.object(typer.testing, "_get_command", lambda app: _command()):
        result = typer.testing.CliRunner().invoke(None, argv)  # type: ignore[arg-type]
    if result.exit_code != 0:
        return result.exit_code, [], result.stderr
    return 0, [json.loads(line) for line in result.stdout.splitlines() if line.strip()], ""


def measure(
    paths: Iterable[Path], to: Iterable[Target] | None = None
) -> tuple[list[tuple], dict[str, str]]:
    """Every record of every fixture converted to every API target (or those of ``to``),
    validated: rows of (fixture, check, record number, problems), and the fixtures chatpipe
    could not read (with what it said)."""
    rows: list[tuple] = []
    unread: dict[str, str] = {}
    chosen = targets() if to is None else list(to)
    for path in paths:
        name = str(path.relative_to(FIXTURES)) if path.is_relative_to(FIXTURES) else str(path)
        for target, settings, checks in chosen:
            status, records, said = convert(path, target, settings)
            if status != 0:
                unread.setdefault(name, said.strip().splitlines()[-1] if said.strip() else "")
                continue
            for number, record in enumerate(records, 1):
                for check, validate in checks:
                    rows.append((name, check, number, validate(record)))
    return rows, unread


def kind(path: str, message: str) -> str:
    """A problem without its numbers and quoted values: what kind it is."""
    pattern = re.sub(r"\[\d+\]", "[*]", path)
    return f"{pattern}: {re.sub(r' [(]got .*[)]$', '', message)}"


def report(rows: list[tuple], unread: dict[str, str], top: int = 15) -> str:
    lines = []
    checks = list(dict.fromkeys(row[1] for row in rows))
    width = max((len(c) for c in checks), default=6)
    lines.append(f"{'target':<{width}}  validated  accepted")
    for check in checks:
        mine = [row for row in rows if row[1] == check]
        accepted = sum(1 for row in mine if not row[3])
        lines.append(f"{check:<{width}}  {len(mine):>9}  {accepted:>8}")
    total = len(rows)
    lines.append(f"{'all':<{width}}  {total:>9}  {sum(1 for r in rows if not r[3]):>8}")
    for check in checks:
        kinds = Counter(kind(p, m) for row in rows if row[1] == check for p, m in row[3])
        records = Counter(
            k for row in rows if row[1] == check for k in {kind(p, m) for p, m in row[3]}
        )
        if not kinds:
            continue
        lines.append("")
        lines.append(f"{check}: top problem kinds (problems, records with it)")
        for found, count in kinds.most_common(top):
            lines.append(f"  {count:>5} {records[found]:>5}  {found}")
    if unread:
        lines.append("")
        lines.append("fixtures chatpipe does not read (exit status not 0):")
        for name, said in sorted(unread.items()):
            lines.append(f"  {name}: {said}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    paths = [Path(a).resolve() for a in argv] or fixture_files()
    rows, unread = measure(paths)
    print(report(rows, unread))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    raise SystemExit(main(sys.argv[1:]))
