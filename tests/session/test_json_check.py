"""Lossless-JSON validation accepts exactly the values that survive a JSON round trip."""

from __future__ import annotations

import enum
import json
import math
from collections import OrderedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.session import NotJsonError, clone_json, is_lossless_json


class Color(enum.IntEnum):
    RED = 1


class Label(str):
    __slots__ = ()


def _strictly_equal(a: object, b: object) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        assert isinstance(b, dict)
        keys_a, keys_b = list(a), list(b)
        return [(type(k), k) for k in keys_a] == [(type(k), k) for k in keys_b] and all(
            _strictly_equal(a[k], b[k]) for k in keys_a
        )
    if isinstance(a, list):
        assert isinstance(b, list)
        return len(a) == len(b) and all(_strictly_equal(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _survives_round_trip(value: object) -> bool:
    """The oracle: encode as UTF-8 JSON text, decode, and compare types and values exactly."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        back = json.loads(text.encode("utf-8"))
    except (ValueError, TypeError):
        return False
    return _strictly_equal(value, back)


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),  # NaN and infinities included
    st.text(),
    st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1),
    st.sampled_from([Color.RED, Label("x"), b"bytes", frozenset(), 1j]),
)
_keys = st.one_of(st.text(), st.integers(), st.booleans(), st.none(), st.just(Label("k")))
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(_keys, inner, max_size=4),
        st.dictionaries(st.text(), inner, max_size=4).map(OrderedDict),
    ),
    max_leaves=20,
)


@given(_values)
def test_accepts_exactly_the_values_that_survive_a_round_trip(value: object) -> None:
    assert is_lossless_json(value) == _survives_round_trip(value)


@given(_values)
def test_the_clone_is_equal_and_shares_no_container(value: object) -> None:
    if not is_lossless_json(value):
        return
    copy = clone_json(value)
    assert _strictly_equal(copy, value)
    if isinstance(value, dict | list):
        assert copy is not value


@pytest.mark.parametrize(
    ("value", "path", "reason"),
    [
        ({"a": [1, math.nan]}, "$.a[1]", "nan is not JSON"),
        ({"a": {"b": (1,)}}, "$.a.b", "tuple is not a JSON type"),
        ({1: "x"}, "$", "object key 1 is not a string"),
        ({"s": "\ud800"}, "$.s", "lone surrogate"),
        ([Color.RED], "$[0]", "Color is not a JSON type"),
    ],
)
def test_errors_name_the_path_and_the_reason(value: object, path: str, reason: str) -> None:
    with pytest.raises(NotJsonError) as caught:
        clone_json(value)
    assert str(caught.value).startswith(f"at {path}: ")
    assert reason in str(caught.value)


def test_cycles_are_refused() -> None:
    cycle: list[object] = []
    cycle.append(cycle)
    assert not is_lossless_json(cycle)
    shared = [1]
    assert is_lossless_json([shared, shared])


def test_depth_is_bounded() -> None:
    deep: object = 0
    for _ in range(300):
        deep = [deep]
    with pytest.raises(NotJsonError, match="nested deeper"):
        clone_json(deep)


def test_huge_integers_within_the_digit_limit_pass() -> None:
    assert is_lossless_json(10**4000)
    assert not is_lossless_json(10**5000)
