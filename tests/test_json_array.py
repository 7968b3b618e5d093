"""A JSON document's top-level array read element by element (io/json_array.py,
io/documents.py): the same values as a whole-document parse, each at the place the
standard library's own parser finds it, whatever the chunks the stream comes in; each
element, and each run of blank space, bounded by the record limit; a decompression bomb
refused within it (#51)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chatpipe.io.json_array as json_array
import chatpipe.io.json_scan as json_scan
from chatpipe.errors import DataError
from chatpipe.io.limits import LIMITS
from chatpipe.io.readers import Source, read_records

# JSON values: strings with escapes, quotes, brackets, non-ASCII and line separators
_TEXT = st.text(
    st.sampled_from(list('ab "\\[]{},:\n\té€😀\u2028/')) | st.characters(codec="utf-8"),
    max_size=12,
)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**25), 10**25)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)
_BLANKS = st.sampled_from(["", " ", "\n", "  \n  ", "\r\n", "\t"])


def _places(text: str) -> list[tuple[int, int]]:
    """Where each element of the array ``text`` starts (line, column in characters), as
    the standard library's parser walks it: the reference."""
    decoder = json.JSONDecoder()
    at = text.index("[") + 1
    places = []
    while True:
        while text[at] in " \t\r\n,":
            at += 1
        if text[at] == "]":
            return places
        places.append((text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)))
        _, at = decoder.raw_decode(text, at)


def _read(path) -> tuple[str | None, list]:
    source = Source(str(path))
    out = []
    for record in read_records(source):
        error = getattr(record, "error", None)
        place = (record.location.line, record.location.col)
        out.append(("bad", str(error)) if error else (record.value, place))
    return source.container, out


@pytest.fixture
def tiny_chunks(monkeypatch):
    """Reads of a few bytes at a time: every element crosses a chunk's end somewhere."""

    def set_chunk(size: int, pattern: bool) -> None:
        monkeypatch.setattr(json_array, "CHUNK", size)
        if not pattern:  # the exact scan alone, as on Python 3.10
            monkeypatch.setattr(json_scan, "element_pattern", lambda: None)

    return set_chunk


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    elements=st.lists(_VALUES, max_size=6),
    blanks=st.lists(_BLANKS, min_size=20, max_size=20),
    indent=st.sampled_from([None, 1, 2]),
    ascii=st.booleans(),
    chunk=st.sampled_from([1, 2, 3, 7, 64, 1 << 20]),
    pattern=st.booleans(),
)
def test_elements_and_their_places_match_a_whole_parse(
    tmp_path, tiny_chunks, elements, blanks, indent, ascii, chunk, pattern
):
    tiny_chunks(chunk, pattern)
    if indent is None:  # one line, or blank space of every kind between the elements
        texts = [json.dumps(e, ensure_ascii=ascii) for e in elements]
        body = "".join(
            blanks[2 * k % 20] + t + blanks[(2 * k + 1) % 20] + ("," if k < len(texts) - 1 else "")
            for k, t in enumerate(texts)
        )
        text = blanks[19] + "[" + body + "]" + blanks[18].replace("\n", " ")
    else:
        text = json.dumps(elements, indent=indent, ensure_ascii=ascii)
    path = tmp_path / "doc.json"
    path.write_text(text, encoding="utf-8")
    container, records = _read(path)
    assert container == "json"
    expected = json.loads(text)  # (integers past 64 bits exact, as chatpipe keeps them)
    assert [value for value, _ in records] == expected
    assert [place for _, place in records] == _places(text)


