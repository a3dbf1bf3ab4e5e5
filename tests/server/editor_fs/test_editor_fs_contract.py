"""The editor-backed provider passes the reusable provider contract, edits going through a
scripted in-process editor (``dsh_lsp.testing.fs_contract``).

Nothing is open in the editor, so every write and edit is a ``workspace/applyEdit`` for a
closed file (or a ``CreateFile``); the editor saves what it loaded for an edit, as an editor
with auto-save would, so the contract's checks of the disk apply. A second run uses an editor
without resource operations, where new files are written to disk directly.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from dsh_lsp.fs_tools import FileSystem
from dsh_lsp.fs_tools.local import LocalFileSystem, WorkspacePaths
from dsh_lsp.server.editor_fs.edit_capabilities import EditCapabilities
from dsh_lsp.server.editor_fs.file_system import EditorFileSystem
from dsh_lsp.testing.fs_contract import FS_CONTRACT, ContractCase, FsWorld, run_contract_case
from tests.server.editor_model import EditorBehaviour
from tests.server.scripted_editor import NEOVIM, VSCODE, ScriptedEditor

Factory = Callable[[FsWorld], AbstractAsyncContextManager[FileSystem]]


def editor_provider(capabilities: EditCapabilities) -> Factory:
    @asynccontextmanager
    async def factory(world: FsWorld) -> AsyncIterator[FileSystem]:
        behaviour = EditorBehaviour(encoding=capabilities.position_encoding, save_loaded=True)
        editor = ScriptedEditor(capabilities, behaviour)
        disk = LocalFileSystem(WorkspacePaths([str(world.workspace)]))
        fs = EditorFileSystem(editor, disk)
        editor.documents.subscribe(fs.on_document_event)
        yield fs
        assert editor.model.buffers == {}, "the editor kept buffers it should have saved"

    return factory


CAPABILITY_SETS = {
    "vscode": VSCODE,
    "neovim": NEOVIM,
    "no-resource-operations": replace(VSCODE, create_files=False, change_annotations=False),
    "changes-only": replace(
        VSCODE, document_changes=False, create_files=False, change_annotations=False
    ),
}


@pytest.mark.parametrize("caps", CAPABILITY_SETS, ids=str)
@pytest.mark.parametrize("case", FS_CONTRACT, ids=lambda case: case.name)
async def test_editor_provider_meets_the_contract(
    case: ContractCase, caps: str, tmp_path: Path
) -> None:
    await run_contract_case(case, editor_provider(CAPABILITY_SETS[caps]), tmp_path)
