"""Unified-diff hunks between two texts, for tool results and editor previews (fs_tools layer).

Pure. ``diff_hunks(before, after)`` returns the hunks of a unified diff with ``context`` lines
around each change (3 by default, adjacent changes merged like ``diff -u``). Lines are split on
``\\n`` only. The common head and tail are trimmed before ``difflib`` sees anything, so a small
edit of a 100,000-line file costs two list scans, not a quadratic match. Hunks convert to JSON
for tool-result ``meta`` (``hunk_to_json``) and back (``hunk_from_json``), and render as the
text of a unified diff (``render_unified``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from typing import Literal

from dsh_lsp.llm import JsonValue

_BLOCK = 1 << 15
"""Characters compared per slice when trimming the common head and tail."""

Opcode = tuple[Literal["equal", "replace", "delete", "insert"], int, int, int, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class DiffHunk:
    """One hunk: 1-based starts, line counts, and its lines prefixed ``' '``, ``'-'``, ``'+'``.

    As in ``diff -u``, a side with no lines has its start on the line before the hunk (0 at the
    top of the file).
    """

    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    lines: tuple[str, ...]

    @property
    def old_text(self) -> str | None:
        """The hunk's old side (context and removed lines); None when it has no lines."""
        if self.old_lines == 0:
            return None
        return "".join(line[1:] + "\n" for line in self.lines if line[0] in " -")

    @property
    def new_text(self) -> str:
        """The hunk's new side (context and added lines)."""
        return "".join(line[1:] + "\n" for line in self.lines if line[0] in " +")

    @property
    def first_changed_line(self) -> int:
        """The 1-based line (new side) of the hunk's first added or removed line."""
        line = self.new_start if self.new_lines else self.new_start + 1
        for entry in self.lines:
            if entry[0] != " ":
                break
            line += 1
        return line


def diff_hunks(before: str, after: str, *, context: int = 3) -> tuple[DiffHunk, ...]:
    """The unified-diff hunks turning ``before`` into ``after`` (empty when equal)."""
    if before == after:
        return ()
    start, old_end, new_end = _changed_region(before, after, context)
    offset = before.count("\n", 0, start)
    hunks = _line_hunks(before[start:old_end], after[start:new_end], context)
    return tuple(
        replace(
            hunk,
            old_start=hunk.old_start + offset,
            new_start=hunk.new_start + offset,
        )
        for hunk in hunks
    )


def render_unified(path: str, hunks: Sequence[DiffHunk]) -> str:
    """The text of a unified diff of ``path`` (``---``/``+++`` headers, ``@@`` lines)."""
    out = [f"--- {path}", f"+++ {path}"]
    for hunk in hunks:
        out.append(f"@@ -{hunk.old_start},{hunk.old_lines} +{hunk.new_start},{hunk.new_lines} @@")
        out.extend(hunk.lines)
    return "\n".join(out) + "\n"


def hunk_to_json(hunk: DiffHunk) -> dict[str, JsonValue]:
    """The hunk as a camelCase JSON object."""
    return {
        "oldStart": hunk.old_start,
        "oldLines": hunk.old_lines,
        "newStart": hunk.new_start,
        "newLines": hunk.new_lines,
        "lines": list(hunk.lines),
    }


def hunk_from_json(value: JsonValue) -> DiffHunk | None:
    """Decode ``hunk_to_json`` output; None for anything not of that shape."""
    if not isinstance(value, Mapping):
        return None
    numbers = [value.get(key) for key in ("oldStart", "oldLines", "newStart", "newLines")]
    lines = value.get("lines")
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
        return None
    if not isinstance(lines, Sequence) or isinstance(lines, str):
        return None
    if not all(isinstance(line, str) and line[:1] in (" ", "-", "+") for line in lines):
        return None
    old_start, old_lines, new_start, new_lines = (int(str(n)) for n in numbers)
    return DiffHunk(
        old_start=old_start,
        old_lines=old_lines,
        new_start=new_start,
        new_lines=new_lines,
        lines=tuple(str(line) for line in lines),
    )


