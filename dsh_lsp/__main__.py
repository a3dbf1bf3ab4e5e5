"""``python -m dsh_lsp``: the thin entry point of the command line (``dsh_lsp.cli``).

The ``dsh-lsp`` console script calls the same ``main``; everything it does is described in
``dsh_lsp.cli.entry``.
"""

from __future__ import annotations

from dsh_lsp.cli import main

__all__ = ("main",)

if __name__ == "__main__":
    raise SystemExit(main())
