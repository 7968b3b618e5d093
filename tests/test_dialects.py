"""A dialect is one unit: detected by evidence (every fixture as fixtures/DIALECTS.md
declares it, every other dialect scoring below), declared in the registry with what its
class says, and never named by the layers above formats/."""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

import pytest

from chatpipe.errors import ChatpipeError, DataError
from chatpipe.formats import registry
from chatpipe.formats.base import CONVERSATIONS, LIKELY, MESSAGES, Dialect, Guess, Sample
from chatpipe.formats.detect import Ambiguous, detect, is_message_list, scores
from chatpipe.io.readers import read_records
from chatpipe.io.records import BadRecord
from chatpipe.io.sources import input_sources
from chatpipe.pipeline.reading import Reading, read
from conftest import FIXTURES

SRC = Path(__file__).resolve().parent.parent / "src" / "chatpipe"
_ROW = re.compile(r"^\| `([^`]+)` \| ([a-z0-9-]+) \| ?([a-z]*) ?\|$")


def declared() -> dict[str, tuple[str, str]]:
    """fixture -> (dialect, shape), from fixtures/DIALECTS.md."""
    rows = {}
    for line in (FIXTURES / "DIALECTS.md").read_text().splitlines():
        found = _ROW.match(line)
        if found:
            rows[found[1]] = (found[2], found[3])
    return rows


DECLARED = declared()
# folders whose files are no chat logs of their own (templates, tokenizers) or are read
# through their session file
_NOT_LOGS = ("chat_templates", "expected", "claude_code__daaain_handmade_project")


def _fixture_files() -> set[str]:
    files = set()
    for path in FIXTURES.rglob("*"):
        relative = path.relative_to(FIXTURES).as_posix()
        if path.is_file() and path.suffix != ".md" and not relative.startswith(_NOT_LOGS):
            files.add(relative)
    return files


def test_every_fixture_declares_its_dialect():
    files = _fixture_files()
    assert len(DECLARED) > 150  # (the table is read: a broken row format would empty it)
    assert files - set(DECLARED) == set(), "add a row to fixtures/DIALECTS.md"
    missing = {name for name in DECLARED if not (FIXTURES / name).is_file()}
    assert missing == set(), "rows of fixtures that are gone"
    names = set(registry.readable())
    assert {d for d, _ in DECLARED.values()} - names - {"none"} == set()


def test_every_readable_dialect_has_a_fixture():
    assert set(registry.readable()) - {d for d, _ in DECLARED.values()} == set()


def _sample(path: Path) -> Sample | None:
    """The sample detection is shown for a file, as reading takes it: the first record
    that any dialect knows, and the rest of the window."""
    source = next(iter(input_sources([str(path)])))
    records = [
        r for r in itertools.islice(read_records(source), 20) if not isinstance(r, BadRecord)
    ]
    if not records:
        return None
    values = [r.value for r in records]
    framed = source.container == "sse" or source.document is not None
    first = next((v for v in values if _claimed(v)), values[0])
    more = [v for v in values if v is not first]
    if is_message_list(first):  # a bare array: its messages are the sample
        return Sample(first[0], tuple(first[1:50]))
    return Sample(first, tuple(more), framed)


def _claimed(value) -> bool:
    try:
        return detect(value) is not None
    except Ambiguous:
        return True


def _detected(name: str) -> tuple[str, str]:
    """(dialect, shape) that reading a fixture detects: every source of it (a zip's
    members) must agree."""
    reading = Reading()
    try:
        for _ in read([str(FIXTURES / name)], reading=reading):
            pass
    except ChatpipeError:
        pass  # (detected all the same, before the bad record)
    found = {(dialect.name, shape) for _, dialect, shape in reading.found}
    if not found:
        return ("none", "")
    assert len(found) == 1, f"{name}: its members read as {sorted(found)}"
    return found.pop()


def _confusion(rows: list[tuple[str, str, str]]) -> str:
    lines = [f"{'fixture':60} {'expected':22} {'got':22} scores"]
    for name, expected, got in rows:
        sample = _sample(FIXTURES / name) if not name.endswith(".zip") else None
        ranked = scores(sample) if sample is not None else []
        said = ", ".join(f"{d.name} {g.score:.2f} ({g.shape})" for d, g in ranked[:4])
        lines.append(f"{name[:60]:60} {expected:22} {got:22} {said}")
    return "\n".join(lines)


def test_detection_gives_every_fixture_its_declared_dialect():
    wrong = []
    for name, (dialect, shape) in sorted(DECLARED.items()):
        got = _detected(name)
        if got != (dialect, shape):
            wrong.append((name, f"{dialect} {shape}".strip(), " ".join(got).strip()))
    assert not wrong, "detection confused:\n" + _confusion(wrong)


