"""The literal edit algorithm: exact matches, counts, ambiguity, batches, EOL normalization."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.fs_tools import FsError, LiteralEdit, apply_literal_edits


def _apply(text: str, *edits: LiteralEdit) -> str:
    return apply_literal_edits(text, edits, display_path="f").text


def test_single_unique_replacement() -> None:
    result = apply_literal_edits(
        "a b c", [LiteralEdit(old_string="b", new_string="B")], display_path="f"
    )
    assert result.text == "a B c"
    assert result.replacements == (1,)


def test_matching_is_literal_not_regex() -> None:
    assert _apply("x.*y x", LiteralEdit(old_string=".*", new_string="+")) == "x+y x"


def test_crlf_in_the_edit_strings_matches_normalized_text() -> None:
    edit = LiteralEdit(old_string="a\r\nb", new_string="c\r\nd")
    assert _apply("a\nb\n", edit) == "c\nd\n"


def test_occurrences_do_not_overlap() -> None:
    result = apply_literal_edits(
        "aaaa", [LiteralEdit(old_string="aa", new_string="b", replace_all=True)], display_path="f"
    )
    assert result.text == "bb"
    assert result.replacements == (2,)


@pytest.mark.parametrize(
    ("edits", "code", "message"),
    [
        ((), "FS_EDIT_NOT_FOUND", "no edits were given for f"),
        ((LiteralEdit(old_string="", new_string="x"),), "FS_EDIT_NOT_FOUND", "old_string is empty"),
        (
            (LiteralEdit(old_string="zz", new_string="x"),),
            "FS_EDIT_NOT_FOUND",
            "old_string was not found in f. Read the file again",
        ),
        (
            (LiteralEdit(old_string="a", new_string="x"),),
            "FS_AMBIGUOUS_EDIT",
            "old_string matched 2 times in f",
        ),
        (
            (
                LiteralEdit(old_string="a b", new_string="q"),
                LiteralEdit(old_string="a b", new_string="r"),
            ),
            "FS_EDIT_NOT_FOUND",
            "edits[1]: old_string was not found in f (earlier edits in this call already changed",
        ),
    ],
)
def test_failures(edits: tuple[LiteralEdit, ...], code: str, message: str) -> None:
    with pytest.raises(FsError) as caught:
        apply_literal_edits("a b a", edits, display_path="f")
    assert caught.value.code == code
    assert message in str(caught.value)


@given(
    prefix=st.text(alphabet="xy\n", max_size=20),
    suffix=st.text(alphabet="xy\n", max_size=20),
    new=st.text(alphabet="xyz\n", max_size=10),
)
def test_a_unique_marker_is_replaced_exactly(prefix: str, suffix: str, new: str) -> None:
    text = prefix + "<MARK>" + suffix
    assert _apply(text, LiteralEdit(old_string="<MARK>", new_string=new)) == prefix + new + suffix
