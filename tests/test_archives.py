"""Archives and compression (issue 40, item 8; issue 41, item 6): compressed inputs read
as they stream, told by their first bytes; a zip read member by member (an export as
downloaded gives what its conversations.json gives, byte for byte); members that are no
chat log skipped and said; errors naming ZIP:MEMBER; -o FILE.gz written compressed and
atomically; binary inputs said as what they are; the parts a zip and a compressed file
are cut into; an export's images shown by the viewer and the Markdown writer."""

from __future__ import annotations

import base64
import bz2
import gzip
import lzma
import os
import pickle
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
import zstandard
from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.io.magic import binary_kind, image_mime
from chatpipe.io.sources import Source, input_sources, split_member
from chatpipe.pipeline.job import Inputs, Job
from chatpipe.pipeline.plan import FILE, LINES, plan, shard_name
from chatpipe.pipeline.reading import read
from chatpipe.render.html import entry
from conftest import FIXTURES, noting_pids

runner = CliRunner()
CHATGPT_ZIP = FIXTURES / "zip__documented_chatgpt_export_download.zip"
CLAUDE_ZIP = FIXTURES / "zip__documented_claude_export_download.zip"
LOG = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
IMAGE = "file-6zq2zmFSnwi6Z6jNDdVqg9-Screenshot 2025-01-13 at 10.12.43.png"
COMPRESS = {
    "gz": lambda data: gzip.compress(data, mtime=0),
    "bz2": bz2.compress,
    "xz": lzma.compress,
    "zst": lambda data: zstandard.ZstdCompressor().compress(data),
}
DECOMPRESS = {
    "gz": gzip.decompress,
    "bz2": bz2.decompress,
    "xz": lzma.decompress,
    "zst": lambda data: zstandard.ZstdDecompressor().decompressobj().decompress(data),
}
READS = "chatpipe reads JSON, JSONL, YAML and SSE text and Parquet, compressed or in a zip"


def run(*args, input=None):
    result = runner.invoke(app, [str(a) for a in args], input=input)
    return result.exit_code, result.stdout, result.stderr


