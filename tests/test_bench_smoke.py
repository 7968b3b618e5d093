"""A smoke run of the benchmark on a tiny corpus: the corpus generator and the runner work.
(The benchmark itself is not a test; its table is in docs/performance.md.)"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from conftest import ROOT


def test_benchmark_runs_on_a_tiny_corpus(tmp_path):
    corpus = tmp_path / "log.jsonl"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "corpus.py"), "300", str(corpus)], check=True
    )
    lines = corpus.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 300
    assert any(json.loads(line).get("tool_calls") for line in lines)
    rows = tmp_path / "rows.jsonl"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "corpus.py"), "300", str(rows), "--rows"], check=True
    )
    assert all(
        "messages" in json.loads(line) for line in rows.read_text(encoding="utf-8").splitlines()
    )
    agent = tmp_path / "agent.jsonl"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "agent_corpus.py"), "400", str(agent)], check=True
    )
    values = [json.loads(line) for line in agent.read_text(encoding="utf-8").splitlines()]
    assert len(values) == 400
    # the shapes it replays: parallel calls, results, parts with images, long code
    assert any(len(v.get("tool_calls") or ()) > 1 for v in values)
    assert any(v["role"] == "tool" for v in values)
    assert any(isinstance(v["content"], list) for v in values if v["role"] == "user")
    assert any("```" in (v["content"] or "") for v in values if v["role"] == "assistant")
    done = subprocess.run(
        [
            *(sys.executable, str(ROOT / "bench" / "run.py"), str(corpus), str(agent)),
            *("--repeat", "1", "--langchain-repeat", "1", "--rss", str(corpus)),
            *("--rows", str(rows), "--log-jobs", str(agent), "--markdown"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    table = done.stdout
    assert table.startswith("run: 20")  # the stamp: date, CPU, Python, chatpipe
    for job in (
        "buffer",
        "buffer --format xml",
        "openai",
        "convert --to canonical",
        "trim --strategy last",
    ):
        rows_of_job = [line for line in table.splitlines() if line.startswith(f"| {job} |")]
        assert len(rows_of_job) == 2  # a row on each corpus
    assert f"corpus: {corpus}," in table and f"corpus: {agent}," in table
    assert "start-up:" in table
    assert f"peak RSS on {corpus}:" in table
    assert "targets of issue #20: " in table
    assert "convert --jobs 2 on" in table
    assert f"buffer --jobs 2 on {agent}" in table and f"openai --jobs 2 on {agent}" in table


def test_container_benchmark_runs_on_a_tiny_log(tmp_path):
    corpus = tmp_path / "log.jsonl"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "corpus.py"), "200", str(corpus)], check=True
    )
    done = subprocess.run(
        [
            *(sys.executable, str(ROOT / "bench" / "containers.py"), str(corpus)),
            *("--repeat", "1", "--writer-messages", "50"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    table = done.stdout
    for job in ("count", "convert"):
        assert f"| {job} |" in table
    for writer in (
        "convert --to markdown",
        "convert --to yaml",
        "convert --json",
        "show --no-pager",
    ):
        assert f"| {writer} |" in table
    assert "targets of issue #23: " in table


def test_template_benchmark_runs_and_checks_both_texts_agree():
    done = subprocess.run(
        [
            *(sys.executable, str(ROOT / "bench" / "templates.py")),
            *("--conversations", "30", "--repeat", "1"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "| render, end to end |" in done.stdout
    assert "| start-up, one conversation |" in done.stdout
    assert "different texts" not in done.stdout + done.stderr


def test_dask_benchmark_runs_and_compares_the_engines(tmp_path):
    rows = tmp_path / "rows.jsonl"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "corpus.py"), "2000", str(rows), "--rows"],
        check=True,
    )
    script = str(ROOT / "bench" / "dask_engine.py")
    done = subprocess.run(
        [sys.executable, script, str(rows), "--repeat", "1", "--shards", "2", "--workers", "2"],
        capture_output=True,
        text=True,
        check=True,
    )
    table = done.stdout
    assert "| convert --to openai | 2 |" in table and "| trim --max-tokens 4000 | 2 |" in table
    assert "outputs compared shard by shard: identical" in table
    # dask against --jobs N, on its own cluster and on a running one; the machine's own
    # ceiling; the client's CPU time on the running cluster; both peaks
    ratio = r"\d+\.\d\d× \(\d+\.\d\d–\d+\.\d\d\)"
    row = rf"\| (\d+\.\d\d \| ){{4}}({ratio} \| ){{4}}\d+\.\d\d s \| [1-9]\d* MB, [1-9]\d* MB \|"
    assert len(re.findall(row, table)) == 2, table
    assert sorted(p.name for p in (tmp_path / "shards").iterdir()) == [
        "train-00000-of-00002.jsonl",
        "train-00001-of-00002.jsonl",
    ]


def test_conversations_benchmark_times_split_into_a_folder_of_its_own(tmp_path):
    rows = tmp_path / "rows.jsonl"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "corpus.py"), "500", str(rows), "--rows"],
        check=True,
    )
    script = str(ROOT / "bench" / "conversations.py")
    done = subprocess.run(
        [sys.executable, script, str(rows), "--rounds", "1", "--only", "split"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},  # (each run's sides made here)
    )
    ratio = r"\d+\.\d\d \(\d+\.\d\d–\d+\.\d\d\) [✓✗]"
    faster = r"\d+\.\d\d× \(\d+\.\d\d–\d+\.\d\d\)"
    row = (
        rf"\| split 0\.9/0\.1 \| \d+\.\d\d s \| {ratio} \| {ratio} \| ≤ 1\.5 \| \d+ MB \| "
        rf"awk: a random side a line, not a stable one \| \d+\.\d\d s \| {faster} \| \d+ MB \|"
    )
    assert re.fullmatch(row, done.stdout.splitlines()[-1]), done.stdout
    assert [p.name for p in tmp_path.iterdir()] == ["rows.jsonl"]  # (sides removed)


def test_regex_engines_benchmark_runs_and_stops_the_catastrophic_pattern():
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "regex_engines.py"), "--messages", "200"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert "200 message texts" in done.stdout
    assert "(a+)+$ on 35 a's and a b: re bounded stopped after" in done.stdout


def test_redact_comparison_runs_and_finds_every_planted_kind():
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "redact_compare.py"), "--clean", "100"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    chatpipe_line = next(x for x in done.stdout.splitlines() if x.startswith("chatpipe "))
    assert chatpipe_line.split()[1:3] == ["22/22", "9/9"]


def test_zip_and_big_export_benchmarks_run_small(tmp_path):
    done = subprocess.run(
        [
            *(sys.executable, str(ROOT / "bench" / "zip_members.py")),
            *("--members", "20", "--repeat", "1", "--no-dask"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "| count serial |" in done.stdout and "| count --jobs 2 |" in done.stdout
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "big_export.py"), "--mb", "0.2", "--repeat", "1"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "| convert --to openai (this chatpipe) |" in done.stdout
    assert re.search(
        r"\| convert --to html \(this chatpipe\) \| [\d.]+ s \| [\d.]+ s, \d+ ms CPU per MB",
        done.stdout,
    )


def test_jobs_scale_benchmark_prints_a_row_per_worker_count(tmp_path):
    rows = tmp_path / "rows.jsonl"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "corpus.py"), "400", str(rows), "--rows"], check=True
    )
    done = subprocess.run(
        [
            *(sys.executable, str(ROOT / "bench" / "jobs_scale.py"), str(rows)),
            *("--jobs", "1", "2", "--repeat", "1", "--", "convert", "--to", "openai"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    table = [line for line in done.stdout.splitlines() if re.match(r"\| \d+ \|", line)]
    assert [line.split("|")[1].strip() for line in table] == ["1", "2"]
    assert table[0].endswith("| 1.00× | 100% |")


def test_target_comparison_finds_a_checkout_the_same_as_itself():
    src = str(ROOT / "src")
    script = str(ROOT / "bench" / "compare_targets.py")
    only = ["--match", "openai_tool_calls.jsonl", "--workers", "2"]
    done = subprocess.run(
        [sys.executable, script, src, src, *only],
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    )
    assert done.stdout.splitlines()[-1].startswith("6 runs, 6 the same"), done.stdout
