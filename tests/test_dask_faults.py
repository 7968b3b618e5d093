"""Dask's edges (issues #44 and #38): the local cluster started and stopped while another
thread logs, Ctrl-C and SIGTERM at a random moment of a run, the command's limits on
workers that never saw the command line, a scheduler that dies or has no workers, a
worker that dies as the cluster starts, addresses and folders a cluster cannot use, a
busy dashboard port, and inputs a worker cannot read (pipes). In real processes: a
scheduler and workers of their own, signals to a process group.

The random moments come from a seed printed with any failure (``CHATPIPE_FAULT_SEED``
replays one).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.io.limits import LIMITS
from conftest import unmeasured

runner = CliRunner()
SEED = int(os.environ.get("CHATPIPE_FAULT_SEED") or random.randrange(1 << 30))
CHATPIPE = [sys.executable, "-m", "chatpipe"]


def dask(command: str, *args: str) -> list[str]:
    """``dask scheduler ...`` or ``dask worker ...``, by this interpreter."""
    return [sys.executable, "-m", f"distributed.cli.dask_{command}", *args]


def serial(*args) -> tuple[bytes, str]:
    """stdout and stderr of one process (in this one: no start-up to pay)."""
    before = dict(vars(LIMITS))
    try:
        result = runner.invoke(app, [str(a) for a in args])
    finally:
        vars(LIMITS).update(before)  # (root options set them for this process)
    return result.stdout_bytes, result.stderr


def rows(path: Path, count: int, seed: int = 0) -> Path:
    chance = random.Random(seed)
    with path.open("w") as out:
        for i in range(count):
            messages = [
                {"role": "user", "content": f"question {seed}/{i} " * chance.randint(1, 30)},
                {"role": "assistant", "content": f"answer {i} " * chance.randint(1, 60)},
            ]
            out.write(json.dumps({"messages": messages}) + "\n")
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def dask_processes(workers: int = 1, cwd: Path | None = None) -> object:
    """A scheduler of its own in a process group of its own: yields its address, the
    processes by name, and a function that starts ``workers`` worker processes for it
    (in the folder ``cwd``, None: this one) and waits for them; all stopped after."""
    port = str(free_port())
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL}
    where = ("--host", "127.0.0.1", "--port", port, "--dashboard-address", "127.0.0.1:0")
    started = {
        "scheduler": subprocess.Popen(
            dask("scheduler", *where),
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            **quiet,
        )
    }

    def add_workers() -> None:
        started["workers"] = subprocess.Popen(
            dask(
                "worker", address, "--nthreads", "1", "--nworkers", str(workers), "--no-dashboard"
            ),
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            cwd=cwd,
            **quiet,
        )
        import distributed

        with distributed.Client(address, timeout="60s") as watching:
            watching.wait_for_workers(workers, timeout=60)

    try:
        yield address, started, add_workers
    finally:
        for process in started.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.fixture(scope="module")
def remote(tmp_path_factory):
    """A running scheduler with one worker, whose stdin is not this process's, in a folder
    of its own (as on another machine: a path relative to the client's folder names
    nothing there)."""
    with dask_processes(cwd=tmp_path_factory.mktemp("worker")) as (address, _, add_workers):
        add_workers()
        yield address


def deep_rows(path: Path) -> Path:
    """Six rows; the third nests 250 levels deep, the fifth 400."""

    def nest(levels: int) -> object:
        value: object = "x"
        for _ in range(levels):
            value = [value]
        return value

    lines = []
    for i in range(6):
        content: object = f"hi {i}"
        if i in (2, 4):
            content = [{"type": "text", "text": "deep", "extra": nest(250 if i == 2 else 400)}]
        messages = [{"role": "user", "content": content}, {"role": "assistant", "content": "yo"}]
        lines.append(json.dumps({"messages": messages}) + "\n")
    path.write_text("".join(lines))
    return path


# -- the local cluster ---------------------------------------------------------------------

CYCLES = """
import logging, os, sys, threading, time
import psutil
from chatpipe.pipeline.dask_mapper import client

log = logging.getLogger("chatter")
log.addHandler(logging.StreamHandler(sys.stderr))
log.setLevel(logging.INFO)
stop = threading.Event()