def zipped(path: Path, members: dict[str, bytes | str]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def member(archive: Path, name: str) -> bytes:
    with zipfile.ZipFile(archive) as opened:
        return opened.read(name)


# -- export zips as downloaded ------------------------------------------------------------


@pytest.mark.parametrize("archive", [CHATGPT_ZIP, CLAUDE_ZIP], ids=lambda p: p.name)
@pytest.mark.parametrize("options", [[], ["--branch", "all"], ["--to", "markdown"]])
def test_an_export_zip_converts_as_its_conversations_json(tmp_path, archive, options):
    unzipped = tmp_path / "conversations.json"
    unzipped.write_bytes(member(archive, "conversations.json"))
    code, out, err = run("convert", *options, archive)
    assert code == 0, err
    assert out == run("convert", *options, unzipped)[1]
    assert len(out) > 1000


def test_an_export_zip_says_what_it_read_and_skipped(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "export.zip").write_bytes(CHATGPT_ZIP.read_bytes())
    code, out, err = run("convert", "-v", "export.zip")
    assert code == 0
    assert out.count("\n") == 2  # two conversations
    assert err == (
        "chatpipe: read export.zip:conversations.json: chatgpt-export (json, conversation "
        "per record)\n"
        "chatpipe: export.zip:conversations.json:1:5000: wrote the active branch; 1 other "
        "branch left out (--branch all writes them)\n"
        "chatpipe: export.zip: 2 members empty, no conversations in them: "
        "message_feedback.json, shared_conversations.json\n"
        "chatpipe: export.zip: skipped 3 members that are not chat logs: JSON of no chat "
        f"format (user.json); a PNG image ({IMAGE}); HTML or XML (chat.html)\n"
    )
    assert run("convert", "export.zip")[2] == ""  # said only under -v


def test_a_claude_export_zip_skips_its_account_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claude.zip").write_bytes(CLAUDE_ZIP.read_bytes())
    code, out, err = run("convert", "-v", "--from", "claude-export", "claude.zip")
    assert code == 0
    assert out == run("convert", "claude.zip")[1]
    assert err == (
        "chatpipe: read claude.zip:conversations.json: claude-export (json, conversation "
        "per record)\n"
        "chatpipe: claude.zip: 1 member empty, no conversations in it: projects.json\n"
        "chatpipe: claude.zip: skipped 1 member that is not a chat log: JSON that is not "
        "claude-export (users.json)\n"
    )


def test_a_member_is_named_alone_as_zip_colon_member(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "export.zip").write_bytes(CHATGPT_ZIP.read_bytes())
    assert run("convert", "export.zip:conversations.json")[1] == run("convert", "export.zip")[1]
    assert split_member("export.zip:conversations.json") == ("export.zip", "conversations.json")
    assert split_member("s3://bucket/a.zip:x/y.json") == ("s3://bucket/a.zip", "x/y.json")
    assert split_member("export.zip") is None
    assert split_member("missing.zip:x.json") is None
    code, _, err = run("convert", "export.zip:user.json")
    assert code == 1
    assert err.startswith(
        "chatpipe: error: export.zip:user.json:1:1: cannot tell what chat format this is "
        "(top-level keys: id, email, chatgpt_plus_user, phone_number; name it with --from ("
    )
    assert run("convert", "export.zip:nothing.json")[1:] == (
        "",
        "chatpipe: error: export.zip:nothing.json: no such member in this zip (unzip -l "
        "export.zip lists them)\n",
    )


def test_each_member_is_detected_on_its_own(tmp_path):
    unzipped = tmp_path / "conversations.json"
    unzipped.write_bytes(member(CHATGPT_ZIP, "conversations.json"))
    archive = zipped(
        tmp_path / "mixed.zip",
        {
            "README.md": "# Logs\n\nTwo chats.\n",
            "a/chat.jsonl": LOG.read_bytes(),
            "b/chatgpt.json": member(CHATGPT_ZIP, "conversations.json"),
            "c/chat.jsonl.gz": gzip.compress(LOG.read_bytes()),
            "notes/": "",
            "old.zip": CLAUDE_ZIP.read_bytes(),
            "d/none.json": "[]",
        },
    )
    code, out, err = run("convert", "-v", archive)
    assert code == 0, err
    assert out == run("convert", LOG, unzipped, LOG)[1]
    assert f"read {archive}:c/chat.jsonl.gz: openai (jsonl, conversation per record)" in err
    assert f"chatpipe: {archive}: 1 member empty, no conversations in it: d/none.json\n" in err
    assert (
        f"chatpipe: {archive}: skipped 1 member that is not a chat log: text that is not "
        "JSON (README.md)\n"
    ) in err
    assert err.endswith(
        f"chatpipe: warning: {archive}: a zip inside it not read: old.zip (unzip it and name "
        "the zip inside it)\n"
    )


def test_a_batchs_files_in_one_zip_are_joined(tmp_path):
    requests = FIXTURES / "openai_batch__litellm_chat_input.jsonl"
    results = FIXTURES / "openai_batch__litellm_chat_output.jsonl"
    joined = run("convert", requests, results)
    assert joined[0] == 0 and '"batch_error"' not in joined[1]
    archive = zipped(
        tmp_path / "batch.zip",
        {"batch_out.jsonl": results.read_bytes(), "batch_in.jsonl": requests.read_bytes()},
    )
    assert run("convert", archive) == joined
    assert run("convert", "--jobs", "2", archive) == (
        0,
        joined[1],
        "chatpipe: --jobs 2: a batch's input and output files are joined in one process\n",
    )


def test_a_zip_with_no_chat_log_is_an_error(tmp_path):
    archive = zipped(tmp_path / "photos.zip", {"a.png": _png(), "b.txt": "hello\n"})
    assert run("convert", archive)[::2] == (
        1,
        f"chatpipe: error: {archive}: no chat log in this zip: a PNG image (a.png); text "
        "that is not JSON (b.txt) (name a member to read it alone (ZIP:MEMBER) with --from "
        "DIALECT)\n",
    )
    empty = zipped(tmp_path / "empty.zip", {})
    assert run("convert", LOG, empty) == (  # (what came before it converted, as jq does)
        1,
        run("convert", LOG)[1],
        f"chatpipe: error: {empty}: an empty zip archive: no chat log in it\n",
    )
    cut = tmp_path / "cut.zip"
    cut.write_bytes(CHATGPT_ZIP.read_bytes()[:2000])
    assert run("convert", cut)[::2] == (
        1,
        f"chatpipe: error: {cut}: not a readable zip archive (File is not a zip file) "
        "(download it again; unzip -t FILE checks a zip)\n",
    )


def test_validate_reads_a_zips_members(tmp_path):
    assert run("validate", CHATGPT_ZIP) == (0, "", "chatpipe: no problems found\n")
    archive = zipped(
        tmp_path / "bad.zip",
        {"user.json": '{"id": "u"}', "logs/chat.jsonl": '{"role":"user","content":"hi"}\n[1,\n'},
    )
    assert run("validate", archive) == (
        1,
        f"{archive}:logs/chat.jsonl:2:4: unreadable_record: invalid JSON: unexpected end of "
        "data\n"
        f"{archive}:logs/chat.jsonl:1:1: example_missing_assistant_message: no assistant "
        "message (an example teaches the assistant's reply: add one)\n",
        "chatpipe: 2 problems: 1 unreadable_record, 1 example_missing_assistant_message\n",
    )


def test_a_members_error_names_zip_member_line_and_column(tmp_path):
    archive = zipped(
        tmp_path / "bad.zip",
        {"logs/chat.jsonl": '{"role":"user","content":"hi"}\n{"role": "assistant", "x": oops}\n'},
    )
    code, out, err = run("convert", archive)
    assert (code, out) == (1, '{"type":"human","content":"hi"}\n')
    assert err == (
        f"chatpipe: error: {archive}:logs/chat.jsonl:2:28: invalid JSON: unexpected "
        "character, expected a JSON value\n"
    )
    broken = member(CHATGPT_ZIP, "conversations.json").replace(b'"mapping"', b'"mapping" 1', 1)
    export = zipped(tmp_path / "export.zip", {"conversations.json": broken})
    code, _, err = run("convert", export)
    assert code == 1
    assert err.startswith(f"chatpipe: error: {export}:conversations.json:1:")
    assert "invalid JSON" in err


def test_a_damaged_member_is_one_error_line(tmp_path):
    archive = tmp_path / "crc.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as out:
        out.writestr("chat.jsonl", LOG.read_bytes())
    data = bytearray(archive.read_bytes())
    at = data.index(b'"content"')
    data[at + 1] ^= 0x20  # a stored byte changed: its CRC no longer matches
    archive.write_bytes(bytes(data))
    code, _, err = run("convert", archive)
    assert code == 1
    assert err == (
        f"chatpipe: error: {archive}:chat.jsonl: cannot read this zip member: it is damaged "
        "(Bad CRC-32 for file 'chat.jsonl') (download the zip again; unzip -t FILE checks it)\n"
    )
    locked = tmp_path / "locked.zip"
    with zipfile.ZipFile(locked, "w") as out:
        out.writestr("chat.jsonl", LOG.read_bytes())
    data = bytearray(locked.read_bytes())
    for header, at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # marked encrypted
        data[data.index(header) + at] |= 0x1
    locked.write_bytes(bytes(data))
    assert run("convert", f"{locked}:chat.jsonl")[2] == (
        f"chatpipe: error: {locked}:chat.jsonl: an encrypted member: chatpipe reads no "
        "password-protected zip (extract it with unzip first)\n"
    )


def test_a_zip_on_stdin_is_read_too():
    code, out, _ = run("convert", "-", input=CHATGPT_ZIP.read_bytes())
    assert (code, out) == (0, run("convert", CHATGPT_ZIP)[1])
    code, _, err = run("convert", "-v", "-", input=CHATGPT_ZIP.read_bytes())
    assert "chatpipe: read <stdin>:conversations.json: chatgpt-export" in err


def test_a_zip_through_a_pipe_named_as_a_path_is_read(tmp_path):
    """/dev/stdin, a FIFO and <(...) are pipes: a zip in one was said to be "a zip
    archive, not a text chat log" (piped to - it was read)."""
    import subprocess
    import threading

    expected = run("count", CHATGPT_ZIP)[1]
    done = subprocess.run(
        [sys.executable, "-m", "chatpipe", "count", "/dev/stdin"],
        input=CHATGPT_ZIP.read_bytes(),
        capture_output=True,
    )
    assert (done.returncode, done.stdout.decode(), done.stderr) == (0, expected, b"")
    fifo = tmp_path / "export.fifo"
    for data, want in (
        (CHATGPT_ZIP.read_bytes(), expected),
        (LOG.read_bytes(), run("count", LOG)[1]),
    ):
        os.mkfifo(fifo)
        writer = threading.Thread(target=fifo.write_bytes, args=(data,))
        writer.start()
        assert run("count", fifo) == (0, want, "")
        writer.join()
        fifo.unlink()


def test_a_zip_inside_a_zip_is_said_without_v(tmp_path):
    archive = zipped(
        tmp_path / "downloads.zip",
        {"chat.jsonl": LOG.read_bytes(), "export.zip": CHATGPT_ZIP.read_bytes()},
    )
    said = (
        f"chatpipe: warning: {archive}: a zip inside it not read: export.zip (unzip it and "
        "name the zip inside it)\n"
    )
    expected = run("count", LOG)[1]
    assert run("count", archive) == (0, expected, said)
    assert run("count", "--jobs", "2", archive) == (0, expected, said)
    assert run("convert", "--output-dir", tmp_path / "out", archive) == (0, "", said)


def test_shard_names_hold_no_control_characters_of_member_names(tmp_path):
    archive = zipped(
        tmp_path / "odd\x07.zip",
        {"a\x1b]0;title\x07b.jsonl": LOG.read_bytes(), "c\nd\x9b.jsonl": LOG.read_bytes()},
    )
    assert run("convert", "--output-dir", tmp_path / "out", archive)[0] == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "odd_-a_]0;title_b.jsonl",
        "odd_-c_d_.jsonl",
    ]


