"""The provider kit: what a ``FileSystem`` provider builds on, besides the seam (fs_tools layer).

A second provider (the language server's editor-backed one) must behave exactly like the local
one where they overlap: the same size limits and disk errors, the same text rules, the same
version checks and messages, the same per-target critical sections. Rather than reach into
the local provider's modules, it imports them from here:

- text rules (``dsh_lsp.fs_tools.text``): ``BOM``, ``Eol``, ``SNIFF_BYTES``, ``decode_utf8``,
  ``detect_eol``, ``normalize_eol``, ``not_text``, ``strip_bom``;
- version checks (``dsh_lsp.fs_tools.version_checks``): ``check_guard``, ``check_expected``,
  ``vanished``, called inside the target's critical section before any matching;
- the local provider's blocking disk primitives (``dsh_lsp.fs_tools.local.disk``), run in
  worker threads: ``stat_or_none``, ``read_regular``, ``require_regular``, ``type_of``,
  ``version_of``, ``too_large`` and ``os_errors`` (``OSError`` → ``FsError``, once);
- ``KeyedLocks`` (``dsh_lsp.fs_tools.local.locks``): one lock per target key.

Each name documents what it raises where it is defined.
"""

from __future__ import annotations

from dsh_lsp.fs_tools.local.disk import os_errors as os_errors
from dsh_lsp.fs_tools.local.disk import read_regular as read_regular
from dsh_lsp.fs_tools.local.disk import require_regular as require_regular
from dsh_lsp.fs_tools.local.disk import stat_or_none as stat_or_none
from dsh_lsp.fs_tools.local.disk import too_large as too_large
from dsh_lsp.fs_tools.local.disk import type_of as type_of
from dsh_lsp.fs_tools.local.disk import version_of as version_of
from dsh_lsp.fs_tools.local.locks import KeyedLocks as KeyedLocks
from dsh_lsp.fs_tools.text import BOM as BOM
from dsh_lsp.fs_tools.text import SNIFF_BYTES as SNIFF_BYTES
from dsh_lsp.fs_tools.text import Eol as Eol
from dsh_lsp.fs_tools.text import decode_utf8 as decode_utf8
from dsh_lsp.fs_tools.text import detect_eol as detect_eol
from dsh_lsp.fs_tools.text import normalize_eol as normalize_eol
from dsh_lsp.fs_tools.text import not_text as not_text
from dsh_lsp.fs_tools.text import strip_bom as strip_bom
from dsh_lsp.fs_tools.version_checks import check_expected as check_expected
from dsh_lsp.fs_tools.version_checks import check_guard as check_guard
from dsh_lsp.fs_tools.version_checks import vanished as vanished

__all__ = (
    "BOM",
    "SNIFF_BYTES",
    "Eol",
    "KeyedLocks",
    "check_expected",
    "check_guard",
    "decode_utf8",
    "detect_eol",
    "normalize_eol",
    "not_text",
    "os_errors",
    "read_regular",
    "require_regular",
    "stat_or_none",
    "strip_bom",
    "too_large",
    "type_of",
    "vanished",
    "version_of",
)