@pytest.mark.parametrize("chunk", [1, 5, 1 << 20])
@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"[1,]", "1:3: invalid JSON: trailing comma is not allowed"),
        (b"[,1]", "1:2: invalid JSON: unexpected character, expected a JSON value"),
        (b"[1 2]", "1:4: invalid JSON: unexpected character, expected ',' or ']'"),
        (
            b'[{"a": 1},\n {"a": [1}]',
            "2:10: invalid JSON: unexpected character, expected ',' or ']'",
        ),
        (b'[{"a": 1},\n {"a": 2,}\n]', "2:9: invalid JSON: trailing comma is not allowed"),
        (b"[tru]", "1:2: invalid JSON: invalid literal, expected 'true'"),
        (b'[\n  {"a": "\xc3\xa9\xc3\xa9"},\n  "x', "3:5: invalid JSON: unexpected end of data"),
        (b"[1,\n 2] x\n", "2:5: invalid JSON: unexpected content after document"),
    ],
)
def test_an_array_that_is_not_json_is_said_at_its_place(tmp_path, tiny_chunks, chunk, data, said):
    tiny_chunks(chunk, True)
    path = tmp_path / "doc.json"
    path.write_bytes(data)
    with pytest.raises(DataError) as info:
        _read(path)
    assert str(info.value) == f"{path}:{said}"


def test_a_file_whose_lines_are_arrays_is_jsonl(tmp_path):
    path = tmp_path / "rows.json"
    path.write_bytes(
        b'[{"role": "user", "content": "a"}]\n\n  [{"role": "user", "content": "b"}]\n'
    )
    assert _read(path) == (
        "jsonl",
        [
            ([{"role": "user", "content": "a"}], (1, 1)),
            ([{"role": "user", "content": "b"}], (3, 3)),
        ],
    )


def test_elements_past_the_record_limit_are_skipped_and_the_rest_read(tmp_path, monkeypatch):
    monkeypatch.setattr(LIMITS, "record_bytes", 100)
    monkeypatch.setattr(json_array, "CHUNK", 16)
    big = {"text": "x" * 300, "more": ["[" * 3, {"y": "]" * 200}]}
    path = tmp_path / "doc.json"
    path.write_text(json.dumps([{"a": 1}, big, "z" * 300, 12345678901234567890 * 10**200, [2]]))
    said = "a record larger than 100 bytes (raise the limit with chatpipe --max-record-bytes N)"
    container, records = _read(path)
    assert container == "json"
    assert records == [
        ({"a": 1}, (1, 2)),
        ("bad", f"{path}:1:12: {said}"),
        ("bad", f"{path}:1:{12 + len(json.dumps(big)) + 2}: {said}"),
        ("bad", f"{path}:1:{12 + len(json.dumps(big)) + 2 + 302 + 2}: {said}"),
        ([2], (1, len(path.read_text()) - 3)),
    ]


def test_an_element_nested_past_the_depth_limit_is_skipped(tmp_path, monkeypatch):
    monkeypatch.setattr(LIMITS, "depth", 5)
    path = tmp_path / "doc.json"
    path.write_text('[[[[[[["deep"]]]]]], [[[[["ok"]]]]]]')
    assert _read(path)[1] == [
        (
            "bad",
            f"{path}:1:2: a record nested deeper than 5 levels (raise the limit with "
            "chatpipe --max-depth N)",
        ),
        ([[[[["ok"]]]]], (1, 22)),
    ]


def test_places_are_counted_in_one_pass_over_the_document(tmp_path, monkeypatch):
    """Each element's column is counted from the last one's (the viewer asks for every
    conversation's place): the bytes looked at to count lines and columns are the
    document's bytes once, where counting each from its line's start was quadratic on a
    one-line export (a 139 MB export: 4 min 38 s)."""
    looked = []
    columns, places = json_scan.text_columns, json_array.ArrayScanner._places

    def counting_columns(data):
        looked.append(len(data))
        return columns(data)

    def counting_places(scanner, starts, end):
        looked.append(end - scanner.mark)
        return places(scanner, starts, end)

    monkeypatch.setattr(json_scan, "text_columns", counting_columns)
    monkeypatch.setattr(json_array.ArrayScanner, "_places", counting_places)
    conversation = {"title": "é" * 50, "mapping": {"a": {"message": {"content": "ü" * 100}}}}
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([conversation] * 2000, ensure_ascii=False), encoding="utf-8")
    container, records = _read(path)
    assert container == "json" and len(records) == 2000
    step = len(json.dumps(conversation, ensure_ascii=False)) + 2
    assert [place for _, place in records] == [(1, 2 + k * step) for k in range(2000)]
    assert sum(looked) <= path.stat().st_size


