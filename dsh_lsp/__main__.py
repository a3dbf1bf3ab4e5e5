"""Command-line entry point: ``dsh-lsp`` and ``python -m dsh_lsp``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from dsh_lsp import __version__


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser for the ``dsh-lsp`` command."""
    parser = argparse.ArgumentParser(
        prog="dsh-lsp",
        description="Coding-agent backend served over the Language Server Protocol.",
    )
    parser.add_argument("--version", action="version", version=f"dsh-lsp {__version__}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code.

    Raises:
        SystemExit: from argparse for ``--help``, ``--version`` and usage errors.
    """
    parser = build_parser()
    parser.parse_args(argv)
    parser.print_usage(sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
