"""Baseline for ``bench/startup.py``: the smallest pygls server, answering ``initialize``.

python bench/bare_pygls.py   # serves LSP on stdio until exit
"""

from __future__ import annotations

from pygls.lsp.server import LanguageServer

if __name__ == "__main__":
    LanguageServer("bare", "1").start_io()
