"""--engine dask and chatpipe.dask (issue 17): the same bytes as one process, shard by
shard, for conversation-per-line, one-conversation-per-file and Parquet inputs; a worker
killed mid-run; a bad record in shard 3 of 8; fsspec's memory:// filesystem.

The CI installs the extras dask and parquet: nothing here is skipped for a missing one.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import dask
import distributed
import pytest
from typer.testing import CliRunner

import chatpipe.dask as cd
from chatpipe.cli import app
from chatpipe.errors import ChatpipeError
from conftest import FIXTURES

runner = CliRunner()


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as local:
        yield local


def on(cluster) -> tuple[str, ...]:
    """The options that run a command on the test's cluster."""
    return ("--engine", "dask", "--scheduler", cluster.scheduler_address)


def cli(*args):
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout_bytes, result.stderr


def rows(seed: int, count: int, bad_at: int | None = None) -> str:
    """Fine-tuning rows with tool calls, names and long texts."""
    chance = random.Random(seed)
    out = []
    for i in range(count):
        if i == bad_at:
            out.append('{"messages": [{"role": "user", "content": "cut short"}, ')
            continue
        call = {
            "id": f"call_{seed}_{i}",
            "type": "function",
            "function": {"name": "lookup", "arguments": json.dumps({"q": i})},
        }
        messages = [
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": f"question {seed}/{i} " * chance.randint(1, 40)},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {
                "role": "tool",
                "tool_call_id": call["id"],
                "content": "found " * chance.randint(1, 9),
            },
            {"role": "assistant", "content": "answer " * chance.randint(1, 60)},
        ]
        out.append(json.dumps({"messages": messages, "id": f"r{seed}-{i}"}))
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shards")
    for k in range(8):
        (folder / f"train-{k}.jsonl").write_text(rows(k, 150))
    return sorted(folder.glob("*.jsonl"))


