"""The editor-backed ``FS`` plugin, and the one place the server picks its provider (server).

``load_file_system`` is the choice: when the connection provided ``EDITOR`` and the client
answers ``workspace/applyEdit``, ``EditorFileSystemPlugin`` provides ``FS``; otherwise the
local provider does (direct disk writes). Never both: the service key admits one provider.

``EditorFileSystemPlugin`` (config: the local provider's ``LocalFsConfig``, for the
workspace roots and size limits; injects ``TOOLS``) provides the ``EditorFileSystem``,
subscribes it to the document mirror, records which tool call an edit belongs to
(``edit_labels``), and, when ``dsh.edits.saveAfterTurn`` is on, asks the editor to save the
agent's edits at the end of every turn (``disk_policy``). Before every shell command it
saves the agent's unsaved edits (``before_command``), since a command reads the disk.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import ClassVar

from pygls.uris import to_fs_path

from dsh_lsp.fs_tools import FS
from dsh_lsp.fs_tools.local import (
    LocalFileSystem,
    LocalFileSystemPlugin,
    LocalFsConfig,
    LocalLimits,
    WorkspacePaths,
)
from dsh_lsp.kernel import Context, Plugin, ServiceKey
from dsh_lsp.session import SESSION_EVENT, TURN_END, SessionEventNotice
from dsh_lsp.shell import SHELL_BEFORE_RUN, ShellRunIntent
from dsh_lsp.tools import TOOLS, TOOLS_POST_EXECUTE, TOOLS_PRE_EXECUTE

from .edit_events import EDITOR_EDIT
from .edit_labels import label_listeners
from .editor_connection import EditorConnection
from .file_system import EditorFileSystem

_log = logging.getLogger(__name__)


def _never() -> bool:
    return False


@dataclass(frozen=True, slots=True, kw_only=True)
class EditorSetup:
    """What the connection offers the file system: the editor, and the live settings."""

    connection: EditorConnection
    confirm_edits: Callable[[], bool] = field(default=_never)
    """Whether edits ask for confirmation (``dsh.permissions.edit`` is ``ask``)."""
    save_after_turn: Callable[[], bool] = field(default=_never)
    """Whether the editor saves the agent's edits after each turn."""


EDITOR: ServiceKey[EditorSetup] = ServiceKey("lsp-editor")
"""Provided by the language server for its connection before the plugins load."""


class EditorFileSystemPlugin(Plugin[LocalFsConfig]):
    """Provides ``FS`` through the editor; see the module docstring."""

    name: ClassVar[str] = "fs-editor"
    config_model = LocalFsConfig
    inject = (TOOLS,)

    def __init__(self, setup: EditorSetup) -> None:
        self._setup = setup

    async def apply(self, ctx: Context, config: LocalFsConfig) -> None:
        """Provide ``FS``. Raises ServiceConflictError when another provider holds it."""
        setup = self._setup
        limits = LocalLimits(
            max_read_bytes=config.max_read_bytes, max_write_bytes=config.max_write_bytes
        )
        disk = LocalFileSystem(WorkspacePaths(config.roots), limits)
        fs = EditorFileSystem(
            setup.connection,
            disk,
            max_write_bytes=config.max_write_bytes,
            around=lambda edit, send: ctx.waterfall(EDITOR_EDIT, edit, send),
        )
        ctx.effect(lambda: setup.connection.documents.subscribe(fs.on_document_event))
        before, after = label_listeners(ctx.require(TOOLS), setup.confirm_edits)
        ctx.on(TOOLS_PRE_EXECUTE, before)
        ctx.on(TOOLS_POST_EXECUTE, after)

        def on_event(notice: SessionEventNotice) -> None:
            saving = notice.event.type == TURN_END and fs.disk_sync.unsaved()
            if saving and setup.save_after_turn():
                ctx.start_soon(fs.disk_sync.save, name="dsh/saveDocuments")

        ctx.on(SESSION_EVENT, on_event)
        ctx.on(SHELL_BEFORE_RUN, before_command(fs))
        ctx.provide(FS, fs)


def before_command(
    fs: EditorFileSystem,
) -> Callable[
    [ShellRunIntent, Callable[[], Awaitable[tuple[str, ...]]]], Awaitable[tuple[str, ...]]
]:
    """The ``shell/before-run`` listener: a command reads the disk, so the agent's unsaved
    edits are saved first (``dsh/saveDocuments`` for exactly those documents, never the
    user's other dirty buffers); what stays unsaved is named in a note for the model."""

    async def listener(
        intent: ShellRunIntent, proceed: Callable[[], Awaitable[tuple[str, ...]]]
    ) -> tuple[str, ...]:
        notes = await proceed()
        if fs.disk_sync.unsaved():
            await fs.disk_sync.save()
        left = fs.disk_sync.unsaved()
        if not left:
            return notes
        paths = ", ".join(to_fs_path(uri) or uri for uri in left)
        return (
            *notes,
            "Not saved, so the command saw the old text on disk (your edits are only in the "
            f"editor): {paths}",
        )

    return listener


async def load_file_system(ctx: Context, roots: tuple[str, ...]) -> None:
    """Load the ``FS`` provider for this connection: through the editor when it can apply
    edits, else the local disk; both confined to ``roots``.

    Raises PluginFailedError / PluginConfigError (a root that is not a directory)."""
    config = {"roots": list(roots)}
    setup = ctx.get(EDITOR)
    if setup is not None and setup.connection.capabilities.apply_edit:
        await ctx.plugin(EditorFileSystemPlugin(setup), config)
    else:
        await ctx.plugin(LocalFileSystemPlugin, config)
