"""OpenDocuments: the mirror follows didOpen/didChange/didClose exactly, and watches see
every state of a didChange."""

from __future__ import annotations

import time

from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.server.buffers.documents import ContentChange, DocumentEvent, OpenDocuments, file_key
from dsh_lsp.server.buffers.lsp_lines import content, line_texts, split_lsp_lines
from dsh_lsp.server.buffers.positions import Position, PositionEncoding
from tests.server.editor_model import EditorBehaviour, EditorModel
from tests.server.scripted_editor import _change

URI = "file:///work/doc.txt"
PIECES = st.sampled_from(["a", "\n", "\r", "\r\n", "\u00e9", "\U0001f600", "\x0c", ""])


def _mirror(encoding: PositionEncoding) -> tuple[OpenDocuments, EditorModel]:
    return OpenDocuments(encoding), EditorModel(EditorBehaviour(encoding=encoding))


@given(
    initial=st.lists(PIECES, max_size=20).map("".join),
    edits=st.lists(
        st.tuples(st.integers(0, 40), st.integers(0, 5), st.lists(PIECES, max_size=4)),
        max_size=8,
    ),
    encoding=st.sampled_from(["utf-8", "utf-16", "utf-32"]),
)
def test_incremental_changes_keep_the_mirror_equal_to_the_editor(
    initial: str, edits: list[tuple[int, int, list[str]]], encoding: PositionEncoding
) -> None:
    documents, editor = _mirror(encoding)
    opened = editor.open(URI, initial)
    documents.open(URI, 1, opened.params["textDocument"]["text"])
    for start, length, pieces in edits:
        text = editor.buffers[URI].text
        begin = min(start, len(text))
        end = min(begin + length, len(text))
        # editors never put a position between the CR and LF of one line break
        if 0 < begin < len(text) and text[begin - 1 : begin + 1] == "\r\n":
            begin -= 1
        if 0 < end < len(text) and text[end - 1 : end + 1] == "\r\n":
            end += 1
        notice = editor.type(URI, begin, max(begin, end), "".join(pieces))
        document = notice.params["textDocument"]
        documents.change(
            URI, document["version"], [_change(c) for c in notice.params["contentChanges"]]
        )
        mirrored = documents.get(URI)
        assert mirrored is not None
        assert mirrored.text() == editor.buffers[URI].text
        assert mirrored.length == len(mirrored.text())
        assert mirrored.version == editor.buffers[URI].version


def test_a_full_change_replaces_the_text() -> None:
    documents = OpenDocuments()
    documents.open(URI, 1, "old\n")
    documents.change(URI, 2, [ContentChange(range=None, text="new\r\ntext")])
    document = documents.get(URI)
    assert document is not None
    assert (document.text(), document.line_count, document.version) == ("new\r\ntext", 2, 2)


def test_positions_past_the_end_clamp() -> None:
    documents = OpenDocuments()
    documents.open(URI, 1, "ab\ncd")
    far = Position(line=9, character=0)
    documents.change(URI, 2, [ContentChange(range=(far, far), text="!")])
    line_end = (Position(line=0, character=99), Position(line=0, character=99))
    documents.change(URI, 3, [ContentChange(range=line_end, text="?")])
    document = documents.get(URI)
    assert document is not None
    assert document.text() == "ab?\ncd!"


def test_tokens_are_unique_per_open_and_never_look_like_disk_versions() -> None:
    documents = OpenDocuments()
    first = documents.open(URI, 1, "x").token
    documents.close(URI)
    again = documents.open(URI, 1, "x").token
    assert first != again
    assert first.startswith("buffer:")


def test_documents_are_found_by_real_path(tmp_path: object) -> None:
    documents = OpenDocuments()
    documents.open(URI, 1, "x")
    key = file_key(URI)
    assert key is not None
    assert documents.by_key(key) is documents.get(URI)
    assert file_key("untitled:Untitled-1") is None
    documents.open("untitled:Untitled-1", 1, "scratch")
    assert len(documents) == 2


def test_unknown_changes_are_ignored() -> None:
    documents = OpenDocuments()
    documents.change(URI, 2, [ContentChange(range=None, text="x")])
    assert documents.get(URI) is None


def test_events_reach_subscribers() -> None:
    documents = OpenDocuments()
    events: list[DocumentEvent] = []
    unsubscribe = documents.subscribe(events.append)
    documents.open(URI, 1, "x")
    documents.saved(URI)
    documents.close(URI)
    unsubscribe()
    documents.open(URI, 1, "x")
    assert [event.kind for event in events] == ["opened", "saved", "closed"]
    assert all(event.key == file_key(URI) for event in events)


async def test_a_watch_sees_a_state_inside_a_did_change() -> None:
    documents = OpenDocuments()
    documents.open(URI, 1, "abc")
    start = Position(line=0, character=1)
    with documents.watch(URI, "aXc") as watch:
        edit = ContentChange(range=(start, Position(line=0, character=2)), text="X")
        typed = ContentChange(range=(Position(line=0, character=3),) * 2, text="!")
        documents.change(URI, 2, [edit, typed])  # the edit, then the user's keystroke
    assert watch.seen.is_set()
    document = documents.get(URI)
    assert document is not None
    assert watch.shown_at is not None
    assert watch.shown_at != document.token, "an intermediate state's token is never current"


async def test_a_watch_matching_the_final_state_gets_the_current_token() -> None:
    documents = OpenDocuments()
    documents.open(URI, 1, "abc")
    with documents.watch(URI, "abcd") as watch:
        end = Position(line=0, character=3)
        documents.change(URI, 5, [ContentChange(range=(end, end), text="d")])
    document = documents.get(URI)
    assert document is not None
    assert watch.shown_at == document.token


async def test_closing_ends_a_watch_unmatched() -> None:
    documents = OpenDocuments()
    documents.open(URI, 1, "abc")
    with documents.watch(URI, "never") as watch:
        documents.close(URI)
    assert watch.seen.is_set()
    assert watch.closed
    assert watch.shown_at is None


def test_an_incremental_change_of_a_large_document_is_cheap() -> None:
    documents = OpenDocuments()
    documents.open(URI, 1, "".join(f"line {i}\n" for i in range(100_000)))
    where = Position(line=50_000, character=0)
    change = ContentChange(range=(where, Position(line=50_000, character=4)), text="LINE")
    started = time.perf_counter()
    for version in range(2, 12):
        documents.change(URI, version, [change])
    elapsed = (time.perf_counter() - started) / 10
    document = documents.get(URI)
    assert document is not None
    assert document.text().count("LINE 50000\n") == 1
    assert elapsed < 0.002, f"{elapsed * 1000:.2f} ms per change"


@given(st.text(alphabet=st.sampled_from(["a", "é", "\r", "\n", "\x0c", "\u2028", " "])))
def test_line_texts_are_the_lsp_lines_without_their_terminators(text: str) -> None:
    lines = split_lsp_lines(text)
    assert line_texts(text) == [content(line) for line in lines]
    assert len(line_texts(text)) == OpenDocuments().open("file:///t", 1, text).line_count


def test_version_of_names_only_a_whole_didchange_of_the_open_document() -> None:
    documents = OpenDocuments()
    document = documents.open("file:///t", 7, "a\n")
    assert documents.version_of("file:///t", document.token) == 7
    provisional = documents.expect("file:///t", "b\n")
    assert provisional is not None
    assert documents.version_of("file:///t", provisional) is None
    assert documents.version_of("file:///t", f"buffer:{document.generation + 1}:7") is None
    assert documents.version_of("file:///t", f"buffer:{document.generation}:²") is None
    assert documents.version_of("file:///other", document.token) is None
