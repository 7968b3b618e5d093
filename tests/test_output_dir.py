"""``--output-dir`` all or nothing (issue 44): a run ended by SIGTERM or SIGHUP removes what
it staged and says "terminated", on every engine and for pages; a run that cannot put a
file in place leaves DIR exactly as it was; shards are named after their inputs (hidden
ones too, long ones too), and stdin, which has no name, is refused."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES, unmeasured

runner = CliRunner()
TOY = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"


def cli(*args, input=None):
    result = runner.invoke(app, [str(a) for a in args], input=input)
    return result.exit_code, result.stdout, result.stderr


def tree(folder):
    """Every file and folder under ``folder``, with each file's bytes."""
    found = {}
    for root, folders, files in os.walk(folder):
        for name in folders:
            found[os.path.relpath(os.path.join(root, name), folder) + "/"] = None
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as stream:
                found[os.path.relpath(path, folder)] = stream.read()
    return found


# -- a signal removes what the run staged ---------------------------------------------------


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """About 160 MB of conversations: a second's work or more on any engine (40 MB were
    converted 0.3 s after the staging folder appeared: a signal could come after the end)."""
    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    path.write_bytes(TOY.read_bytes() * 6000)
    return path


def _staging(folder):
    return [name for name in os.listdir(folder) if name.startswith(".chatpipe-")]