def chatter():
    while not stop.is_set():
        log.info("a line from another thread, holding the handler's and stderr's locks")
        time.sleep(0.0002)  # (the GIL let go a moment: the cycles are not starved of it)

if __name__ == "__main__":
    thread = threading.Thread(target=chatter)
    thread.start()
    try:
        for cycle in range(30):
            with client(workers=1) as connected:
                worker = connected.submit(os.getpid, pure=False).result()
                # forked by the fork server, never by this process and its threads' locks
                assert psutil.Process(worker).ppid() != os.getpid()
            print(cycle + 1, flush=True)
    finally:
        stop.set()
        thread.join()
"""


def test_the_local_cluster_starts_and_stops_30_times_while_another_thread_logs(tmp_path):
    """A worker forked from a process whose other thread holds a lock (logging's,
    stderr's) at that moment waits for it for ever: the cluster's workers are forked by
    the fork server, a process of their own, never by this one."""
    script = tmp_path / "cycles.py"
    script.write_text(CYCLES)
    try:
        done = subprocess.run(
            [sys.executable, str(script)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=240,  # (30 cycles take about 15 s here: a hang fails, never holds CI)
        )
    except subprocess.TimeoutExpired as hung:
        cycles = (hung.stdout or b"").split()
        raise AssertionError(f"hung after {len(cycles)} cycles") from None
    assert done.returncode == 0
    assert done.stdout.split() == [str(n).encode() for n in range(1, 31)]


def in_a_group_of_its_own(argv, cwd: Path, env: dict) -> subprocess.Popen:
    """As a terminal runs a command: a process group of its own, Ctrl-C's default
    handling on (a suite run in the background ignores SIGINT, and a child inherits it)."""
    return subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def group_left(group: int, within: float = 10.0) -> list[int]:
    """The processes of a group still running after ``within`` seconds (a fork server
    ends once it sees its parent gone)."""
    deadline = time.monotonic() + within
    while True:
        left = []
        for process in psutil.process_iter():
            with contextlib.suppress(ProcessLookupError, psutil.Error):
                if os.getpgid(process.pid) == group and process.status() != "zombie":
                    left.append(process.pid)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_at_a_random_moment_of_a_dask_run_is_one_line(name, tmp_path):
    chance = random.Random(f"{SEED}-{name}")
    (tmp_path / "in").mkdir()
    for k in range(6):
        rows(tmp_path / "in" / f"s{k}.jsonl", 400, seed=k)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    command = ["trim", "--max-tokens", "60", "--engine", "dask", "--jobs", "2"]
    argv = [*CHATPIPE, *command, "--output-dir", "out", "in/*.jsonl"]
    env = unmeasured({**os.environ, "TMPDIR": str(temporary)})
    proc = in_a_group_of_its_own(argv, tmp_path, env)
    me = psutil.Process(proc.pid)
    deadline = time.monotonic() + 60
    while not me.children() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)  # until the cluster starts (its first process)
    time.sleep(chance.uniform(0, 2.5))  # in its start, its run or its stop
    os.killpg(proc.pid, getattr(signal, name))
    stdout, stderr = proc.communicate(timeout=120)
    said = f"seed {SEED}: {stderr.decode()!r}"
    left = group_left(proc.pid)
    assert left == [], said
    assert os.listdir(temporary) == [], said  # no fork server's socket, no scratch folder
    if proc.returncode in (0, -getattr(signal, name)):  # (it had ended: nothing to clean)
        assert stderr == b"", said
        for k in range(6):
            shard = (tmp_path / "out" / f"s{k}.jsonl").read_bytes()
            assert shard == serial("trim", "--max-tokens", "60", tmp_path / "in" / f"s{k}.jsonl")[0]
        return
    word, code = ("interrupted", 130) if name == "SIGINT" else ("terminated", 143)
    assert (proc.returncode, stdout, stderr) == (code, b"", f"chatpipe: {word}\n".encode()), said
    assert sorted(os.listdir(tmp_path)) == ["in", "tmp"], said  # no shard, nothing staged


@pytest.mark.parametrize("moment", [0.3, 0.8, 2.0])
def test_sigterm_to_the_main_process_leaves_no_process_behind_it(moment, tmp_path):
    """SIGTERM to chatpipe alone (not its group, as `kill PID` sends it) as its cluster
    starts or runs: once it has ended, nothing of its own is left running (the fork
    server, busy importing, went on 1 to 3 s after it; #51, item 14)."""
    rows(tmp_path / "rows.jsonl", 3000)
    argv = [*CHATPIPE, "count", "--engine", "dask", "--jobs", "2", "rows.jsonl"]
    env = unmeasured({**os.environ, "TMPDIR": str(tmp_path)})
    proc = in_a_group_of_its_own(argv, tmp_path, env)
    me = psutil.Process(proc.pid)
    deadline = time.monotonic() + 60
    while not me.children() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)  # until the cluster starts (the fork server, its first process)
    time.sleep(moment)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=120)  # (its end, not its pipes': what it left may hold them open)
    left = group_left(proc.pid, within=0.5)
    assert left == [], (moment, [psutil.Process(p).cmdline() for p in left])
    stderr = proc.stderr.read()
    assert stderr in (b"", b"chatpipe: terminated\n"), stderr
    proc.stdout.close()
    proc.stderr.close()


