"""The settings and tools of a Bedrock Converse request (bedrock_writer.py writes the rest):
the conversation's settings that have a Converse form (``max_tokens``, ``temperature`` in
0..1, ``top_p``, ``stop``, Gemini's ``generationConfig``) as ``inferenceConfig``'s; tool
lists of any provider's form as ``toolConfig``'s, OpenAI's (or Gemini's) tool choice as
``toolChoice``, a tool the turns call and the conversation does not declare declared with
an empty schema (Converse refuses tool blocks without ``toolConfig``); tool names and call
ids made to fit Bedrock's pattern, the same for a call and its result."""

from __future__ import annotations

from typing import Any

from .api_request import SETTING_VALUES, fitted
from .base import Kept
from .tool_specs import functions

MADE_UP_TOOLS = Kept(
    "tool calls to tools the conversation does not declare",
    "declared with an empty schema (Bedrock needs toolConfig when turns hold tool blocks)",
)


def tools_left_out(tools: Any) -> list[str]:
    items = functions(tools)
    return [_tool_name(i) for i in items or () if not isinstance(i, dict)]


def _tool_name(item: tuple[str, Any]) -> str:
    tool = item[1]
    return str(tool.get("name") or tool.get("type") or ", ".join(tool))


class Fit:
    """Tool names and call ids made to fit Bedrock's pattern, the same way for a call and
    for its result."""

    def __init__(self) -> None:
        self.ids: dict[str, str] = {}
        self.changed = False

    def name(self, name: Any) -> str:
        made = fitted(name)
        self.changed |= made != name
        return made

    def ident(self, ident: Any) -> str:
        key = str(ident or "")
        if key not in self.ids:
            made = fitted(key) if key and "\x00" not in key else f"tooluse_{len(self.ids) + 1}"
            while made in self.ids.values():
                made = f"{made[:60]}_{len(self.ids) + 1}"
            self.changed |= made != key
            self.ids[key] = made
        return self.ids[key]


# a conversation's settings of other providers, and their place in inferenceConfig
SETTINGS = {
    "max_tokens": "maxTokens",
    "max_completion_tokens": "maxTokens",
    "max_output_tokens": "maxTokens",
    "temperature": "temperature",
    "top_p": "topP",
    "stop": "stopSequences",
    "stop_sequences": "stopSequences",
    "generationConfig": None,
    "tool_choice": None,
}
_GEMINI = {
    "maxOutputTokens": "maxTokens",
    "temperature": "temperature",
    "topP": "topP",
    "stopSequences": "stopSequences",
}
_RANGES = {"maxTokens": (1, None), "temperature": (0, 1), "topP": (0, 1)}


def inference(dialect: Any, meta: dict[str, Any]) -> dict[str, Any]:
    given = meta.get("inferenceConfig")
    found: dict[str, Any] = dict(given) if isinstance(given, dict) else {}
    asked = [(SETTINGS[k], v) for k, v in meta.items() if SETTINGS.get(k) and v is not None]
    config = meta.get("generationConfig")
    if isinstance(config, dict):
        asked += [(_GEMINI[k], v) for k, v in config.items() if k in _GEMINI]
        if config.keys() - _GEMINI.keys():
            dialect.left(SETTING_VALUES)
    if dialect.settings.get("max_tokens"):
        asked.append(("maxTokens", dialect.settings["max_tokens"]))
    for key, value in asked:
        if key == "stopSequences" and isinstance(value, str):
            value = [value]
        if _fits(key, value):
            found[key] = value
        else:
            dialect.left(SETTING_VALUES)
    return found


def _fits(key: str, value: Any) -> bool:
    if key == "stopSequences":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    low, high = _RANGES[key]
    return (
        value >= low
        and (high is None or value <= high)
        and (key != "maxTokens" or isinstance(value, int))
    )


def tool_config(
    dialect: Any, meta: dict[str, Any], called: dict[str, None], fit: Fit
) -> dict[str, Any]:
    config = meta.get("toolConfig") if isinstance(meta.get("toolConfig"), dict) else {}
    written = {k: v for k, v in config.items() if k == "toolChoice"}
    kept = list(config.get("tools") or ())  # (system tools, a cache point: after the specs)
    tools: list[Any] = []
    gemini = config.get("functionCallingConfig")  # (Gemini's toolConfig, of that name too)
    if isinstance(gemini, dict) and "toolChoice" not in written:
        names = gemini.get("allowedFunctionNames")
        one = isinstance(names, list) and len(names) == 1
        mode = {"AUTO": "auto", "ANY": "required"}.get(str(gemini.get("mode")).upper())
        found = _choice({"name": names[0]} if one and mode else mode, fit)
        if found is not None:
            written["toolChoice"] = found
    if config.keys() - {"toolChoice", "tools"} - ({"functionCallingConfig"} if written else set()):
        dialect.left(SETTING_VALUES)
    declared: set[str] = set()
    for item in functions(meta.get("tools")) or ():
        if not isinstance(item, dict):
            continue  # (another provider's built-in tool: said by tools_left_out)
        spec: dict[str, Any] = {"name": fit.name(item.get("name"))}
        if isinstance(item.get("description"), str) and item["description"]:
            spec["description"] = item["description"]
        schema = item.get("parameters") if isinstance(item.get("parameters"), dict) else None
        spec["inputSchema"] = {"json": schema or {"type": "object", "properties": {}}}
        if isinstance(item.get("strict"), bool):
            spec["strict"] = item["strict"]
        tools.append({"toolSpec": spec})
        declared.add(spec["name"])
    system = {
        t["systemTool"].get("name") for t in kept if isinstance(t, dict) and "systemTool" in t
    }
    missing = [name for name in called if name not in declared and name not in system]
    if missing:
        dialect.left(MADE_UP_TOOLS)
        empty = {"json": {"type": "object", "properties": {}}}
        tools += [{"toolSpec": {"name": name, "inputSchema": empty}} for name in missing]
    choice = _choice(meta.get("tool_choice"), fit)
    if choice is not None and "toolChoice" not in written:
        written["toolChoice"] = choice
    elif meta.get("tool_choice") is not None and choice is None:
        dialect.left(SETTING_VALUES)
    tools += kept
    if not tools:
        return {}
    return {"tools": tools, **written}


def _choice(choice: Any, fit: Fit) -> dict[str, Any] | None:
    """OpenAI's (or Anthropic's) tool choice as Bedrock's ``toolChoice``."""
    if choice == "auto" or (isinstance(choice, dict) and choice.get("type") == "auto"):
        return {"auto": {}}
    if choice in ("required", "any") or (isinstance(choice, dict) and choice.get("type") == "any"):
        return {"any": {}}
    if isinstance(choice, dict):
        function = choice.get("function") if isinstance(choice.get("function"), dict) else choice
        if isinstance(function.get("name"), str):
            return {"tool": {"name": fit.name(function["name"])}}
    return None
