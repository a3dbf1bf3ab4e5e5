"""Text rules: binary sniffing, strict UTF-8, BOM, line endings, splitting, Document round trip."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.fs_tools import Document, FsError
from dsh_lsp.fs_tools.text import (
    decode_utf8,
    detect_eol,
    looks_binary,
    normalize_eol,
    split_lines,
    strip_bom,
)


def test_binary_sniffing_looks_only_at_the_head() -> None:
    assert looks_binary(b"ab\0c")
    assert not looks_binary(b"x" * 8192 + b"\0")
    assert not looks_binary(b"")


def test_strict_utf8_names_the_offset() -> None:
    assert decode_utf8("h\u00e9".encode(), "f") == "h\u00e9"
    with pytest.raises(FsError, match=r"f is not valid UTF-8 \(byte 1\)") as caught:
        decode_utf8(b"h\xe9llo", "f")
    assert caught.value.code == "FS_NOT_TEXT"


def test_bom_and_eol_helpers() -> None:
    assert strip_bom("\ufeffx") == (True, "x")
    assert strip_bom("x\ufeff") == (False, "x\ufeff")
    assert detect_eol("a\r\nb\r\nc\n") == "\r\n"
    assert detect_eol("a\r\nb\nc\n") == "\n", "a tie is LF"
    assert detect_eol("no newline") == "\n"
    assert normalize_eol("a\r\nb\rc\n") == "a\nb\rc\n", "lone CRs stay"


def test_split_lines_splits_on_newline_only() -> None:
    assert split_lines("a\u2028b\x0bc\rd\n") == ["a\u2028b\x0bc\rd"]
    assert split_lines("a\n\nb") == ["a", "", "b"]
    assert split_lines("") == []
    assert split_lines("\n") == [""]


def test_document_rejects_nul_anywhere() -> None:
    with pytest.raises(FsError) as caught:
        Document.decode(b"x" * 10_000 + b"\0", "f")
    assert caught.value.code == "FS_NOT_TEXT"


@given(
    body=st.lists(
        st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\r\n\0"), max_size=8)
    ),
    bom=st.booleans(),
    crlf=st.booleans(),
)
def test_a_uniform_document_round_trips_byte_for_byte(
    body: list[str], bom: bool, crlf: bool
) -> None:
    eol = "\r\n" if crlf else "\n"
    raw = ("\ufeff" if bom else "") + eol.join(body) + (eol if body else "")
    data = raw.encode("utf-8")
    document = Document.decode(data, "f")
    assert "\r\n" not in document.text
    assert not document.text.startswith("\ufeff")
    assert document.bom == bom
    assert document.encode() == data