def test_a_local_cluster_has_no_more_workers_than_parts_or_processors(tmp_path, monkeypatch):
    """--workers 40 on a one-line file started 43 processes (1.8 GB), --workers 100000
    ran 406 s (#51, item 14): a local cluster's workers are capped by the parts to run
    and by the processors, the latter said as --jobs says it."""
    from chatpipe.pipeline import dask_mapper

    asked = []

    @contextlib.contextmanager
    def client(scheduler=None, workers=None):
        asked.append(workers)
        raise dask_mapper.UsageError("(the cluster is not started in this test)")
        yield

    monkeypatch.setattr(dask_mapper, "client", client)
    cores = len(os.sched_getaffinity(0))
    files = [str(rows(tmp_path / f"s{k}.jsonl", 5, seed=k)) for k in range(cores + 2)]

    def workers(*args: str) -> tuple[int, list[str]]:
        result = runner.invoke(app, ["count", "--engine", "dask", *args])
        assert result.exit_code == 2, result.stderr  # (the test's client)
        return asked.pop(), result.stderr.splitlines()

    said = "chatpipe: --jobs {}: this machine runs {} at once; using {} workers"
    # a part each file: no more workers than parts, no more than processors
    count, stderr = workers("--workers", "40", files[0])
    assert count == 1
    if cores < 40:
        assert stderr[0] == said.format(40, cores, cores)
    assert workers("--workers", "100000", *files)[0] == cores
    assert said.format(100000, cores, cores) in workers("--jobs", "100000", *files)[1]
    assert workers(*files)[0] == min(2, cores)  # (two by default)
    assert workers(files[0])[0] == 1  # (a worker with no part to run starts for nothing)


def test_the_local_clusters_workers_get_the_limits_and_a_busy_port_says_nothing(tmp_path):
    """Workers forked from a fork server never saw the command line: --max-depth 300
    travels with the job (a raised limit honoured, a row past it refused there as here).
    Port 8787 (Dask's dashboard) taken: the run prints nothing of it."""
    deep = deep_rows(tmp_path / "deep.jsonl")
    command = ["--max-depth", "300", "convert", "--on-error", "skip", str(deep)]
    expected = serial(*command)
    assert "deep.jsonl:5:1: a record nested deeper than 300 levels" in expected[1]
    assert expected[0].count(b"\n") == 5
    with socket.socket() as busy:
        busy.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        with contextlib.suppress(OSError):  # (taken already: as good)
            busy.bind(("0.0.0.0", 8787))
            busy.listen()
        argv = [*CHATPIPE, *command, "--engine", "dask", "--jobs", "2"]
        done = subprocess.run(argv, capture_output=True, timeout=120)
    assert (done.stdout, done.stderr.decode(), done.returncode) == (*expected, 0)


def test_a_worker_dying_as_the_cluster_starts_is_one_line(tmp_path):
    dying = tmp_path / "dying.py"
    dying.write_text("import os\nos._exit(3)\n")  # Dask runs a preload in each worker
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {
        **os.environ,
        "DASK_DISTRIBUTED__WORKER__PRELOAD": json.dumps([str(dying)]),
        "TMPDIR": str(temporary),
    }
    log = rows(tmp_path / "r.jsonl", 5)
    command = ["convert", "--engine", "dask", "--jobs", "2", "--output-dir", "out", str(log)]
    done = subprocess.run(
        [*CHATPIPE, *command], capture_output=True, env=env, cwd=tmp_path, timeout=120
    )
    assert (done.returncode, done.stdout, done.stderr.decode()) == (
        1,
        b"",
        "chatpipe: error: the local Dask cluster did not start (a worker process ended as it "
        "started) (--jobs N without --engine dask runs the parts in forked processes)\n",
    )
    assert sorted(os.listdir(tmp_path)) == ["dying.py", "r.jsonl", "tmp"]
    assert os.listdir(temporary) == []


