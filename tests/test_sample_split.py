"""``chatpipe head``, ``sample`` and ``split``: exact counts, and choices that depend on the
seed and the conversations only (not their order, nor how the input is cut in parts)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from chatpipe.cli import app
from chatpipe.errors import UsageError
from chatpipe.model import AIMessage, Conversation, HumanMessage
from chatpipe.ops.sample import SmallestKeys, Splitter, head, key, parse_ratio, sample, split
from conftest import FIXTURES

runner = CliRunner()
EXPORT = str(FIXTURES / "chatgpt_export__pkuppens_2023_conversations_subset.json")
TOY = FIXTURES / "openai_chat__cookbook_toy_chat_fine_tuning.jsonl"


def rows(n: int, start: int = 0) -> list[str]:
    return [
        json.dumps(
            {
                "messages": [
                    {"role": "user", "content": f"question {i}"},
                    {"role": "assistant", "content": f"answer {i}"},
                ]
            }
        )
        for i in range(start, start + n)
    ]


def write(path, lines) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def out(*args: str) -> list[str]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.stderr
    return result.stdout.splitlines()


def test_head_takes_the_first_conversations_of_any_dialect():
    assert out("head", "-n", "2", "--to", "openai", str(TOY)) == [
        json.dumps(json.loads(x), ensure_ascii=False, separators=(",", ":"))
        for x in TOY.read_text(encoding="utf-8").splitlines()[:2]
    ]
    assert out("select", "--ids", EXPORT)[:3] == [
        json.loads(x)["id"] for x in out("head", "-n", "3", "--to", "canonical", EXPORT)
    ]
    assert out("head", "-n", "0", str(TOY)) == []
    assert len(out("head", str(TOY))) == 5  # ten by default: all five


def test_head_stops_reading_at_the_nth(tmp_path):
    # a bad record after the first two is never read
    path = write(tmp_path / "x.jsonl", [*rows(2), "{not json"])
    assert len(out("head", "-n", "2", path)) == 2
    assert runner.invoke(app, ["head", "-n", "3", path]).exit_code == 1


def test_sample_n_is_exact_and_the_same_whatever_the_order_and_the_files(tmp_path):
    lines = rows(200)
    whole = write(tmp_path / "all.jsonl", lines)
    chosen = out("sample", "-n", "17", "--seed", "5", whole)
    assert len(chosen) == 17
    assert chosen == [
        line.replace(", ", ",").replace(": ", ":")
        for line in lines
        if line.replace(", ", ",").replace(": ", ":") in chosen
    ]  # input order
    shuffled = lines[:]
    random.Random(3).shuffle(shuffled)
    parts = [write(tmp_path / "a.jsonl", shuffled[:77]), write(tmp_path / "b.jsonl", shuffled[77:])]
    assert sorted(out("sample", "-n", "17", "--seed", "5", *parts)) == sorted(chosen)
    assert out("sample", "-n", "17", "--seed", "6", whole) != chosen
    assert len(out("sample", "-n", "500", whole)) == 200


def test_sample_fraction_keeps_the_keys_below_it(tmp_path):
    whole = write(tmp_path / "all.jsonl", rows(400))
    tenth = out("sample", "--fraction", "0.1", "--seed", "x", whole)
    assert 20 <= len(tenth) <= 60
    fifth = out("sample", "--fraction", "0.2", "--seed", "x", whole)
    assert set(tenth) <= set(fifth)  # a larger fraction keeps what a smaller one kept
    assert out("sample", "--fraction", "0", whole) == []
    assert len(out("sample", "--fraction", "1", whole)) == 400
    both = runner.invoke(app, ["sample", "-n", "1", "--fraction", "0.5", whole])
    assert (both.exit_code, both.stderr) == (
        2,
        "chatpipe: error: give one of -n N and --fraction F\n",
    )


def test_smallest_keys_of_parts_combine_into_those_of_the_whole():
    values = [(random.Random(i).getrandbits(64), i) for i in range(300)]
    values += [(values[10][0], 300), (values[20][0], 5)]  # equal keys: the earlier first
    whole = SmallestKeys(25)
    for k, position in values:
        whole.add(k, position, position)
    parts = [SmallestKeys(25) for _ in range(4)]
    for number, (k, position) in enumerate(values):
        parts[number % 4].add(k, position, position)
    merged = parts[0]
    for part in parts[1:]:
        merged.merge(part)
    assert merged.chosen() == whole.chosen()
    assert [p for p, _, _ in whole.chosen()] == sorted(
        p for _, p in sorted(values, key=lambda v: (v[0], v[1]))[:25]
    )


texts = st.text(alphabet="ab \n", max_size=6)
conversations = st.lists(
    st.tuples(st.one_of(st.none(), st.text(alphabet="xyz", min_size=1, max_size=3)), texts),
    max_size=40,
)
ratios = st.lists(st.integers(min_value=0, max_value=5), min_size=1, max_size=4).filter(any)


def _conversation(item) -> Conversation:
    given_id, text = item
    meta = {} if given_id is None else {"id": given_id}
    return Conversation([HumanMessage(text), AIMessage("ok")], meta)


@settings(max_examples=150, deadline=None)
@given(conversations, ratios, st.integers(0, 9), st.randoms(use_true_random=False))
def test_split_partitions_and_depends_on_nothing_but_the_conversation(items, weights, seed, rnd):
    total = sum(weights)
    sides = [(f"s{i}", w / total) for i, w in enumerate(weights)]
    sides[-1] = (sides[-1][0], 1 - sum(w for _, w in sides[:-1]))
    out_ = split([_conversation(i) for i in items], sides, seed)  # type: ignore[arg-type]
    placed = [c for side in out_.values() for c in side]
    assert len(placed) == len(items)  # every conversation in exactly one side
    assert all(not out_[name] for name, share in sides if share == 0)
    splitter = Splitter(sides, seed)
    shuffled = list(items)
    rnd.shuffle(shuffled)
    for item in shuffled:  # the same side in any order, alone or among others
        assert any(
            c.meta == _conversation(item).meta and c.messages == _conversation(item).messages
            for c in out_[splitter.side(_conversation(item))]
        )


def test_split_writes_a_file_per_side_that_together_hold_the_input(tmp_path):
    lines = rows(300)
    whole = write(tmp_path / "all.jsonl", lines)
    folder = tmp_path / "out"
    result = runner.invoke(
        app,
        [
            "split",
            "--ratio",
            "train=0.8,dev=0.1,test=0.1",
            "--seed",
            "3",
            "--output-dir",
            str(folder),
            whole,
        ],
    )
    assert (result.exit_code, result.stdout) == (0, "")
    sides = {p.name: p.read_text(encoding="utf-8").splitlines() for p in folder.iterdir()}
    assert sorted(sides) == ["dev.jsonl", "test.jsonl", "train.jsonl"]
    compact = [json.dumps(json.loads(x), separators=(",", ":")) for x in lines]
    assert sorted(x for side in sides.values() for x in side) == sorted(compact)
    assert 200 < len(sides["train.jsonl"]) < 280
    # the same sides from the input in two shuffled files
    shuffled = lines[:]
    random.Random(1).shuffle(shuffled)
    parts = [
        write(tmp_path / "p1.jsonl", shuffled[:100]),
        write(tmp_path / "p2.jsonl", shuffled[100:]),
    ]
    again = tmp_path / "again"
    runner.invoke(
        app,
        [
            "split",
            "--ratio",
            "train=0.8,dev=0.1,test=0.1",
            "--seed",
            "3",
            "--output-dir",
            str(again),
            *parts,
        ],
    )
    for name, side in sides.items():
        assert sorted((again / name).read_text(encoding="utf-8").splitlines()) == sorted(side)


def test_split_of_an_export_keeps_ids_on_one_side(tmp_path):
    folder = tmp_path / "o"
    runner.invoke(
        app,
        [
            "split",
            "--ratio",
            "a=0.5,b=0.5",
            "--seed",
            "1",
            "--to",
            "canonical",
            "--output-dir",
            str(folder),
            EXPORT,
        ],
    )
    a = [json.loads(x)["id"] for x in (folder / "a.jsonl").read_text().splitlines()]
    b = [json.loads(x)["id"] for x in (folder / "b.jsonl").read_text().splitlines()]
    assert sorted(a + b) == sorted(out("select", "--ids", EXPORT))
    assert (a, b) == (
        [i for i in out("select", "--ids", EXPORT) if i in a],
        [i for i in out("select", "--ids", EXPORT) if i in b],
    )


@pytest.mark.parametrize(
    ("ratio", "said"),
    [
        ("train=0.9", "the shares add up to 0.9, not 1"),
        ("train", "'train' is not NAME=SHARE"),
        ("a=x,b=1", "'x' is not a number"),
        ("a=0.5,a=0.5", "a is named twice"),
        ("../a=1", "'../a=1' is not NAME=SHARE"),
        ("a=2,b=-1", "the share of a is not from 0 to 1"),
    ],
)
def test_bad_ratios(ratio, said):
    with pytest.raises(UsageError) as raised:
        parse_ratio(ratio)
    assert raised.value.message == f"--ratio {ratio!r}: {said}"


def test_split_refuses_a_document_dialect(tmp_path):
    result = runner.invoke(
        app,
        [
            "split",
            "--ratio",
            "a=1",
            "--to",
            "markdown",
            "--output-dir",
            str(tmp_path / "o"),
            str(TOY),
        ],
    )
    assert result.exit_code == 2
    assert result.stderr.startswith("chatpipe: error: split writes records, a file per side")
    assert not (tmp_path / "o").exists()


def test_keys_of_the_library():
    one = Conversation([HumanMessage("a  b")], {})
    same = Conversation(iter([HumanMessage(" a b ")]), {"title": "t"})  # normalised text
    assert key(one, 1) == key(same, 1) != key(one, 2)
    assert key(Conversation([], {"id": "x"})) == key(Conversation([HumanMessage("z")], {"id": "x"}))
    assert key(one, 1, "split") != key(one, 1)
    assert [c.meta for c in sample([one, same], n=1, seed=1)] == [{}]
    assert list(head(iter([one, same]), 1)) == [one]
    with pytest.raises(UsageError):
        list(head([], -1))
    with pytest.raises(UsageError, match="give sample one of"):
        list(sample([], seed=1))
