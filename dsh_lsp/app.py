"""Composition root: the one place that chooses which plugins make up a running dsh-lsp.

It is the only module allowed to import :mod:`dsh_lsp.agent_loop` (import-linter enforces
this), so the loop stays one swappable plugin.
"""
