"""File tools: the FileSystem seam, its local provider, the policy plugin and the file tools.

Four layers, each replaceable on its own:

- the seam: ``FileSystem`` (service ``FS``) with its vocabulary (``FsTarget``, ``FsInfo``,
  guards, outcomes, ``FsError`` codes), the ``fs/*`` events, and ``FileSearch``
  (service ``FS_SEARCH``) for bulk discovery; pure text rules (``text``, ``literal_edit``,
  ``diff`` (the one diff engine), ``gitignore``, ``globpattern``) every provider shares;
- the provider: ``dsh_lsp.fs_tools.local`` (``LocalFileSystemPlugin``, ``LocalSearchPlugin``);
- the policy: ``FsPolicyPlugin`` (read-before-edit, compare-and-swap per session);
- the tools: ``FsToolsPlugin`` registers read, write, edit, multi_edit, list, glob and grep,
  their prompt sections, and the gate that asks before reading outside the workspace.
"""

from __future__ import annotations

from .diff import DiffHunk as DiffHunk
from .diff import TextDiff as TextDiff
from .diff import TextHunk as TextHunk
from .diff import apply_hunks as apply_hunks
from .diff import diff_texts as diff_texts
from .diff import hunk_from_json as hunk_from_json
from .diff import hunk_to_json as hunk_to_json
from .diff import render_unified as render_unified
from .errors import FS_CODES as FS_CODES
from .errors import FsCode as FsCode
from .errors import FsError as FsError
from .events import FS_EDIT_INTENT as FS_EDIT_INTENT
from .events import FS_OBSERVED as FS_OBSERVED
from .events import FS_WRITE_INTENT as FS_WRITE_INTENT
from .events import FsIntent as FsIntent
from .events import FsObservation as FsObservation
from .filesystem import FS as FS
from .filesystem import FileSystem as FileSystem
from .gitignore import IgnoreRules as IgnoreRules
from .gitignore import IgnoreStack as IgnoreStack
from .gitignore import parse_gitignore as parse_gitignore
from .globpattern import compile_glob as compile_glob
from .globpattern import glob_to_regex as glob_to_regex
from .guards import CreateIfAbsent as CreateIfAbsent
from .guards import ExpectVersion as ExpectVersion
from .guards import LiteralEdit as LiteralEdit
from .guards import ReplaceIfVersion as ReplaceIfVersion
from .guards import WriteGuard as WriteGuard
from .literal_edit import EditApplication as EditApplication
from .literal_edit import apply_literal_edits as apply_literal_edits
from .outcomes import FsEditOutcome as FsEditOutcome
from .outcomes import FsWriteOutcome as FsWriteOutcome
from .plugin import FS_TOOL_FACTORIES as FS_TOOL_FACTORIES
from .plugin import FsToolsPlugin as FsToolsPlugin
from .policy import FS_OBSERVATIONS as FS_OBSERVATIONS
from .policy import FsPolicyPlugin as FsPolicyPlugin
from .policy import ObservedVersions as ObservedVersions
from .read_window import Window as Window
from .read_window import WindowLimits as WindowLimits
from .read_window import build_window as build_window
from .regex_literal import required_literal as required_literal
from .search import FS_SEARCH as FS_SEARCH
from .search import EntryKind as EntryKind
from .search import FileSearch as FileSearch
from .search import GlobQuery as GlobQuery
from .search import GlobReport as GlobReport
from .search import GrepFile as GrepFile
from .search import GrepLine as GrepLine
from .search import GrepQuery as GrepQuery
from .search import GrepReport as GrepReport
from .search import TreeEntry as TreeEntry
from .search import TreeQuery as TreeQuery
from .search import TreeReport as TreeReport
from .target import FileType as FileType
from .target import FsDirEntry as FsDirEntry
from .target import FsInfo as FsInfo
from .target import FsTarget as FsTarget
from .text import Document as Document
from .tool_prompts import FS_TOOL_SECTIONS as FS_TOOL_SECTIONS
from .tool_support import shown as shown_path
from .tools_config import FsToolsConfig as FsToolsConfig

__all__ = (
    "FS",
    "FS_CODES",
    "FS_EDIT_INTENT",
    "FS_OBSERVATIONS",
    "FS_OBSERVED",
    "FS_SEARCH",
    "FS_TOOL_FACTORIES",
    "FS_TOOL_SECTIONS",
    "FS_WRITE_INTENT",
    "CreateIfAbsent",
    "DiffHunk",
    "Document",
    "EditApplication",
    "EntryKind",
    "ExpectVersion",
    "FileSearch",
    "FileSystem",
    "FileType",
    "FsCode",
    "FsDirEntry",
    "FsEditOutcome",
    "FsError",
    "FsInfo",
    "FsIntent",
    "FsObservation",
    "FsPolicyPlugin",
    "FsTarget",
    "FsToolsConfig",
    "FsToolsPlugin",
    "FsWriteOutcome",
    "GlobQuery",
    "GlobReport",
    "GrepFile",
    "GrepLine",
    "GrepQuery",
    "GrepReport",
    "IgnoreRules",
    "IgnoreStack",
    "LiteralEdit",
    "ObservedVersions",
    "ReplaceIfVersion",
    "TextDiff",
    "TextHunk",
    "TreeEntry",
    "TreeQuery",
    "TreeReport",
    "Window",
    "WindowLimits",
    "WriteGuard",
    "apply_hunks",
    "apply_literal_edits",
    "build_window",
    "compile_glob",
    "diff_texts",
    "glob_to_regex",
    "hunk_from_json",
    "hunk_to_json",
    "parse_gitignore",
    "render_unified",
    "required_literal",
    "shown_path",
)
