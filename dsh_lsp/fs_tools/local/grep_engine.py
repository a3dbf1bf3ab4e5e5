"""The per-file half of ``grep``: scan one batch of files for a compiled pattern (fs_tools).

Synchronous and pure apart from reading files, so batches run in worker threads. A file is
read whole, skipped when larger than the limit or binary (NUL in its first 8192 bytes),
decoded as UTF-8 with invalid bytes replaced, CRLF-normalized, then searched as one string
(``re.MULTILINE``): a match is reported on the line where it starts, one report per line. Files
without a match cost one regex scan and no line splitting.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from dsh_lsp.fs_tools.search import GrepLine
from dsh_lsp.fs_tools.text import BOM, SNIFF_BYTES, split_lines


@dataclass(frozen=True, slots=True, kw_only=True)
class ScanSpec:
    """What every file of a search is scanned for, and the per-file limits."""

    regex: re.Pattern[str]
    context: int
    max_line_chars: int
    max_file_bytes: int
    max_matches: int
    """Matches to report per file at most (the search's budget, plus one)."""
    literal: bytes | None = None
    """UTF-8 bytes every match contains (``required_literal``): files without them are skipped
    before decoding."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FileScan:
    """One file's matches: the lines to print (matches and context) and the match count."""

    index: int
    lines: tuple[GrepLine, ...]
    matches: int


def scan_batch(paths: Sequence[tuple[int, str]], spec: ScanSpec) -> list[FileScan]:
    """Scan ``(index, path)`` pairs; returns the files with at least one match, in order."""
    found: list[FileScan] = []
    for index, path in paths:
        text = _load(path, spec.max_file_bytes, spec.literal)
        if text is None:
            continue
        first = spec.regex.search(text)
        if first is None:
            continue
        lines = _matching_lines(text, first, spec)
        found.append(
            FileScan(
                index=index,
                lines=_with_context(split_lines(text), lines, spec),
                matches=len(lines),
            )
        )
    return found


def _load(path: str, max_bytes: int, literal: bytes | None) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        if size > max_bytes:
            return None
        chunks: list[bytes] = []
        remaining = size + 1  # one byte more than expected reveals a file that grew
        while remaining > 0:
            chunk = os.read(fd, remaining)
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if literal is not None and literal not in data:
        return None
    if len(data) > max_bytes or b"\0" in data[:SNIFF_BYTES]:
        return None
    text = data.decode("utf-8", errors="replace")
    if text.startswith(BOM):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    return text


def _matching_lines(text: str, first: re.Match[str], spec: ScanSpec) -> list[int]:
    """0-based numbers of the lines where matches start (at most ``spec.max_matches``)."""
    numbers: list[int] = []
    line = 0
    counted_to = 0
    match: re.Match[str] | None = first
    while match is not None and len(numbers) < spec.max_matches:
        start = match.start()
        if start == len(text) and text.endswith("\n"):
            break  # the empty "line" after a final newline is not a line
        line += text.count("\n", counted_to, start)
        counted_to = start
        numbers.append(line)
        end_of_line = text.find("\n", max(start, match.end() - 1))
        if end_of_line < 0:
            break
        line += text.count("\n", counted_to, end_of_line + 1)
        counted_to = end_of_line + 1
        match = spec.regex.search(text, end_of_line + 1)
    return numbers


def _with_context(all_lines: list[str], hits: list[int], spec: ScanSpec) -> tuple[GrepLine, ...]:
    wanted: dict[int, bool] = {}
    for hit in hits:
        for number in range(
            max(0, hit - spec.context), min(len(all_lines), hit + spec.context + 1)
        ):
            wanted.setdefault(number, False)
        wanted[hit] = True
    return tuple(
        GrepLine(number=number + 1, text=_clip(all_lines[number], spec.max_line_chars), matched=hit)
        for number, hit in sorted(wanted.items())
    )


def _clip(line: str, limit: int) -> str:
    if len(line) <= limit:
        return line
    return line[:limit] + f"... ({len(line) - limit} more characters)"
