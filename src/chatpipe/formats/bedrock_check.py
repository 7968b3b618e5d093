"""Bedrock Converse requests checked with the provider's own definition, as ``validate --as
bedrock-converse`` and tests/provider_schemas.py run it (sdk_checks.py runs the others):
botocore (1.43.11), the ``bedrock-runtime`` service model's ``Converse`` input shape, with
botocore's own ``ParamValidator`` (types, required and unknown members, lengths, tagged
unions). ParamValidator does not check enums, so the string values of the same shapes are
also checked against each shape's ``enum`` (role, image format, ...)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from typing import Any

from .strict_types import Problem, _without


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