def _terminated(args, watch, signame, timeout=120):
    """chatpipe run with ``args``, sent ``signame`` once its staging folder is in ``watch``
    (and has had a moment to fill); its exit code and stderr."""
    process = subprocess.Popen(
        [sys.executable, "-m", "chatpipe", *map(str, args)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=unmeasured(),
    )
    deadline = time.monotonic() + timeout
    while not _staging(watch) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _staging(watch), f"no staging folder appeared ({process.poll()})"
    time.sleep(0.05)
    process.send_signal(getattr(signal, signame))
    _, err = process.communicate(timeout=timeout)
    return process.returncode, err


@pytest.mark.parametrize(
    ("how", "signame"),
    [
        ([], "SIGTERM"),
        ([], "SIGHUP"),
        (["--jobs", "2"], "SIGTERM"),
        (["--jobs", "2"], "SIGHUP"),
        (["--to", "html"], "SIGTERM"),
        (["--to", "markdown"], "SIGHUP"),
        (["--engine", "dask", "--jobs", "2"], "SIGTERM"),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else value,
)
def test_a_signal_leaves_no_new_output_dir_and_no_staging(tmp_path, big, how, signame):
    code, err = _terminated(
        ["convert", *how, big, "--output-dir", tmp_path / "od"], tmp_path, signame
    )
    assert (code, err) == (128 + getattr(signal, signame), b"chatpipe: terminated\n")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("how", [[], ["--jobs", "2"]], ids=["serial", "jobs"])
def test_a_signal_leaves_an_existing_output_dir_as_it_was(tmp_path, big, how):
    folder = tmp_path / "od"
    folder.mkdir()
    (folder / "big.jsonl").write_text("the old shard\n")
    (folder / "notes.txt").write_text("not ours\n")
    before = tree(folder)
    code, err = _terminated(["convert", *how, big, "--output-dir", folder], folder, "SIGTERM")
    assert (code, err) == (143, b"chatpipe: terminated\n")
    assert tree(folder) == before


# -- a failed commit changes nothing --------------------------------------------------------


def test_a_folder_in_a_shards_place_leaves_the_output_dir_as_it_was(tmp_path):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_bytes(TOY.read_bytes())
    second.write_bytes(TOY.read_bytes()[:300])
    folder = tmp_path / "od"
    (folder / "b.jsonl").mkdir(parents=True)
    (folder / "a.jsonl").write_text("the old shard\n")
    before = tree(folder)
    for jobs in ("1", "2"):
        code, out, err = cli("convert", "--jobs", jobs, first, second, "--output-dir", folder)
        assert (code, out) == (1, "")
        assert err == (
            f"chatpipe: error: {folder}/b.jsonl: cannot write: a folder has the name of a file "
            f"this run writes; {folder} is left as it was (move it away, or write into another "
            "--output-dir)\n"
        )
        assert tree(folder) == before


def test_a_file_where_pages_need_a_folder_leaves_the_output_dir_as_it_was(tmp_path):
    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "index.html").write_text("the old index\n")
    (folder / "c").write_text("a file where the pages' folder goes\n")
    before = tree(folder)
    code, _, err = cli("convert", "--to", "html", TOY, "--output-dir", folder)
    assert code == 1
    assert err == (
        f"chatpipe: error: {folder}/c: cannot write: a file has the name of a folder this run "
        f"writes; {folder} is left as it was (move it away, or write into another "
        "--output-dir)\n"
    )
    assert tree(folder) == before


class Failing:
    """LocalFiles whose ``fail_at``-th move fails (a disk that fails mid-commit)."""

    def __init__(self, fail_at):
        from chatpipe.io.folders import LocalFiles

        self.local, self.moves, self.fail_at = LocalFiles, 0, fail_at
        self.join, self.parent = LocalFiles.join, LocalFiles.parent
        self.kind, self.makedir, self.rmdir = LocalFiles.kind, LocalFiles.makedir, LocalFiles.rmdir

    def move(self, source, target):
        self.moves += 1
        if self.moves == self.fail_at:
            raise OSError(5, "Input/output error")
        self.local.move(source, target)


def _staged(tmp_path):
    """An existing folder of old files, and a staging folder of new ones to move in."""
    target, staging = tmp_path / "od", tmp_path / "od" / ".chatpipe-test"
    (target / "c").mkdir(parents=True)
    (target / "index.html").write_text("old index\n")
    (target / "c" / "1.html").write_text("old page 1\n")
    (target / "keep.txt").write_text("not ours\n")
    (staging / "c").mkdir(parents=True)
    (staging / "new").mkdir()
    for name in ("index.html", "c/1.html", "c/2.html", "new/3.html"):
        (staging / name).write_text(f"new {name}\n")
    names = ["index.html", "c/1.html", "c/2.html", "new/3.html"]
    return target, staging, names


@pytest.mark.parametrize("fail_at", range(1, 7))
def test_a_move_that_fails_mid_commit_puts_every_old_file_back(tmp_path, fail_at):
    from chatpipe.io.folders import move_in
    from chatpipe.io.signals import Held

    target, staging, names = _staged(tmp_path)
    before = _ours(tree(target))
    held = Held()
    try:
        with pytest.raises(OSError, match="Input/output error"):
            move_in(names, str(staging), str(target), "od", held, Failing(fail_at))
    finally:
        held.release()
    assert _ours(tree(target)) == before
    # the new files are back in the staging folder, for the caller to remove
    assert sorted(n for n in tree(staging) if not n.startswith(".chatpipe-old")) == [
        "c/",
        "c/1.html",
        "c/2.html",
        "index.html",
        "new/",
        "new/3.html",
    ]


def test_a_commit_that_succeeds_replaces_only_its_own_files(tmp_path):
    from chatpipe.io.folders import move_in
    from chatpipe.io.signals import Held

    target, staging, names = _staged(tmp_path)
    held = Held()
    try:
        move_in(names, str(staging), str(target), "od", held)
    finally:
        held.release()
    assert _ours(tree(target)) == {
        "c/": None,
        "new/": None,
        "index.html": b"new index.html\n",
        "keep.txt": b"not ours\n",
        "c/1.html": b"new c/1.html\n",
        "c/2.html": b"new c/2.html\n",
        "new/3.html": b"new new/3.html\n",
    }


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_a_signal_during_the_moves_puts_every_old_file_back(tmp_path, signame):
    """The signal is held while the files move, then acted on: the old files back."""
    from chatpipe.errors import Terminated
    from chatpipe.io.folders import LocalFiles, move_in
    from chatpipe.io.signals import Held

    target, staging, names = _staged(tmp_path)
    before = _ours(tree(target))
    number = getattr(signal, signame)

    class Signalled(LocalFiles):
        moves = 0

        @classmethod
        def move(cls, source, target):
            cls.moves += 1
            if cls.moves == 3:
                os.kill(os.getpid(), number)  # (held: noted, nothing raised here)
            LocalFiles.move(source, target)

    held = Held()
    try:
        raised = KeyboardInterrupt if signame == "SIGINT" else Terminated
        with pytest.raises(raised):
            move_in(names, str(staging), str(target), "od", held, Signalled)
    finally:
        held.release()
    assert Signalled.moves > 3  # the moves went on, then were undone
    assert _ours(tree(target)) == before


def _ours(found):
    """A tree without the staging folder."""
    return {k: v for k, v in found.items() if not k.startswith(".chatpipe-")}


# -- shard names ------------------------------------------------------------------------------


def test_a_long_input_name_gives_its_shard_on_every_engine(tmp_path):
    name = "x" * 246 + ".jsonl"  # 252 characters: a temporary name after it would not fit
    (tmp_path / name).write_bytes(TOY.read_bytes())
    for jobs in ("1", "2"):
        folder = tmp_path / f"od{jobs}"
        code, out, err = cli("convert", "--jobs", jobs, tmp_path / name, "--output-dir", folder)
        assert (code, out, err) == (0, "", "")
        assert os.listdir(folder) == [name]
        assert (folder / name).read_text() == cli("convert", TOY)[1]


def test_a_shard_name_too_long_for_the_system_is_named_as_the_user_named_it(tmp_path):
    name = "x" * 250 + ".json"  # its shard, x...x.jsonl, is one character too long
    (tmp_path / name).write_text(TOY.read_text().splitlines()[0])
    code, _, err = cli("convert", tmp_path / name, "--output-dir", tmp_path / "od")
    assert (code, err) == (
        1,
        f"chatpipe: error: {tmp_path / 'od' / ('x' * 250 + '.jsonl')}: cannot write: "
        "File name too long\n",
    )
    assert os.listdir(tmp_path) == [name]


def test_a_hidden_input_keeps_its_name(tmp_path):
    for name in (".hidden.jsonl", ".config"):
        (tmp_path / name).write_bytes(TOY.read_bytes())
    folder = tmp_path / "od"
    inputs = [tmp_path / ".hidden.jsonl", tmp_path / ".config"]
    code, _, err = cli("convert", "--from", "openai", *inputs, "--output-dir", folder)
    assert (code, err) == (0, "")
    assert sorted(os.listdir(folder)) == [".config.jsonl", ".hidden.jsonl"]


@pytest.mark.parametrize("engine", [[], ["--jobs", "2"], ["--engine", "dask"]])
def test_stdin_with_output_dir_says_it_has_no_name(tmp_path, engine):
    code, out, err = cli("convert", *engine, "--output-dir", tmp_path / "od", input=TOY.read_text())
    assert (code, out) == (2, "")
    assert err == (
        "chatpipe: error: --output-dir names each shard after its input file, and stdin has "
        "no name (write the input to a file and name the file, or write one output with -o)\n"
    )
    assert os.listdir(tmp_path) == []


def test_old_files_that_cannot_be_put_back_are_kept_and_said(tmp_path):
    """A disk failing under the commit, put-backs too: the old files stay in the staging
    folder, which is kept, and the error says where they are."""
    from chatpipe.io.folders import Stranded, move_in
    from chatpipe.io.signals import Held

    target, staging, names = _staged(tmp_path)

    class Broken(Failing):
        def move(self, source, target):
            self.moves += 1
            if self.moves >= 4:
                raise OSError(5, "Input/output error")
            self.local.move(source, target)

    held = Held()
    try:
        with pytest.raises(Stranded) as raised:
            move_in(names, str(staging), str(target), "od", held, Broken(0))
    finally:
        held.release()
    aside = staging / ".chatpipe-old"
    assert str(raised.value) == (
        f"od: cannot write (Input/output error), and 2 old files could not be put back "
        f"(they are in {aside})"
    )
    assert tree(aside) == {"c/": None, "index.html": b"old index\n", "c/1.html": b"old page 1\n"}


@pytest.mark.parametrize("when", ["before", "during"])
def test_a_signal_while_a_new_output_dir_is_renamed_leaves_none(tmp_path, monkeypatch, when):
    """A new DIR is the staging folder renamed: a signal held before the rename stops
    it, one held during it renames the folder back out of the way; either way, no DIR."""
    from chatpipe.errors import Terminated
    from chatpipe.io import folders

    folder = folders.OutputFolder(str(tmp_path / "od"))
    folder.write("index.html", b"new\n")
    name = "chmod" if when == "before" else "rename"
    function = getattr(os, name)

    def signalled(*args):
        function(*args)
        os.kill(os.getpid(), signal.SIGTERM)  # (held: noted, acted on after)

    monkeypatch.setattr(folders.os, name, signalled)
    with pytest.raises(Terminated):
        folder.commit()
    assert os.listdir(tmp_path) == []
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_a_signal_once_every_file_is_in_place_is_acted_on_after(tmp_path, monkeypatch):
    """The files are in place, the old ones being removed: the output stays, and the
    signal goes to the handler there was before the run."""
    import shutil

    from chatpipe.io import folders

    heard = []
    before = signal.signal(signal.SIGTERM, lambda number, frame: heard.append(number))
    try:
        folder = tmp_path / "od"
        folder.mkdir()
        (folder / "index.html").write_text("old\n")
        output = folders.OutputFolder(str(folder))
        output.write("index.html", b"new\n")
        remove = shutil.rmtree

        def signalled(*args, **kwargs):
            os.kill(os.getpid(), signal.SIGTERM)  # (held: noted, sent again after)
            remove(*args, **kwargs)

        monkeypatch.setattr(shutil, "rmtree", signalled)
        output.commit()
        assert heard == [signal.SIGTERM]
        assert tree(folder) == {"index.html": b"new\n"}
    finally:
        signal.signal(signal.SIGTERM, before)