# -- compression ----------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", list(COMPRESS))
def test_each_compression_is_read_and_written(tmp_path, suffix):
    expected = run("convert", LOG)[1]
    packed = tmp_path / f"log.jsonl.{suffix}"
    packed.write_bytes(COMPRESS[suffix](LOG.read_bytes()))
    assert run("convert", packed) == (0, expected, "")
    out = tmp_path / f"out.jsonl.{suffix}"
    assert run("convert", "-o", out, LOG) == (0, "", "")
    assert DECOMPRESS[suffix](out.read_bytes()) == expected.encode()
    assert run("convert", out)[1] == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([packed.name, out.name])


def test_compression_is_told_by_its_first_bytes_not_its_name(tmp_path):
    expected = run("convert", LOG)[1]
    for name, data in [
        ("log.json", gzip.compress(LOG.read_bytes())),
        ("log.txt", bz2.compress(LOG.read_bytes())),
        ("log", lzma.compress(LOG.read_bytes())),
        ("plain.jsonl.gz", LOG.read_bytes()),  # named gzip, but text
    ]:
        (tmp_path / name).write_bytes(data)
        assert run("convert", tmp_path / name) == (0, expected, ""), name
    assert run("convert", "-", input=gzip.compress(LOG.read_bytes()))[1] == expected


