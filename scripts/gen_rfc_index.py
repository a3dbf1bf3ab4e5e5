"""RFC index generator: writes or checks docs/rfc/INDEX.md (repository tooling).

Usage: ``.venv/bin/python scripts/gen_rfc_index.py [--root REPO] [--check]``. Without
``--check`` it rewrites INDEX.md when the rendered text differs (and leaves it untouched
otherwise); with ``--check`` it writes nothing and exits 1 naming INDEX.md when the file is
missing or stale. Either way it refuses (exit 1, violations printed) while the walker reports
structural errors, because the index of a broken tree would be wrong.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from rfc_gate_cli import gate_parser, report
from rfc_index import INDEX_PATH, render_index, stale_index
from rfc_walker import walk

GATE = "gen_rfc_index"


def main(argv: Sequence[str] | None = None) -> int:
    """Generate (or with ``--check`` verify) INDEX.md; returns the exit code.

    Raises ``OSError`` when INDEX.md cannot be read or written.
    """
    parser = gate_parser("Generate docs/rfc/INDEX.md from the RFC tree.")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if INDEX.md is stale"
    )
    args = parser.parse_args(argv)
    tree = walk(args.root)
    if tree.violations:
        print(f"{GATE}: refusing to render the index of a tree with structural errors")
        return report(GATE, tree.violations, "")
    expected = render_index(tree.rfcs)
    stale = stale_index(args.root, expected)
    if args.check:
        return report(
            GATE, [stale] if stale else [], f"{INDEX_PATH} is up to date ({len(tree.rfcs)} RFC(s))"
        )
    if stale is None:
        print(f"{GATE}: {INDEX_PATH} unchanged ({len(tree.rfcs)} RFC(s))")
    else:
        (args.root / INDEX_PATH).write_text(expected, encoding="utf-8", newline="\n")
        print(f"{GATE}: wrote {INDEX_PATH} ({len(tree.rfcs)} RFC(s))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