COMMANDS = [
    ("convert",),
    ("convert", "--to", "sharegpt"),
    ("openai", "--text-format", "block"),
    ("trim", "--max-tokens", "60", "--keep-tool-pairs"),
    ("filter", "--exclude-all-tool-calls"),
    ("merge",),
    ("count", "--json"),
    ("stats", "--json", "--max-tokens", "100"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_on_dask_gives_the_serial_bytes(cluster, shards, command):
    code, serial, err = cli(*command, *shards)
    assert code == 0, err
    assert serial.count(b"\n") == 8 * 150 + (command[0] == "stats")
    code, on_dask, err = cli(*command, *on(cluster), *shards)
    assert code == 0, err
    assert on_dask == serial


def test_inputs_of_two_dialects_are_written_in_the_first_ones(cluster, shards, tmp_path):
    """filter writes the input's dialect: the serial run settles it at its first
    conversation (OpenAI rows), and the parts of the ShareGPT file write it too."""
    sharegpt = tmp_path / "sharegpt.jsonl"
    sharegpt.write_text(
        "".join(
            json.dumps({"conversations": [{"from": "human", "value": f"q{i}"}]}) + "\n"
            for i in range(300)
        )
    )
    command = ("filter", "--exclude-types", "system", shards[0], sharegpt)
    code, serial, err = cli(*command)
    assert code == 0, err
    assert json.loads(serial.splitlines()[-1]) == {
        "messages": [{"role": "user", "content": "q299"}]
    }
    code, on_dask, err = cli(*command, *on(cluster))
    assert code == 0, err
    assert on_dask == serial


def test_output_dir_shard_by_shard_equals_the_serial_run_of_each(cluster, shards, tmp_path):
    out = tmp_path / "out"
    code, _, err = cli(
        "trim",
        "--max-tokens",
        "50",
        *on(cluster),
        "--output-dir",
        out,
        *shards,
    )
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == [p.name for p in shards]
    for shard in shards:
        _, serial, _ = cli("trim", "--max-tokens", "50", shard)
        assert (out / shard.name).read_bytes() == serial
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no staging folder left


ONE_PER_FILE = [
    "agent_session.jsonl",  # a message per line
    "chatgpt_export__mitkury_handmade_user_edit_branch.json",
    "claude_export__yaleman_2025_thinking.json",
    "anthropic_messages__pydanticai_stream_thinking_text.jsonl",
    "openai_chat__cookbook_toy_chat_fine_tuning.jsonl",  # conversation per line
    "sharegpt__llamafactory_glaive_toolcall_first12.json",
]


def test_one_conversation_per_file_inputs_are_one_part_each(cluster, tmp_path):
    files = [FIXTURES / name for name in ONE_PER_FILE]
    for command in (("convert",), ("openai",), ("count",), ("stats", "--json")):
        _, serial, _ = cli(*command, *files)
        code, on_dask, err = cli(*command, *on(cluster), *files)
        assert code == 0, err
        assert on_dask == serial and serial
    out = tmp_path / "out"
    code, _, err = cli(
        "convert",
        *on(cluster),
        "--output-dir",
        out,
        *files,
    )
    assert code == 0, err
    for path in files:
        name = path.name.split(".", 1)[0] + ".jsonl"
        assert (out / name).read_bytes() == cli("convert", path)[1]


def test_shards_with_a_byte_order_mark_on_dask_equal_serial(cluster, tmp_path):
    """A UTF-8 mark stays out of the first part's first line; UTF-16 text is one part."""
    files = []
    for k, encoding in enumerate(("utf-8-sig", "utf-16")):
        path = tmp_path / f"marked-{k}.jsonl"
        path.write_bytes(rows(k, 150).encode(encoding))
        files.append(path)
    _, serial, _ = cli("convert", *files)
    code, on_dask, err = cli("convert", *on(cluster), *files)
    assert code == 0, err
    assert on_dask == serial and serial.count(b"\n") == 300


def test_parquet_in_and_out_on_dask_equals_serial(cluster, shards, tmp_path):
    serial_dir, dask_dir = tmp_path / "s", tmp_path / "d"
    code, _, err = cli(
        "convert",
        *("--to", "openai", "--keep-extras", "--to-format", "parquet", "--output-dir", serial_dir),
        *shards,
    )
    assert code == 0, err
    parquet = sorted(serial_dir.glob("*.parquet"))
    assert len(parquet) == 8
    code, _, err = cli(
        "convert",
        "--to",
        "openai",
        "--keep-extras",
        "--to-format",
        "parquet",
        "--output-dir",
        dask_dir,
        *on(cluster),
        *shards,
    )
    assert code == 0, err
    for path in parquet:
        assert (dask_dir / path.name).read_bytes() == path.read_bytes()
    # and read back, by both engines, as the JSONL they came from
    _, from_jsonl, _ = cli("convert", *shards)
    _, from_parquet, _ = cli("convert", *parquet)
    code, on_dask, err = cli("convert", *on(cluster), *parquet)
    assert code == 0, err
    assert from_parquet == from_jsonl == on_dask


@pytest.fixture(scope="module")
def bad_shards(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bad")
    for k in range(8):
        (folder / f"part-{k}.jsonl").write_text(rows(k, 100, bad_at=41 if k == 3 else None))
    return sorted(folder.glob("*.jsonl"))


def test_a_bad_record_in_shard_3_of_8_says_what_the_serial_run_says(cluster, bad_shards, tmp_path):
    dask_args = (*on(cluster),)
    code, serial_out, serial_err = cli("convert", *bad_shards)
    assert code == 1
    line = f"{bad_shards[3]}:42:"
    assert line in serial_err and serial_err.count("\n") == 1
    code, dask_out, dask_err = cli("convert", *dask_args, *bad_shards)
    assert code == 1 and dask_err == serial_err
    assert dask_out == serial_out  # what came before the error, as one process writes it
    out = tmp_path / "out"
    code, _, err = cli("convert", *dask_args, "--output-dir", out, *bad_shards)
    assert code == 1 and line in err
    assert not out.exists() and list(tmp_path.iterdir()) == []  # nothing half written
    code, skipped, err = cli("convert", "--on-error", "skip", *dask_args, *bad_shards)
    assert code == 0
    assert skipped == cli("convert", "--on-error", "skip", *bad_shards)[1]
    assert skipped.count(b"\n") == 8 * 100 - 1
    assert f"skipped: {line}" in err and "skipped 1 bad record" in err


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_workers_n_starts_and_stops_its_own_cluster(shards, monkeypatch):
    """--workers N: a local cluster of N worker processes started for the run, and
    stopped when it ends (its scheduler closed, each worker process gone)."""
    started = []

    class Noted(distributed.LocalCluster):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.pids = [worker.process.pid for worker in self.workers.values()]
            started.append(self)

    monkeypatch.setattr(distributed, "LocalCluster", Noted)
    code, out, err = cli("count", "--engine", "dask", "--workers", "2", *shards[:2])
    assert code == 0, err
    assert out == cli("count", *shards[:2])[1]
    [cluster] = started
    assert len(cluster.pids) == 2 and os.getpid() not in cluster.pids
    assert (cluster.status.name, cluster.scheduler.status.name) == ("closed", "closed")
    deadline = time.monotonic() + 10  # (their parent reaps them: a moment at most)
    while any(map(_alive, cluster.pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in cluster.pids if _alive(pid)] == []


def _profiling(connected) -> set:
    return set(
        connected.run(lambda: dask.config.get("distributed.worker.profile.enabled")).values()
    )


def test_the_cluster_chatpipe_starts_does_not_profile_unless_asked(monkeypatch):
    # the profiler samples every part every 10 ms for a dashboard this cluster has not
    with cd.client(workers=1) as connected:
        assert _profiling(connected) == {False}
    monkeypatch.setenv("DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED", "True")
    dask.config.refresh()
    try:
        with cd.client(workers=1) as connected:
            assert _profiling(connected) == {True}
    finally:
        monkeypatch.delenv("DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED")
        dask.config.refresh()


@contextlib.contextmanager
def killing_a_busy_worker(cluster, after: float = 0.0):
    """While the block runs, one worker is killed (SIGKILL) ``after`` seconds into a
    task; yields the list that gets its pid."""
    client = distributed.Client(cluster)
    killed: list[int] = []

    def kill_one_busy_worker():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            busy = [w for w, tasks in client.processing().items() if tasks]
            if busy:
                time.sleep(after)
                pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
                os.kill(pid, 9)
                killed.append(pid)
            time.sleep(0.01)

    killer = threading.Thread(target=kill_one_busy_worker)
    killer.start()
    try:
        yield killed
    finally:
        killer.join()
        client.close()
    assert killed, "no worker was busy to be killed"


def test_a_worker_killed_mid_run_changes_nothing(cluster, tmp_path):
    folder = tmp_path / "many"
    folder.mkdir()
    for k in range(24):
        (folder / f"s{k:02d}.jsonl").write_text(rows(100 + k, 400))
    files = sorted(folder.glob("*.jsonl"))
    expected = tmp_path / "expected.jsonl"
    assert cli("trim", "--max-tokens", "80", "-o", expected, *files)[0] == 0
    out = tmp_path / "out.jsonl"
    with killing_a_busy_worker(cluster):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "chatpipe",
                "trim",
                "--max-tokens",
                "80",
                *on(cluster),
                "-o",
                str(out),
                *map(str, files),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == expected.read_bytes()


def test_a_worker_killed_while_writing_its_shard_leaves_no_half_shard(cluster, tmp_path):
    """A part's shard is written as the part is made: a worker killed in the middle
    leaves its temporary file in the staging folder, and the run still moves only whole
    shards into place."""
    folder = tmp_path / "many"
    folder.mkdir()
    for k in range(6):
        (folder / f"s{k}.jsonl").write_text(rows(200 + k, 3000))  # ~2 MB: pieces of 1 MB
    files = sorted(folder.glob("*.jsonl"))
    out = tmp_path / "out"
    with killing_a_busy_worker(cluster, after=0.2):  # inside the part, its shard begun
        command = ["convert", "--to", "openai", "--output-dir", str(out), *map(str, files)]
        done = subprocess.run(
            [sys.executable, "-m", "chatpipe", *command, *on(cluster)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == [f.name for f in files]  # no .tmp
    for shard in files:
        assert (out / shard.name).read_bytes() == cli("convert", "--to", "openai", shard)[1]


def test_a_part_of_many_megabytes_is_read_and_written_in_pieces(cluster, tmp_path):
    """One part (under the 64 MB block) of 3 MB: read a megabyte at a time, its shard
    written as it comes; the bytes, and a bad line's place in the third megabyte, are the
    serial run's."""
    big = tmp_path / "big.jsonl"
    big.write_text(rows(7, 4500, bad_at=4000))
    assert big.stat().st_size > 3 << 20
    out, serial_out = tmp_path / "out", tmp_path / "serial"
    for on_error in ("skip", "fail"):
        command = ("convert", "--to", "openai", "--on-error", on_error, "--output-dir")
        serial = cli(*command, serial_out / on_error, big)
        on_dask = cli(*command, out / on_error, *on(cluster), big)
        assert on_dask[0] == serial[0] == (0 if on_error == "skip" else 1)
        assert on_dask[2] == serial[2] and f"{big}:4001:" in serial[2]
    written = (out / "skip" / "big.jsonl").read_bytes()
    assert written == (serial_out / "skip" / "big.jsonl").read_bytes()
    assert written.count(b"\n") == 4499
    assert not (out / "fail").exists()


def test_read_lines_gives_whole_lines_a_block_at_a_time(tmp_path):
    from chatpipe.io.ranges import read_lines

    path = tmp_path / "lines.jsonl"
    lines = [b"x" * n for n in (10, 3000, 5, 9000, 1, 0, 700)]
    path.write_bytes(b"\n".join(lines))  # the last line without its end
    data = path.read_bytes()
    for start, end in ((0, len(data)), (11, len(data)), (0, 3012), (3012, 3012)):
        pieces = list(read_lines(str(path), start, end, block=1024))
        assert b"".join(pieces) == data[start:end]
        assert all(p.endswith(b"\n") for p in pieces[:-1])
        assert all(len(p) <= 9001 + 1024 for p in pieces)  # a block, or the longest line
    assert len(list(read_lines(str(path), 0, len(data), block=1024))) >= 4


# -- the API -------------------------------------------------------------------------------


def test_read_conversations_keeps_locations_across_parts(shards):
    bag = cd.read_conversations([str(p) for p in shards[:2]], blocksize=4096)
    assert bag.npartitions > 4  # each file cut into several line ranges
    conversations = bag.compute(scheduler="sync")
    assert len(conversations) == 300
    places = [str(c.location) for c in conversations]
    assert places[:2] == [f"{shards[0]}:1:1", f"{shards[0]}:2:1"]
    assert places[150] == f"{shards[1]}:1:1" and places[-1] == f"{shards[1]}:150:1"


def test_a_bag_partition_is_read_when_computed_and_no_other_part_is(shards, monkeypatch):
    """Places made the file's without reading the parts before (their line ends
    counted): computing one partition reads that part's records and no other's, and
    building the bag reads none."""
    from chatpipe.pipeline import parts

    read_parts = []
    records = parts.part_records

    def counted(part):
        read_parts.append(part.start)
        return records(part)

    monkeypatch.setattr(parts, "part_records", counted)
    bag = cd.read_conversations(str(shards[2]), blocksize=4096)
    assert bag.npartitions > 8 and read_parts == []
    every = cd.read_conversations(str(shards[2]), blocksize=None).compute(scheduler="sync")
    assert len(every) == 150 and len(read_parts) == 1  # (the file whole: one part)
    read_parts.clear()
    pieces = bag.to_delayed()
    last = pieces[-1].compute(scheduler="sync")
    assert len(read_parts) == 1  # that part alone
    assert [str(c.location) for c in last] == [str(c.location) for c in every[-len(last) :]]
    assert str(last[-1].location) == f"{shards[2]}:150:1"
    middle = pieces[len(pieces) // 2].compute(scheduler="sync")
    assert len(read_parts) == 2
    at = [str(c.location) for c in every].index(str(middle[0].location))
    assert [c.meta["id"] for c in middle] == [c.meta["id"] for c in every[at : at + len(middle)]]


def test_a_bad_record_in_a_later_part_fails_the_bag_at_its_place_in_the_file(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(rows(3, 150, bad_at=120))
    bag = cd.read_conversations(str(bad), blocksize=2048)
    assert bag.npartitions > 8
    with pytest.raises(ChatpipeError) as failed:
        bag.compute(scheduler="sync")
    said = cli("convert", bad)[2]
    assert said == f"chatpipe: error: {failed.value}\n"
    assert said.startswith(f"chatpipe: error: {bad}:121:57: invalid JSON")
    kept = cd.read_conversations(str(bad), blocksize=2048, on_error="skip").compute()
    assert [str(c.location) for c in kept[119:121]] == [f"{bad}:120:1", f"{bad}:122:1"]
    assert len(kept) == 149


def test_the_librarys_run_job_takes_the_commands_route(cluster, tmp_path):
    """run_job runs through pipeline.execute: dedupe and sample -n over two passes give
    one process's output on an input cut into many parts; head runs in one process; an
    operation that keeps state without saying how it merges is refused."""
    import itertools

    from chatpipe.ops.dedupe import Deduper
    from chatpipe.ops.sample import SampleN
    from chatpipe.pipeline.executors import execute
    from chatpipe.pipeline.job import Inputs, Job, on_stream
    from chatpipe.pipeline.parts import Output
    from chatpipe.pipeline.plan import plan
    from chatpipe.pipeline.targets import ToDialect
    from test_dedupe import corpus

    lines, repeats = corpus(5)
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    inputs = Inputs((str(path),))
    assert len(plan(Job(inputs), 4096).parts) > 8

    def ran(operation, connected=None, heard=None) -> bytes:
        job, out = Job(inputs, operation, ToDialect("openai")), Output()
        if connected is None:
            execute(job, out)
        else:
            cd.run_job(job, out, connected, blocksize=4096, note=heard)
        return out.close()

    with distributed.Client(cluster) as connected:
        one, many = Deduper(report=True), Deduper(report=True)
        kept = ran(one)
        assert ran(many, connected) == kept and kept.count(b"\n") == len(lines) - 60
        assert many.dropped == one.dropped and one.dropped.conversations == len(repeats)
        for seed in ("1", "spring"):
            chosen = ran(SampleN(40, seed))
            assert ran(SampleN(40, seed), connected) == chosen and chosen.count(b"\n") == 40
        heard: list[str] = []
        head = on_stream(lambda conversations: itertools.islice(conversations, 3))
        assert ran(head, connected, heard.append) == ran(head)
        assert heard == ["--engine dask: this command reads its inputs in one process"]
        seen = set()
        with pytest.raises(ChatpipeError, match="closes over seen, a set"):
            ran(lambda c: seen.add(id(c)) or c, connected)


def test_the_bag_maps_and_reductions_equal_the_commands(shards):
    specs = [str(p) for p in shards]
    bag = cd.read_conversations(specs, blocksize=8192)
    lines = bag.map(cd.convert, to="openai").compute(scheduler="sync")
    assert b"\n".join(lines) + b"\n" == cli("convert", "--to", "openai", *shards)[1]
    counted = [int(n) for n in cli("count", *shards)[1].split()]
    assert cd.total_tokens(bag).compute(scheduler="sync") == sum(counted)
    _, stats_out, _ = cli("stats", "--json", *shards)
    overall = json.loads(stats_out.splitlines()[-1])["overall"]
    assert cd.overall_stats(bag).compute(scheduler="sync") == overall
    trimmed = bag.map(cd.trim, 60).map(cd.convert, to="openai").compute(scheduler="sync")
    expected = cli("trim", "--max-tokens", "60", "--to", "openai", *shards)[1]
    assert b"".join(line + b"\n" for line in trimmed if line) == expected


def test_memory_filesystem_in_and_out():
    import fsspec

    fs = fsspec.filesystem("memory")
    for k in range(3):
        fs.pipe(f"/in17/s{k}.jsonl", rows(k, 40).encode())
    with distributed.Client(
        processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None
    ):
        bag = cd.read_conversations("memory://in17/*.jsonl", blocksize=2048)
        trimmed = bag.map(cd.trim, 60)
        paths = cd.to_files(trimmed, "memory://out17", to="openai")
        problems = cd.problems(bag).compute()
    assert paths == [f"memory://out17/part-{i:05d}.jsonl" for i in range(bag.npartitions)]
    written = b"".join(fs.cat(p) for p in paths)
    local = [rows(k, 40) for k in range(3)]
    expected = b""
    for text in local:
        result = subprocess.run(
            [sys.executable, "-m", "chatpipe", "trim", "--max-tokens", "60", "--to", "openai"],
            input=text.encode(),
            capture_output=True,
            check=True,
        )
        expected += result.stdout
    assert written == expected
    assert problems == []
    assert not [p for p in fs.ls("/out17", detail=False) if ".tmp" in p]


def test_without_the_extra_the_error_names_it(tmp_path):
    script = (
        "import sys; sys.modules['dask'] = None; sys.modules['pyarrow'] = None\n"
        "from chatpipe.entry import main; sys.argv[0] = 'chatpipe'; main()\n"
    )
    log = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"
    for args, extra in (
        (["convert", "--engine", "dask", "--workers", "2", str(log)], "chatpipe[dask]"),
        (["convert", "-o", str(tmp_path / "x.parquet"), str(log)], "chatpipe[parquet]"),
    ):
        done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True)
        assert done.returncode == 2, done.stderr
        assert extra in done.stderr and "Traceback" not in done.stderr
        assert done.stderr.count("\n") == 1
    done = subprocess.run(
        [sys.executable, "-c", "import sys; sys.modules['dask'] = None; import chatpipe.dask"],
        capture_output=True,
        text=True,
    )
    assert "pip install 'chatpipe[dask]', or from a clone: pip install -e '.[dask]'" in done.stderr


def test_validate_on_dask_reports_what_the_serial_run_reports(cluster, tmp_path):
    folder = tmp_path / "v"
    folder.mkdir()
    for k in range(4):
        lines = rows(k, 60, bad_at=7 if k == 2 else None).splitlines()
        for i in range(k, 60, 9):  # tool calls left unanswered, assistants missing
            row = json.loads(lines[i]) if i != 7 or k != 2 else None
            if row is not None:
                del row["messages"][3 if i % 2 else 4]
                lines[i] = json.dumps(row)
        (folder / f"v{k}.jsonl").write_text("\n".join(lines) + "\n")
    files = [*sorted(folder.glob("*.jsonl")), FIXTURES / "agent_session.jsonl"]
    code, serial, err = cli("validate", "--json", *files)
    assert code == 1 and serial.count(b"\n") == 15
    kinds = {json.loads(line)["kind"] for line in serial.splitlines()}
    assert len(kinds) >= 2 and "unanswered_tool_call" in kinds
    code, on_dask, dask_err = cli("validate", "--json", *on(cluster), *files)
    assert code == 1
    assert on_dask == serial and dask_err == err


def test_parts_cut_inside_files_keep_every_place(bad_shards, tmp_path):
    """Parts of 2 KB (dozens a file), run here: the places of errors and problems are
    the file's, as one process gives them."""
    from chatpipe.io.sink import output_sink
    from chatpipe.pipeline.assemble import run_in_parts
    from chatpipe.pipeline.executors import settled
    from chatpipe.pipeline.job import Inputs, Job, Run
    from chatpipe.pipeline.plan import plan
    from chatpipe.pipeline.validate_files import Problems, validate_files
    from chatpipe.pipeline.workers import Inline

    files = tuple(str(p) for p in bad_shards[2:5])
    out = tmp_path / "out.jsonl"
    job = Job(Inputs(files, on_error="skip"))
    found = plan(job, 2048)
    assert len(found.parts) > 30
    with output_sink(str(out), list(files)) as sink:
        run = run_in_parts(Run(settled(job, found)), found, Inline(), sink)
    # (a job with no target writes its input's dialect as it came)
    _, expected, said = cli(
        "convert", "--to", "openai", "--keep-extras", "--on-error", "skip", *files
    )
    assert out.read_bytes() == expected
    [error] = run.errors.skipped
    assert str(error.location).startswith(f"{bad_shards[3]}:42:")
    assert f"skipped: {error}\n" in said

    serial = [str(p) for p in validate_files(list(files))]
    checked = Job(Inputs(files), None, Problems())
    with output_sink(str(tmp_path / "problems.txt"), []) as sink:
        run_in_parts(Run(checked), plan(checked, 2048), Inline(), sink)
    assert serial and (tmp_path / "problems.txt").read_text().splitlines() == serial


def test_a_message_log_in_a_bag_is_read_whole_before_it_travels():
    """A message log's messages are read lazily in one process; in a bag they cross
    process boundaries, so they are read while the file is open."""
    files = [
        str(FIXTURES / n)
        for n in ("agent_session.jsonl", "claude_export__yaleman_2025_thinking.json")
    ]
    conversations = cd.read_conversations(files).compute(scheduler="processes")
    assert [len(c.messages) for c in conversations] == [26, 2]
    assert str(conversations[0].location) == f"{files[0]}:1:1"


def test_output_dir_on_an_fsspec_url_is_written_whole_or_not_at_all(tmp_path):
    """The serial engine's --output-dir memory://...: shards staged there and moved in only
    when the run succeeds; two shards of one name refused before anything is written."""
    import fsspec

    fs = fsspec.filesystem("memory")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x.jsonl").write_text('{"messages":[{"role":"user","content":"hi"}]}\n')
    (tmp_path / "b" / "x.jsonl").write_text('{"messages":[{"role":"user","content":"yo"}]}\n')
    bad = tmp_path / "c.jsonl"
    bad.write_text('{"messages":[{"role":"user","content":"c"}]}\nnot json\n')

    code, _, err = cli("convert", "--output-dir", "memory://shards-ok", tmp_path / "a" / "x.jsonl")
    assert (code, err) == (0, "")
    assert fs.find("/shards-ok") == ["/shards-ok/x.jsonl"]
    assert fs.cat("/shards-ok/x.jsonl") == b'{"messages":[{"type":"human","content":"hi"}]}\n'

    code, _, err = cli(
        "convert",
        "--output-dir",
        "memory://shards-same",
        tmp_path / "a" / "x.jsonl",
        tmp_path / "b" / "x.jsonl",
    )
    assert code == 2
    assert err == (
        "chatpipe: error: two inputs would write shards of the same name (give the inputs"
        " different file names, or write one file with -o)\n"
    )
    assert fs.find("/shards-same") == []

    code, _, err = cli("convert", "--output-dir", "memory://shards-bad", bad)
    assert code == 1
    assert err.startswith(f"chatpipe: error: {bad}:2:1: invalid JSON")
    assert fs.find("/shards-bad") == []  # the staging folder removed, nothing half written


def test_the_filter_and_merge_maps_equal_the_commands(shards, tmp_path):
    specs = [str(p) for p in shards[:3]]
    bag = cd.read_conversations(specs, blocksize=8192)
    filtered = bag.map(cd.filter_messages, exclude_types=["tool"]).map(cd.convert, to="openai")
    expected = cli("filter", "--exclude-types", "tool", "--to", "openai", *shards[:3])[1]
    assert b"\n".join(filtered.compute(scheduler="sync")) + b"\n" == expected
    assert b'"role":"tool"' not in expected and expected.count(b"\n") == 450
    # runs of one type to merge: each row's messages doubled in place
    doubled = tmp_path / "doubled.jsonl"
    with doubled.open("w") as out:
        for line in rows(7, 20).splitlines():
            row = json.loads(line)
            row["messages"] = [m for m in row["messages"] for _ in (0, 1)]
            out.write(json.dumps(row) + "\n")
    merged = cd.read_conversations(str(doubled)).map(cd.merge).map(cd.convert, to="openai")
    lines = merged.compute(scheduler="sync")
    assert b"\n".join(lines) + b"\n" == cli("merge", "--to", "openai", doubled)[1]
    assert len(json.loads(lines[0])["messages"]) < len(
        json.loads(doubled.read_text().splitlines()[0])["messages"]
    )


def test_to_files_writes_a_local_folder_and_refuses_other_formats(shards, tmp_path):
    bag = cd.read_conversations(str(shards[0]), blocksize=8192)
    folder = tmp_path / "new" / "out"
    paths = cd.to_files(bag, str(folder), to="openai")
    assert [os.path.basename(p) for p in paths] == [
        f"part-{i:05d}.jsonl" for i in range(bag.npartitions)
    ]
    written = b"".join(Path(p).read_bytes() for p in paths)
    assert written == cli("convert", "--to", "openai", shards[0])[1]
    with pytest.raises(ChatpipeError, match="to_format must be jsonl or parquet, got 'csv'"):
        cd.to_files(bag, str(folder), to="openai", to_format="csv")


def test_scheduler_and_workers_together_are_refused(shards):
    code, out, err = cli(
        "count", "--engine", "dask", "--scheduler", "tcp://127.0.0.1:9", "--workers", "2", shards[0]
    )
    assert (code, out) == (2, b"")
    assert err == (
        "chatpipe: error: --scheduler names a running cluster and --jobs (--workers) starts "
        "one; pick one\n"
    )


def test_storage_options_reach_the_filesystem_here_and_on_the_workers():
    """A filesystem that serves only with the right token (as s3:// wants credentials):
    read_conversations and to_files hand it their storage options, in this process and in
    the workers' tasks."""
    import fsspec
    from fsspec.implementations.memory import MemoryFileSystem

    class Guarded(MemoryFileSystem):
        protocol = "guarded"

        def __init__(self, *args, token=None, **kwargs):
            if token != "sesame":
                raise PermissionError("this filesystem wants token='sesame'")
            super().__init__(*args, **kwargs)

        @classmethod
        def _strip_protocol(cls, path):
            if path.startswith("guarded://"):
                path = "memory://" + path[len("guarded://") :]
            return super()._strip_protocol(path)

    fsspec.register_implementation("guarded", Guarded, clobber=True)
    memory = fsspec.filesystem("memory")  # (the same store: Guarded is a memory filesystem)
    for k in range(2):
        memory.pipe(f"/vault17/s{k}.jsonl", rows(k, 30).encode())
    from chatpipe.io.sources import STORAGE_OPTIONS

    with distributed.Client(
        processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None
    ):
        bag = cd.read_conversations("guarded://vault17/*.jsonl", blocksize=2048, token="sesame")
        STORAGE_OPTIONS.clear()  # as on a worker of its own: the tasks carry the options
        read = cd.to_files(bag, "memory://vault17-read", to="openai")
        plain = cd.read_conversations("memory://vault17/*.jsonl", blocksize=2048)
        STORAGE_OPTIONS.clear()
        written = cd.to_files(plain, "guarded://vault17-written", to="openai", token="sesame")
    assert [p.rsplit("/", 1)[1] for p in read] == [p.rsplit("/", 1)[1] for p in written]
    assert all(p.startswith("guarded://vault17-written/") for p in written)
    read = b"".join(memory.cat(p) for p in read)
    written = b"".join(memory.cat(p.replace("guarded://", "memory://")) for p in written)
    assert read == written
    expected = b"".join(
        runner.invoke(app, ["convert", "--to", "openai", "-"], input=rows(k, 30)).stdout_bytes
        for k in range(2)
    )
    assert written == expected and written.count(b"\n") == 60
    with pytest.raises(ChatpipeError) as refused:  # (one line: the filesystem's own words)
        cd.read_conversations("guarded://vault17/*.jsonl", token="wrong")
    assert str(refused.value) == (
        "guarded://vault17/*.jsonl: cannot open: this filesystem wants token='sesame'"
    )
    with pytest.raises(ChatpipeError, match="storage options are for fsspec URLs"):
        cd.read_conversations("local.jsonl", token="sesame")