def test_a_compressed_utf16_file_is_transcoded(tmp_path):
    text = LOG.read_text(encoding="utf-8")
    packed = tmp_path / "log.jsonl.gz"
    packed.write_bytes(gzip.compress(text.encode("utf-16")))
    assert run("convert", packed)[1] == run("convert", LOG)[1]


def test_a_cut_or_damaged_compressed_file_is_one_error_line(tmp_path):
    data = gzip.compress(LOG.read_bytes() * 20)
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(data[: len(data) // 2])
    code, _, err = run("convert", cut)
    assert code == 1
    assert err == (
        f"chatpipe: error: {cut}: cannot decompress this gzip file: it ends early (the file "
        "is cut short) (download it again; gzip -t FILE checks a file)\n"
    )
    bad = tmp_path / "bad.xz"
    bad.write_bytes(lzma.compress(LOG.read_bytes())[:20] + b"\x00" * 200)
    assert run("convert", bad)[2] == (
        f"chatpipe: error: {bad}: cannot decompress this xz file: it is damaged (Corrupt input "
        "data) (download it again; xz -t FILE checks a file)\n"
    )


def test_gzip_output_is_the_same_bytes_every_run(tmp_path):
    first, second = tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz"
    run("convert", "-o", first, LOG)
    run("convert", "-o", second, LOG)
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes()[3:10] == b"\x00" * 6 + b"\xff"  # no name, no time


def test_compressed_output_is_atomic(tmp_path):
    out = tmp_path / "out.jsonl.gz"
    out.write_bytes(b"old")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(LOG.read_text() + "{\n")
    code, _, err = run("convert", "-o", out, bad)
    assert code == 1 and err.startswith(f"chatpipe: error: {bad}:")
    assert out.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "out.jsonl.gz"]
    assert run("convert", "-o", out, LOG)[0] == 0
    assert gzip.decompress(out.read_bytes()).decode() == run("convert", LOG)[1]


def test_a_missing_zstandard_is_one_line(tmp_path, monkeypatch):
    packed = tmp_path / "log.jsonl.zst"
    packed.write_bytes(COMPRESS["zst"](LOG.read_bytes()))
    monkeypatch.setitem(sys.modules, "zstandard", None)  # import zstandard: ImportError
    assert run("convert", packed)[::2] == (
        2,
        f"chatpipe: error: {packed}: zstd-compressed: reading it needs the zstandard package "
        "(pip install 'chatpipe[zstd]', or from a clone: pip install -e '.[zstd]')\n",
    )
    out = tmp_path / "out.jsonl.zst"
    assert run("convert", "-o", out, LOG)[::2] == (
        2,
        f"chatpipe: error: {out}: writing zstd needs the zstandard package (pip install "
        "'chatpipe[zstd]', or from a clone: pip install -e '.[zstd]')\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.jsonl.zst"]


# -- what is not a text chat log -------------------------------------------------------------


def test_a_binary_input_is_said_as_what_it_is(tmp_path):
    png = tmp_path / "photo.json"
    png.write_bytes(_png())
    noise = tmp_path / "noise.jsonl"
    noise.write_bytes(bytes(range(256)) * 8)
    tar = tmp_path / "logs.tar.gz"
    with tarfile.open(tar, "w:gz") as out:
        out.add(LOG, "chat.jsonl")
    zip_in_gzip = tmp_path / "export.zip.gz"
    zip_in_gzip.write_bytes(gzip.compress(CHATGPT_ZIP.read_bytes()))
    page = tmp_path / "chat.html"
    page.write_text("<!DOCTYPE html>\n<html><body></body></html>\n")
    said = {
        png: f"a PNG image, not a text chat log ({READS})",
        noise: f"binary data, not a text chat log ({READS}; UTF-16 text needs its byte order mark)",
        tar: "a tar archive, not a text chat log (unpack it (tar xf FILE) and name the files "
        "inside it)",
        zip_in_gzip: "a zip archive inside gzip data, not a text chat log (unpack the outer "
        "archive and name the zip inside it)",
        page: "an HTML or XML page, not a chat log (chatpipe reads JSON, JSONL, YAML and SSE; "
        "ChatGPT's export holds its conversations in conversations.json beside chat.html)",
    }
    for path, message in said.items():
        place = f"{path}:1:1" if path == page else str(path)
        assert run("convert", path)[::2] == (1, f"chatpipe: error: {place}: {message}\n")


def test_a_long_text_with_no_line_break_is_refused_at_the_record_limit(tmp_path):
    long = tmp_path / "long.txt"
    long.write_bytes(b"a" * 3000)
    code, _, err = run("--max-record-bytes", "1000", "convert", long)
    assert (code, err) == (
        1,
        f"chatpipe: error: {long}:1:1: no line break in the first 1,000 bytes: not a chat log "
        "(a JSON document starts with { or [; raise chatpipe --max-record-bytes N for longer "
        "lines)\n",
    )


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "a JPEG image"),
        (b"GIF89a\x01\x00", "a GIF image"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "a WebP image"),
        (b"%PDF-1.7\n", "a PDF document"),
        (b"SQLite format 3\x00", "an SQLite database"),
        (b"PK\x03\x04\x14\x00", "a zip archive"),
        (b"\x28\xb5\x2f\xfd\x00", "zstd-compressed data"),
        (b"hello\x00world", "binary data"),
        (b'{"role": "user", "content": "caf\xc3\xa9"}\n', None),
        ("r\u00e9sum\u00e9 ".encode("latin-1") * 10, None),  # text, not UTF-8: said at its byte
        (bytes(range(256)) * 16, "binary data"),
    ],
)
def test_binary_kinds(head, kind):
    assert binary_kind(head) == kind


