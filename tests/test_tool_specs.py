"""A conversation's tools written the target's way (issue 39): each Gemini function
declaration one OpenAI function tool, Anthropic and Gemini writers converting the others'
lists, and built-in tools another provider has no form for left out and said."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.formats.tool_specs import for_target
from conftest import FIXTURES

runner = CliRunner()
GEMINI_REQUEST = FIXTURES / "gemini__documented_req_response_ids_and_tool_list.json"
OPENAI_ROW = FIXTURES / "openai_chat__pydanticai_req_system_tools_tool_result.json"

RUN_SHELL = {
    "name": "run_shell_command",
    "description": "Runs a shell command and returns its output.",
    "parameters": {
        "type": "object",
        "properties": {"command": {"type": "string", "description": "The command to run."}},
        "required": ["command"],
    },
}
# Gemini's own schema (types in capitals) as a JSON schema
READ_FILE = {
    "name": "read_file",
    "description": "Reads a file.",
    "parameters": {
        "type": "object",
        "properties": {"absolute_path": {"type": "string"}},
        "required": ["absolute_path"],
    },
}


def run(*args):
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def test_openai_gets_one_function_tool_per_declaration():
    code, out, err = run("openai", GEMINI_REQUEST)
    assert (code, err) == (0, "")
    assert json.loads(out)["tools"] == [
        {"type": "function", "function": RUN_SHELL},
        {"type": "function", "function": READ_FILE},
    ]


def test_convert_says_which_built_in_tools_it_left_out():
    code, out, err = run("convert", "--to", "openai", "-v", GEMINI_REQUEST)
    assert code == 0
    assert [t["function"]["name"] for t in json.loads(out)["tools"]] == [
        "run_shell_command",
        "read_file",
    ]
    assert err.splitlines()[1:] == [
        "chatpipe: warning: openai cannot hold tools that are not functions (googleSearch): "
        "left out of 1 conversation",
        "chatpipe:   conversation 1",
        # (Gemini's own settings: no field of a row's)
        "chatpipe: warning: openai cannot hold conversation fields the API does not take: "
        "left out of 1 conversation",
        "chatpipe:   conversation 1: generationConfig",
    ]


def test_anthropic_gets_input_schemas():
    code, out, err = run("convert", "--to", "anthropic", GEMINI_REQUEST)
    assert code == 0
    record = json.loads(out)
    assert record["tools"] == [
        {"name": s["name"], "description": s["description"], "input_schema": s["parameters"]}
        for s in (RUN_SHELL, READ_FILE)
    ]
    assert "contents" not in record  # where the Gemini request held its messages
    assert "anthropic cannot hold tools that are not functions (googleSearch)" in err


def test_gemini_gets_function_declarations_from_an_openai_row():
    code, out, err = run("convert", "--to", "gemini", OPENAI_ROW)
    assert code == 0, err
    record = json.loads(out)
    assert record["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "get_temperature",
                    "description": "",
                    "parametersJsonSchema": {
                        "additionalProperties": False,
                        "properties": {"city": {"type": "string"}},
                        "required": ["city"],
                        "type": "object",
                    },
                }
            ]
        }
    ]
    assert "messages" not in record


def test_a_gemini_request_written_as_gemini_keeps_its_tools_whole():
    code, out, _ = run("convert", "--to", "gemini", GEMINI_REQUEST)
    assert code == 0
    assert json.loads(out)["tools"] == json.loads(GEMINI_REQUEST.read_text())["tools"]


ANTHROPIC_TOOLS = [
    {"name": "get", "description": "Get it.", "input_schema": {"type": "object"}},
    {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
]
RESPONSES_TOOLS = [
    {"type": "function", "name": "get", "parameters": {"type": "object"}, "strict": True},
    {"type": "web_search_preview"},
]


@pytest.mark.parametrize(
    ("tools", "target", "written", "left"),
    [
        (
            ANTHROPIC_TOOLS,
            "openai",
            [
                {
                    "type": "function",
                    "function": {
                        "name": "get",
                        "description": "Get it.",
                        "parameters": {"type": "object"},
                    },
                }
            ],
            ["web_search"],
        ),
        (
            ANTHROPIC_TOOLS,
            "gemini",
            [
                {
                    "functionDeclarations": [
                        {
                            "name": "get",
                            "description": "Get it.",
                            "parametersJsonSchema": {"type": "object"},
                        }
                    ]
                }
            ],
            ["web_search"],
        ),
        (ANTHROPIC_TOOLS, "anthropic", ANTHROPIC_TOOLS, []),
        (
            RESPONSES_TOOLS,
            "openai",
            [
                {
                    "type": "function",
                    "function": {"name": "get", "parameters": {"type": "object"}, "strict": True},
                }
            ],
            ["web_search_preview"],
        ),
        (
            RESPONSES_TOOLS,
            "anthropic",
            [{"name": "get", "input_schema": {"type": "object"}}],
            ["web_search_preview"],
        ),
        (
            [{"name": "bare", "parameters": {"type": "object"}}],
            "anthropic",
            [{"name": "bare", "input_schema": {"type": "object"}}],
            [],
        ),
        (
            [{"name": "no_schema"}],
            "anthropic",
            [{"name": "no_schema", "input_schema": {"type": "object", "properties": {}}}],
            [],
        ),
        (
            {"function_declarations": [{"name": "f"}]},
            "openai",
            [{"type": "function", "function": {"name": "f"}}],
            [],
        ),
        (
            [{"function_declarations": [{"name": "f"}], "code_execution": {}}],
            "anthropic",
            [{"name": "f", "input_schema": {"type": "object", "properties": {}}}],
            ["code_execution"],
        ),
        ([{"googleSearch": {}}], "gemini", [{"googleSearch": {}}], []),
        ([{"type": "function"}], "openai", [{"type": "function"}], []),  # unknown: as it is
        ([], "gemini", [], []),
        ("not a list", "anthropic", "not a list", []),
    ],
)
def test_tool_lists_for_each_target(tools, target, written, left):
    assert for_target(tools, target) == (written, left)