def _changed_region(before: str, after: str, context: int) -> tuple[int, int, int]:
    """Where the texts differ, widened to whole lines plus ``context`` lines on each side:
    the common start offset and the end offsets in ``before`` and ``after``."""
    head = _common_prefix(before, after)
    start = before.rfind("\n", 0, head) + 1
    for _ in range(context):
        if start == 0:
            break
        start = before.rfind("\n", 0, start - 1) + 1
    tail = _common_suffix(before, after, min(len(before), len(after)) - head)
    cut = len(before) - tail
    newline = before.find("\n", cut)  # the suffix must start a line in both texts
    for _ in range(context):
        if newline < 0:
            break
        newline = before.find("\n", newline + 1)
    if newline < 0:
        return start, len(before), len(after)
    keep = len(before) - (newline + 1)
    return start, len(before) - keep, len(after) - keep


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix, compared a block at a time (C-speed slices)."""
    limit = min(len(a), len(b))
    index = 0
    while index < limit:
        end = min(index + _BLOCK, limit)
        if a[index:end] == b[index:end]:
            index = end
            continue
        low, high = index, end
        while low < high:
            middle = (low + high) // 2
            if a[low : middle + 1] == b[low : middle + 1]:
                low = middle + 1
            else:
                high = middle
        return low
    return limit


def _common_suffix(a: str, b: str, limit: int) -> int:
    """Length of the common suffix, at most ``limit``."""
    count = 0
    while count < limit:
        step = min(_BLOCK, limit - count)
        if a[len(a) - count - step : len(a) - count] == b[len(b) - count - step : len(b) - count]:
            count += step
            continue
        low, high = 0, step  # how many more characters match, from the end
        while low < high:
            middle = (low + high + 1) // 2
            if (
                a[len(a) - count - middle : len(a) - count]
                == b[len(b) - count - middle : len(b) - count]
            ):
                low = middle
            else:
                high = middle - 1
        return count + low
    return limit


def _line_hunks(before: str, after: str, context: int) -> list[DiffHunk]:
    old = before.split("\n")
    new = after.split("\n")
    if old[-1] == "" and new[-1] == "":  # a final newline on both sides is not a line
        old.pop()
        new.pop()
    if old == new:
        return []
    return [_hunk(old, new, group) for group in _groups(_opcodes(old, new), context)]


def _opcodes(old: list[str], new: list[str]) -> list[Opcode]:
    limit = min(len(old), len(new))
    head = 0
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    old_end, new_end = len(old) - tail, len(new) - tail
    middle = SequenceMatcher(None, old[head:old_end], new[head:new_end]).get_opcodes()
    codes: list[Opcode] = [("equal", 0, head, 0, head)] if head else []
    codes.extend((tag, a + head, b + head, c + head, d + head) for tag, a, b, c, d in middle)
    if tail:
        codes.append(("equal", old_end, len(old), new_end, len(new)))
    return codes


def _groups(codes: list[Opcode], context: int) -> list[list[Opcode]]:
    """Opcodes grouped into hunks with ``context`` lines of surrounding equal text."""
    if codes[0][0] == "equal":
        _, i1, i2, j1, j2 = codes[0]
        codes[0] = ("equal", max(i1, i2 - context), i2, max(j1, j2 - context), j2)
    if codes[-1][0] == "equal":
        _, i1, i2, j1, j2 = codes[-1]
        codes[-1] = ("equal", i1, min(i2, i1 + context), j1, min(j2, j1 + context))
    groups: list[list[Opcode]] = []
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * context:
            group.append(("equal", i1, min(i2, i1 + context), j1, min(j2, j1 + context)))
            groups.append(group)
            group = []
            i1, j1 = max(i1, i2 - context), max(j1, j2 - context)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        groups.append(group)
    return groups


def _hunk(old: list[str], new: list[str], group: list[Opcode]) -> DiffHunk:
    lines: list[str] = []
    for tag, i1, i2, j1, j2 in group:
        if tag == "equal":
            lines.extend(" " + line for line in old[i1:i2])
            continue
        lines.extend("-" + line for line in old[i1:i2])
        lines.extend("+" + line for line in new[j1:j2])
    old_lines = group[-1][2] - group[0][1]
    new_lines = group[-1][4] - group[0][3]
    return DiffHunk(
        old_start=group[0][1] + (1 if old_lines else 0),
        old_lines=old_lines,
        new_start=group[0][3] + (1 if new_lines else 0),
        new_lines=new_lines,
        lines=tuple(lines),
    )
