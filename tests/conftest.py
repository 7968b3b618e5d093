"""Shared test helpers: calling chatpipe and langchain-core side by side."""

from __future__ import annotations

import os
import re
import sys
from functools import cache
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"

# under `pytest --cov`, every process the tests start measures itself (pyproject's coverage
# patch) into a data file named after this one: in the checkout, where the run combines
# them, not in the folder the process runs in (a test's, which it checks is left clean)
os.environ.setdefault("COVERAGE_FILE", str(ROOT / ".coverage"))


def unmeasured(env: dict | None = None) -> dict:
    """The environment (``os.environ``, or ``env``) for a chatpipe process that a test sends
    Ctrl-C, SIGTERM or SIGHUP while it runs, without coverage's measuring. Coverage's tracer
    takes a lock in Python code; a signal handler that raises there (Ctrl-C's, and chatpipe's
    for SIGTERM and SIGHUP) leaves the lock held, and the process hangs at its next line (CI,
    2026-11-26: one run in three of the --output-dir signal tests hung, py-spy showing
    ``Collector.lock_data``). What these tests check is the signal's handling, which the
    in-process tests of the same code measure."""
    return {
        name: value
        for name, value in (os.environ if env is None else env).items()
        if not name.startswith("COVERAGE_PROCESS")
    }


class Failure:
    """An exception as two libraries' failures are compared: the built-in exception class it
    is (a chatpipe ``ConversionError`` is a ``ValueError``, as is pydantic's
    ``ValidationError``) and its message."""

    def __init__(self, exc: BaseException):
        self.exc = exc
        self.kind = next(c for c in type(exc).__mro__ if c.__module__ == "builtins")
        self.message = str(exc)

    def __eq__(self, other):
        return isinstance(other, Failure) and (self.kind, self.message) == (
            other.kind,
            other.message,
        )

    def __repr__(self):
        return f"{self.kind.__name__}({self.message!r})"


def noting_pids(monkeypatch, module, name, pids: Path) -> Path:
    """``module.name`` patched so that every process calling it (a --jobs worker, forked
    with the patch) writes its pid into ``pids``, a line each: who did the work."""
    function = getattr(module, name)

    def noted(*args):
        with open(pids, "a") as out:
            out.write(f"{os.getpid()}\n")
        return function(*args)

    monkeypatch.setattr(module, name, noted)
    return pids


def outcome(fn, *args, **kwargs):
    """("ok", result) or ("error", Failure): equal for two libraries only when both
    succeed with equal results or both fail with the same exception class and message."""
    try:
        return "ok", fn(*args, **kwargs)
    except Exception as exc:
        return "error", Failure(exc)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    """On CI (``CI`` set), hypothesis's own profile would run the same derandomized
    examples every time; chatpipe's CI draws new ones each run from a seed it prints
    (replay a failure with ``--hypothesis-seed=N``; ``--hypothesis-profile=ci`` gives the
    derandomized run)."""
    import random

    from hypothesis import settings

    settings.register_profile("ci-random", settings.get_profile("ci"), derandomize=False)
    if os.environ.get("CI") and config.getoption("hypothesis_profile", None) is None:
        settings.load_profile("ci-random")
        if config.getoption("hypothesis_seed", None) is None:
            config.option.hypothesis_seed = str(random.randrange(2**32))


# langchain-core's own crashes: a key or attribute its code assumed, not a message for a user
CRASHES = (KeyError, AttributeError, TypeError, IndexError)


# a value's kind, as chatpipe.errors.kind_of says it
_KIND = r"null|a boolean|a number|a string|a list|an object|bytes|an? [A-Za-z_]\w* object"
_TOOL_CALL = r"a tool call|an invalid tool call|a tool call chunk"
# what each ``{word}`` of a pinned message stands for: the words chatpipe puts there, so
# that a message changed in any of them is no longer pinned; any text only where the
# message quotes the data
PLACEHOLDERS = {
    "kind": _KIND,
    "kinds": rf"(?:{_KIND})(?: or (?:{_KIND}))*",
    "what": (  # a field of a message or a tool call
        r"name|id|additional_kwargs|response_metadata|usage_metadata|tool_calls"
        rf"|a message role|(?:{_TOOL_CALL})(?:'s (?:name|args|id|error|index))?"
    ),
    "key": r"(?:input|output|total)_tokens|(?:input|output)_token_details\.\w+",
    "type": (  # a message's type
        r"human|ai|system|tool|function|chat|remove"
        r"|(?:Human|AI|System|Tool|Function|Chat)MessageChunk"
    ),
    "message": r"(?:Human|AI|System|Tool|Function|Chat)Message(?:Chunk)?|RemoveMessage",
    "media": r"file|audio",
    "block_type": r"text|image_url",
    "place": r"messages\[\d+\]\.content\[\d+\]",
    "missing": r"\[(?:'\w+', )*'\w+'\]",  # key names, as Python prints a list
    "block": r"\s*\{.*\}",  # a content block, as Python prints it
    "value": r".+",  # a value from the data, as Python prints it
    "text": r"[^'\n]*",  # a string from the data
    "keys": r".*",  # a record's keys
}


