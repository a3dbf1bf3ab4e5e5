"""The editor-backed file system: the ``FS`` seam through the editor (server layer).

Replaces the local provider when the client answers ``workspace/applyEdit``; the file tools
and the policy never know which one runs. ``load_file_system`` (``plugin``) is the one place
the server picks the provider. ``EditorFileSystem`` (``file_system``) reads open documents
from the buffers and sends every write or edit as one verified ``workspace/applyEdit`` of
minimal hunks (``hunks``) mapped onto the buffer's line endings (``buffer_view``) and the
client's position units (``text_edits``), labelled with the tool call's title
(``edit_labels``, ``workspace_edits``); ``edit_delivery`` checks each edit against the next
``didChange``. Files the editor does not mirror come from disk (``closed_files``,
``disk_files``, ``overlays``); ``disk_policy`` decides when edits are saved.
``edit_events`` is the seam around each open document's edit (``EDITOR_EDIT``).
``editor_connection`` and ``capabilities`` are what the provider needs from the editor.
"""

import typing as _typing

from dsh_lsp.server._lazy import lazy_face as _lazy_face

if _typing.TYPE_CHECKING:
    from .capabilities import EditCapabilities as EditCapabilities
    from .capabilities import edit_capabilities as edit_capabilities
    from .edit_events import EDITOR_EDIT as EDITOR_EDIT
    from .edit_events import EditorEdit as EditorEdit
    from .editor_connection import ApplyOutcome as ApplyOutcome
    from .editor_connection import ChannelEditor as ChannelEditor
    from .editor_connection import EditorConnection as EditorConnection
    from .file_system import EditorFileSystem as EditorFileSystem
    from .plugin import EDITOR as EDITOR
    from .plugin import EditorFileSystemPlugin as EditorFileSystemPlugin
    from .plugin import EditorSetup as EditorSetup
    from .plugin import load_file_system as load_file_system
    from .workspace_edits import EditLabel as EditLabel

__all__ = _lazy_face(globals())
