"""The attachment frame: an attachment written into a user message reads back as the
``resource_link`` the user sent; any other text stays text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from pygls.uris import from_fs_path

from dsh_lsp.server.sessions.attachment_frame import attachment_link, frame_attachment
from dsh_lsp.server.wire.params import Range

_segment = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="/\x00"),
    min_size=1,
    max_size=12,
)
_paths = st.lists(_segment, min_size=1, max_size=4).map(lambda parts: "/" + "/".join(parts))
_numbers = st.integers(min_value=0, max_value=10**6)
_ranges = st.builds(
    lambda a, b, c, d: Range.model_validate(
        {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}}
    ),
    _numbers,
    _numbers,
    _numbers,
    _numbers,
)


@given(
    path=_paths,
    text=st.text(max_size=200),
    source=st.sampled_from(["editor", "disk"]),
    link_range=st.none() | _ranges,
)
def test_a_framed_file_reads_back_as_its_link(
    path: str, text: str, source: str, link_range: Range | None
) -> None:
    uri = str(from_fs_path(path))
    framed = frame_attachment(path=path, uri=uri, text=text, source=source, link_range=link_range)
    expected: dict[str, object] = {"type": "resource_link", "uri": uri}
    if link_range is not None:
        expected["range"] = link_range.model_dump()
    assert attachment_link(framed) == expected


def test_a_document_that_is_no_file_keeps_its_uri() -> None:
    framed = frame_attachment(
        path="Untitled-1", uri="untitled:Untitled-1", text="x", source="editor", link_range=None
    )
    assert attachment_link(framed) == {"type": "resource_link", "uri": "untitled:Untitled-1"}


def test_a_frame_with_lines_only_reads_back_as_whole_lines() -> None:
    framed = '<attachment path="/w/a.py" lines="3-4" source="disk">\nx\n</attachment>'
    assert attachment_link(framed) == {
        "type": "resource_link",
        "uri": "file:///w/a.py",
        "range": {"start": {"line": 2, "character": 0}, "end": {"line": 4, "character": 0}},
    }


@given(st.text(max_size=100))
def test_other_text_is_not_an_attachment(text: str) -> None:
    assert attachment_link(text) is None or text.startswith("<attachment ")


def test_text_that_only_looks_like_a_frame_stays_text() -> None:
    assert attachment_link("<attachment nonsense>\n</attachment>") is None
    assert attachment_link('<attachment path="/a" source="disk">') is None