# -- a running scheduler -------------------------------------------------------------------


def test_the_limits_travel_to_a_running_schedulers_workers(remote, tmp_path):
    deep = deep_rows(tmp_path / "deep.jsonl")
    for limit in ("300", "100"):
        command = ["--max-depth", limit, "convert", "--on-error", "skip", deep]
        expected = serial(*command)
        assert serial(*command, "--engine", "dask", "--scheduler", remote) == expected
        assert f"nested deeper than {limit} levels" in expected[1]


def test_stdin_redirected_from_a_file_is_that_file_on_the_workers(remote, tmp_path):
    log = rows(tmp_path / "r.jsonl", 300)
    argv = [*CHATPIPE, "convert", "--engine", "dask", "--scheduler", remote, "/dev/stdin"]
    with log.open("rb") as given:
        done = subprocess.run(argv, stdin=given, capture_output=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == serial("convert", log)[0] and done.stdout.count(b"\n") == 300


def test_relative_paths_and_globs_name_the_clients_files_on_a_schedulers_workers(
    remote, tmp_path, monkeypatch
):
    """The worker runs in another folder: a relative path or quoted glob, given on the
    command line or to ``pipeline.execute``, names the files in the client's folder."""
    from chatpipe.pipeline import Engine, Inputs, Job, execute
    from chatpipe.pipeline.parts import Output

    rows(tmp_path / "r0.jsonl", 40, seed=0)
    rows(tmp_path / "r1.jsonl", 40, seed=1)
    monkeypatch.chdir(tmp_path)
    one, both = serial("convert", "r0.jsonl"), serial("convert", "r0.jsonl", "r1.jsonl")
    assert one[0].count(b"\n") == 40 and both[0].count(b"\n") == 80
    on_remote = ("--engine", "dask", "--scheduler", remote)
    assert serial("convert", *on_remote, "r0.jsonl") == one
    assert serial("convert", *on_remote, "r*.jsonl") == both

    def library(given: tuple[str, ...], engine: Engine) -> bytes:
        out = Output()
        execute(Job(Inputs(given)), out, engine)
        return out.close()

    expected = library(("r0.jsonl", "r1.jsonl"), Engine())
    assert expected.count(b"\n") == 80
    for given in (("r*.jsonl",), ("r0.jsonl", "r1.jsonl")):
        assert library(given, Engine(dask=True, scheduler=remote)) == expected
    # chatpipe.dask.run_job, given a client of that scheduler: the same route
    import distributed

    import chatpipe.dask as cd

    with distributed.Client(remote) as connected:
        for given in (("r*.jsonl",), ("r0.jsonl", "r1.jsonl")):
            out = Output()
            cd.run_job(Job(Inputs(given)), out, connected)
            assert out.close() == expected


def test_a_scheduler_with_no_workers_then_one_that_dies_mid_run(tmp_path, monkeypatch, capfd):
    from chatpipe.pipeline import dask_mapper

    for k in range(8):
        rows(tmp_path / f"s{k}.jsonl", 1500, seed=k)
    with dask_processes(workers=1) as (address, started, add_workers):
        # no workers: said after a wait (a second here), not a silent wait for ever
        monkeypatch.setattr(dask_mapper, "_WAIT_FOR_WORKERS", 1.0)
        finished: list = []
        command = ["count", "--engine", "dask", "--scheduler", address, tmp_path / "s0.jsonl"]
        waiting = threading.Thread(target=lambda: finished.append(serial(*command)), daemon=True)
        waiting.start()
        waiting.join(timeout=60)
        assert finished, "still waiting for a worker after a minute"
        assert finished[0] == (
            b"",
            f"chatpipe: error: the Dask scheduler at {address} has no workers (waited 1 s) "
            f"(start some with `dask worker {address}`)\n",
        )
        assert capfd.readouterr().err == ""  # (nothing of Dask's own)
        # the scheduler killed mid-run: one line, exit 1, nothing left
        add_workers()
        argv = [*CHATPIPE, "convert", "--engine", "dask", "--scheduler", address]
        proc = subprocess.Popen(
            [*argv, "--output-dir", "out", "s*.jsonl"],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 60
        while not [p for p in os.listdir(tmp_path) if p.startswith(".chatpipe-")]:
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.005)  # until the run stages its shards
        os.killpg(started["scheduler"].pid, signal.SIGKILL)
        stdout, stderr = proc.communicate(timeout=120)
    assert (proc.returncode, stdout) == (1, b""), stderr
    assert stderr.decode() in (  # (which, depends on what the client was doing)
        "chatpipe: error: the Dask cluster went away during the run; the run stopped\n",
        "chatpipe: error: lost the connection to the Dask scheduler during the run; the run "
        "stopped\n",
    ), stderr
    assert sorted(p for p in os.listdir(tmp_path) if not p.endswith(".jsonl")) == []


# -- what a cluster cannot take ------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("nonsense", " (missing port number in address 'nonsense') (give tcp://HOST:PORT)"),
        (
            "http://127.0.0.1:8787",
            " (give tcp://HOST:PORT (8786 by default; http:// is its dashboard))",
        ),
    ],
)
def test_an_address_that_is_no_schedulers_is_a_usage_error(address, why, tmp_path):
    log = rows(tmp_path / "r.jsonl", 2)
    result = runner.invoke(app, ["count", "--engine", "dask", "--scheduler", address, str(log)])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"chatpipe: error: --scheduler {address!r} is not a Dask scheduler's address{why}\n"
    )


