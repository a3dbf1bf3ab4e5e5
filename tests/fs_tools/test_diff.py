"""Unified-diff hunks: agreement with difflib, patch reconstruction, JSON round trip."""

from __future__ import annotations

import difflib

from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.fs_tools import DiffHunk, diff_hunks, hunk_from_json, hunk_to_json, render_unified
from dsh_lsp.llm import JsonValue

lines = st.lists(st.sampled_from(["a", "b", "c", "d", ""]), max_size=30)


def _text(items: list[str]) -> str:
    return "".join(item + "\n" for item in items)


def _apply(before: str, hunks: tuple[DiffHunk, ...]) -> str:
    """Patch ``before`` with the hunks (checking every context and removed line)."""
    old = before.split("\n")[:-1] if before else []
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
    return "".join(item + "\n" for item in out)


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
