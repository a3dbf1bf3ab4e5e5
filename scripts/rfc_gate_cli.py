"""Command-line plumbing shared by the RFC gates (repository tooling).

Every gate takes ``--root`` (the repository root, defaulting to the checkout that holds this
script) and reports violations one per line on stdout as ``<path>:<line>: <rule>: <detail>``
(``<path>: <rule>: <detail>`` for a rule about a whole file), exiting 1 when there are any
and 0 otherwise.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from rfc_walker import Violation

DEFAULT_ROOT = Path(__file__).resolve().parent.parent


def gate_parser(description: str) -> argparse.ArgumentParser:
    """An argument parser with the shared ``--root`` option already added."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--root",
        type=Path,
        default=DEFAULT_ROOT,
        help="repository root holding docs/rfc (default: this checkout)",
    )
    return parser


def report(gate: str, violations: Sequence[Violation], ok_summary: str) -> int:
    """Print each violation (or the one-line success summary) and return the exit code."""
    for violation in violations:
        print(violation.render())
    if violations:
        print(f"{gate}: {len(violations)} violation(s)")
        return 1
    print(f"{gate}: {ok_summary}")
    return 0
