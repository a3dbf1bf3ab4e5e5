"""The one diff engine: a change between two texts, in both the shapes its users need (fs_tools).

Pure. ``diff_texts(before, after)`` diffs once and returns a ``TextDiff`` holding

- ``hunks``: the hunks of a unified diff with ``context`` lines around each change (3 by
  default, adjacent changes merged like ``diff -u``), for tool results, UIs and previews;
  they convert to JSON for tool-result ``meta`` (``hunk_to_json`` / ``hunk_from_json``) and
  render as the text of a unified diff (``render_unified``);
- ``text_hunks``: the minimal replacements (``TextHunk``: offsets into ``before`` and the new
  text), ordered and non-overlapping, which an editor-backed provider turns into the edits
  of one ``workspace/applyEdit`` (positions, line endings and byte-order marks are the
  server's business) and ``apply_hunks`` replays.

Fast on large texts with small changes, and never quadratic:

1. the common head and tail are trimmed with slice comparisons that double in size (C-speed
   ``==`` on ever larger slices, then a binary search), so a one-line change in a
   100,000-line text costs a few slice comparisons;
2. what remains, widened to whole lines, is diffed line by line with Myers' algorithm,
   bounded to ``max_line_edits`` changed lines (beyond that one change replaces the region:
   correct, just larger);
3. each changed run of lines is trimmed again character by character for ``text_hunks``,
   and framed with its context lines for ``hunks``.

Lines end after each ``\\n``; a last line without one is a line of its own (so ``a`` and
``a\\n`` differ in that line). No ``difflib``: its matcher is quadratic on these inputs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from dsh_lsp.llm import JsonValue

MAX_LINE_EDITS: Final = 256
"""Default bound on inserted plus deleted lines the line diff looks for."""
CONTEXT_LINES: Final = 3
"""Default unchanged lines shown around each change of a unified diff."""

Opcode = tuple[Literal["equal", "replace", "delete", "insert"], int, int, int, int]
Run = tuple[int, int, int, int]
"""A changed run of lines ``(a1, a2, b1, b2)``: old lines ``[a1, a2)`` become new ``[b1, b2)``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TextHunk:
    """Replace ``old[start:end]`` with ``new_text``."""

    start: int
    end: int
    new_text: str


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


@dataclass(frozen=True, slots=True, kw_only=True)
class TextDiff:
    """One change between two texts, in both shapes (see the module docstring); empty
    tuples when the texts are equal."""

    hunks: tuple[DiffHunk, ...]
    """Unified-diff hunks, for presentation."""
    text_hunks: tuple[TextHunk, ...]
    """Minimal replacements of the old text, for delivery to an editor."""


NO_CHANGE: Final = TextDiff(hunks=(), text_hunks=())
"""The diff of two equal texts."""


def diff_texts(
    before: str,
    after: str,
    *,
    context: int = CONTEXT_LINES,
    max_line_edits: int = MAX_LINE_EDITS,
) -> TextDiff:
    """The change turning ``before`` into ``after``, diffed once; see the module docstring.
    Never raises."""
    if before == after:
        return NO_CHANGE
    head = common_prefix(before, after)
    tail = common_suffix(before, after, min(len(before), len(after)) - head)
    start = before.rfind("\n", 0, head) + 1
    cut = before.find("\n", len(before) - tail)
    stop_old = len(before) if cut < 0 else cut + 1  # past it both texts go on alike
    ext_start = start
    for _ in range(context):
        if ext_start == 0:
            break
        ext_start = before.rfind("\n", 0, ext_start - 1) + 1
    ext_stop = stop_old
    for _ in range(context):
        newline = before.find("\n", ext_stop)
        if newline < 0:
            ext_stop = len(before)
            break
        ext_stop = newline + 1
    old = _lines(before[ext_start:ext_stop])
    new = _lines(after[ext_start : ext_stop + len(after) - len(before)])
    lead = before.count("\n", ext_start, start)  # ``start`` begins a line
    trail = len(_lines(before[stop_old:ext_stop]))
    core_old, core_new = len(old) - lead - trail, len(new) - lead - trail
    script = _line_changes(old[lead : lead + core_old], new[lead : lead + core_new], max_line_edits)
    if script is None:
        script = [(0, core_old, 0, core_new)]
    runs = [(a1 + lead, a2 + lead, b1 + lead, b2 + lead) for a1, a2, b1, b2 in script]
    first_line = before.count("\n", 0, ext_start)
    return TextDiff(
        hunks=_unified(old, new, runs, context, first_line),
        text_hunks=_text_hunks(before, after, old, new, runs, ext_start),
    )