def test_image_types_from_their_bytes():
    assert image_mime(_png()) == "image/png"
    assert image_mime(b"RIFF\x00\x00\x00\x00WEBP") == "image/webp"
    assert image_mime(b"GIF87a") == "image/gif"
    assert image_mime(b"hello") is None


# -- parts: --jobs, --output-dir, Dask's plan --------------------------------------------------


def test_a_zip_is_planned_a_part_a_member_and_a_compressed_file_whole(tmp_path):
    archive = zipped(
        tmp_path / "export.zip",
        {
            "conversations.json": member(CHATGPT_ZIP, "conversations.json"),
            "user.json": member(CHATGPT_ZIP, "user.json"),
            "data/chat.jsonl": LOG.read_bytes(),
        },
    )
    packed = tmp_path / "log.jsonl.gz"
    packed.write_bytes(gzip.compress(LOG.read_bytes()))
    plain = tmp_path / "log.jsonl"
    plain.write_bytes(LOG.read_bytes())
    found = plan(Job(Inputs(files=(str(archive), str(packed), str(plain)))), 1000)
    assert [(p.spec, p.kind, p.dialect) for p in found.parts][:3] == [
        (f"{archive}:conversations.json", FILE, "chatgpt-export"),
        (f"{archive}:data/chat.jsonl", FILE, "openai"),
        (str(packed), FILE, "openai"),
    ]
    assert {p.kind for p in found.parts[3:]} == {LINES}
    assert [shard_name(p, ".jsonl") for p in found.parts[:3]] == [
        "export-conversations.jsonl",
        "export-chat.jsonl",
        "log.jsonl",
    ]
    nothing = zipped(tmp_path / "nothing.zip", {"a.png": _png()})
    assert [(p.spec, p.kind) for p in plan(Job(Inputs(files=(str(nothing),)))).parts] == [
        (str(nothing), FILE)  # read whole by its part, which says what is wrong
    ]


