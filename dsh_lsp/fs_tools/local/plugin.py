"""Plugins of the local provider: ``FS`` over the disk, and disk-backed ``FS_SEARCH`` (fs_tools).

``LocalFileSystemPlugin`` provides ``FS`` confined to its workspace roots. An editor-backed
provider replaces it (never both: the service key admits one provider). ``LocalSearchPlugin``
injects whichever ``FS`` is loaded and provides ``FS_SEARCH`` over the disk, so search keeps
working when the provider changes.
"""

from __future__ import annotations

import os
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from dsh_lsp.fs_tools.filesystem import FS
from dsh_lsp.fs_tools.search import FS_SEARCH
from dsh_lsp.kernel import Context, Plugin

from .paths import WorkspacePaths
from .provider import LocalFileSystem, LocalLimits
from .search_service import LocalFileSearch, SearchLimits


class LocalFsConfig(BaseModel):
    """Config of ``LocalFileSystemPlugin``.

    ``roots``: the workspace directories writes are confined to (the first is the default cwd;
    default: the process's working directory). ``max_read_bytes``: largest file ``read_text``
    returns whole. ``max_write_bytes``: largest file written or edited.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    roots: tuple[str, ...] = Field(default_factory=lambda: (os.getcwd(),), min_length=1)
    max_read_bytes: int = Field(default=32 << 20, gt=0)
    max_write_bytes: int = Field(default=32 << 20, gt=0)

    @field_validator("roots")
    @classmethod
    def _existing_directories(cls, roots: tuple[str, ...]) -> tuple[str, ...]:
        for root in roots:
            if "\0" in root or not os.path.isdir(os.path.expanduser(root)):
                raise ValueError(f"workspace root {root!r} is not an existing directory")
        return roots


class LocalFileSystemPlugin(Plugin[LocalFsConfig]):
    """Provides ``FS`` as a ``LocalFileSystem`` over ``config.roots``."""

    name: ClassVar[str] = "fs-local"
    config_model = LocalFsConfig

    async def apply(self, ctx: Context, config: LocalFsConfig) -> None:
        """Provide ``FS``. Raises ServiceConflictError when another provider holds it."""
        limits = LocalLimits(
            max_read_bytes=config.max_read_bytes, max_write_bytes=config.max_write_bytes
        )
        ctx.provide(FS, LocalFileSystem(WorkspacePaths(config.roots), limits))


class LocalSearchConfig(BaseModel):
    """Config of ``LocalSearchPlugin``: grep's per-file size limit, parallel scans, batch size
    and the length at which printed lines are clipped."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_file_bytes: int = Field(default=8 << 20, gt=0)
    workers: int = Field(default=2, ge=1, le=32)
    batch_files: int = Field(default=256, ge=1)
    max_line_chars: int = Field(default=300, ge=20)


class LocalSearchPlugin(Plugin[LocalSearchConfig]):
    """Provides ``FS_SEARCH`` over the disk, resolving paths through the loaded ``FS``."""

    name: ClassVar[str] = "fs-search-local"
    config_model = LocalSearchConfig
    inject = (FS,)

    async def apply(self, ctx: Context, config: LocalSearchConfig) -> None:
        """Provide ``FS_SEARCH``. Raises ServiceConflictError when it is already provided."""
        limits = SearchLimits(
            max_file_bytes=config.max_file_bytes,
            batch_files=config.batch_files,
            workers=config.workers,
            max_line_chars=config.max_line_chars,
        )
        ctx.provide(FS_SEARCH, LocalFileSearch(ctx.require(FS), limits))
