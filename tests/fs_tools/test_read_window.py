"""The read window: selection, footers and the past-the-end error."""

from __future__ import annotations

import pytest

from dsh_lsp.fs_tools import FsError, WindowLimits, build_window

LIMITS = WindowLimits(limit=3, max_line_chars=10, max_bytes=1000)


def test_known_total_footers() -> None:
    lines = [f"l{i}" for i in range(1, 6)]
    first = build_window(iter(lines), offset=1, limits=LIMITS, display_path="f", total=5)
    last = build_window(iter(lines), offset=4, limits=LIMITS, display_path="f", total=5)
    assert first.lines == ((1, "l1"), (2, "l2"), (3, "l3"))
    assert first.footer() == "(Showing lines 1-3 of 5. Use offset=4 to continue.)"
    assert last.footer() == "(End of file - total 5 lines)"


def test_unknown_total_is_learned_at_the_end_of_the_stream() -> None:
    tail = build_window(
        iter(["l4", "l5"]), offset=4, limits=LIMITS, display_path="f", first_number=4
    )
    middle = build_window(
        iter(["l2", "l3", "l4", "l5"]), offset=2, limits=LIMITS, display_path="f", first_number=2
    )
    assert tail.total == 5
    assert tail.footer() == "(End of file - total 5 lines)"
    assert middle.total is None
    assert middle.footer() == "(Showing lines 2-4. Use offset=5 to continue.)"


def test_lines_lose_one_cr_and_long_lines_are_clipped() -> None:
    window = build_window(
        iter(["a\r\r", "0123456789abc"]), offset=1, limits=LIMITS, display_path="f", total=2
    )
    assert window.lines == ((1, "a\r"), (2, "0123456789... (line truncated to 10 chars)"))


def test_the_byte_cap_counts_utf8_and_separators() -> None:
    limits = WindowLimits(limit=10, max_line_chars=100, max_bytes=7)
    window = build_window(
        iter(["\u00e9\u00e9", "ab", "c"]), offset=1, limits=limits, display_path="f"
    )
    assert window.lines == ((1, "\u00e9\u00e9"), (2, "ab"))
    assert window.capped
    assert window.footer() == (
        "(Output capped at the byte limit. Showing lines 1-2. Use offset=3 to continue.)"
    )


def test_an_empty_file_has_an_empty_window_only_at_offset_one() -> None:
    empty = build_window(iter([]), offset=1, limits=LIMITS, display_path="f", total=0)
    assert empty.footer() == "(End of file - total 0 lines)"
    with pytest.raises(FsError, match=r"offset 2 is past the end of f \(0 lines\)"):
        build_window(iter([]), offset=2, limits=LIMITS, display_path="f", total=0)
