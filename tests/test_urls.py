"""Paths as URLs (issue 44): ``file://`` URLs are the files they name, as inputs, ``-o`` and
``--output-dir``; an fsspec protocol whose package is missing names the package; an
unknown protocol, a URL where only a local file goes, a file URL of another machine: one
line each, never an exception's name."""

from __future__ import annotations

import os
import sys
from urllib.parse import quote

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()
TOY = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"


def cli(*args):
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def url(path) -> str:
    return "file://" + quote(str(path))


@pytest.fixture
def spaced(tmp_path, monkeypatch):
    """The toy log under a name with a space (a URL spells it %20), the run's folder the
    current one (where a literal ``file:`` folder would appear)."""
    path = tmp_path / "toy chat.jsonl"
    path.write_bytes(TOY.read_bytes())
    monkeypatch.chdir(tmp_path)
    return path


@pytest.mark.parametrize("how", [[], ["--jobs", "2"]], ids=["serial", "jobs"])
def test_a_file_url_reads_as_its_path(spaced, how):
    expected = cli("convert", TOY)
    for spec in (url(spaced), "file://localhost" + quote(str(spaced))):
        assert cli("convert", *how, spec) == expected


def test_a_file_url_as_output_and_output_dir_writes_the_path(spaced, tmp_path):
    expected = cli("convert", TOY)[1]
    assert cli("convert", spaced, "-o", url(tmp_path / "out.jsonl")) == (0, "", "")
    assert (tmp_path / "out.jsonl").read_text() == expected
    for how in ([], ["--jobs", "2"]):
        folder = tmp_path / f"records {len(how)}"
        assert cli("convert", *how, url(spaced), "--output-dir", url(folder)) == (0, "", "")
        assert (folder / "toy chat.jsonl").read_text() == expected
    assert cli("convert", "--to", "html", spaced, "--output-dir", url(tmp_path / "pages"))[0] == 0
    assert sorted(os.listdir(tmp_path / "pages")) == ["assets", "c", "index.html"]
    assert sorted(os.listdir(tmp_path)) == [
        "out.jsonl",
        "pages",
        "records 0",
        "records 2",
        "toy chat.jsonl",
    ]


def test_a_file_url_of_another_machine_is_one_line(tmp_path):
    spec = "file://example.org/tmp/x.jsonl"
    assert cli("convert", spec) == (
        2,
        "",
        f"chatpipe: error: {spec}: names a file on the machine 'example.org', and chatpipe "
        "reads and writes this machine's files (give file:///PATH, or the path)\n",
    )


def _missing(monkeypatch, protocol, *modules):
    """The fsspec implementation of ``protocol`` as if its package were not installed."""
    import importlib

    known = importlib.import_module("fsspec.registry")._registry  # (the classes imported)
    monkeypatch.delitem(known, protocol, raising=False)
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)  # (import raises ImportError)


@pytest.mark.parametrize(
    ("spec", "modules", "package"),
    [
        ("s3://bucket/logs/x.jsonl", ["s3fs"], "s3fs"),
        ("gs://bucket/x.jsonl", ["gcsfs"], "gcsfs"),
        ("hf://datasets/someone/chats/train.jsonl", ["huggingface_hub"], "huggingface_hub"),
        ("https://example.org/x.jsonl", ["aiohttp"], "aiohttp"),
        ("s3://bucket/logs/*.jsonl", ["s3fs"], "s3fs"),
    ],
)
def test_a_missing_fsspec_package_is_named(monkeypatch, tmp_path, spec, modules, package):
    protocol = spec.split("://")[0]
    _missing(monkeypatch, protocol, *modules)
    said = (
        f"{protocol}:// URLs need the {package} package, which is not installed "
        f"(pip install {package})"
    )
    engines = [[]] if "*" not in spec else [["--engine", "dask"]]  # (globs: Dask's inputs)
    for engine in engines:
        assert cli("convert", *engine, spec) == (2, "", f"chatpipe: error: {spec}: {said}\n")
    out = spec.rsplit("/", 1)[0] + "/out"
    assert cli("convert", TOY, "--output-dir", out) == (2, "", f"chatpipe: error: {out}: {said}\n")
    assert os.listdir(tmp_path) == []


