"""``dsh-lsp demo``: a whole agent turn offline, scripted with the shipped test kit (cli layer).

``demo_plan`` is what the demo runs: ``notes.md`` open and changed (unsaved) in the client,
and a scripted model that reads the file, searches the workspace, edits the file, and
answers. ``dsh_lsp.server.demo.run_demo`` plays it against the real server, a scripted model
server and an LSP client; ``run_demo_command`` exits 0 when the turn ended normally and
edited the file. This is the one production module that imports ``dsh_lsp.testing`` (the
import contract allows exactly this edge).
"""

from __future__ import annotations

import json
import sys
from functools import partial

import anyio

from dsh_lsp.server.demo import DemoPlan, run_demo
from dsh_lsp.testing import ToolCallSpec, completion, script_to_json, wire_usage

DEMO_NOTES = """# Release checklist

- [x] bump the version
- [ ] TODO: write the release notes
- [ ] tag the release
"""


def demo_plan() -> DemoPlan:
    """What ``dsh-lsp demo`` runs (see the module docstring)."""
    usage = wire_usage(prompt=1200, completion=60, cached=800)
    edit = {
        "file_path": "notes.md",
        "old_string": "- [ ] TODO: write the release notes",
        "new_string": "- [x] write the release notes",
    }
    answers = [
        completion(
            reasoning="The user wants the release-notes item checked off. Read the file first.",
            text="Let me look at notes.md.",
            tool_calls=[
                ToolCallSpec(id="call_read", name="read", arguments='{"file_path":"notes.md"}')
            ],
            usage=usage,
        ),
        completion(
            text="Any other TODOs in the workspace?",
            tool_calls=[
                ToolCallSpec(id="call_grep", name="grep", arguments='{"pattern":"TODO","path":"."}')
            ],
            usage=usage,
        ),
        completion(
            tool_calls=[ToolCallSpec(id="call_edit", name="edit", arguments=json.dumps(edit))],
            usage=usage,
        ),
        completion(
            text="Done: the release-notes item in notes.md is checked off; it was the only TODO.",
            usage=usage,
        ),
    ]
    return DemoPlan(
        files={"notes.md": DEMO_NOTES},
        open_file="notes.md",
        unsaved_edit=("# Release checklist", "# Release checklist (v0.1)"),
        prompt="Mark the release-notes TODO in notes.md as done.",
        script=script_to_json(answers),
    )


def run_demo_command(*, keep: bool) -> int:
    """Run the demo, printing to stdout; the exit status (``run_demo``'s)."""
    return anyio.run(partial(run_demo, demo_plan(), sys.stdout, keep=keep), backend="asyncio")
