"""The read tool's window over a file's lines, and its exact output text (fs_tools layer).

Pure. A window starts at a 1-based ``offset`` and takes at most ``limit`` lines; each line
loses one trailing ``\\r`` and is cut at ``max_line_chars`` characters with a marker; the
selected lines together stay within ``max_bytes`` UTF-8 bytes (plus one per line break), and
the window stops at the first line that would cross it. The footer tells the model how to go
on: end of file, more lines (``offset=N``), or output capped.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .errors import FsError


@dataclass(frozen=True, slots=True, kw_only=True)
class WindowLimits:
    """Lines per window, characters per line, and UTF-8 bytes per window."""

    limit: int
    max_line_chars: int
    max_bytes: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Window:
    """The selected lines as ``(number, text)``, and what lies beyond them."""

    lines: tuple[tuple[int, str], ...]
    total: int | None
    """The file's line count when known (always, unless the window ended early in a stream)."""
    capped: bool
    """True when ``max_bytes`` ended the window before ``limit`` lines."""

    @property
    def first(self) -> int:
        """The first line number shown (the offset, even for an empty window)."""
        return self.lines[0][0] if self.lines else 1

    @property
    def last(self) -> int:
        """The last line number shown (0 for an empty window)."""
        return self.lines[-1][0] if self.lines else 0

    def footer(self) -> str:
        """The closing note telling the model where the window stands."""
        if self.capped:
            return (
                f"(Output capped at the byte limit. Showing lines {self.first}-{self.last}. "
                f"Use offset={self.last + 1} to continue.)"
            )
        if self.total is not None and self.last >= self.total:
            return f"(End of file - total {self.total} lines)"
        of_total = "" if self.total is None else f" of {self.total}"
        return (
            f"(Showing lines {self.first}-{self.last}{of_total}. "
            f"Use offset={self.last + 1} to continue.)"
        )


def build_window(
    lines: Iterator[str],
    *,
    offset: int,
    limits: WindowLimits,
    display_path: str,
    total: int | None = None,
    first_number: int = 1,
) -> Window:
    """Select the window from ``lines`` (split on ``\\n``; a final empty line is not a line).

    ``first_number`` is the line number of the first item of ``lines`` (a caller may skip the
    lines before the offset itself). ``total`` is the line count when the caller knows it;
    otherwise the window consumes the iterator only as far as it needs (plus one line, to tell
    whether more follow). Raises FsError ``FS_NOT_FOUND`` when ``offset`` lies past the end of
    the file (an empty file has the empty window at offset 1).
    """
    selected: list[tuple[int, str]] = []
    used = 0
    capped = False
    seen = first_number - 1
    for number, raw in enumerate(lines, start=first_number):
        seen = number
        if number < offset:
            continue
        if len(selected) >= limits.limit or capped:
            break
        line = _clip(raw.removesuffix("\r"), limits.max_line_chars)
        size = len(line.encode("utf-8")) + (1 if selected else 0)
        if used + size > limits.max_bytes and selected:
            capped = True
            continue
        selected.append((number, line))
        used += size
    else:
        total = seen if total is None else total
    if not selected and offset > 1:
        count = "" if total is None else f" ({total} lines)"
        raise FsError(
            "FS_NOT_FOUND",
            f"offset {offset} is past the end of {display_path}{count}; use a smaller offset",
        )
    return Window(lines=tuple(selected), total=total, capped=capped)


def render_file(display_path: str, window: Window) -> str:
    """The read tool's text for a file window."""
    body = "".join(f"{number}: {line}\n" for number, line in window.lines)
    return (
        f"<path>{display_path}</path>\n<type>file</type>\n<content>\n"
        f"{body}\n{window.footer()}\n</content>"
    )


def render_directory(display_path: str, names: list[str], offset: int, limit: int) -> str:
    """The read tool's text for a directory: entry names (directories end in ``/``)."""
    chosen = names[offset - 1 : offset - 1 + limit]
    last = offset - 1 + len(chosen)
    if last >= len(names):
        footer = f"({len(names)} entries)"
    else:
        footer = (
            f"(Showing entries {offset}-{last} of {len(names)}. Use offset={last + 1} to continue.)"
        )
    body = "".join(f"{name}\n" for name in chosen)
    return (
        f"<path>{display_path}</path>\n<type>directory</type>\n<entries>\n"
        f"{body}{footer}\n</entries>"
    )


def _clip(line: str, limit: int) -> str:
    if len(line) <= limit:
        return line
    return line[:limit] + f"... (line truncated to {limit} chars)"
