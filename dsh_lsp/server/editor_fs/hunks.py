"""Minimal hunks: the smallest replacements turning one text into another (server layer).

What an editor-bound edit sends instead of the whole document. Pure, and fast on large
texts with small changes:

1. the common head and tail are trimmed with slice comparisons that double in size (C-speed
   ``==`` on ever larger slices, then a binary search), so a one-line change in a 100,000-line
   text costs a few slice comparisons and yields one hunk of a few characters;
2. when what remains is large and spans lines (``replace_all`` across a file, several edits
   far apart), it is diffed line by line with Myers' algorithm, bounded to ``max_line_edits``
   changed lines (beyond that one hunk replaces the region: correct, just larger);
3. each changed run of lines is trimmed again character by character.

Hunks are ordered, never overlap, and refer to offsets of the *old* text; ``apply_hunks``
replays them. No ``difflib``: its matcher is quadratic on the inputs this module sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

SMALL_REGION: Final = 4096
"""Characters (old plus new) below which a trimmed region is sent as one hunk."""
MAX_LINE_EDITS: Final = 256
"""Default bound on inserted plus deleted lines the line diff looks for."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TextHunk:
    """Replace ``old[start:end]`` with ``new_text``."""

    start: int
    end: int
    new_text: str


def minimal_hunks(
    old: str, new: str, *, max_line_edits: int = MAX_LINE_EDITS
) -> tuple[TextHunk, ...]:
    """The hunks turning ``old`` into ``new`` (empty when they are equal); see the module doc."""
    if old == new:
        return ()
    head = common_prefix(old, new)
    tail = common_suffix(old, new, min(len(old), len(new)) - head)
    old_end, new_end = len(old) - tail, len(new) - tail
    if (old_end - head) + (new_end - head) <= SMALL_REGION or (
        "\n" not in old[head:old_end] and "\n" not in new[head:new_end]
    ):
        return (TextHunk(start=head, end=old_end, new_text=new[head:new_end]),)
    start = old.rfind("\n", 0, head) + 1
    cut = old.find("\n", old_end)
    if cut < 0:
        stop_old, stop_new = len(old), len(new)
    else:
        stop_old, stop_new = cut + 1, new_end + (cut + 1 - old_end)
    old_lines = _lines(old[start:stop_old])
    new_lines = _lines(new[start:stop_new])
    script = _line_changes(old_lines, new_lines, max_line_edits)
    if script is None:
        return (TextHunk(start=head, end=old_end, new_text=new[head:new_end]),)
    old_starts = _line_offsets(old_lines, start)
    new_starts = _line_offsets(new_lines, start)
    hunks: list[TextHunk] = []
    for a1, a2, b1, b2 in script:
        o1, o2 = old_starts[a1], old_starts[a2]
        n1, n2 = new_starts[b1], new_starts[b2]
        piece_old, piece_new = old[o1:o2], new[n1:n2]
        lead = common_prefix(piece_old, piece_new)
        trail = common_suffix(piece_old, piece_new, min(len(piece_old), len(piece_new)) - lead)
        hunks.append(
            TextHunk(
                start=o1 + lead,
                end=o2 - trail,
                new_text=piece_new[lead : len(piece_new) - trail],
            )
        )
    return tuple(hunks)


def apply_hunks(text: str, hunks: Sequence[TextHunk]) -> str:
    """``text`` with ``hunks`` (ordered, non-overlapping) applied."""
    parts: list[str] = []
    cursor = 0
    for hunk in hunks:
        parts.append(text[cursor : hunk.start])
        parts.append(hunk.new_text)
        cursor = hunk.end
    parts.append(text[cursor:])
    return "".join(parts)


