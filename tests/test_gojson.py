"""Go's encoding/json output: the fast encoder writes exactly what the reference path writes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgen.runtime import gojson
from kgen.runtime.gojson import float_value

# Text with every kind of character the escaping rules treat differently: controls, quotes,
# backslashes, HTML-sensitive characters, U+2028/U+2029, DEL, and characters beyond the BMP.
_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from('\x00\x01\x08\x0c\n\r\t\x1f"\\/<>&\u2028\u2029\x7f\u00e9\u6f22\U0001f600'),
        st.characters(exclude_categories=("Cs",)),
    ),
    max_size=12,
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=False, allow_infinity=False).map(float_value),
    _TEXT,
)
_JSON = st.recursive(
    _SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_TEXT, children, max_size=4),
    max_leaves=20,
)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(_JSON)
def test_the_fast_encoders_write_the_reference_bytes(value):
    reference = gojson._marshal_text(value)
    assert gojson.marshal(value) == reference
    assert gojson.marshal_struct(value) == reference


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"b": "<x> & y", "a": [1, 2]}, b'{"b":"\\u003cx\\u003e \\u0026 y","a":[1,2]}'),
        ("line\u2028para\u2029", b'"line\\u2028para\\u2029"'),
        ("\u00e9\U0001f600", '"\u00e9\U0001f600"'.encode()),
        ("\x00\x1f\x7f\b\f", b'"\\u0000\\u001f\x7f\\b\\f"'),
        ([float_value(1e-7), float_value(1e21), float_value(2.0), float_value(0.1)], b"[1e-7,1e+21,2,0.1]"),
        ("NaN and Infinity are text here", b'"NaN and Infinity are text here"'),
    ],
)
def test_go_output(value, expected):
    assert gojson.marshal(value) == expected
    assert gojson.marshal_struct(value) == expected


@pytest.mark.parametrize(
    ("value", "error"),
    [(float("nan"), ValueError), ([float("inf")], ValueError), ("\ud800", UnicodeEncodeError), (object(), TypeError)],
)
def test_what_go_cannot_encode_is_refused(value, error):
    with pytest.raises(error):
        gojson.marshal(value)
    if not isinstance(value, float) and value != [float("inf")]:  # to_dict() makes no non-finite floats
        with pytest.raises(error):
            gojson.marshal_struct(value)
