"""What a reader gives is of the shapes the code past it assumes (formats/shapes.py, issue
#51): a value of another kind is said at its record, in one line, by every command."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()
QWEN = str(FIXTURES / "chat_templates" / "Qwen-Qwen2.5-7B-Instruct.jinja")
ANTHROPIC = FIXTURES / "anthropic_messages__derived_bare_array_thinking_tool_use_tool_result.json"


def cli(*args, input=None):
    return runner.invoke(app, [str(a) for a in args], input=input)


def one_error(result, place: str, words: str) -> None:
    """The run failed with one line on stderr, naming the place and what is wrong."""
    assert result.exit_code == 1, result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)
    [line] = result.stderr.splitlines()
    assert line.startswith(f"chatpipe: error: {place}"), line
    assert words in line, line
    assert "internal error" not in line


@pytest.fixture
def tool_of_no_kind(tmp_path):
    """A fine-tuning row whose tool names its type with an object (#51, item 9)."""
    row = {
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
        ],
        "tools": [{"type": {}}],
    }
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "a"}]}) + "\n")
    path.write_text(path.read_text() + json.dumps(row) + "\n")
    return path


COMMANDS = [
    ("convert", "--to", "openai"),
    ("convert", "--to", "anthropic"),
    ("convert", "--to", "gemini"),
    ("convert", "--to", "openai-batch", "--model", "m"),
    ("redact",),
    ("dedupe",),
    ("count",),
    ("template", "--chat-template", QWEN),
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_tool_whose_type_is_an_object_is_said_at_its_row(tool_of_no_kind, command):
    # was: "internal error: TypeError: unhashable type: 'dict'"
    result = cli(*command, tool_of_no_kind)
    one_error(result, f"{tool_of_no_kind}:2:1: ", "tools[0]'s type must be a string, got an object")


def test_validate_finds_the_tool_whose_type_is_an_object(tool_of_no_kind):
    # was: "no problems found"
    result = cli("validate", tool_of_no_kind)
    assert result.exit_code == 1
    assert f"{tool_of_no_kind}:2:1: unreadable_record: tools[0]'s type" in result.stdout


@pytest.fixture(params=[{"a": 1}, ["text"]], ids=["object", "list"])
def block_of_no_kind(request, tmp_path):
    """An Anthropic conversation whose text block names its type with an object or a list."""
    turns = json.loads(ANTHROPIC.read_text(encoding="utf-8"))
    turns[1]["content"][1]["type"] = request.param
    path = tmp_path / "turns.json"
    path.write_text(json.dumps(turns, indent=1), encoding="utf-8")
    return path, "an object" if isinstance(request.param, dict) else "a list"


BLOCK_COMMANDS = [
    ("convert", "--to", "gemini"),
    ("convert", "--to", "openai-responses"),
    ("convert", "--to", "pydantic-ai"),
    ("stats",),
    ("dedupe",),
    ("count",),  # (said without its place before: #51, item 18)
    ("template", "--chat-template", QWEN),
]


@pytest.mark.parametrize("command", BLOCK_COMMANDS, ids=" ".join)
def test_a_block_whose_type_is_not_a_string_is_said_at_its_message(block_of_no_kind, command):
    path, kind = block_of_no_kind
    result = cli(*command, path)
    # the turn's place in the document (line 11 of the indented array), and its number
    one_error(
        result,
        f"{path}:11:2: message 2: ",
        f"content[1]: a content block's type must be a string, got {kind}",
    )


@pytest.fixture
def model(tmp_path):
    """A model folder: a small tokenizer.json and the Qwen template."""
    import tokenizers  # noqa: F401  (the test extra installs it: missing fails, never skips)

    model = tmp_path / "model"
    model.mkdir()
    tokenizer = FIXTURES / "chat_templates" / "all-MiniLM-L6-v2" / "tokenizer.json"
    (model / "tokenizer.json").write_bytes(tokenizer.read_bytes())
    template = (FIXTURES / "chat_templates" / "Qwen-Qwen2.5-7B-Instruct.jinja").read_text()
    config = {"chat_template": template, "eos_token": "[SEP]"}
    (model / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return model


def test_tokenize_says_a_block_of_no_kind_at_its_message(block_of_no_kind, model):
    path, kind = block_of_no_kind
    result = cli("tokenize", "--tokenizer", model, path)
    one_error(result, f"{path}:11:2: ", f"a content block's type must be a string, got {kind}")


def test_a_text_block_whose_text_is_not_text_is_said_at_its_line(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text(
        '{"role": "user", "content": "hi"}\n'
        '{"role": "user", "content": [{"type": "text", "text": true}]}\n'
    )
    # was: "internal error: TypeError: sequence item 0: expected str instance, bool found"
    one_error(cli("openai", log), f"{log}:2:1: ", "the text block's 'text' must be a string")
    # was: "a text block without text cannot be counted", with no place
    log.write_text('{"role": "user", "content": [{"type": "text", "text": null}]}\n')
    one_error(cli("count", log), f"{log}:1:1: ", "the text block's 'text' must be a string")


def test_a_session_line_of_a_bad_shape_is_said_at_its_line_or_skipped(tmp_path):
    """A session log's messages are read as they come: a bad one is a bad line (its place
    the line it came from), which --on-error skip leaves out and reports."""
    source = FIXTURES / "claude_code__derived_rewind_compaction_subagent.jsonl"
    lines = source.read_text(encoding="utf-8").splitlines()
    at = next(
        i
        for i, line in enumerate(lines)
        if '"type": "user"' in line.replace('":"', '": "')
        and isinstance(json.loads(line)["message"]["content"], list)
    )
    line = json.loads(lines[at])
    line["message"]["content"][0]["type"] = ["text"]
    lines[at] = json.dumps(line)
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    one_error(cli("convert", path), f"{path}:{at + 1}:1: ", "type must be a string, got a list")
    skipped = cli("convert", "--on-error", "skip", path)
    assert skipped.exit_code == 0, skipped.stderr
    assert f"skipped: {path}:{at + 1}:1: " in skipped.stderr


def test_the_shapes_a_reader_may_give():
    from chatpipe.formats.shapes import block_problem, meta_problem

    assert block_problem({"type": "text", "text": "a"}) is None
    assert block_problem({"no_type": 1}) is None  # (kept as it came: the writers know it)
    assert block_problem({"type": None}) is None
    assert block_problem({"type": 5}) == "a content block's type must be a string, got a number"
    assert "'thinking' must be a string" in block_problem({"type": "thinking", "thinking": []})
    assert meta_problem({"tools": [{"type": "function"}, {"name": "f"}]}) is None
    assert meta_problem({"tools": "not a list: as it came"}) is None
    assert meta_problem({"tools": [5]}) == "tools[0] must be an object, got a number"
    assert meta_problem({"tools": '[{"type": "function"}]'}) is None  # (LlamaFactory's)
    assert meta_problem({"tools": {"functionDeclarations": []}}) is None  # (Gemini's)
    assert meta_problem({"tools": 0}) == "tools must be a list of tools, got a number"
    # found by the explorer's longer runs: a Gemini tool's declarations, an image_url's url
    assert meta_problem({"tools": [{"functionDeclarations": 7}]}) == (
        "tools[0]'s functionDeclarations must be a list, got a number"
    )
    assert block_problem({"type": "image_url", "image_url": {"type": {}}}) == (
        "the image_url block's image_url object must hold a 'url' string"
    )


@pytest.mark.parametrize(
    ("fixture", "where", "value", "to", "words"),
    [
        (
            "gemini__pydanticai_req_stream_function_response_history.json",
            ("tools", 0, "functionDeclarations"),
            10**30,
            "anthropic",
            "tools[0]'s functionDeclarations must be a list, got a number",
        ),
        (
            "langchain_dict__generated_messages_to_dict_openai_tool_image.json",
            (3, "data", "content", 1, "image_url"),
            {"type": {}},
            "gemini",
            "image_url object must hold a 'url' string",
        ),
    ],
)
def test_nested_shapes_a_writer_reads_are_said(tmp_path, fixture, where, value, to, words):
    # were: "internal error: TypeError: 'int' object is not iterable" (tool_specs) and
    # "internal error: KeyError: 'url'" (the Gemini writer)
    document = json.loads((FIXTURES / fixture).read_text(encoding="utf-8"))
    inner = document
    for key in where[:-1]:
        inner = inner[key]
    inner[where[-1]] = value
    path = tmp_path / fixture
    path.write_text(json.dumps(document), encoding="utf-8")
    result = cli("convert", "--to", to, path)
    one_error(result, f"{path}:1:", words)


def test_a_tools_field_that_is_a_number_is_said_at_its_row(tmp_path):
    # was: "internal error: TypeError: 'int' object is not iterable" (--to anthropic-batch;
    # found by a longer run of the structure fuzzer)
    row = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "tools": 0}
    path = tmp_path / "request.json"
    path.write_text(json.dumps(row))
    result = cli("convert", "--to", "anthropic-batch", "--model", "m", "--max-tokens", 9, path)
    one_error(result, f"{path}:1:1: ", "tools must be a list of tools, got a number")


def test_a_session_line_whose_content_holds_a_list_is_said_at_its_line(tmp_path):
    """A Claude Code user line whose content held a list among its blocks: the message's
    own check said it with no place (found by the structure fuzzer, #51)."""
    source = FIXTURES / "claude_code__derived_rewind_compaction_subagent.jsonl"
    lines = source.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["message"]["content"] = [[]]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")
    one_error(cli("convert", path), f"{path}:1:1: ", '"message.content" holds a list')


def swapped_line(tmp_path, fixture: str, line: int, path: tuple, value):
    """A fixture with the value at ``path`` of its line ``line`` (from 0) swapped."""
    lines = [json.loads(text) for text in (FIXTURES / fixture).read_text().splitlines()]
    inner = lines[line]
    for key in path[:-1]:
        inner = inner[key]
    inner[path[-1]] = value
    swapped = tmp_path / fixture
    swapped.write_text("".join(json.dumps(one) + "\n" for one in lines), encoding="utf-8")
    return swapped


def test_a_streamed_message_whose_id_is_not_a_string_is_said(tmp_path):
    # was: "internal error: TypeError: unhashable type: 'list'" in the viewer
    path = swapped_line(
        tmp_path,
        "openai_stream__pydanticai_parallel_tool_calls_index0_index1.jsonl",
        1,
        ("id",),
        [{}],
    )
    one_error(cli("convert", "--to", "html", path), f"{path}:1:1: message 1: ", "a message's id")


def test_a_media_block_whose_image_is_a_boolean_is_said(tmp_path):
    # was: "internal error: TypeError: argument of type 'bool' is not iterable"
    path = swapped_line(
        tmp_path,
        "hf_messages__documented_processor_media_parts.jsonl",
        0,
        ("messages", 0, "content", 0, "image"),
        True,
    )
    words = "content[0]: the image block's 'image' must be a string or an object, got a boolean"
    for command in (("redact",), ("convert", "--to", "openai")):
        one_error(cli(*command, path), f"{path}:1:1: message 1: ", words)


def test_tokenize_keeps_a_rows_integer_past_64_bits(model, tmp_path):
    """A row's own field held an integer past 64 bits: orjson could not write the row,
    an internal TypeError (found by the structure fuzzer); written as every line is."""
    big = 10**30
    row = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({**row, "seed": big}) + "\n")
    result = cli("tokenize", "--tokenizer", model, path)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["seed"] == big