def test_jobs_and_output_dir_give_the_serial_output(tmp_path):
    archive = zipped(
        tmp_path / "export.zip",
        {
            "conversations.json": member(CHATGPT_ZIP, "conversations.json"),
            "README.md": "about\n",
            "data/chat.jsonl": LOG.read_bytes(),
        },
    )
    packed = tmp_path / "more.jsonl.xz"
    packed.write_bytes(lzma.compress(LOG.read_bytes()))
    serial = run("convert", archive, packed)
    assert serial[0] == 0
    assert run("convert", "--jobs", "2", archive, packed) == serial
    assert run("convert", "--output-dir", tmp_path / "out", archive, packed)[0] == 0
    shards = sorted((tmp_path / "out").iterdir())
    assert [p.name for p in shards] == [
        "export-chat.jsonl",
        "export-conversations.jsonl",
        "more.jsonl",
    ]
    assert "".join(p.read_text() for p in (shards[1], shards[0], shards[2])) == serial[1]


def test_a_zips_listing_is_read_once_a_process_not_once_a_member(tmp_path, monkeypatch):
    """Each member part (--jobs, Dask) opened its zip again and read its listing: quadratic
    (3,000 members: 0.4 s serially, 27 s on --jobs 2). A worker keeps the zip open."""
    rows = LOG.read_text().splitlines(keepends=True)
    archive = zipped(
        tmp_path / "many.zip", {f"c{n:03d}.jsonl": rows[n % len(rows)] for n in range(60)}
    )
    listings = noting_pids(monkeypatch, zipfile.ZipFile, "_RealGetContents", tmp_path / "pids")
    serial = run("count", archive)
    assert serial[0] == 0 and len(serial[1].splitlines()) == 60
    listings.write_text("")
    assert run("count", "--jobs", "2", archive) == serial
    readers = listings.read_text().split()
    # the plan's, and one in each worker (was one a member, and again for its files)
    assert len(readers) <= 3, len(readers)
    assert run("convert", "--output-dir", tmp_path / "out", archive)[0] == 0
    assert len(list((tmp_path / "out").iterdir())) == 60


