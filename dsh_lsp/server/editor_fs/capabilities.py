"""EditCapabilities: what the client can do with a workspace edit (server layer).

Read once from the ``initialize`` capabilities. Versioned ``TextDocumentEdit``s need
``workspace.workspaceEdit.documentChanges``; a client that advertises ``resourceOperations``
is taken to support them too (the spec ties resource operations to the ``documentChanges``
array, and Neovim advertises the one but not the other although its handler does both).
A client without ``workspace.applyEdit`` gets the local provider instead of the editor one.
An editor plugin that can save documents on request opts in with
``capabilities.experimental.dsh`` ``{"version": 1, "saveDocuments": true}`` (``dsh/saveDocuments``).
Neovim's built-in client (``clientInfo.name`` ``Neovim``) without the dsh plugin answers
``applied: true`` for a versioned edit it skipped; the plugin (``experimental.dsh``) refuses
such an edit itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lsprotocol import types

from dsh_lsp.server.buffers import DEFAULT_ENCODING, PositionEncoding, parse_encoding
from dsh_lsp.server.wire import DSH_VERSION


@dataclass(frozen=True, slots=True, kw_only=True)
class EditCapabilities:
    """The edit-related client capabilities and the negotiated position encoding."""

    apply_edit: bool = False
    """It answers ``workspace/applyEdit``."""
    document_changes: bool = False
    """It takes versioned ``TextDocumentEdit``s (``documentChanges``)."""
    create_files: bool = False
    """It performs ``CreateFile`` operations (implies ``document_changes``)."""
    change_annotations: bool = False
    """It honours change annotations (``needsConfirmation`` opens a preview)."""
    save_documents: bool = False
    """It answers ``dsh/saveDocuments``."""
    skips_stale_silently: bool = False
    """It may answer ``applied: true`` for a versioned edit it skipped (so an edit that no
    didChange shows in time is taken as skipped)."""
    position_encoding: PositionEncoding = DEFAULT_ENCODING


def edit_capabilities(
    capabilities: types.ClientCapabilities,
    position_encoding: object = None,
    *,
    client_name: str | None = None,
) -> EditCapabilities:
    """The ``EditCapabilities`` of a client; ``position_encoding`` is what the server chose
    (pygls negotiates it from ``general.positionEncodings``), ``client_name`` is
    ``clientInfo.name``."""
    workspace = capabilities.workspace
    edit = None if workspace is None else workspace.workspace_edit
    operations = set() if edit is None else set(edit.resource_operations or ())
    create = types.ResourceOperationKind.Create in operations
    experimental = capabilities.experimental
    dsh = experimental.get("dsh") if isinstance(experimental, Mapping) else None
    return EditCapabilities(
        apply_edit=bool(workspace is not None and workspace.apply_edit),
        document_changes=bool(edit is not None and (edit.document_changes or operations)),
        create_files=create,
        change_annotations=bool(edit is not None and edit.change_annotation_support is not None),
        save_documents=isinstance(dsh, Mapping)
        and dsh.get("version") == DSH_VERSION
        and dsh.get("saveDocuments") is True,
        skips_stale_silently=client_name == "Neovim" and not isinstance(dsh, Mapping),
        position_encoding=parse_encoding(position_encoding),
    )