def test_an_unknown_protocol_is_one_line(tmp_path):
    hint = "(give a local path, or a URL such as s3://, gs://, hf://, https:// or memory://)"
    assert cli("convert", "nosuch://x/y.jsonl") == (
        1,
        "",
        "chatpipe: error: nosuch://x/y.jsonl: no such file, and nosuch:// is not a protocol "
        f"fsspec knows {hint}\n",
    )
    assert cli("convert", TOY, "--output-dir", "nosuch://out") == (
        1,
        "",
        f"chatpipe: error: nosuch://out: nosuch:// is not a protocol fsspec knows {hint}\n",
    )


def test_a_url_where_only_a_local_file_goes_is_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli("convert", TOY, "-o", "memory://x.jsonl") == (
        2,
        "",
        "chatpipe: error: -o memory://x.jsonl: -o writes a file on this machine "
        "(give a local path, or write records to a URL with --output-dir)\n",
    )
    assert cli("convert", "--to", "html", TOY, "--output-dir", "memory://pages") == (
        2,
        "",
        "chatpipe: error: --output-dir memory://pages: this output goes to a folder on this "
        "machine, not a URL (give a local path; records, as convert --to canonical or openai "
        "writes them, can go to a URL)\n",
    )
    assert os.listdir(tmp_path) == []  # (no memory: folder here)


def test_records_go_to_a_memory_url_all_or_nothing():
    import fsspec

    fs = fsspec.filesystem("memory")
    name = "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
    fs.pipe("/urls-test/od/notes.txt", b"not ours\n")
    fs.pipe(f"/urls-test/od/{name}", b"the old shard\n")
    try:
        code, out, err = cli("convert", "--jobs", "2", TOY, "--output-dir", "memory://urls-test/od")
        assert (code, out, err) == (0, "", "")
        assert sorted(fs.ls("/urls-test/od", detail=False)) == [
            "/urls-test/od/notes.txt",
            f"/urls-test/od/{name}",
        ]
        assert fs.cat(f"/urls-test/od/{name}").decode() == cli("convert", TOY)[1]
        # a folder where a shard goes: nothing changed
        fs.rm(f"/urls-test/od/{name}")
        fs.pipe(f"/urls-test/od/{name}/inside.txt", b"in the way\n")
        before = fs.find("/urls-test", withdirs=True)
        code, _, err = cli("convert", TOY, "--output-dir", "memory://urls-test/od")
        assert (code, err) == (
            1,
            f"chatpipe: error: memory://urls-test/od/{name}: cannot write: a folder has the name "
            "of a file this run writes; memory://urls-test/od is left as it was (move it away, "
            "or write into another --output-dir)\n",
        )
        assert fs.find("/urls-test", withdirs=True) == before
    finally:
        fs.rm("/urls-test", recursive=True)


def test_a_failed_move_into_a_url_folder_puts_the_old_shard_back(monkeypatch):
    import fsspec
    from fsspec.implementations.memory import MemoryFileSystem

    fs = fsspec.filesystem("memory")
    name = "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
    fs.pipe(f"/urls-fail/od/{name}", b"the old shard\n")
    move, failed = MemoryFileSystem.mv, []

    def failing(self, source, target, *args, **kwargs):
        if target == f"/urls-fail/od/{name}" and not failed:  # the new shard moved in
            failed.append(source)
            raise OSError(5, "Input/output error")
        return move(self, source, target, *args, **kwargs)

    monkeypatch.setattr(MemoryFileSystem, "mv", failing)
    try:
        code, _, err = cli("convert", TOY, "--output-dir", "memory://urls-fail/od")
        assert (code, err) == (
            1,
            "chatpipe: error: memory://urls-fail/od: cannot write: Input/output error\n",
        )
        assert failed and fs.find("/urls-fail") == [f"/urls-fail/od/{name}"]
        assert fs.cat(f"/urls-fail/od/{name}") == b"the old shard\n"
    finally:
        fs.rm("/urls-fail", recursive=True)


