"""The gate that routes reads outside the workspace to the user (fs_tools layer).

A ``tools/pre-execute`` listener: it lets the rest of the chain decide first, and when the
answer is ``Allow`` for one of the file tools that read (``read``, ``list``, ``glob``,
``grep``) and the path resolves (symlinks included) outside every workspace root, it answers
``Ask`` instead. The registry then asks the ``PERMISSIONS`` service, or refuses when nobody
can approve. Writes outside the workspace never get this far: the provider refuses them.

Check and use the same object: the gate hands the target it resolved to the tool through
``CheckedTargets`` (keyed by call id), and the ``read`` tool reads that target instead of
resolving the path a second time, so a symlink swapped between the gate and the read cannot
turn a checked in-workspace path into an unasked outside read. The provider then verifies
that the file it opened is that target's real path.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import Final

from dsh_lsp.llm import CallId
from dsh_lsp.tools import Allow, Ask, PreToolDecision, ToolExecution

from .errors import FsError
from .filesystem import FileSystem
from .target import FsTarget
from .tool_support import call_cwd

KEPT_TARGETS: Final = 256
"""How many checked targets ``CheckedTargets`` keeps (calls refused after the check leave
theirs behind; the oldest go first)."""


class CheckedTargets:
    """The targets the gate resolved, by call id, until the tool takes them."""

    __slots__ = ("_targets",)

    def __init__(self) -> None:
        self._targets: OrderedDict[tuple[CallId, str], FsTarget] = OrderedDict()

    def put(self, call_id: CallId, path: str, target: FsTarget) -> None:
        """Keep ``target`` as what ``path`` of call ``call_id`` resolved to."""
        self._targets[(call_id, path)] = target
        while len(self._targets) > KEPT_TARGETS:
            self._targets.popitem(last=False)

    def take(self, call_id: CallId, path: str) -> FsTarget | None:
        """The target kept for this call and path (forgotten once taken), or None."""
        return self._targets.pop((call_id, path), None)


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


def outside_read_gate(fs: FileSystem, checked: CheckedTargets | None = None) -> PreExecuteListener:
    """The ``tools/pre-execute`` listener described in the module docstring; the targets it
    resolves go to ``checked``."""

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
        if checked is not None:
            checked.put(execution.call_id, path, target)
        if target.in_workspace:
            return decision
        return Ask(
            reason=f"{execution.name} would read {target.display_path}, outside the workspace"
        )

    return gate