def test_the_declared_dialect_outscores_every_other_on_each_fixture():
    """Not a win by registry order: on each fixture the dialect it is scores above every
    other dialect (what keeps a new dialect from capturing another's files)."""
    close = []
    checked = 0
    for name, (dialect, _) in sorted(DECLARED.items()):
        if dialect == "none" or name.endswith(".zip"):
            continue
        sample = _sample(FIXTURES / name)
        ranked = scores(sample)
        checked += 1
        if ranked[0][0].name != dialect or (
            len(ranked) > 1 and ranked[1][1].score >= ranked[0][1].score
        ):
            close.append((name, dialect, ranked[0][0].name))
    assert checked > 140
    assert not close, "no clear winner:\n" + _confusion(close)


def test_files_that_are_no_chat_log_are_refused():
    refused = [name for name, (dialect, _) in DECLARED.items() if dialect == "none"]
    assert refused
    for name in refused:
        with pytest.raises(DataError):
            for _ in read([str(FIXTURES / name)]):
                pass


class _Twin(Dialect):
    """A dialect that claims what OpenAI claims, as surely, and reads it otherwise."""

    name = "twin"
    evidence = 0.5

    def is_message(self, value):
        return isinstance(value, dict) and "role" in value

    def read_message(self, value):
        from chatpipe.model import HumanMessage

        return HumanMessage("always the same")


class _Copy(_Twin):
    """A dialect that claims as surely and reads the sample as OpenAI does."""

    name = "copy"

    def read_message(self, value):
        return registry.get_dialect("openai").read_message(value)


def _with(monkeypatch, dialect: Dialect) -> None:
    everyone = [*registry.dialects(), dialect]
    monkeypatch.setattr("chatpipe.formats.detect.dialects", lambda: iter(everyone))


def test_a_tie_between_dialects_that_read_differently_names_both(monkeypatch):
    _with(monkeypatch, _Twin())
    with pytest.raises(Ambiguous) as raised:
        detect({"role": "user", "content": "hi"})
    assert raised.value.names == ["openai", "twin"]
    assert "--from openai or --from twin" in str(raised.value.hint)


def test_a_tie_between_dialects_that_read_alike_is_one_answer(monkeypatch):
    _with(monkeypatch, _Copy())
    found = detect({"role": "user", "content": "hi"})
    assert (found[0].name, found[1]) == ("openai", MESSAGES)


def test_an_ambiguous_file_is_one_located_error(monkeypatch, tmp_path):
    _with(monkeypatch, _Twin())
    log = tmp_path / "log.jsonl"
    log.write_text('{"role": "user", "content": "hi"}\n')
    with pytest.raises(DataError) as raised:
        list(read([str(log)]))
    said = str(raised.value)
    assert said.startswith(f"{log}:1:1: this could be openai and twin, which read it differently")
    assert "--from openai or --from twin" in said


def test_a_surer_dialect_wins_wherever_it_stands(monkeypatch):
    """A dialect registered last, sure of its keys, beats the generic shape before it."""

    class Special(Dialect):
        name = "special"

        def score(self, sample):
            first = sample.first
            return Guess(LIKELY, CONVERSATIONS) if "special_key" in first else None

    _with(monkeypatch, Special())
    found = detect({"messages": [{"role": "user", "content": "hi"}], "special_key": 1})
    assert (found[0].name, found[1]) == ("special", CONVERSATIONS)
    found = detect({"messages": [{"role": "user", "content": "hi"}]})
    assert found[0].name == "openai"


# -- the registry --------------------------------------------------------------------------


def test_the_registry_lines_say_what_the_classes_declare():
    for name in registry.NAMES:
        dialect = registry.get_dialect(name)
        assert dialect.name == name
        flags = registry._WHERE[name][2]
        assert flags == ("r" if dialect.readable else "-") + ("w" if dialect.writable else "-")
    assert registry.readable() == [n for n in registry.NAMES if registry.get_dialect(n).readable]
    assert registry.writable() == [n for n in registry.NAMES if registry.get_dialect(n).writable]


def test_each_dialects_example_is_its_own_fixture():
    for name in registry.readable():
        example = registry.get_dialect(name).example
        assert example, f"{name} names no example fixture"
        assert DECLARED.get(example, ("?",))[0] == name, f"{name}: {example}"


def test_extras_keys_name_their_dialects():
    keys = registry.extras_keys()
    assert keys["claude_code"] == "claude-code"
    assert len(set(keys.values())) == len(keys)