def _refusing(monkeypatch, protocol, at_start=None, on_open=None):
    """A file system of ``protocol`` that refuses as a remote store does: when made (no
    credentials: ``at_start``), or when a file is opened (``on_open``)."""
    import importlib

    from fsspec.spec import AbstractFileSystem

    class Refusing(AbstractFileSystem):
        def __init__(self, *args, **kwargs):
            if at_start is not None:
                raise at_start
            super().__init__(*args, **kwargs)

        def info(self, path, **kwargs):
            return {"name": path, "size": 10, "type": "file"}

        def _open(self, path, mode="rb", **kwargs):
            raise on_open

    Refusing.protocol = protocol
    known = importlib.import_module("fsspec.registry")._registry
    monkeypatch.setitem(known, protocol, Refusing)


def test_what_a_file_system_says_when_it_refuses_is_one_line(monkeypatch, tmp_path):
    _refusing(monkeypatch, "refusing", on_open=PermissionError("Access Denied\nRequest ID 7"))
    assert cli("convert", "refusing://bucket/x.jsonl") == (
        1,
        "",
        "chatpipe: error: refusing://bucket/x.jsonl: cannot open: Access Denied\n",
    )
    _refusing(monkeypatch, "silent", on_open=OSError())
    assert cli("convert", "silent://bucket/x.jsonl") == (
        1,
        "",
        "chatpipe: error: silent://bucket/x.jsonl: cannot open: the file system gave no reason\n",
    )
    _refusing(monkeypatch, "nocreds", at_start=RuntimeError("no credentials found"))
    assert cli("convert", TOY, "--output-dir", "nocreds://bucket/out") == (
        1,
        "",
        "chatpipe: error: nocreds://bucket/out: cannot write: no credentials found\n",
    )
    assert os.listdir(tmp_path) == []


def test_a_url_that_names_nothing_is_no_such_file():
    assert cli("convert", "memory://urls-test/nothing.jsonl") == (
        1,
        "",
        "chatpipe: error: memory://urls-test/nothing.jsonl: no such file\n",
    )


def test_urls_without_fsspec_installed_say_which_extra_brings_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "fsspec", None)  # (import raises ImportError)
    code, out, err = cli("convert", "memory://urls-test/x.jsonl")
    assert (code, out) == (2, "")
    assert err.startswith(
        "chatpipe: error: memory://urls-test/x.jsonl: URLs are read and written with fsspec, "
        "which is not installed; the dask extra brings it ("
    )
    assert "chatpipe[dask]" in err and len(err.splitlines()) == 1


def test_a_protocol_whose_package_fails_to_import_names_the_package(monkeypatch, tmp_path):
    """An ImportError that names no module (a package refusing to load): the package is the
    one fsspec's table of implementations names for the protocol."""
    from fsspec.registry import known_implementations

    (tmp_path / "brokenfs_impl.py").write_text('raise ImportError("needs libbroken 2")\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    entry = {"class": "brokenfs_impl.BrokenFileSystem", "err": "install brokenfs_impl"}
    monkeypatch.setitem(known_implementations, "brokenfs", entry)
    assert cli("convert", "brokenfs://x/y.jsonl") == (
        2,
        "",
        "chatpipe: error: brokenfs://x/y.jsonl: brokenfs:// URLs need the brokenfs_impl "
        "package, which is not installed (pip install brokenfs_impl)\n",
    )


def test_a_local_file_gone_or_unreadable_when_opened_is_one_line(tmp_path):
    """(A file listed when the run was planned and gone, or made a folder, when a worker
    opens it.)"""
    from chatpipe.errors import DataError
    from chatpipe.io.urls import open_input

    with pytest.raises(DataError) as gone:
        open_input(str(tmp_path / "gone.jsonl"))
    assert str(gone.value) == f"{tmp_path / 'gone.jsonl'}: no such file"
    with pytest.raises(DataError) as folder:
        open_input(str(tmp_path))
    assert str(folder.value) == f"{tmp_path}: Is a directory"
    strange = os.fsdecode(b"caf\xe9.jsonl")  # (a name that is not UTF-8)
    with pytest.raises(DataError) as named:
        open_input(str(tmp_path / strange))
    assert str(named.value) == f"{tmp_path}/caf\\xe9.jsonl: no such file"
