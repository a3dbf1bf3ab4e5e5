"""The gate that routes reads outside the workspace to the user (fs_tools layer).

A ``tools/pre-execute`` listener: it lets the rest of the chain decide first, and when the
answer is ``Allow`` for one of the file tools that read (``read``, ``list``, ``glob``,
``grep``) and the path resolves (symlinks included) outside every workspace root, it answers
``Ask`` instead. The registry then asks the ``PERMISSIONS`` service, or refuses when nobody
can approve. Writes outside the workspace never get this far: the provider refuses them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from dsh_lsp.tools import Allow, Ask, PreToolDecision, ToolExecution

from .errors import FsError
from .filesystem import FileSystem
from .tool_support import call_cwd

READ_PATH_ARGUMENTS: Mapping[str, tuple[str, str | None]] = {
    "read": ("file_path", None),
    "list": ("path", "."),
    "glob": ("path", "."),
    "grep": ("path", "."),
}
"""Tool name → (the argument holding the path, its default when absent)."""

PreExecuteListener = Callable[
    [ToolExecution, Callable[[], Awaitable[PreToolDecision]]], Awaitable[PreToolDecision]
]


def outside_read_gate(fs: FileSystem) -> PreExecuteListener:
    """The ``tools/pre-execute`` listener described in the module docstring."""

    async def gate(
        execution: ToolExecution, next_decision: Callable[[], Awaitable[PreToolDecision]]
    ) -> PreToolDecision:
        decision = await next_decision()
        spec = READ_PATH_ARGUMENTS.get(execution.name)
        if not isinstance(decision, Allow) or spec is None:
            return decision
        name, default = spec
        args = execution.arguments
        value = args.get(name) if isinstance(args, Mapping) else None
        path = value if isinstance(value, str) and value else default
        if path is None:
            return decision  # invalid arguments: validation reports them
        try:
            target = await fs.resolve(path, cwd=call_cwd(execution))
        except FsError:
            return decision  # the tool itself reports the bad path
        if target.in_workspace:
            return decision
        return Ask(
            reason=f"{execution.name} would read {target.display_path}, outside the workspace"
        )

    return gate