@cache
def pinned_messages() -> tuple[re.Pattern, ...]:
    """The error messages docs/langchain-differences.md pins, as patterns: each ``{word}``
    stands for the words of PLACEHOLDERS[word], and a location (``messages[0].content[1]:
    ``) may come first."""
    page = (ROOT / "docs" / "langchain-differences.md").read_text(encoding="utf-8")
    block = page.split("<!-- pinned-errors -->")[1].split("<!-- /pinned-errors -->")[0]
    patterns = []
    items = re.findall(r"^\s*- (.+)$", block, flags=re.M)
    assert all(re.fullmatch(r"`.+`", item) for item in items), (
        "each pinned message is a code span alone on its line, notes on the next"
    )
    for message in (item[1:-1] for item in items):
        words = re.findall(r"\{(\w+)\}", message)
        assert set(words) <= set(PLACEHOLDERS), (
            f"{message}: no words for {set(words) - set(PLACEHOLDERS)}"
        )
        body = re.sub(r"\\\{(\w+)\\\}", lambda m: f"(?:{PLACEHOLDERS[m[1]]})", re.escape(message))
        patterns.append(re.compile(r"(messages\[\d+\](\.content\[\d+\])?: )?" + body, re.S))
    assert patterns, "docs/langchain-differences.md pins no error message"
    return tuple(patterns)


def assert_same_outcome(ours, theirs):
    """Both succeed with equal results, or both fail with the same exception class and
    message; or chatpipe says better, on purpose, what langchain-core says wrongly or only
    with a crash: then chatpipe's is a ``ValueError`` whose message
    docs/langchain-differences.md pins. (Two results are the caller's to compare: each
    library has its own classes.)"""
    if ours == theirs or ours[0] == theirs[0] == "ok":
        return
    assert ours[0] == theirs[0] == "error", (ours, theirs)
    mine, lcs = ours[1], theirs[1]
    assert mine.kind is ValueError and lcs.kind in (ValueError, *CRASHES), (mine, lcs)
    assert any(p.fullmatch(mine.message) for p in pinned_messages()), (
        f"{mine!r} differs from langchain-core's {lcs!r} and docs/langchain-differences.md "
        "does not pin it"
    )


# the share of each differential test's examples that compared something, for the summary
SHARES: dict[str, str] = {}


class Tally:
    """What a property test's examples compared ("cut", "empty", "error", ...), so that a
    test fails when too few of them compare a real result (a change to a strategy that
    makes most cases trivial is caught, not hidden by a green run)."""

    def __init__(self, name: str):
        self.name = name
        self.counts: dict[str, int] = {}

    def __call__(self, kind: str) -> None:
        from hypothesis import event
        from hypothesis.control import currently_in_test_context

        if currently_in_test_context():  # (a loop over fixtures tallies too)
            event(kind)
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def require(self, at_least: float, *kinds: str) -> None:
        total = sum(self.counts.values())
        share = sum(self.counts.get(k, 0) for k in kinds) / total if total else 0.0
        SHARES[self.name] = (
            f"{share:.0%} {'+'.join(kinds)} of {total} examples ("
            + ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
            + ")"
        )
        assert share >= at_least, f"{self.name}: only {SHARES[self.name]}; want {at_least:.0%}"


# the least line coverage of any one module of src/chatpipe, when the run measures coverage
# (#19 asks 85)
MODULE_MINIMUM = 85


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtestloop(session):
    """After pytest-cov's report (it wraps the loop inside this): fail the run when a
    module of src/chatpipe is covered less than MODULE_MINIMUM."""
    result = yield
    plugin = session.config.pluginmanager.getplugin("_cov")
    controller = getattr(plugin, "cov_controller", None)
    if controller is None or plugin.cov_total is None:
        return result
    import json
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "coverage.json"
        controller.cov.json_report(outfile=str(report))
        files = json.loads(report.read_text())["files"]
    low = {
        name: data["summary"]["percent_covered"]
        for name, data in files.items()
        if data["summary"]["percent_covered"] < MODULE_MINIMUM
    }
    if low:
        terminal = session.config.pluginmanager.getplugin("terminalreporter")
        lowest = sorted(low.items(), key=lambda item: item[1])
        terminal.write_line(
            f"ERROR: {len(low)} module(s) covered under {MODULE_MINIMUM} %: "
            + ", ".join(f"{name} {percent:.1f} %" for name, percent in lowest[:8])
            + (", ..." if len(low) > 8 else ""),
            red=True,
        )
        session.testsfailed += 1
    return result


def pytest_terminal_summary(terminalreporter, config):
    from hypothesis import settings

    seed = config.getoption("hypothesis_seed", None)
    terminalreporter.write_line(
        f"hypothesis: profile {settings.get_current_profile_name()}"
        + (f", seed {seed} (replay: --hypothesis-seed={seed})" if seed is not None else "")
    )
    if SHARES:
        terminalreporter.section("differential tests: examples that compared a real result")
        for name, line in sorted(SHARES.items()):
            terminalreporter.write_line(f"{name}: {line}")


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture(autouse=True)
def _limits():
    """The CLI's root options (--max-depth ...) set process-wide limits: each test starts
    from the defaults and leaves them as it found them."""
    from chatpipe.io.limits import LIMITS, Limits

    saved = vars(LIMITS).copy()
    vars(LIMITS).update(vars(Limits()))
    yield
    vars(LIMITS).update(saved)