def _gzip_of(parts: list[tuple[bytes, int]]) -> bytes:
    """gzip members, each piece's bytes compressed once and repeated: a stream that
    decompresses to gigabytes, made in a moment."""
    out = []
    for piece, times in parts:
        out.append(gzip.compress(piece, mtime=0) * times)
    return b"".join(out)


_MIB = b" " * (1 << 20)


@pytest.mark.parametrize(
    ("name", "parts", "said"),
    [
        (  # an array holding 1 GiB of blank space
            "bomb.json.gz",
            [(b"[", 1), (_MIB, 1024), (b"]", 1)],
            "1:2: more than 1,000,000 bytes of blank space in a row, more than a record may take",
        ),
        (  # blank space between two elements
            "between.json.gz",
            [(b'[{"a": 1},', 1), (_MIB, 1024), (b"2]", 1)],
            "1:11: more than 1,000,000 bytes of blank space in a row, more than a record may take",
        ),
        (  # one element, a string of 1 GiB
            "string.json.gz",
            [(b'[{"role": "user", "content": "hi"}, "', 1), (b"x" * (1 << 20), 1024), (b'"]', 1)],
            "1:37: a record larger than 1,000,000 bytes",
        ),
        (  # an object (one record) padded with 1 GiB of blank space
            "object.json.gz",
            [(b'{"messages": []', 1), (_MIB, 1024), (b"}", 1)],
            "a JSON document larger than 1,000,000 bytes, more than a record may take",
        ),
        (  # nothing but line breaks
            "lines.jsonl.gz",
            [(b"\n" * (1 << 20), 1024)],
            "more than 1,000,000 bytes of blank lines, more than a record may take",
        ),
        (  # a YAML document as large
            "bomb.yaml.gz",
            [(b"messages:\n", 1), (_MIB, 1024)],
            "a YAML document larger than 1,000,000 bytes, more than a record may take",
        ),
    ],
)
def test_a_decompression_bomb_is_refused_within_the_record_limit(tmp_path, name, parts, said):
    """A small compressed file holding a gigabyte: refused in one line once the limit is
    passed, under an address space far smaller than the gigabyte (the whole document was
    read into memory, then parsed: 1 GiB took 4 GB)."""
    bomb = tmp_path / name
    bomb.write_bytes(_gzip_of(parts))
    assert bomb.stat().st_size < 2 << 20
    limit = 256 << 20
    code = (
        "import resource, sys, runpy\n"
        f"resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))\n"
        f"sys.argv = ['chatpipe', '--max-record-bytes', '1000000', 'convert', {str(bomb)!r}]\n"
        "runpy.run_module('chatpipe', run_name='__main__')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert done.returncode == 1
    [line] = done.stderr.decode().splitlines()  # one line, no traceback
    assert line.startswith(f"chatpipe: error: {bomb}:")
    assert said in line and line.endswith("raise the limit with chatpipe --max-record-bytes N)")


def test_an_export_larger_than_memory_allows_is_read_a_conversation_at_a_time(tmp_path):
    """A real export is never refused: 300 copies of a fixture's conversation (21 MB, on
    one line, as ChatGPT writes it) counted under an address space that a whole-document
    parse does not fit in (it said "not enough memory"); --max-record-bytes far below the
    document bounds each conversation, not the file."""
    from conftest import FIXTURES

    export = FIXTURES / "chatgpt_export__realazthat_2024_code_interpreter.json"
    conversation = orjson.dumps(orjson.loads(export.read_bytes())[0])
    path = tmp_path / "conversations.json.gz"
    path.write_bytes(_gzip_of([(b"[", 1), (conversation + b",", 299), (conversation + b"]", 1)]))
    limit = 160 << 20
    code = (
        "import resource, sys, runpy\n"
        f"resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))\n"
        f"sys.argv = ['chatpipe', '--max-record-bytes', '1000000', 'count', {str(path)!r}]\n"
        "runpy.run_module('chatpipe', run_name='__main__')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=300)
    assert (done.returncode, done.stderr) == (0, b"")
    assert len(set(done.stdout.splitlines())) == 1 and len(done.stdout.splitlines()) == 300
