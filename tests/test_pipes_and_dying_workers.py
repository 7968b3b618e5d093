"""Inputs that can be read only once, --jobs workers that die, and signals during a
--jobs run (issues #44 and #38), in real processes: pipes from the shell, process
substitution, FIFOs, a worker killed at a random moment of every data command, Ctrl-C and
SIGTERM sent to the process group as a terminal and a service manager send them.

The random moments come from a seed printed with any failure (``CHATPIPE_FAULT_SEED``
replays one).
"""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES, unmeasured

runner = CliRunner()
CHATPIPE = f"{shlex.quote(sys.executable)} -m chatpipe"
EXPORT = FIXTURES / "chatgpt_export__pkuppens_2023_conversations_subset.json"
LOG = FIXTURES / "agent_session.jsonl"
TEMPLATES = FIXTURES / "chat_templates"
QWEN = str(TEMPLATES / "Qwen-Qwen2.5-7B-Instruct.jinja")
SEED = int(os.environ.get("CHATPIPE_FAULT_SEED") or random.randrange(1 << 30))


def serial(*args) -> bytes:
    """What one process writes to stdout (in this process: no start-up to pay)."""
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.stderr
    return result.stdout_bytes


def sh(script: str, cwd: Path) -> subprocess.CompletedProcess:
    """A bash command line (pipes, process substitution), its output and status."""
    return subprocess.run(["bash", "-c", script], capture_output=True, cwd=cwd, timeout=120)


def write_rows(path: Path, count: int, padding: int = 0) -> Path:
    """Fine-tuning rows (conversation per line); ``padding`` bytes of a field each row
    carries make the file large (cut into parts) at little work."""
    chance = random.Random(7)
    with path.open("w") as out:
        for i in range(count):
            messages = [
                {"role": "system", "content": "Answer briefly."},
                {"role": "user", "content": f"question {i} " * chance.randint(1, 12)},
                {"role": "assistant", "content": f"answer {i} " * chance.randint(1, 20)},
            ]
            row = (
                {"messages": messages, "note": "n" * padding} if padding else {"messages": messages}
            )
            out.write(json.dumps(row) + "\n")
    return path


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> Path:
    return write_rows(tmp_path_factory.mktemp("rows") / "rows.jsonl", 1200)


# -- inputs read only once (#44 item 1) ----------------------------------------------------


