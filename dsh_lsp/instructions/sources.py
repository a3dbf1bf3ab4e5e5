"""Finding and rendering project instruction files (instructions layer).

``find_sources`` looks for the configured names (``AGENTS.md``, ``CLAUDE.md``,
``.github/copilot-instructions.md`` by default) in the workspace root, then in every folder
between the root and a folder the agent touched, outermost first, so nearer files come
later and read as refinements. Nothing outside the root is read. ``render`` bounds each
file and the whole section, marking what it cut.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Source:
    """One instruction file: its path relative to the root and its (bounded) text."""

    path: str
    text: str
    truncated: bool


def _inside(root: str, path: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def folders(root: str, touched: Iterable[str]) -> list[str]:
    """The root, then every folder from the root down to each touched folder (inside the
    root only), each once, outermost first; all resolved (``realpath``)."""
    root = os.path.realpath(root)
    out: dict[str, None] = {root: None}
    for folder in sorted(touched):
        real = os.path.realpath(folder)
        if not _inside(root, real):
            continue
        chain = []
        while real != root:
            chain.append(real)
            parent = os.path.dirname(real)
            if parent == real:
                break
            real = parent
        for item in reversed(chain):
            out[item] = None
    return list(out)


def find_sources(
    root: str, touched: Iterable[str], names: Sequence[str], max_file_bytes: int
) -> list[Source]:
    """The instruction files for ``root`` and the ``touched`` folders (blocking I/O: a stat
    per name and folder, and the small reads of the files found). Unreadable files are
    skipped; never raises for them."""
    return sources_in(folders(root, touched), names, max_file_bytes)


def sources_in(searched: Sequence[str], names: Sequence[str], max_file_bytes: int) -> list[Source]:
    """``find_sources`` over ``searched``, a ``folders`` result (resolved, the root first),
    which a caller may keep while the touched folders stay the same: the file found in each
    is still resolved and confined to the root on every call."""
    found: list[Source] = []
    real_root = searched[0]
    seen: set[str] = set()
    for folder in searched:
        for name in names:
            path = os.path.join(folder, name)
            try:  # most names are absent: one stat, before the costlier realpath
                if not stat.S_ISREG(os.stat(path).st_mode):
                    continue
            except (OSError, ValueError):
                continue
            real = os.path.realpath(path)
            if real in seen or not _inside(real_root, real) or not os.path.isfile(real):
                continue
            seen.add(real)
            try:
                with open(real, "rb") as handle:
                    data = handle.read(max_file_bytes + 1)
            except OSError:
                continue
            truncated = len(data) > max_file_bytes
            text = data[:max_file_bytes].decode("utf-8", errors="replace")
            found.append(
                Source(path=os.path.relpath(path, real_root), text=text, truncated=truncated)
            )
    return found


def render(sources: Sequence[Source], max_total_bytes: int) -> tuple[str, tuple[str, ...]]:
    """The prompt section for ``sources`` and the paths it includes (some may be cut or left
    out to keep within ``max_total_bytes``)."""
    if not sources:
        return "", ()
    parts = [
        "Project instructions: the files below are the user's standing instructions for this "
        "project (nearer folders refine the root). Follow them unless the user says otherwise."
    ]
    used = len(parts[0])
    included: list[str] = []
    for source in sources:
        room = max_total_bytes - used
        if room <= 200:
            parts.append(f"[{len(sources) - len(included)} more instruction files left out]")
            break
        body = source.text
        cut = source.truncated
        if len(body.encode("utf-8")) > room - 100:
            body = body.encode("utf-8")[: room - 100].decode("utf-8", errors="ignore")
            cut = True
        marker = "\n[… cut to fit …]" if cut else ""
        block = f'<instructions source="{source.path}">\n{body.rstrip()}{marker}\n</instructions>'
        parts.append(block)
        used += len(block.encode("utf-8"))
        included.append(source.path)
    return "\n\n".join(parts), tuple(included)
