"""Containers: JSONL, JSON, YAML; BOM and CRLF; positions in every error."""

from __future__ import annotations

import pickle
import time

import pytest

from chatpipe.errors import DataError
from chatpipe.io.markdown import TextDocument
from chatpipe.io.readers import Source, read_records
from conftest import FIXTURES


def records(path):
    source = Source(str(path))
    out = []
    for record in read_records(source):
        error = getattr(record, "error", None)
        out.append(("bad", str(error)) if error else (record.value, str(record.location)))
    return source.container, out


def test_jsonl_with_bom_crlf_and_blank_lines(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a":1}\r\n\r\n  {"b":2}\r\n')
    assert records(path) == ("jsonl", [({"a": 1}, f"{path}:1:1"), ({"b": 2}, f"{path}:3:3")])


def test_sniffs_jsonl_without_a_suffix(tmp_path):
    path = tmp_path / "log"
    path.write_bytes(b'\n{"a":1}\n{"b":2}\n')
    assert records(path) == ("jsonl", [({"a": 1}, f"{path}:2:1"), ({"b": 2}, f"{path}:3:1")])


def test_json_array_elements_know_their_lines(tmp_path):
    path = tmp_path / "a.json"
    path.write_bytes(b'[\n  {"a": "x,]"},\n  {"b": [1, {"c": 2}]},\n    3\n]\n')
    assert records(path) == (
        "json",
        [({"a": "x,]"}, f"{path}:2:3"), ({"b": [1, {"c": 2}]}, f"{path}:3:3"), (3, f"{path}:4:5")],
    )


def test_pretty_json_object_is_one_record(tmp_path):
    path = tmp_path / "a.json"
    path.write_bytes(b'{\n  "messages": []\n}\n')
    assert records(path) == ("json", [({"messages": []}, f"{path}:1:1")])


def test_yaml_list_items_know_their_lines(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text(
        "# chat\n- role: user\n  content: hi\n- role: assistant\n  content: 2024-01-01\n"
    )
    assert records(path) == (
        "yaml",
        [
            ({"role": "user", "content": "hi"}, f"{path}:2:3"),
            ({"role": "assistant", "content": "2024-01-01"}, f"{path}:4:3"),
        ],
    )


def test_bad_jsonl_line_is_a_located_record_and_reading_goes_on(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"a":1}\n{"a":\n{"c":3}\n')
    assert records(path) == (
        "jsonl",
        [
            ({"a": 1}, f"{path}:1:1"),
            ("bad", f"{path}:2:6: invalid JSON: unexpected end of data"),
            ({"c": 3}, f"{path}:3:1"),
        ],
    )


def test_python_repr_gets_a_hint(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text("{'role': 'user', 'content': 'hi'}\n")
    [(kind, text)] = records(path)[1]
    assert kind == "bad"
    assert text == (
        f"{path}:1:2: invalid JSON: unexpected character, expected a string key "
        "(this looks like a Python repr, not JSON: write it with json.dumps)"
    )


def test_broken_json_document_names_line_and_column(tmp_path):
    path = tmp_path / "a.json"
    path.write_bytes(b'[\n  {"a": 1},\n  {"a": 2,}\n]\n')
    with pytest.raises(DataError) as info:
        records(path)
    assert str(info.value) == f"{path}:3:10: invalid JSON: trailing comma is not allowed"


def test_yaml_tags_that_build_objects_are_refused(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text("- !!python/object/apply:os.system ['echo hi']\n")
    with pytest.raises(DataError) as info:
        records(path)
    assert str(info.value).startswith(f"{path}:1:3: invalid YAML")


def test_yaml_billion_laughs_is_refused_quickly(tmp_path):
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 9):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n")
    started = time.perf_counter()
    with pytest.raises(DataError) as info:
        records(path)
    assert "aliases expand to more than" in str(info.value)
    # refused before expanding: 9**9 strings would take minutes and gigabytes
    assert time.perf_counter() - started < 2.0


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        records(tmp_path / "nope.jsonl")
    with pytest.raises(DataError, match="is a directory"):
        records(tmp_path)


@pytest.mark.parametrize("output_dir", [False, True])
@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("/no/such/file.jsonl", "/no/such/file.jsonl: no such file"),
        ("memory://nothing/here.jsonl", "memory://nothing/here.jsonl: no such file"),
        (
            "nosuchproto://x/y.jsonl",
            "nosuchproto://x/y.jsonl: no such file, and nosuchproto:// is not a protocol fsspec "
            "knows (give a local path, or a URL such as s3://, gs://, hf://, https:// or "
            "memory://)",
        ),
    ],
)
def test_an_input_that_cannot_be_opened_is_one_line(tmp_path, spec, said, output_dir):
    from typer.testing import CliRunner

    from chatpipe.cli import app

    folder = ["--output-dir", str(tmp_path / "out")] if output_dir else []
    result = CliRunner().invoke(app, ["convert", *folder, spec])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"chatpipe: error: {said}\n"
    assert not (tmp_path / "out").exists()


def _sse_with(tmp_path, event: str):
    capture = FIXTURES / "openai_stream__pydanticai_tool_call_fragmented_args.sse"
    events = capture.read_text().split("\n\n")
    events.insert(2, event)
    path = tmp_path / "capture.sse"
    path.write_text("\n\n".join(events))
    return capture, path


@pytest.mark.parametrize(
    ("event", "root", "said"),
    [
        ('data: {"id": "broken", "choices": [', [], "5:30: invalid JSON: unexpected end of data"),
        (  # two data lines, each under the limit, together over it
            'data: {"id": "big", "pad": "' + "x" * 1500 + '",\ndata: "more": "' + "y" * 1500 + '"}',
            ["--max-record-bytes", "2000"],
            "5:1: a record larger than 2,000 bytes (raise the limit with chatpipe --max-record-bytes N)",
        ),
    ],
)
def test_a_bad_event_in_a_stream_capture_is_located_and_can_be_skipped(tmp_path, event, root, said):
    from typer.testing import CliRunner

    from chatpipe.cli import app

    capture, path = _sse_with(tmp_path, event)
    runner = CliRunner()
    failed = runner.invoke(app, [*root, "convert", str(path)])
    assert (failed.exit_code, failed.stdout) == (1, "")
    assert failed.stderr == f"chatpipe: error: {path}:{said}\n"
    skipped = runner.invoke(
        app, [*root, "convert", "--on-error", "skip", "--to", "openai", str(path)]
    )
    assert skipped.exit_code == 0
    assert skipped.stderr == (
        f"chatpipe: skipped: {path}:{said}\nchatpipe: warning: skipped 1 bad record\n"
    )
    # the event was one more: every other event still makes the same conversation
    whole = runner.invoke(app, ["convert", "--to", "openai", str(capture)])
    assert skipped.stdout == whole.stdout and '"get_capital"' in whole.stdout


def test_a_yaml_document_may_start_with_a_quoted_key(tmp_path):
    from typer.testing import CliRunner

    from chatpipe.cli import app

    path = tmp_path / "chat.yaml"
    path.write_text('"messages":\n  - role: user\n    content: hi\n')
    result = CliRunner().invoke(app, ["convert", "-v", str(path)])
    assert result.exit_code == 0
    assert result.stdout == '{"messages":[{"type":"human","content":"hi"}]}\n'
    assert "(yaml," in result.stderr


@pytest.mark.parametrize(
    ("text", "where"), [("[" * 300, "1:191"), ('{"messages": []}\n' + "[" * 300, "2:191")]
)
def test_a_text_cut_short_inside_deep_brackets_is_said_in_words(tmp_path, text, where):
    from typer.testing import CliRunner

    from chatpipe.cli import app

    path = tmp_path / "deep.jsonl"
    path.write_text(text + "\n")
    result = CliRunner().invoke(app, ["convert", str(path)])
    assert result.exit_code == 1
    # (orjson's own words for it are "failed to allocate memory")
    assert result.stderr == (
        f"chatpipe: error: {path}:{where}: invalid JSON: it ends inside deeply nested brackets "
        "(cut short, or not JSON)\n"
    )


def test_a_markdown_file_is_one_text_record_from_its_first_line(tmp_path):
    path = tmp_path / "history.md"
    path.write_bytes(b"\xef\xbb\xbf# aider chat started at 2024-01-02 03:04:05\r\n\r\n#### hi\r\n")
    text = "# aider chat started at 2024-01-02 03:04:05\r\n\r\n#### hi\r\n"  # (no BOM)
    assert records(path) == ("markdown", [(TextDocument(text, str(path)), f"{path}:1:1")])
    [record] = read_records(Source(str(path)))
    document = record.value
    assert list(document.lines()) == [
        (1, "# aider chat started at 2024-01-02 03:04:05"),
        (2, ""),
        (3, "#### hi"),
        (4, ""),
    ]
    # a document is a value: equal texts from the same line are one, whatever the file
    assert {document, TextDocument(text, "other.md")} == {document}
    assert document != TextDocument(text, str(path), line=2) and document != text
    # (sent to a worker and back whole, its file's name with it)
    copy = pickle.loads(pickle.dumps(document))
    assert (copy.text, copy.name, copy.line) == (text, str(path), 1)


def test_markdown_that_is_not_utf8_names_the_line_and_byte(tmp_path):
    path = tmp_path / "history.md"
    path.write_bytes(b"# aider chat started at 2024-01-02 03:04:05\n\n#### caf\xe9\n")
    with pytest.raises(DataError) as raised:
        list(read_records(Source(str(path))))
    assert str(raised.value).startswith(f"{path}:3:9: invalid UTF-8: byte 0xe9")
