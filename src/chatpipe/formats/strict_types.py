"""Strict validation with a provider SDK's own types (formats/sdk_checks.py): a pydantic
core schema made strict at every depth, and its errors as ``(path in the record, the
definition's message)`` pairs. Loaded only where an SDK is installed (pydantic comes with
each of them); chatpipe itself needs none.

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
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

Problem = tuple[str, str]  # (path in the document, the definition's message)
Validator = Callable[[dict], "list[Problem] | None"]

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