# -- no dialect named above formats/ -----------------------------------------------------


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def named_dialects(layers: tuple[str, ...] = ("pipeline", "cli")) -> list[str]:
    """Every string constant in these layers (docstrings aside) that is a dialect's name."""
    names = set(registry.NAMES)
    hits = []
    for layer in layers:
        for path in sorted((SRC / layer).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            skip = _docstrings(tree)
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Constant)
                    and isinstance(node.value, str)
                    and node.value in names
                    and id(node) not in skip
                ):
                    hits.append(f"{path.relative_to(SRC)}:{node.lineno}: {node.value!r}")
    return hits


def test_no_layer_above_formats_names_a_dialect():
    assert named_dialects() == []


def test_the_check_finds_a_dialect_named(tmp_path, monkeypatch):
    """The check above can fail: a string that names a dialect is found."""
    layer = tmp_path / "pipeline"
    layer.mkdir()
    (layer / "bad.py").write_text('"""doc mentions openai"""\nTARGET = "anthropic"\n')
    monkeypatch.setattr(f"{__name__}.SRC", tmp_path)
    assert named_dialects(("pipeline",)) == ["pipeline/bad.py:2: 'anthropic'"]


def test_the_formats_page_shows_the_registry_as_it_is(tmp_path):
    from chatpipe.cli.docs import main, with_dialects

    page = (Path(__file__).resolve().parent.parent / "docs" / "formats.md").read_text()
    assert registry.docs_table() in page
    assert page == with_dialects(page), "run python -m chatpipe.cli.docs --dialects docs/formats.md"
    stale = tmp_path / "formats.md"
    stale.write_text(page.replace("| `openai` |", "| `openai-old` |"))
    assert main(["--dialects", str(stale)]) == 0
    assert stale.read_text() == page


def test_the_worked_example_shows_the_module_as_it_is():
    """docs/adding-a-dialect.md shows formats/chatbot_ui.py whole: the page and the module
    (which the fixture tests run) are the same code."""
    from doc_blocks import blocks

    page = Path(__file__).resolve().parent.parent / "docs" / "adding-a-dialect.md"
    shown = [b.text for b in blocks(page) if b.language == "python" and b.note]
    assert shown == [(SRC / "formats" / "chatbot_ui.py").read_text()]


# -- what chatpipe writes, read back ------------------------------------------------------

# dialects whose records say what they are whatever they hold (a dataset's rows, a
# request of its own keys): every fixture written in one must read back as it
_EXACT = ("canonical", "langchain", "gemini", "sharegpt", "alpaca")


def _written_and_read_back() -> dict[str, list[tuple[str, set[str]]]]:
    """Every fixture's conversations written in each record dialect, one file each, and
    the dialects reading it back detected: {written as: [(fixture, read back as)]}."""
    import tempfile

    from chatpipe.pipeline.opening import ErrorLog
    from chatpipe.pipeline.writing import write

    targets = [
        name
        for name in registry.writable()
        if name in registry.readable()
        and not registry.get_dialect(name).document
        and not registry.get_dialect(name).takes_settings
    ]
    found: dict[str, list[tuple[str, set[str]]]] = {to: [] for to in targets}
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "written.jsonl"
        for name, (dialect, _) in sorted(DECLARED.items()):
            if dialect == "none" or name.endswith(".zip"):
                continue
            conversations = [  # (messages held: a log's are read as they are written)
                c.with_messages(list(c.messages))
                for c in read([str(FIXTURES / name)], errors=ErrorLog("skip"))
            ]
            if not all(c.messages for c in conversations):
                continue  # (a record of no messages is every dialect's shape, and none's)
            for to in targets:
                try:
                    out.write_bytes(b"\n".join(write(conversations, to)) + b"\n")
                except ChatpipeError:  # (what it cannot hold, refused: nothing to read back)
                    continue
                reading = Reading()
                try:
                    for _ in read([str(out)], reading=reading):
                        pass
                    got = {d.name for _, d, _ in reading.found}
                except Ambiguous as exc:
                    got = {"tie: " + " and ".join(exc.names)}
                except ChatpipeError as exc:
                    got = {"error: " + exc.message[:60]}
                found[to].append((name, got))
    return found


def test_what_chatpipe_writes_reads_back_as_what_it_was_written_as():
    found = _written_and_read_back()
    ties = [
        (to, name, got) for to, rows in found.items() for name, got in rows if "tie" in str(got)
    ]
    assert ties == [], "dialects tie on chatpipe's own output"
    for to in _EXACT:
        wrong = [(name, got) for name, got in found[to] if got != {to}]
        assert len(found[to]) > 150 and wrong == [], f"written as {to}, read back otherwise"
    right = sum(got == {to} for to, rows in found.items() for _, got in rows)
    total = sum(len(rows) for rows in found.values())
    assert right / total >= 0.9, f"{right} of {total} read back as written"