def test_a_zip_kept_open_is_read_again_once_written_again(tmp_path):
    from chatpipe.io.sources import kept_archive

    path = zipped(tmp_path / "a.zip", {"one.jsonl": LOG.read_bytes()})
    assert kept_archive(str(path)).members() == ["one.jsonl"]
    assert kept_archive(str(path)) is kept_archive(str(path))
    os.remove(path)  # (a new file: another inode, or another size or time)
    zipped(path, {"one.jsonl": LOG.read_bytes(), "two.jsonl": LOG.read_bytes()})
    assert kept_archive(str(path)).members() == ["one.jsonl", "two.jsonl"]


def test_an_error_in_a_member_part_names_the_member(tmp_path):
    archive = zipped(
        tmp_path / "bad.zip",
        {
            "a.jsonl": LOG.read_bytes(),
            "b.jsonl": '{"role":"user","content":"hi"}\n[1,\n',
        },
    )
    serial = run("convert", archive)
    assert serial[2] == (
        f"chatpipe: error: {archive}:b.jsonl:2:4: invalid JSON: unexpected end of data\n"
    )
    assert run("convert", "--output-dir", tmp_path / "out", archive)[2] == serial[2]


def test_a_dask_bag_of_a_zip_has_a_partition_a_member(tmp_path):
    import chatpipe.dask as cd

    packed = tmp_path / "log.jsonl.gz"
    packed.write_bytes(gzip.compress(LOG.read_bytes()))
    bag = cd.read_conversations([str(CHATGPT_ZIP), str(packed)], branch="all")
    # conversations.json, the two empty lists beside it (read, giving nothing), and the
    # compressed file whole
    assert bag.npartitions == 4
    found = bag.compute(scheduler="sync")
    assert [str(c.location) for c in found[:3]] == [
        f"{CHATGPT_ZIP}:conversations.json:1:2",
        f"{CHATGPT_ZIP}:conversations.json:1:5000",
        f"{CHATGPT_ZIP}:conversations.json:1:5000",
    ]
    assert found[1].files.member("file-service://file-6zq2zmFSnwi6Z6jNDdVqg9") == IMAGE
    assert len(found) == 3 + run("convert", LOG)[1].count("\n")


# -- the viewer and Markdown show an export's images ------------------------------------------


