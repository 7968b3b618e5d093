"""Shared test helpers: calling chatpipe and langchain-core side by side."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


def outcome(fn, *args, **kwargs):
    """("ok", result) or ("error", None): to compare where two libraries fail."""
    try:
        return "ok", fn(*args, **kwargs)
    except Exception:
        return "error", None


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
