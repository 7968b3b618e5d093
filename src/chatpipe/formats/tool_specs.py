"""A conversation's tool list as each dialect declares it: OpenAI chat function tools,
Responses function tools, Anthropic tools, Gemini ``functionDeclarations`` and bare
function schemas are all the same thing (a name, a description, a JSON schema of the
arguments), written in the target's own form. Tools that are not functions (Gemini's
``googleSearch``, Anthropic's server tools, the Responses built-ins) have no form in
another provider's list: ``for_target`` leaves them out there and names them, for the
run to say.
"""

from __future__ import annotations

from typing import Any

_GEMINI_DECLARATIONS = ("functionDeclarations", "function_declarations")
_SCHEMA_KEYS = ("parameters", "parametersJsonSchema", "parameters_json_schema", "input_schema")


def _is_gemini(tools: Any) -> bool:
    items = tools if isinstance(tools, list) else [tools]
    return any(isinstance(t, dict) and any(k in t for k in _GEMINI_DECLARATIONS) for t in items)


# the built-in tools of each provider: Gemini's are keys of a tool object
_GEMINI_BUILT_INS = (
    frozenset(("googleSearch", "google_search", "googleSearchRetrieval", "google_search_retrieval"))
    | frozenset(
        ("codeExecution", "code_execution", "urlContext", "url_context", "retrieval", "fileSearch")
    )
    | frozenset(("file_search", "googleMaps", "google_maps", "computerUse", "computer_use"))
)
_RESPONSES_BUILT_INS = frozenset(
    ("web_search", "web_search_preview", "file_search", "code_interpreter", "image_generation")
) | frozenset(("computer_use_preview", "mcp", "local_shell", "shell", "apply_patch"))


def _kind(tool: dict[str, Any]) -> tuple[str, Any]:
    """What a tool of a list is: ("function", its spec), ("gemini" | "anthropic" |
    "responses", its name) for a provider's built-in tool, or ("unknown", None)."""
    kind = tool.get("type")
    if kind in ("function", None) and isinstance(tool.get("function"), dict):
        return "function", _spec(tool["function"])  # (Mistral's requests leave type out)
    if kind in (None, "function", "custom") and isinstance(tool.get("name"), str):
        return "function", _spec(tool)
    if kind is None and tool and all(k in _GEMINI_BUILT_INS for k in tool):
        return "gemini", ", ".join(tool)
    if isinstance(kind, str) and kind.rsplit("_", 1)[-1].isdigit():  # web_search_20250305
        return "anthropic", tool.get("name") or kind
    if kind in _RESPONSES_BUILT_INS:  # (no chat-completions form either)
        return "responses", kind
    return "unknown", None


def functions(tools: Any) -> list[Any] | None:
    """A tool list's items in order, each a function spec ``{name, description?,
    parameters?, ...}`` or ``(provider, tool)`` for a built-in tool of that provider
    (``provider`` "unknown" for an item this module does not know); None when ``tools``
    is no list of tools."""
    if isinstance(tools, dict) and _is_gemini(tools):
        tools = [tools]
    if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
        return None
    items: list[Any] = []
    for tool in tools:
        if any(k in tool for k in _GEMINI_DECLARATIONS):
            declared = next(tool[k] for k in _GEMINI_DECLARATIONS if k in tool)
            items.extend(_spec(_from_gemini(d)) for d in declared or () if isinstance(d, dict))
            rest = {k: v for k, v in tool.items() if k not in _GEMINI_DECLARATIONS}
            if rest:
                items.append(("gemini" if _kind(rest)[0] == "gemini" else "unknown", rest))
            continue
        kind, found = _kind(tool)
        items.append(found if kind == "function" else (kind, tool))
    return items


def _from_gemini(declared: dict[str, Any]) -> dict[str, Any]:
    """A declaration whose ``parameters`` is Gemini's own schema (types in capitals:
    ``OBJECT``, ``STRING``): as a JSON schema."""
    if not isinstance(declared.get("parameters"), dict):
        return declared
    return {**declared, "parameters": _lower_types(declared["parameters"])}


def _lower_types(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: v.lower() if k == "type" and isinstance(v, str) and v.isupper() else _lower_types(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_lower_types(v) for v in value]
    return value


def _spec(function: dict[str, Any]) -> dict[str, Any]:
    spec = {"name": function.get("name")}
    if function.get("description") is not None:
        spec["description"] = function["description"]
    schema = next((function[k] for k in _SCHEMA_KEYS if function.get(k) is not None), None)
    if schema is not None:
        spec["parameters"] = schema
    skip = {"name", "description", "type", *_SCHEMA_KEYS}
    spec.update({k: v for k, v in function.items() if k not in skip})
    return spec


def _is_target_form(tools: Any, target: str) -> bool:
    """Tools already written the target's way (kept whole, built-in tools included)."""
    if target == "gemini":
        return _is_gemini(tools)
    if not isinstance(tools, list):
        return False
    items = tools
    if target == "openai":
        return all(isinstance(t, dict) and isinstance(t.get(t.get("type")), dict) for t in items)
    # anthropic: tools with an input_schema, and server tools
    return all(
        isinstance(t, dict) and ("input_schema" in t or _kind(t)[0] == "anthropic") for t in items
    )


def for_target(tools: Any, target: str) -> tuple[Any, list[str]]:
    """``tools`` written for ``target`` (openai, anthropic or gemini), and the names of
    the tools left out: other providers' built-in tools, which ``target`` has no form
    for. Items of no known kind are kept as they are."""
    if not tools or _is_target_form(tools, target):
        return tools, []
    items = functions(tools)
    if items is None:
        return tools, []
    written: list[Any] = []
    declarations: list[dict[str, Any]] = []
    left: list[str] = []
    for item in items:
        if isinstance(item, dict):
            if target == "openai":
                written.append({"type": "function", "function": _openai(item)})
            elif target == "anthropic":
                written.append(_anthropic(item))
            else:
                declarations.append(_gemini(item))
        elif item[0] in (target, "unknown"):
            written.append(item[1])
        else:
            left.append(_name(item))
    if declarations:
        written.insert(0, {"functionDeclarations": declarations})
    return written, left


def _name(item: tuple[str, Any]) -> str:
    tool = item[1]
    if item[0] == "gemini":
        return ", ".join(tool)
    return str(tool.get("name") or tool.get("type"))


def _openai(spec: dict[str, Any]) -> dict[str, Any]:
    keep = ("name", "description", "parameters", "strict")
    return {k: spec[k] for k in keep if k in spec}


def _anthropic(spec: dict[str, Any]) -> dict[str, Any]:
    tool = {k: spec[k] for k in ("name", "description") if k in spec}
    tool["input_schema"] = spec.get("parameters") or {"type": "object", "properties": {}}
    return tool


def _gemini(spec: dict[str, Any]) -> dict[str, Any]:
    # a JSON schema as OpenAI and Anthropic take it: Gemini's full-schema field
    declared = {k: spec[k] for k in ("name", "description") if k in spec}
    if "parameters" in spec:
        declared["parametersJsonSchema"] = spec["parameters"]
    return declared