def test_the_viewer_shows_an_image_the_export_zip_holds():
    png = member(CHATGPT_ZIP, IMAGE)
    [_, *branches] = read([str(CHATGPT_ZIP)], options=_all_branches())
    shown = entry(branches, 1)
    pages = "".join(shown["h"])
    assert f'<img src="data:image/png;base64,{base64.b64encode(png).decode()}" alt="image">' in (
        pages
    )
    unzipped = read([str(FIXTURES / "chatgpt_export__derived_branch_with_image_part.json")])
    assert "<img" not in "".join(entry([next(iter(unzipped))], 1)["h"])


def test_markdown_shows_the_image_inline_and_notes_write_it_beside_them(tmp_path):
    png = member(CHATGPT_ZIP, IMAGE)
    code, out, _ = run("convert", "--to", "markdown", "--branch", "all", CHATGPT_ZIP)
    assert code == 0
    image = f"![image](data:image/png;base64,{base64.b64encode(png).decode()})"
    assert out.count(image) == 1
    notes = tmp_path / "notes"
    assert (
        run("convert", "--to", "markdown", "--branch", "all", "--output-dir", notes, CHATGPT_ZIP)[0]
        == 0
    )
    assert (notes / "files" / IMAGE).read_bytes() == png
    note = (notes / "2024-01-01 Sample conversation with branch.md").read_text()
    assert (
        "![image](files/file-6zq2zmFSnwi6Z6jNDdVqg9-Screenshot%202025-01-13%20at%2010.12.43.png)"
        in note
    )
    assert sorted(p.name for p in notes.rglob("*")) == sorted(
        [
            "2024-01-01 Sample conversation with branch.md",
            "2024-01-01 Sample conversation with branch (2).md",
            "2024-05-08 Great Day Ahead!.md",
            "files",
            IMAGE,
        ]
    )


def test_the_files_of_a_zip_pickle_without_their_open_file():
    [_, branched, _] = read([str(CHATGPT_ZIP)], options=_all_branches())
    files = pickle.loads(pickle.dumps(branched.files))
    assert files.member("file-service://file-6zq2zmFSnwi6Z6jNDdVqg9") == IMAGE
    assert files.data_url("file-service://file-6zq2zmFSnwi6Z6jNDdVqg9").startswith(
        "data:image/png;base64,iVBORw0KGgo"
    )
    assert files.member("file-service://file-missing") is None
    assert files.data_url("sediment://file_0000") is None


# -- sources ---------------------------------------------------------------------------------


def test_the_progress_of_a_compressed_file_and_a_member_is_in_their_own_bytes(tmp_path):
    packed = tmp_path / "log.jsonl.gz"
    packed.write_bytes(gzip.compress(LOG.read_bytes() * 50))
    source = Source(str(packed))
    stream = source.open()
    stream.read()
    assert source.compression == "gzip"
    assert source.position() == os.path.getsize(packed)
    stream.close()
    [first, *_] = input_sources([str(CHATGPT_ZIP)])
    stream = first.open()
    stream.read()
    assert 0 < first.position() <= os.path.getsize(CHATGPT_ZIP)
    stream.close()
    first.archive.close()
    assert first.suffix() == ".json" and Source("a.jsonl.zst").suffix() == ".jsonl"


def test_a_url_zip_is_read_through_fsspec():
    import fsspec

    with fsspec.open("memory://exports/export.zip", "wb") as out:
        out.write(CHATGPT_ZIP.read_bytes())
    expected = run("convert", CHATGPT_ZIP)
    assert expected[0] == 0 and expected[1].count("\n") == 2
    assert run("convert", "memory://exports/export.zip") == expected
    assert run("convert", "memory://exports/export.zip:conversations.json") == expected


def _all_branches():
    from chatpipe.formats.exports import ReadOptions

    return ReadOptions(branch="all")


def _png() -> bytes:
    """An 8 by 8 PNG image, made here."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + bytes([200, 120, 40]) * 8 for _ in range(8))
    header = struct.pack(">IIBBBBB", 8, 8, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