def test_a_pipe_with_jobs_is_read_once_here_and_gives_the_serial_bytes(rows, tmp_path):
    note = "chatpipe: --jobs 2: {} can be read only once (stdin, a pipe); running in one process\n"
    # a JSON export on stdin: detection read it, the part found it empty (0 bytes, exit 0)
    done = sh(f"cat {EXPORT} | {CHATPIPE} convert --jobs 2 /dev/stdin", tmp_path)
    assert (done.returncode, done.stderr.decode()) == (0, note.format("/dev/stdin"))
    assert done.stdout == serial("convert", EXPORT) and done.stdout.count(b"\n") == 4
    # conversation-per-line JSONL from a pipe: "not seekable"
    for name in ("-", "/dev/stdin"):
        done = sh(f"cat {rows} | {CHATPIPE} convert --to openai --jobs 2 {name}", tmp_path)
        assert (done.returncode, done.stderr.decode()) == (0, note.format(name))
        assert done.stdout == serial("convert", "--to", "openai", rows)
    # two process substitutions: printed nothing
    done = sh(f"{CHATPIPE} count --jobs 2 <(cat {rows}) <(cat {LOG})", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == serial("count", rows, LOG) and done.stdout.count(b"\n") == 1201
    pattern = re.escape(note.format("@")).replace("@", "/dev/fd/[0-9]+")
    assert re.fullmatch(pattern, done.stderr.decode())


def test_a_pipe_or_a_fifo_with_output_dir_is_written_whole(rows, tmp_path):
    # a message log on stdin: an empty shard
    done = sh(f"cat {LOG} | {CHATPIPE} convert --output-dir od /dev/stdin", tmp_path)
    assert (done.returncode, done.stderr) == (0, b"")
    assert os.listdir(tmp_path / "od") == ["stdin.jsonl"]
    assert (tmp_path / "od" / "stdin.jsonl").read_bytes() == serial("convert", LOG)
    # a FIFO with --jobs and --output-dir, and a file beside it
    os.mkfifo(tmp_path / "fifo")
    script = f"cat {rows} > fifo & {CHATPIPE} convert --jobs 2 --output-dir od2 fifo {LOG}"
    done = sh(script, tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(tmp_path / "od2")) == ["agent_session.jsonl", "fifo.jsonl"]
    assert (tmp_path / "od2" / "fifo.jsonl").read_bytes() == serial("convert", rows)
    assert (tmp_path / "od2" / "agent_session.jsonl").read_bytes() == serial("convert", LOG)
    assert sorted(os.listdir(tmp_path)) == ["fifo", "od", "od2"]  # nothing staged left


# -- a --jobs worker that dies (#44 item 2) ------------------------------------------------

# every data command, and where its output goes: stdout (what was written before the loss
# stays written), -o FILE or --output-dir DIR (nothing is left of a failed run)
DYING = [
    (("convert", "--to", "openai"), "dir"),
    (("openai",), "file"),
    (("buffer",), "stdout"),
    (("trim", "--max-tokens", "40"), "dir"),
    (("filter", "--exclude-types", "system"), "file"),
    (("merge",), "dir"),
    (("count",), "file"),
    (("stats", "--json"), "file"),
    (("validate",), "stdout"),
    (("template", "--chat-template", QWEN), "file"),
    (("tokenize", "--chat-template", QWEN, "--tokenizer", TEMPLATES / "all-MiniLM-L6-v2"), "dir"),
    (("select", "--min-messages", "3", "--grep", "answer"), "dir"),
    (("sample", "-n", "700", "--seed", "2"), "file"),  # (two passes)
    (("sample", "--fraction", "0.5"), "stdout"),
    (("dedupe", "--by", "prompt"), "stdout"),  # (two passes)
    (("redact",), "dir"),
    (("split", "--ratio", "a=0.5,b=0.5"), "sides"),
]


@pytest.fixture(scope="module")
def padded(tmp_path_factory) -> Path:
    """About 3 MB: three parts for two workers, each a few tenths of a second of work."""
    return write_rows(tmp_path_factory.mktemp("padded") / "padded.jsonl", 1500, padding=2000)


@pytest.mark.parametrize(("command", "into"), DYING, ids=[f"{c[0][0]}-{c[1]}" for c in DYING])
def test_a_worker_killed_at_a_random_moment_fails_the_run_cleanly(command, into, padded, tmp_path):
    chance = random.Random(f"{SEED}-{command[0]}")
    number = chance.choice([signal.SIGKILL, signal.SIGTERM])
    out = tmp_path / "out"
    where = {"dir": ["--output-dir", str(out)], "file": ["-o", str(out)], "stdout": []}.get(
        into, ["--output-dir", str(out)]
    )
    argv = [sys.executable, "-m", "chatpipe", *map(str, command), "--jobs", "2", *where]
    proc = subprocess.Popen(
        [*argv, str(padded)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        start_new_session=True,  # (its workers found by their group once it has ended)
    )
    seen, killed, killed_at = set(), None, None
    try:
        me = psutil.Process(proc.pid)
        deadline = time.monotonic() + 60
        while not seen and proc.poll() is None and time.monotonic() < deadline:
            seen = {child.pid for child in me.children()}
            time.sleep(0.002)
        time.sleep(chance.uniform(0, 0.6))  # a random moment of the workers' run
        workers = sorted(child.pid for child in me.children())
        if workers:
            killed = chance.choice(workers)
            os.kill(killed, number)
            killed_at = time.monotonic()
    except psutil.NoSuchProcess:
        pass
    stdout, stderr = proc.communicate(timeout=60)
    said = f"seed {SEED}: killed {killed} with {number.name}: {stderr.decode()!r}"
    assert seen, "the run forked no worker"
    assert left_in_group(proc.pid) == [], said  # the other worker stopped too
    if proc.returncode == 0:  # the worker had done its last part
        if into == "sides":
            assert _sides(out) == _sides_of_one_process(command, padded), said
            return
        written = stdout if into == "stdout" else _written(out, into)
        assert written == serial(*command, padded), said
        return
    assert proc.returncode == 1, said
    assert time.monotonic() - killed_at < 10, said  # noticed at once, not a hang
    lost = (
        rf"chatpipe: error: a --jobs worker \(process {killed}\) was killed by {number.name}"
        r"( \(the out-of-memory killer sends it\))?"
        rf"( while on a part of the inputs \({re.escape(str(padded))}, bytes \d+ to \d+\): "
        r"that part was lost| between parts); the run stopped \(if the system ran out of "
        r"memory, run fewer --jobs or cut smaller inputs\)\n"
    )
    assert re.fullmatch(lost, stderr.decode()), said
    if stdout:  # (stdout: what came before the lost part)
        assert serial(*command, padded).startswith(stdout), said
    assert os.listdir(tmp_path) == [], said  # no output, nothing staged


def _sides(out: Path) -> dict[str, bytes]:
    return {side.name: side.read_bytes() for side in out.iterdir()}


def _sides_of_one_process(command: tuple, padded: Path) -> dict[str, bytes]:
    with tempfile.TemporaryDirectory() as folder:
        serial(*command, "--output-dir", Path(folder) / "sides", padded)
        return _sides(Path(folder) / "sides")


def _written(out: Path, into: str) -> bytes:
    if into == "file":
        return out.read_bytes()
    assert os.listdir(out) == ["padded.jsonl"]
    return (out / "padded.jsonl").read_bytes()


# -- Ctrl-C and SIGTERM during a --jobs run (#38) -----------------------------------------


def start_in_its_own_group(argv: list[str], cwd: Path) -> subprocess.Popen:
    """A command in a process group of its own, Ctrl-C's default handling on (a suite
    run in the background ignores SIGINT, and a child inherits that), as in a terminal."""
    return subprocess.Popen(
        argv,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=unmeasured(),
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def wait_for_workers(proc: subprocess.Popen, count: int) -> None:
    me = psutil.Process(proc.pid)
    deadline = time.monotonic() + 60
    while len(me.children(recursive=True)) < count:
        assert proc.poll() is None and time.monotonic() < deadline, "no workers started"
        time.sleep(0.002)


def left_in_group(group: int) -> list[int]:
    """The processes of a process group still running (none once a run has ended)."""
    found = []
    for process in psutil.process_iter():
        try:
            if os.getpgid(process.pid) == group and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process.pid)
        except (ProcessLookupError, psutil.Error):
            pass
    return found


@pytest.mark.parametrize(
    ("name", "into"), [("SIGINT", "file"), ("SIGTERM", "dir")], ids=["ctrl-c", "sigterm"]
)
def test_a_signal_to_the_group_during_a_jobs_run_is_one_line(name, into, padded, tmp_path):
    """(SIGTERM with --output-dir left the staging folder, and no line.)"""
    chance = random.Random(f"{SEED}-{name}")
    number = getattr(signal, name)
    out = tmp_path / "out"
    where = ["--output-dir", str(out)] if into == "dir" else ["-o", str(out)]
    argv = [sys.executable, "-m", "chatpipe", "trim", "--max-tokens", "40", "--jobs", "2"]
    proc = start_in_its_own_group([*argv, *where, str(padded)], tmp_path)
    wait_for_workers(proc, 1)
    time.sleep(chance.uniform(0, 0.4))
    os.killpg(proc.pid, number)
    stdout, stderr = proc.communicate(timeout=60)
    said = f"seed {SEED}: {stderr.decode()!r}"
    if proc.returncode in (0, -number):  # (the run had ended: it wrote everything)
        assert _written(out, into) == serial("trim", "--max-tokens", "40", padded), said
        assert (stderr, sorted(os.listdir(tmp_path))) == (b"", ["out"]), said
        return
    word, code = ("interrupted", 130) if name == "SIGINT" else ("terminated", 143)
    assert (proc.returncode, stdout, stderr) == (code, b"", f"chatpipe: {word}\n".encode()), said
    assert os.listdir(tmp_path) == [], said  # no shard, no temporary file
    assert left_in_group(proc.pid) == [], said


def test_signals_held_are_delivered_after_the_block_and_a_second_ctrl_c_at_once():
    """What starting or stopping workers holds: a Ctrl-C or SIGTERM acted on once the
    block ends, as the handler before would have; Ctrl-C twice, at once. In another
    thread (which cannot set handlers) both blocks change nothing."""
    from chatpipe.errors import Terminated
    from chatpipe.pipeline.workers import held, terminating

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    term = signal.getsignal(signal.SIGTERM)
    try:
        steps = []
        with pytest.raises(KeyboardInterrupt), held():
            os.kill(os.getpid(), signal.SIGINT)
            steps.append("went on")
        assert steps == ["went on"]
        with pytest.raises(KeyboardInterrupt), held():
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGINT)
            steps.append("not reached")
        assert steps == ["went on"]
        with pytest.raises(Terminated) as ended, terminating(), held():
            os.kill(os.getpid(), signal.SIGTERM)
            steps.append("went on")
        assert (ended.value.signum, steps) == (signal.SIGTERM, ["went on"] * 2)
        assert signal.getsignal(signal.SIGTERM) == term  # (given back)
        # a stop after a run that ended (a Dask cluster's): what came meanwhile is dropped
        with terminating(), held(deliver=False):
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGTERM)
            steps.append("went on")
        assert steps == ["went on"] * 3
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        elsewhere = []

        def in_a_thread():
            with terminating(), held():
                elsewhere.append(signal.getsignal(signal.SIGINT))

        thread = threading.Thread(target=in_a_thread)
        thread.start()
        thread.join()
        assert elsewhere == [signal.default_int_handler]
    finally:
        signal.signal(signal.SIGINT, before)
