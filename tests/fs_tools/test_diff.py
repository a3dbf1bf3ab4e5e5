"""The one diff engine: unified hunks (agreement with difflib, patch reconstruction, JSON round
trip) and minimal replacements (correct, ordered, small for small changes, fast on large texts),
both from one ``diff_texts``."""

from __future__ import annotations

import difflib
import itertools
import time

from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.fs_tools import (
    DiffHunk,
    TextHunk,
    apply_hunks,
    diff_texts,
    hunk_from_json,
    hunk_to_json,
    render_unified,
)
from dsh_lsp.fs_tools.diff import common_prefix, common_suffix
from dsh_lsp.llm import JsonValue

lines = st.lists(st.sampled_from(["a", "b", "c", "d", ""]), max_size=30)


def _text(items: list[str]) -> str:
    return "".join(item + "\n" for item in items)


def diff_hunks(before: str, after: str) -> tuple[DiffHunk, ...]:
    return diff_texts(before, after).hunks


def minimal_hunks(old: str, new: str, *, max_line_edits: int = 256) -> tuple[TextHunk, ...]:
    return diff_texts(old, new, max_line_edits=max_line_edits).text_hunks


def _apply(before: str, hunks: tuple[DiffHunk, ...]) -> str:
    """Patch ``before`` with the hunks (checking every context and removed line)."""
    return "".join(item + "\n" for item in _unified_apply(before, hunks))


@given(old=lines, new=lines)
def test_hunks_rebuild_the_new_text(old: list[str], new: list[str]) -> None:
    before, after = _text(old), _text(new)
    hunks = diff_hunks(before, after)
    assert (hunks == ()) == (before == after)
    assert _apply(before, hunks) == after
    for hunk in hunks:
        assert sum(1 for line in hunk.lines if line[0] in " -") == hunk.old_lines
        assert sum(1 for line in hunk.lines if line[0] in " +") == hunk.new_lines
        assert hunk_from_json(hunk_to_json(hunk)) == hunk


def test_unambiguous_changes_render_exactly_like_difflib() -> None:
    old = [f"l{i}" for i in range(30)]
    new = [*old[:5], "X", "Y", *old[6:20], *old[21:28], "tail", *old[28:]]
    expected = "".join(
        line + "\n" for line in difflib.unified_diff(old, new, "p", "p", n=3, lineterm="")
    )
    assert render_unified("p", diff_hunks(_text(old), _text(new))) == expected


def test_far_apart_changes_make_separate_hunks_with_three_context_lines() -> None:
    before = _text([f"l{i}" for i in range(20)])
    after = before.replace("l2\n", "X\n").replace("l17\n", "")
    first, second = diff_hunks(before, after)
    assert first.lines == (" l0", " l1", "-l2", "+X", " l3", " l4", " l5")
    assert (first.old_start, first.old_lines, first.new_start, first.new_lines) == (1, 6, 1, 6)
    assert second.lines == (" l14", " l15", " l16", "-l17", " l18", " l19")
    assert second.first_changed_line == 18, "where the removed line was"
    assert first.old_text == "l0\nl1\nl2\nl3\nl4\nl5\n"
    assert first.new_text == "l0\nl1\nX\nl3\nl4\nl5\n"


def test_creation_has_no_old_side() -> None:
    (hunk,) = diff_hunks("", "x\ny\n")
    assert hunk.old_text is None
    assert (hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines) == (0, 0, 1, 2)
    assert render_unified("f", (hunk,)) == "--- f\n+++ f\n@@ -0,0 +1,2 @@\n+x\n+y\n"


def test_foreign_meta_does_not_decode() -> None:
    assert hunk_from_json({"oldStart": 1}) is None
    assert hunk_from_json("x") is None
    bad_line: dict[str, JsonValue] = {
        "oldStart": 1,
        "oldLines": 1,
        "newStart": 1,
        "newLines": 1,
        "lines": ["?x"],
    }
    assert hunk_from_json(bad_line) is None
    flag: dict[str, JsonValue] = {
        "oldStart": True,
        "oldLines": 1,
        "newStart": 1,
        "newLines": 1,
        "lines": [],
    }
    assert hunk_from_json(flag) is None


def test_a_small_edit_of_a_huge_text_is_cheap() -> None:
    before = _text([f"line {i}" for i in range(100_000)])
    after = before.replace("line 50000\n", "changed\n")
    (hunk,) = diff_hunks(before, after)
    assert hunk.lines[3:5] == ("-line 50000", "+changed")


PIECES = st.sampled_from(["a", "b", "\n", "x\n", "yy\n", "\r\n", "\u00e9", "\U0001f600"])
TEXTS = st.lists(PIECES, max_size=60).map("".join)