def apply_hunks(text: str, hunks: Sequence[TextHunk]) -> str:
    """``text`` with ``hunks`` (ordered, non-overlapping) applied. Never raises."""
    parts: list[str] = []
    cursor = 0
    for hunk in hunks:
        parts.append(text[cursor : hunk.start])
        parts.append(hunk.new_text)
        cursor = hunk.end
    parts.append(text[cursor:])
    return "".join(parts)


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


def _text_hunks(
    before: str, after: str, old: list[str], new: list[str], runs: list[Run], base: int
) -> tuple[TextHunk, ...]:
    """Each changed run of lines trimmed character by character (offsets into ``before``)."""
    old_starts = _line_offsets(old, base)
    new_starts = _line_offsets(new, base)
    hunks: list[TextHunk] = []
    for a1, a2, b1, b2 in runs:
        o1, o2 = old_starts[a1], old_starts[a2]
        n1, n2 = new_starts[b1], new_starts[b2]
        piece_old, piece_new = before[o1:o2], after[n1:n2]
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


def _line_offsets(lines: list[str], base: int) -> list[int]:
    """Start offsets of each line of ``"".join(lines)`` plus its end, shifted by ``base``."""
    offsets = [base]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    return offsets


def _unified(
    old: list[str], new: list[str], runs: list[Run], context: int, first_line: int
) -> tuple[DiffHunk, ...]:
    """The unified-diff hunks of ``runs`` over the lines ``old`` / ``new`` (which hold at most
    ``context`` unchanged lines around the changes), numbered from ``first_line``."""
    codes: list[Opcode] = []
    i = j = 0
    for a1, a2, b1, b2 in runs:
        if a1 > i:
            codes.append(("equal", i, a1, j, b1))
        tag: Literal["replace", "delete", "insert"] = (
            "replace" if a1 < a2 and b1 < b2 else "delete" if a1 < a2 else "insert"
        )
        codes.append((tag, a1, a2, b1, b2))
        i, j = a2, b2
    if i < len(old):
        codes.append(("equal", i, len(old), j, len(new)))
    return tuple(_hunk(old, new, group, first_line) for group in _groups(codes, context))


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


def _hunk(old: list[str], new: list[str], group: list[Opcode], first_line: int) -> DiffHunk:
    lines: list[str] = []
    for tag, i1, i2, j1, j2 in group:
        if tag == "equal":
            lines.extend(" " + _bare(line) for line in old[i1:i2])
            continue
        lines.extend("-" + _bare(line) for line in old[i1:i2])
        lines.extend("+" + _bare(line) for line in new[j1:j2])
    old_lines = group[-1][2] - group[0][1]
    new_lines = group[-1][4] - group[0][3]
    return DiffHunk(
        old_start=first_line + group[0][1] + (1 if old_lines else 0),
        old_lines=old_lines,
        new_start=first_line + group[0][3] + (1 if new_lines else 0),
        new_lines=new_lines,
        lines=tuple(lines),
    )


def _bare(line: str) -> str:
    """A line without its ``\\n``."""
    return line[:-1] if line.endswith("\n") else line


def _line_changes(a: list[str], b: list[str], max_edits: int) -> list[Run] | None:
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


def _runs(edits: list[tuple[int, int, bool]]) -> list[Run]:
    """Adjacent single-line edits grouped into changed runs ``(a1, a2, b1, b2)``."""
    runs: list[Run] = []
    for x, y, inserted in edits:
        end = (x, y + 1) if inserted else (x + 1, y)
        if runs and (runs[-1][1], runs[-1][3]) == (x, y):
            a1, _, b1, _ = runs[-1]
            runs[-1] = (a1, end[0], b1, end[1])
        else:
            runs.append((x, end[0], y, end[1]))
    return runs
