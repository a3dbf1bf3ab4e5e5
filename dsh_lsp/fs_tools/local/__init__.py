"""The local provider: ``FS`` over the disk with workspace confinement, and disk search.

``LocalFileSystem`` implements the ``FileSystem`` seam (atomic writes, per-target locks,
BOM and line-ending preservation, ``.git`` protection); ``WorkspacePaths`` resolves and
confines paths; ``LocalFileSearch`` implements ``FileSearch`` (``.gitignore``-aware walks,
fast grep). Each is loaded through its plugin.
"""

from __future__ import annotations

from .paths import WorkspacePaths as WorkspacePaths
from .plugin import LocalFileSystemPlugin as LocalFileSystemPlugin
from .plugin import LocalFsConfig as LocalFsConfig
from .plugin import LocalSearchConfig as LocalSearchConfig
from .plugin import LocalSearchPlugin as LocalSearchPlugin
from .provider import LocalFileSystem as LocalFileSystem
from .provider import LocalLimits as LocalLimits
from .search_service import LocalFileSearch as LocalFileSearch
from .search_service import SearchLimits as SearchLimits

__all__ = (
    "LocalFileSearch",
    "LocalFileSystem",
    "LocalFileSystemPlugin",
    "LocalFsConfig",
    "LocalLimits",
    "LocalSearchConfig",
    "LocalSearchPlugin",
    "SearchLimits",
    "WorkspacePaths",
)
