"""Fixture RFC trees for the RFC gate tests: valid texts, tree builders, and a gate runner."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from rfc_index import render_index
from rfc_walker import walk

Gate = Callable[[Sequence[str] | None], int]

STATUS = {
    "proposed": "Status: proposed",
    "implemented": "Status: implemented",
    "rejected": "Status: rejected \u2014 the cost outweighs the gain",
}
SECTIONS = {
    "proposed": (
        "Problem",
        "Proposal",
        "Alternatives considered",
        "Acceptance criteria",
        "Risks",
    ),
    "implemented": ("Problem", "Decision", "Alternatives considered", "Consequences"),
    "rejected": ("Problem", "Proposal", "Alternatives considered"),
}
README = "# RFCs\n\nThe contract. The list is in [INDEX.md](INDEX.md).\n"


def body(sections: Sequence[str]) -> str:
    """Markdown with one short paragraph under each ``## <section>``."""
    return "".join(f"## {section}\n\nText for {section.lower()}.\n\n" for section in sections)


def rfc_text(lifecycle: str, title: str = "Example decision") -> str:
    """A valid RFC for ``lifecycle``."""
    return f"# RFC: {title}\n\n{STATUS[lifecycle]}\n\n{body(SECTIONS[lifecycle])}"


def write(root: Path, rel: str, content: str | bytes) -> Path:
    """Write ``content`` at ``root/rel``, creating parent folders; returns the path."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="\n")
    return path


def write_index(root: Path) -> None:
    """Regenerate docs/rfc/INDEX.md for the tree as it stands (the tree must be sound)."""
    tree = walk(root)
    assert tree.violations == ()
    write(root, "docs/rfc/INDEX.md", render_index(tree.rfcs))


def valid_tree(root: Path) -> dict[str, str]:
    """A sound tree with one RFC per lifecycle, a README and a fresh index.

    Returns the repository-relative RFC path per lifecycle.
    """
    paths = {
        "proposed": "docs/rfc/proposed/feature/2026-11-01-multi-root.md",
        "implemented": "docs/rfc/implemented/process/2026-11-30-uniform-rfc-format.md",
        "rejected": "docs/rfc/rejected/simplification/2026-10-15-drop-replay.md",
    }
    for lifecycle, rel in paths.items():
        write(root, rel, rfc_text(lifecycle))
    write(root, "docs/rfc/README.md", README)
    write_index(root)
    return paths


def run_gate(
    gate: Gate, root: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, list[str]]:
    """Run a gate's ``main`` against ``root``; returns its exit code and stdout lines."""
    capsys.readouterr()
    code = gate(["--root", str(root), *extra])
    captured = capsys.readouterr()
    assert captured.err == ""
    return code, captured.out.splitlines()
