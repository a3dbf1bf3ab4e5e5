"""FsToolsConfig: the limits of the model-facing file tools (fs_tools layer).

Every bound the tools enforce is a field here; the constants in the code are only these
defaults. Workspace roots are not here: confinement belongs to the ``FS`` provider
(``LocalFsConfig.roots``), and the tools follow whatever provider is loaded.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class FsToolsConfig(BaseModel):
    """Limits of ``read``, ``edit``/``multi_edit``, ``list``, ``glob`` and ``grep``.

    ``read_limit``: lines per read (default and maximum of ``limit``); ``read_max_line_chars``:
    longer lines are truncated; ``read_max_bytes``: UTF-8 bytes of one read's lines;
    ``read_stream_min_bytes``: files this large are streamed, not loaded whole.
    ``edit_echo_lines``: updated lines an edit result quotes at most.
    ``list_depth`` / ``list_max_depth`` / ``list_max_entries``: the tree listing's default and
    largest depth and its entry cap. ``glob_max_results``: paths a glob returns.
    ``grep_max_matches``: matching lines a grep returns; ``grep_max_context``: largest
    ``context``; ``grep_max_bytes``: size of one grep's output.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    read_limit: int = Field(default=2000, ge=1)
    read_max_line_chars: int = Field(default=2000, ge=20)
    read_max_bytes: int = Field(default=51200, ge=1024)
    read_stream_min_bytes: int = Field(default=10 << 20, ge=1)
    edit_echo_lines: int = Field(default=40, ge=0)
    list_depth: int = Field(default=2, ge=1)
    list_max_depth: int = Field(default=8, ge=1)
    list_max_entries: int = Field(default=500, ge=1)
    glob_max_results: int = Field(default=100, ge=1)
    grep_max_matches: int = Field(default=100, ge=1)
    grep_max_context: int = Field(default=10, ge=0)
    grep_max_bytes: int = Field(default=51200, ge=1024)
