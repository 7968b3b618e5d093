"""A conversation's date is read in one place (model/dates.py), for every dialect that has
one: ``select --after/--before`` and the transcripts for people see the same date (#51:
Gemini CLI sessions never matched --after, streams and pydantic-ai logs had no date in
the viewer)."""

from __future__ import annotations

import datetime as dt
import re
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from chatpipe.cli import app
from conftest import FIXTURES

runner = CliRunner()

# a time as the fixtures write it, under a key that names a time: ISO 8601, or epoch
# seconds (10 digits) or milliseconds (13)
_TIMED = re.compile(
    r'"(\w*(?:time|Time|date|Date|created|Created|stamp|Stamp|updated|Updated)\w*)"\s*:\s*'
    r'(?:"(\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:\d\d)?)"|(\d{13}|\d{10}(?:\.\d+)?)\b)'
)


def _times(text: str) -> list[float]:
    """Every time the raw file holds, read here without chatpipe."""
    found = []
    for match in _TIMED.finditer(text):
        iso, epoch = match.group(2), match.group(3)
        if iso:
            when = dt.datetime.fromisoformat(iso.replace("Z", "+00:00"))
            if when.tzinfo is None:
                when = when.replace(tzinfo=dt.timezone.utc)
            found.append(when.timestamp())
        else:
            found.append(int(epoch) / 1000 if len(epoch) == 13 else float(epoch))
    return [t for t in found if 946684800 <= t < 4102444800]  # 2000 to 2100


def _raw(path: Path) -> str:
    if path.is_dir():  # a Claude Code project folder
        return "\n".join(_raw(p) for p in sorted(path.rglob("*")) if p.is_file())
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            return "\n".join(
                archive.read(name).decode("utf-8", "replace") for name in archive.namelist()
            )
    return path.read_text(encoding="utf-8", errors="replace")


def _ids(*args: object) -> list[str] | None:
    result = runner.invoke(app, ["select", "--ids", *map(str, args)])
    return result.stdout.splitlines() if result.exit_code == 0 else None


def _dated_fixtures() -> list[Path]:
    chosen = []
    for path in sorted(FIXTURES.iterdir()):
        if path.name in ("expected", "chat_templates", "validate") or path.suffix == ".md":
            continue
        if not _times(_raw(path)):
            continue
        if _ids(path):  # a chat log chatpipe reads (not a malformed sample)
            chosen.append(path)
    return chosen


DATED = _dated_fixtures()


def test_the_dated_fixtures_cover_every_dialect_that_has_dates():
    families = {path.name.split("__")[0] for path in DATED}
    assert {
        "chatgpt_export",
        "claude_export",
        "claude_code",
        "codex",
        "gemini_cli",
        "openai_chat",
        "openai_responses",
        "openai_stream",
        "openai_batch",
        "gemini",
        "pydantic_ai",
        "ai_sdk_ui",
        "zip",
    } <= families


@pytest.mark.parametrize("path", DATED, ids=lambda p: p.name)
def test_select_finds_every_dated_conversation_by_its_date(path):
    """Every conversation of a file holding times is dated by one of them: --after the
    earliest keeps them all, --before it none, --after the last plus a second none."""
    times = _times(_raw(path))
    every = _ids(path)
    assert every
    assert _ids("--after", min(times), path) == every
    assert _ids("--before", min(times), path) == []
    assert _ids("--after", max(times) + 1, path) == []


def _minute(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).strftime("%Y-%m-%d %H:%M")


@pytest.mark.parametrize("path", DATED, ids=lambda p: p.name)
def test_the_viewer_shows_the_date_select_goes_by(path):
    """The viewer dates each conversation by a time of the file, and the earliest it shows
    is the one select goes by: --before it keeps nothing, a moment after, something."""
    result = runner.invoke(app, ["convert", "--to", "html", str(path)])
    assert result.exit_code == 0
    shown = re.findall(r'"d":"([^"]*)"', result.stdout)
    assert shown and all(shown), "a conversation without a date in the viewer"
    raw = _times(_raw(path))
    assert set(shown) <= {_minute(t) for t in raw}
    times = sorted(set(raw))  # the earliest date select keeps something before, bisected
    low, high = 0, len(times) - 1
    while low < high:
        middle = (low + high) // 2
        low, high = (
            (low, middle) if _ids("--before", times[middle] + 0.001, path) else (middle + 1, high)
        )
    earliest = times[low]
    assert _ids("--before", earliest, path) == []
    assert min(shown) == _minute(earliest)


def test_a_streamed_log_transcript_is_dated_by_what_it_read_ahead():
    """A Markdown transcript of a log read as a stream is dated by the messages read to
    name it (an OpenAI stream's chunks had no date there)."""
    path = FIXTURES / "openai_stream__vercel_openai_text_trimmed.jsonl"
    result = runner.invoke(app, ["convert", "--to", "markdown", str(path)])
    assert result.exit_code == 0
    [created] = re.findall(r"^- created: (\S+)$", result.stdout, re.M)
    seconds = dt.datetime.fromisoformat(created.replace("Z", "+00:00")).timestamp()
    assert seconds in _times(_raw(path))
