"""json_text writes what json.dumps writes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chatpipe.io.jsontext import json_text

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),
)
KEYS = st.one_of(st.text(), st.integers(-5, 5), st.booleans(), st.none(), st.floats(-2, 2))
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=20,
)


@given(value=VALUES, ascii=st.booleans())
def test_json_text_is_json_dumps(value, ascii):
    assert json_text(value, ascii) == json.dumps(value, ensure_ascii=ascii)


def test_what_json_cannot_hold_is_a_type_error():
    with pytest.raises(TypeError, match="not JSON serializable"):
        json_text({"a": object()})
