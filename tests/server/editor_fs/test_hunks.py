"""Minimal hunks: correct, ordered, small for small changes, and fast on large texts."""

from __future__ import annotations

import itertools
import time

from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.server.editor_fs.hunks import (
    TextHunk,
    apply_hunks,
    common_prefix,
    common_suffix,
    minimal_hunks,
)

PIECES = st.sampled_from(["a", "b", "\n", "x\n", "yy\n", "\r\n", "\u00e9", "\U0001f600"])
TEXTS = st.lists(PIECES, max_size=60).map("".join)


def _ordered(hunks: tuple[TextHunk, ...]) -> bool:
    return all(a.end <= b.start for a, b in itertools.pairwise(hunks)) and all(
        h.start <= h.end for h in hunks
    )


@given(old=TEXTS, new=TEXTS, bound=st.sampled_from([0, 1, 3, 256]))
def test_hunks_turn_old_into_new(old: str, new: str, bound: int) -> None:
    hunks = minimal_hunks(old, new, max_line_edits=bound)
    assert apply_hunks(old, hunks) == new
    assert _ordered(hunks)
    assert (hunks == ()) == (old == new)


@given(
    lines=st.lists(st.sampled_from(["a", "b", "c", "", "long line of text"]), min_size=1),
    data=st.data(),
)
def test_line_level_diff_on_large_regions(lines: list[str], data: st.DataObject) -> None:
    old = "\n".join(lines * 200) + "\n"  # always more than SMALL_REGION
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
    hunks = minimal_hunks(old, new)
    elapsed = time.perf_counter() - started
    assert hunks == (
        TextHunk(
            start=old.index("value_50000\n"),
            end=old.index("\n", old.index("value_50000")),
            new_text="VALUE",
        ),
    )
    assert elapsed < 0.05, elapsed


def test_far_apart_changes_become_separate_hunks() -> None:
    old = "".join(f"line {i}\n" for i in range(20_000))
    new = old.replace("line 10\n", "LINE 10\n").replace("line 19990\n", "LINE 19990\n")
    hunks = minimal_hunks(old, new)
    assert [h.new_text for h in hunks] == ["LINE", "LINE"]
    assert sum(h.end - h.start for h in hunks) == 8


def test_too_many_line_edits_fall_back_to_one_hunk() -> None:
    old = "".join(f"line {i}\n" for i in range(1_000))
    new = "".join(f"LINE {i}\n" if i % 10 == 0 else f"line {i}\n" for i in range(1_000))
    hunks = minimal_hunks(old, new, max_line_edits=8)
    assert len(hunks) == 1
    assert apply_hunks(old, hunks) == new
    assert len(minimal_hunks(old, new, max_line_edits=256)) == 100


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
