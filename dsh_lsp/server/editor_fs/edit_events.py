"""The ``editor/edit`` seam: around every edit of an open document (server layer).

``EditorFileSystem`` runs the delivery of each edit of a document the editor has open
through the ``EDITOR_EDIT`` waterfall: a listener may do something before the edit reaches
the editor (the diagnostics room takes the document's problems before the edit) and after
it landed (it records the version that shows the edit). ``next()`` delivers the edit and
returns the version token of the document state that shows it (see ``edit_delivery``); it
raises FsError when the editor refused it. Listeners return that token unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from dsh_lsp.fs_tools import TextHunk
from dsh_lsp.kernel import WaterfallEvent


@dataclass(frozen=True, slots=True, kw_only=True)
class EditorEdit:
    """One edit of an open document: its URI, the whole text before and after it (in the
    document's own line endings), and the replacements of ``before`` that make ``after``
    (the edit's one diff)."""

    uri: str
    display_path: str
    before: str
    after: str
    hunks: tuple[TextHunk, ...]


EDITOR_EDIT: WaterfallEvent[EditorEdit, str] = WaterfallEvent("editor/edit")
"""Around the delivery of an edit of an open document; the result is the version token."""
