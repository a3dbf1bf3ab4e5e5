"""Position encodings: code units of UTF-8, UTF-16 and UTF-32 against Python offsets."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.server.buffers.positions import (
    Position,
    PositionEncoding,
    index_at,
    parse_encoding,
    positions_at,
    units,
)
from tests.server.editor_model import offset_of, position_of

ENCODINGS: tuple[PositionEncoding, ...] = ("utf-8", "utf-16", "utf-32")

EMOJI = "\U0001f600"  # outside the Basic Multilingual Plane: 2 UTF-16 units, 4 UTF-8 bytes
TEXT_CHARS = st.sampled_from(["a", "\u00e9", "\u4e16", EMOJI, "\n", "\r\n", "\r", "\x0b"])


def test_units_per_encoding() -> None:
    sample = f"a\u00e9\u4e16{EMOJI}"
    assert units(sample, "utf-32") == 4
    assert units(sample, "utf-16") == 5
    assert units(sample, "utf-8") == 1 + 2 + 3 + 4
    assert units("plain ascii", "utf-16") == len("plain ascii")


def test_a_lone_surrogate_counts_like_the_editor_counts_it() -> None:
    assert units("\ud800", "utf-16") == 1
    assert units("\ud800", "utf-8") == 3


@pytest.mark.parametrize(
    ("encoding", "column", "index"),
    [
        ("utf-16", 1, 1),  # after "x"
        ("utf-16", 2, 1),  # inside the emoji's surrogate pair: rounds down
        ("utf-16", 3, 2),  # after the emoji
        ("utf-8", 3, 1),  # inside the emoji's four bytes
        ("utf-8", 5, 2),
        ("utf-32", 2, 2),
        ("utf-16", 99, 3),  # past the end clamps
        ("utf-8", -1, 0),
    ],
)
def test_index_at(encoding: PositionEncoding, column: int, index: int) -> None:
    assert index_at(f"x{EMOJI}y", column, encoding) == index


def test_positions_follow_lsp_line_breaks_only() -> None:
    text = f"a\r\nb{EMOJI}\rc\x0bd\ne"
    offsets = [0, 3, 5, 6, 8, 10, 11]
    found = positions_at(text, offsets, "utf-16")
    assert found == (
        Position(line=0, character=0),
        Position(line=1, character=0),
        Position(line=1, character=3),  # "b" + a surrogate pair
        Position(line=2, character=0),  # a lone CR ends a line
        Position(line=2, character=2),  # \x0b does not
        Position(line=3, character=0),
        Position(line=3, character=1),
    )


def test_positions_reject_offsets_out_of_order() -> None:
    with pytest.raises(ValueError, match="out of order"):
        positions_at("abc", [2, 1], "utf-16")
    with pytest.raises(ValueError, match="outside"):
        positions_at("abc", [4], "utf-16")


def test_parse_encoding_defaults_to_utf16() -> None:
    assert parse_encoding("utf-8") == "utf-8"
    assert parse_encoding(None) == "utf-16"
    assert parse_encoding("latin-1") == "utf-16"


@given(
    text=st.lists(TEXT_CHARS, max_size=30).map("".join),
    cuts=st.lists(st.integers(min_value=0, max_value=60), max_size=6),
    encoding=st.sampled_from(ENCODINGS),
)
def test_positions_round_trip_through_an_independent_editor(
    text: str, cuts: list[int], encoding: PositionEncoding
) -> None:
    # offsets that never split a CRLF pair (LSP has no position there)
    offsets = sorted(
        {
            min(cut, len(text))
            for cut in cuts
            if not (
                0 < min(cut, len(text)) < len(text)
                and text[min(cut, len(text)) - 1] == "\r"
                and text[min(cut, len(text))] == "\n"
            )
        }
    )
    for offset, position in zip(offsets, positions_at(text, offsets, encoding), strict=True):
        assert position.to_json() == position_of(text, offset, encoding)
        assert offset_of(text, position.to_json(), encoding) == offset