def common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix of ``a`` and ``b``."""
    limit = min(len(a), len(b))
    done, step = 0, 64
    while done < limit:
        size = min(step, limit - done)
        if a[done : done + size] == b[done : done + size]:
            done += size
            step *= 2
            continue
        low, high = 0, size - 1  # a[done:done+low] matches; the first difference is < size
        while low < high:
            middle = (low + high + 1) // 2
            if a[done : done + middle] == b[done : done + middle]:
                low = middle
            else:
                high = middle - 1
        return done + low
    return limit


def common_suffix(a: str, b: str, limit: int) -> int:
    """Length of the longest common suffix of ``a`` and ``b``, at most ``limit``."""
    done, step = 0, 64
    la, lb = len(a), len(b)
    while done < limit:
        size = min(step, limit - done)
        if a[la - done - size : la - done] == b[lb - done - size : lb - done]:
            done += size
            step *= 2
            continue
        low, high = 0, size - 1
        while low < high:
            middle = (low + high + 1) // 2
            if a[la - done - middle : la - done] == b[lb - done - middle : lb - done]:
                low = middle
            else:
                high = middle - 1
        return done + low
    return limit


def _lines(text: str) -> list[str]:
    """``text`` cut after each ``\\n`` (kept), with no empty last piece."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _line_offsets(lines: list[str], base: int) -> list[int]:
    """Start offsets of each line of ``"".join(lines)`` plus its end, shifted by ``base``."""
    offsets = [base]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    return offsets


def _line_changes(
    a: list[str], b: list[str], max_edits: int
) -> list[tuple[int, int, int, int]] | None:
    """Changed runs ``(a1, a2, b1, b2)`` (``a[a1:a2]`` becomes ``b[b1:b2]``) from Myers' greedy
    shortest edit script, or None when it needs more than ``max_edits`` line edits."""
    n, m = len(a), len(b)
    frontier: dict[int, int] = {1: 0}
    trace: list[dict[int, int]] = []
    for depth in range(max_edits + 1):
        trace.append(dict(frontier))
        for k in range(-depth, depth + 1, 2):
            if k == -depth or (k != depth and frontier[k - 1] < frontier[k + 1]):
                x = frontier[k + 1]
            else:
                x = frontier[k - 1] + 1
            x = _snake(a, b, x, x - k)
            frontier[k] = x
            if x >= n and x - k >= m:
                return _runs(_backtrack(trace, n, m))
    return None


def _snake(a: list[str], b: list[str], x: int, y: int) -> int:
    """How far the diagonal from ``(x, y)`` runs through equal lines (galloping slices)."""
    step = 1
    while True:
        size = min(step, len(a) - x, len(b) - y)
        if size <= 0:
            return x
        if a[x : x + size] == b[y : y + size]:
            x, y, step = x + size, y + size, step * 2
            continue
        if step == 1:
            return x
        step = 1


def _backtrack(trace: list[dict[int, int]], n: int, m: int) -> list[tuple[int, int, bool]]:
    """The single-line edits of the script in order: ``(x, y, inserted)`` is the insertion of
    ``b[y]`` (or the deletion of ``a[x]``) at point ``(x, y)``."""
    edits: list[tuple[int, int, bool]] = []
    x, y = n, m
    for depth in range(len(trace) - 1, 0, -1):
        frontier = trace[depth]
        k = x - y
        inserted = k == -depth or (k != depth and frontier[k - 1] < frontier[k + 1])
        prev_k = k + 1 if inserted else k - 1
        x = frontier[prev_k]
        y = x - prev_k
        edits.append((x, y, inserted))
    edits.reverse()
    return edits


def _runs(edits: list[tuple[int, int, bool]]) -> list[tuple[int, int, int, int]]:
    """Adjacent single-line edits grouped into changed runs ``(a1, a2, b1, b2)``."""
    runs: list[tuple[int, int, int, int]] = []
    for x, y, inserted in edits:
        end = (x, y + 1) if inserted else (x + 1, y)
        if runs and (runs[-1][1], runs[-1][3]) == (x, y):
            a1, _, b1, _ = runs[-1]
            runs[-1] = (a1, end[0], b1, end[1])
        else:
            runs.append((x, end[0], y, end[1]))
    return runs
