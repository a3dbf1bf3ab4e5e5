"""BufferView: hunks of the model's text map onto the buffer, keeping its line endings."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.fs_tools.text import normalize_eol
from dsh_lsp.server.editor_fs.buffer_view import BufferView
from dsh_lsp.server.editor_fs.hunks import apply_hunks, minimal_hunks
from dsh_lsp.server.editor_fs.text_edits import text_edits, widen_crlf
from tests.server.editor_model import apply_edits

LINES = st.lists(
    st.tuples(
        st.sampled_from(["x", "yy", "", "\u00e9\U0001f600"]), st.sampled_from(["\n", "\r\n"])
    ),
    max_size=12,
)


def _raw(lines: list[tuple[str, str]], bom: bool) -> str:
    return ("\ufeff" if bom else "") + "".join(body + end for body, end in lines)


def test_styles() -> None:
    assert BufferView.of("a\nb\n").style == "lf"
    crlf = BufferView.of("a\r\nb\r\n")
    assert (crlf.style, crlf.eol, crlf.text) == ("crlf", "\r\n", "a\nb\n")
    mixed = BufferView.of("\ufeffa\r\nb\nc\r\n")
    assert (mixed.style, mixed.bom, mixed.text) == ("mixed", True, "a\nb\nc\n")


def test_an_edit_of_a_mixed_buffer_keeps_every_other_line_ending() -> None:
    view = BufferView.of("one\r\ntwo\r\nthree\r\nfour\n")  # mostly CRLF
    wanted = view.text.replace("three", "THREE\nand more")
    hunks = view.to_buffer(minimal_hunks(view.text, wanted))
    assert apply_hunks(view.raw, hunks) == "one\r\ntwo\r\nTHREE\r\nand more\r\nfour\n"


def test_restyled_keeps_crlf_and_bom_unless_the_content_has_its_own() -> None:
    view = BufferView.of("\ufeffa\r\nb\r\n")
    assert view.restyled("x\ny\n") == "\ufeffx\r\ny\r\n"
    assert view.restyled("x\r\ny\n") == "\ufeffx\r\ny\n"


@given(lines=LINES, bom=st.booleans(), data=st.data())
def test_mapped_hunks_equal_the_model_edit(
    lines: list[tuple[str, str]], bom: bool, data: st.DataObject
) -> None:
    raw = _raw(lines, bom)
    view = BufferView.of(raw)
    assert view.text == normalize_eol(raw.removeprefix("\ufeff"))
    wanted = data.draw(st.lists(st.sampled_from(["x", "\n", "z", "\u00e9"]), max_size=10))
    position = data.draw(st.integers(min_value=0, max_value=len(view.text)))
    cut = data.draw(st.integers(min_value=position, max_value=len(view.text)))
    new_text = view.text[:position] + "".join(wanted) + view.text[cut:]
    hunks = view.to_buffer(minimal_hunks(view.text, new_text))
    result = apply_hunks(raw, hunks)
    assert normalize_eol(result.removeprefix("\ufeff")) == new_text
    assert result.startswith("\ufeff") == bom
    for encoding in ("utf-8", "utf-16"):
        applied, _ = apply_edits(raw, text_edits(raw, hunks, encoding), encoding)
        assert applied == result


def test_widen_crlf_moves_a_range_out_of_a_line_break() -> None:
    text = "a\r\nb"
    hunks = minimal_hunks(text, "a\nb")  # removes the CR: ends between CR and LF
    (widened,) = [widen_crlf(text, hunk) for hunk in hunks]
    assert (widened.start, widened.end) == (1, 3)
    assert apply_hunks(text, [widened]) == "a\nb"
    applied, _ = apply_edits(text, text_edits(text, hunks, "utf-16"), "utf-16")
    assert applied == "a\nb"