def test_output_dir_in_this_processs_memory_is_refused_for_dask(tmp_path):
    log = rows(tmp_path / "r.jsonl", 2)
    result = runner.invoke(
        app, ["convert", "--engine", "dask", "--jobs", "2", "--output-dir", "memory://o", str(log)]
    )
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "chatpipe: error: --output-dir memory://o: the memory filesystem is this process's own, "
        "and the dask engine's workers write the shards (name a folder or a URL that the "
        "workers share (a shared disk, s3://, gs://))\n"
    )


def test_a_pipe_or_a_fifo_given_to_dask_is_refused_at_once(tmp_path):
    log = rows(tmp_path / "r.jsonl", 20)
    os.mkfifo(tmp_path / "fifo")
    chatpipe = " ".join(map(shlex.quote, CHATPIPE))
    script = (
        f"cat {log} >/dev/null 2>&1 >fifo & "  # (a writer that waits for a reader)
        f"{chatpipe} convert --engine dask --jobs 2 fifo; echo $?; "
        f"cat {log} | {chatpipe} count --engine dask --jobs 2 /dev/stdin; echo $?"
    )
    try:
        done = subprocess.run(["bash", "-c", script], capture_output=True, cwd=tmp_path, timeout=60)
    finally:  # the writer let go
        with contextlib.suppress(OSError):
            os.close(os.open(tmp_path / "fifo", os.O_RDONLY | os.O_NONBLOCK))
    assert done.stdout == b"2\n2\n"
    refused = (
        "chatpipe: error: {}: the dask engine's workers read files, and this input can be "
        "read only once (stdin, a pipe) (write it to a file first, and name the file)\n"
    )
    assert done.stderr.decode() == refused.format("fifo") + refused.format("/dev/stdin")


def test_a_deep_tmpdir_starts_the_cluster(tmp_path):
    """The fork server's socket lives in multiprocessing's temporary folder; under a deep
    TMPDIR its path was longer than a socket address may be ("internal error: OSError:
    AF_UNIX path too long")."""
    log = rows(tmp_path / "r.jsonl", 20)
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    argv = [*CHATPIPE, "count", "--engine", "dask", "--jobs", "2", str(log)]
    env = {**os.environ, "TMPDIR": str(deep)}
    done = subprocess.run(argv, capture_output=True, env=env, timeout=120)
    alone = subprocess.run([*CHATPIPE, "count", str(log)], capture_output=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, b"") and done.stdout == alone.stdout
    assert done.stdout.count(b"\n") == 20
    assert not list(deep.iterdir())  # (nothing left behind there either)
