"""The system-prompt sections that teach the model the file tools (fs_tools layer).

One section per tool, ordered right after each other (100 to 106), registered and removed with
the tools by ``FsToolsPlugin``. They say what the tool results cannot: the read-before-edit
rule, how to copy ``old_string``, when to use which search.
"""

from __future__ import annotations

from dsh_lsp.tools import PromptSection

READ_TEXT = """\
Reading: `read` shows a file as numbered lines (`12: text`); the number and `: ` are not part \
of the file. Large files come in windows: continue with the `offset` the footer gives. \
Reading a directory lists its entries. Reading outside the workspace asks the user first."""

WRITE_TEXT = """\
Creating files: `write` creates a file (and missing directories) with the exact content. \
Overwriting an existing file requires reading it first in this conversation; for changes to \
existing files prefer `edit`, which is cheaper and safer. Files outside the workspace and \
inside `.git` cannot be written."""

EDIT_TEXT = """\
Editing: `edit` replaces `old_string` with `new_string` literally. Copy `old_string` from your \
latest `read` of the file, without the line-number prefix and with the exact indentation; \
include enough surrounding lines that it occurs only once, or set `replace_all` to change \
every occurrence (renames). You must have read the file first; if it changed since (the user \
may edit too), read it again. After a successful edit or write, further edits of that file \
need no re-read. Line endings and byte-order marks are kept for you: write plain `\\n` text."""

MULTI_EDIT_TEXT = """\
Several changes to one file: `multi_edit` applies its `edits` in order as one change (all or \
nothing); each edit must match the text as the previous edits left it."""

LIST_TEXT = """\
Exploring: `list` prints a directory tree (`depth` levels, .gitignore respected). Use it to \
get oriented in an unfamiliar project before searching."""

GLOB_TEXT = """\
Finding files: `glob` matches paths against a pattern relative to `path` (`**/*.py`, \
`src/**/test_*.ts`, `*.{js,ts}`) and returns the most recently modified first."""

GREP_TEXT = """\
Searching contents: `grep` takes a Python regular expression and prints `path:line:text`; \
escape metacharacters for literal text (`foo\\(`), narrow with `path` and `glob` (`*.py` \
matches names at any depth), add `context` lines or `ignore_case` when useful. Then `read` \
the file around the reported line with `offset`."""

FS_TOOL_SECTIONS: tuple[PromptSection, ...] = (
    PromptSection(name="tool:read", order=100, text=READ_TEXT),
    PromptSection(name="tool:write", order=101, text=WRITE_TEXT),
    PromptSection(name="tool:edit", order=102, text=EDIT_TEXT),
    PromptSection(name="tool:multi_edit", order=103, text=MULTI_EDIT_TEXT),
    PromptSection(name="tool:list", order=104, text=LIST_TEXT),
    PromptSection(name="tool:glob", order=105, text=GLOB_TEXT),
    PromptSection(name="tool:grep", order=106, text=GREP_TEXT),
)
"""Every file-tool section, in prompt order."""