def _ordered(hunks: tuple[TextHunk, ...]) -> bool:
    return all(a.end <= b.start for a, b in itertools.pairwise(hunks)) and all(
        h.start <= h.end for h in hunks
    )


def _bare_lines(text: str) -> list[str]:
    """The lines of ``text`` without their ``\\n``; a last line without one counts."""
    parts = text.split("\n")
    return parts[:-1] + ([parts[-1]] if parts[-1] else [])


def _unified_apply(before: str, hunks: tuple[DiffHunk, ...]) -> list[str]:
    """Patch ``before``'s lines (terminators dropped) with the unified hunks."""
    old = _bare_lines(before)
    out: list[str] = []
    cursor = 0
    for hunk in hunks:
        start = hunk.old_start - 1 if hunk.old_lines else hunk.old_start
        out.extend(old[cursor:start])
        cursor = start
        for line in hunk.lines:
            if line[0] in " -":
                assert old[cursor] == line[1:]
                cursor += 1
            if line[0] in " +":
                out.append(line[1:])
    out.extend(old[cursor:])
    return out


@given(old=TEXTS, new=TEXTS, bound=st.sampled_from([0, 1, 3, 256]))
def test_both_shapes_turn_old_into_new(old: str, new: str, bound: int) -> None:
    diff = diff_texts(old, new, max_line_edits=bound)
    assert apply_hunks(old, diff.text_hunks) == new
    assert _ordered(diff.text_hunks)
    assert (diff.text_hunks == ()) == (old == new) == (diff.hunks == ())
    assert _unified_apply(old, diff.hunks) == _bare_lines(new)


@given(
    lines=st.lists(st.sampled_from(["a", "b", "c", "", "long line of text"]), min_size=1),
    data=st.data(),
)
def test_line_level_diff_on_large_regions(lines: list[str], data: st.DataObject) -> None:
    old = "\n".join(lines * 200) + "\n"
    new_lines = list(lines * 200)
    for _ in range(data.draw(st.integers(min_value=1, max_value=4))):
        index = data.draw(st.integers(min_value=0, max_value=len(new_lines) - 1))
        new_lines[index] = data.draw(st.sampled_from(["changed", "", "a\nsplit"]))
    new = "\n".join(new_lines) + "\n"
    hunks = minimal_hunks(old, new)
    assert apply_hunks(old, hunks) == new
    assert _ordered(hunks)


def test_one_line_change_in_a_large_text_is_one_tiny_hunk() -> None:
    old = "".join(f"line {i} = value_{i}\n" for i in range(100_000))
    new = old.replace("line 50000 = value_50000\n", "line 50000 = VALUE\n")
    started = time.perf_counter()
    diff = diff_texts(old, new)
    elapsed = time.perf_counter() - started
    assert diff.text_hunks == (
        TextHunk(
            start=old.index("value_50000\n"),
            end=old.index("\n", old.index("value_50000")),
            new_text="VALUE",
        ),
    )
    (hunk,) = diff.hunks
    assert hunk.lines[3:5] == ("-line 50000 = value_50000", "+line 50000 = VALUE")
    assert elapsed < 0.05, elapsed


def test_far_apart_changes_become_separate_hunks() -> None:
    old = "".join(f"line {i}\n" for i in range(20_000))
    new = old.replace("line 10\n", "LINE 10\n").replace("line 19990\n", "LINE 19990\n")
    diff = diff_texts(old, new)
    assert [h.new_text for h in diff.text_hunks] == ["LINE", "LINE"]
    assert sum(h.end - h.start for h in diff.text_hunks) == 8
    assert [h.old_start for h in diff.hunks] == [8, 19988]


def test_too_many_line_edits_fall_back_to_one_hunk() -> None:
    old = "".join(f"line {i}\n" for i in range(1_000))
    new = "".join(f"LINE {i}\n" if i % 10 == 0 else f"line {i}\n" for i in range(1_000))
    hunks = minimal_hunks(old, new, max_line_edits=8)
    assert len(hunks) == 1
    assert apply_hunks(old, hunks) == new
    assert len(minimal_hunks(old, new, max_line_edits=256)) == 100


def test_a_missing_final_newline_is_a_line_of_its_own() -> None:
    (hunk,) = diff_hunks("a\nb", "a\nb\nc\n")
    assert hunk.lines == (" a", "-b", "+b", "+c")


@given(a=TEXTS, b=TEXTS)
def test_common_prefix_and_suffix(a: str, b: str) -> None:
    head = common_prefix(a, b)
    assert a[:head] == b[:head]
    assert head == min(len(a), len(b)) or a[head] != b[head]
    limit = min(len(a), len(b)) - head
    tail = common_suffix(a, b, limit)
    assert tail <= limit
    assert a[len(a) - tail :] == b[len(b) - tail :]
    assert tail == limit or a[len(a) - tail - 1] != b[len(b) - tail - 1]
