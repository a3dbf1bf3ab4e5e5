"""The command-line front end: ``dsh-lsp`` and ``python -m dsh_lsp`` (cli layer, above ``app``).

A front end, beside the language server rather than inside it, that sits on top of the
composition root: it parses the command line (``main``: the parser and the dispatch, loading
no layer before a command needs it), serves LSP through ``dsh_lsp.server`` with
``dsh_lsp.app.load_server_plugins``, runs one prompt headless (``runner``: the settings from
flags, the turn printed to the terminal, terminal approvals from ``approvals``), and scripts
the offline demo (``demo``, the one module here that may use the shipped test kit).

Only ``main`` loads with the package, so ``--version`` and ``--help`` import no layer.
"""

from __future__ import annotations

from .entry import LOG_LEVELS as LOG_LEVELS
from .entry import build_parser as build_parser
from .entry import main as main

__all__ = ("LOG_LEVELS", "build_parser", "main")
