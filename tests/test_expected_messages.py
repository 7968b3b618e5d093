"""Nothing lost, message by message: each fixture's conversion equals its checked file."""

from __future__ import annotations

import pytest

from expected_messages import conversation_fixtures, describe, expected_path


@pytest.mark.parametrize("path", conversation_fixtures(), ids=lambda p: p.name)
def test_fixture_gives_the_checked_messages(path):
    expected = expected_path(path)
    assert expected.exists(), f"no {expected.name}: run python tests/expected_messages.py"
    assert describe(path) == expected.read_text(encoding="utf-8")


def test_every_fixture_has_its_expected_file_and_no_other():
    wanted = {expected_path(p).name for p in conversation_fixtures()}
    present = {p.name for p in expected_path(conversation_fixtures()[0]).parent.iterdir()}
    assert present == wanted
    assert len(wanted) >= 100


def test_a_swapped_tool_call_id_is_seen(tmp_path):
    """What the bag-of-values check missed: the same file with two tool results' ids
    swapped holds the same values, and gives other lines."""
    path = next(p for p in conversation_fixtures() if "parallel_tool_use_results" in p.name)
    text = path.read_text(encoding="utf-8")
    first, second = "toolu_0167cfEnoQaPviGdVXA95zcu", "toolu_01EEe2V5HD1Ac4rKiUR4HD2T"
    results = text.rindex('"tool_use"')  # after the calls: swap them in the results only
    swapped = text[:results] + text[results:].replace(first, "@").replace(second, first).replace(
        "@", second
    )
    copy = tmp_path / path.name
    copy.write_text(swapped, encoding="utf-8")
    assert sorted(swapped) == sorted(text)  # the same characters, so the same values
    assert describe(copy) != expected_path(path).read_text(encoding="utf-8")
