"""Parquet in and out (issue 17): Hugging Face's shapes read, every record-per-line fixture
through Parquet and back unchanged, a column that a later row does not fit, bad files."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.io import parquet_writer as chatpipe_parquet
from conftest import FIXTURES

runner = CliRunner()
NOT_ROWS = (
    "chatpipe: error: Parquet holds records, a JSON object a row, and this output is text, "
    "not records (write it to a file of another name, without --to-format parquet, or write "
    "records: --to canonical, openai, ...)\n"
)


def cli(*args):
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout_bytes, result.stderr


def test_a_hugging_face_chat_dataset_reads_as_its_jsonl(tmp_path):
    """As `datasets` publishes them: messages as list<struct<content, role>>, rows
    written by pyarrow itself, in two row groups."""
    source = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
    rows = [json.loads(line) for line in source.read_text().splitlines()]
    kind = pa.list_(pa.struct([("content", pa.string()), ("role", pa.string())]))
    table = pa.table({"messages": pa.array([r["messages"] for r in rows], type=kind)})
    path = tmp_path / "train-00000-of-00001.parquet"
    pq.write_table(table, path, row_group_size=2)
    code, out, err = cli("convert", "--to", "openai", "-v", path)
    assert code == 0, err
    assert "openai (parquet, conversation per record)" in err
    assert [json.loads(line) for line in out.splitlines()] == [
        {"messages": [{"content": m["content"], "role": m["role"]} for m in r["messages"]]}
        for r in rows
    ]


def test_sharegpt_and_preference_columns_and_json_text_columns(tmp_path):
    sharegpt = json.loads(
        (FIXTURES / "sharegpt__llamafactory_glaive_toolcall_first12.json").read_text()
    )
    path = tmp_path / "sharegpt.parquet"
    pq.write_table(pa.Table.from_pylist(sharegpt), path)
    assert (
        cli("convert", path)[1]
        == cli("convert", FIXTURES / "sharegpt__llamafactory_glaive_toolcall_first12.json")[1]
    )
    preference = FIXTURES / "hf_preference__documented_trl_conversational.jsonl"
    rows = [json.loads(line) for line in preference.read_text().splitlines()]
    path = tmp_path / "pref.parquet"
    # some datasets keep the messages as JSON text
    as_text = [{k: json.dumps(v) for k, v in row.items()} for row in rows]
    pq.write_table(pa.Table.from_pylist(as_text), path)
    assert cli("convert", path)[1] == cli("convert", preference)[1]


RECORD_FIXTURES = sorted(
    p.name
    for p in FIXTURES.glob("*.jsonl")
    if p.name.startswith(
        ("openai_chat__cookbook", "hf_messages__llamafactory_v1", "hf_preference", "mellea_")
    )
)


@pytest.mark.parametrize("name", RECORD_FIXTURES)
@pytest.mark.parametrize("to", ["canonical", "openai"])
def test_every_record_fixture_goes_through_parquet_unchanged(tmp_path, name, to):
    path = FIXTURES / name
    written = tmp_path / "x.parquet"
    code, _, err = cli("convert", "--to", to, "-o", written, path)
    assert code == 0, err
    code, back, err = cli("convert", "--to", to, written)
    assert code == 0, err
    assert back == cli("convert", "--to", to, path)[1]


def test_a_later_row_that_does_not_fit_turns_its_column_into_json(tmp_path, monkeypatch):
    monkeypatch.setattr(chatpipe_parquet, "_ROWS_PER_GROUP", 2)
    plain = {"messages": [{"role": "user", "content": "hi"}], "id": 1}
    parts = {
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        "id": 2.5,
        "new": True,
    }
    source = tmp_path / "rows.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in [plain, plain, plain, parts, plain]))
    written = tmp_path / "rows.parquet"
    code, _, err = cli("convert", "--to", "openai", "--keep-extras", "-o", written, source)
    assert code == 0, err
    parquet = pq.ParquetFile(written)
    assert parquet.num_row_groups == 3
    schema = parquet.schema_arrow
    assert {f.name: str(f.type) for f in schema} == {
        "messages": "string",
        "id": "string",
        "new": "string",
    }
    assert json.loads(schema.metadata[b"chatpipe"]) == {
        "json": ["messages", "id", "new"],
        "messages": [],
    }
    assert (
        cli("convert", "--to", "openai", "--keep-extras", written)[1]
        == cli("convert", "--to", "openai", "--keep-extras", source)[1]
    )


def test_parquet_is_written_to_a_file_and_bad_files_are_one_line(tmp_path):
    log = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
    code, out, err = cli("convert", "--to-format", "parquet", log)
    assert code == 2 and out == b"" and "add -o FILE.parquet" in err
    code, _, err = cli("buffer", "-o", tmp_path / "b.parquet", log)
    assert (code, err) == (2, NOT_ROWS)
    assert not (tmp_path / "b.parquet").exists()
    broken = tmp_path / "cut.parquet"
    good = tmp_path / "good.parquet"
    assert cli("convert", "-o", good, log)[0] == 0
    broken.write_bytes(good.read_bytes()[:-40])
    code, _, err = cli("convert", broken)
    assert code == 1 and err.startswith(f"chatpipe: error: {broken}: not a readable Parquet file")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_binary_timestamp_and_struct_columns_read_as_json_values(tmp_path):
    """Columns of datasets beside the chat: images as bytes, creation times, structs whose
    missing keys Parquet fills with nulls (left out again, as they were never there)."""
    import datetime

    rows = [
        {
            "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}],
            "image": b"\x89PNG\x00\x01",
            "created": datetime.datetime(2024, 5, 1, 12, 0, 0),
            "meta": {"source": "web", "score": None},
            "tags": [{"name": None, "weight": 2}],
        }
    ]
    path = tmp_path / "mixed.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    code, out, err = cli("convert", "--to", "openai", "--keep-extras", path)
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}],
        "image": "iVBORwAB",  # base64 of the bytes
        "created": "2024-05-01T12:00:00",
        "meta": {"source": "web"},
        "tags": [{"weight": 2}],
    }


def test_parquet_on_standard_input_reads_as_the_file(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "rows.parquet"
    log = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
    assert cli("convert", "-o", path, log)[0] == 0
    # a pipe cannot seek: the file is taken whole, then read as from disk
    done = subprocess.run(
        [sys.executable, "-m", "chatpipe", "convert", "--to", "openai", "-"],
        input=path.read_bytes(),
        capture_output=True,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == cli("convert", "--to", "openai", log)[1]


@pytest.mark.parametrize(
    ("message", "fits"),
    [
        ({"role": "user", "content": "x", "name": "a", "tool_call_id": "c"}, True),
        ({"role": "assistant", "content": None, "tool_calls": []}, True),
        ({"role": "user"}, False),  # no content
        ({"content": "x"}, False),
        ({"role": "user", "content": 7}, False),
        ({"role": "user", "content": "x", "weight": 0}, False),
        ({"role": "assistant", "content": "", "tool_calls": "calls"}, False),
        ({"role": "assistant", "content": "", "tool_calls": [{"id": "c", "index": 0}]}, False),
        ({"role": "assistant", "content": "", "tool_calls": [{"id": 7}]}, False),
        ({"role": "assistant", "content": "", "tool_calls": [{"function": "f"}]}, False),
        (
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": {"a": 1}}}],
            },
            False,
        ),
        (
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
            True,
        ),
    ],
)
def test_which_messages_a_struct_column_holds(message, fits):
    # a message the struct cannot hold whole makes its column JSON text
    assert chatpipe_parquet._fits_openai(message) is fits


def test_a_message_with_a_field_of_its_own_is_written_as_json_text(tmp_path):
    source = tmp_path / "rows.jsonl"
    row = {
        "messages": [
            {"role": "system", "content": "s"},
            {"role": "user", "content": "x", "weight": 0},
        ]
    }
    source.write_text(json.dumps(row) + "\n")
    written = tmp_path / "rows.parquet"
    code, _, err = cli("convert", "--to", "openai", "--keep-extras", "-o", written, source)
    assert (code, err) == (0, "")
    schema = pq.ParquetFile(written).schema_arrow
    assert str(schema.field("messages").type) == "string"
    assert json.loads(schema.metadata[b"chatpipe"])["json"] == ["messages"]
    assert (
        cli("convert", "--to", "openai", "--keep-extras", written)[1]
        == cli("convert", "--to", "openai", "--keep-extras", source)[1]
    )


# -- issue 44: what is not records, maps, floats JSON has no number for ----------------------


@pytest.mark.parametrize(
    "command",
    [
        ["buffer"],
        ["buffer", "--separator", "---"],
        ["buffer", "--format", "xml"],
        ["convert", "--to", "markdown"],
        ["convert", "--to", "html"],
        ["convert", "--to", "yaml"],
        ["convert", "--json"],
        ["count"],
    ],
    ids=" ".join,
)
def test_text_and_documents_into_parquet_are_a_usage_error(tmp_path, command):
    log = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
    assert cli(*command, log, "-o", tmp_path / "out.parquet") == (2, b"", NOT_ROWS)
    assert list(tmp_path.iterdir()) == []


def _table(columns, path):
    messages = [[{"role": "user", "content": f"hi {n}"}] for n in range(len(columns["id"]))]
    pq.write_table(pa.table({"messages": messages, **columns}), path)
    return path


def test_map_columns_read_as_objects(tmp_path):
    """A map is an object when its keys are distinct strings, else a list of key/value
    objects (Arrow's own shape), never Python's repr of its pairs; a map inside a list of
    structs too; a null value in a map is kept (it is the map's, not a missing field)."""
    text_to_int = pa.map_(pa.string(), pa.int64())
    nested = pa.list_(pa.struct([("labels", pa.map_(pa.string(), pa.string())), ("n", pa.int64())]))
    path = _table(
        {
            "id": pa.array([1, 2, 3]),
            "counts": pa.array([[("a", 1), ("b", None)], [], None], type=text_to_int),
            "by_number": pa.array(
                [[(7, "seven")], [(1, "x"), (1, "y")], []], type=pa.map_(pa.int64(), pa.string())
            ),
            "spans": pa.array([[{"labels": [("k", "v")], "n": None}], None, []], type=nested),
        },
        tmp_path / "maps.parquet",
    )
    code, out, err = cli("convert", "--to", "openai", "--keep-extras", path)
    assert (code, err) == (0, "")
    assert [json.loads(line) for line in out.splitlines()] == [
        {
            "messages": [{"role": "user", "content": "hi 0"}],
            "id": 1,
            "counts": {"a": 1, "b": None},
            "by_number": [{"key": 7, "value": "seven"}],
            "spans": [{"labels": {"k": "v"}}],
        },
        {
            "messages": [{"role": "user", "content": "hi 1"}],
            "id": 2,
            "counts": {},
            "by_number": [{"key": 1, "value": "x"}, {"key": 1, "value": "y"}],
        },
        {
            "messages": [{"role": "user", "content": "hi 2"}],
            "id": 3,
            "by_number": {},
            "spans": [],
        },
    ]


def test_a_float_json_has_no_number_for_makes_its_row_a_bad_record(tmp_path):
    """NaN and the infinities, in a column or inside a list: never null silently; the row
    is a bad record, as NaN in JSON text is (--on-error skip leaves it out, and says so)."""
    path = _table(
        {
            "id": pa.array([1, 2, 3, 4]),
            "score": pa.array([0.5, float("nan"), 1.0, float("-inf")]),
            "curve": pa.array([[0.25], [0.5], [float("inf")], [1.0]]),
        },
        tmp_path / "floats.parquet",
    )
    hint = "(write it as null or as text first; --on-error skip leaves such rows out)"
    first = b'{"messages":[{"role":"user","content":"hi 0"}],"id":1,"score":0.5,"curve":[0.25]}\n'
    assert cli("convert", "--to", "openai", "--keep-extras", path) == (
        1,
        first,  # (what came before the error, as on stdout it stays)
        f"chatpipe: error: {path}:2: column 'score' holds NaN, which JSON has no number for "
        f"{hint}\n",
    )
    code, out, err = cli("convert", "--to", "openai", "--keep-extras", "--on-error", "skip", path)
    assert (code, out) == (0, first)
    assert err == (
        f"chatpipe: skipped: {path}:2: column 'score' holds NaN, which JSON has no number for "
        f"{hint}\n"
        f"chatpipe: skipped: {path}:3: column 'curve' holds Infinity, which JSON has no number "
        f"for {hint}\n"
        f"chatpipe: skipped: {path}:4: column 'score' holds -Infinity, which JSON has no number "
        f"for {hint}\n"
        "chatpipe: warning: skipped 3 bad records\n"
    )
