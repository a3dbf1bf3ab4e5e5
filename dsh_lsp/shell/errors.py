"""ShellError: a command could not be started or found (shell layer).

A command that runs and fails is not an error: its exit code, timeout or signal is part of
the result. These codes are for the infrastructure around it.
"""

from __future__ import annotations

from typing import ClassVar

from dsh_lsp.kernel import DshError


class ShellError(DshError):
    """A shell call failed before or around the command; ``code`` says how."""

    code: ClassVar[str] = "SHELL_ERROR"


SHELL_NO_WORKSPACE = "SHELL_NO_WORKSPACE"
"""The call has no session cwd to run in."""
SHELL_BAD_WORKDIR = "SHELL_BAD_WORKDIR"
"""``workdir`` is not a directory inside the session's workspace."""
SHELL_SPAWN_FAILED = "SHELL_SPAWN_FAILED"
"""``bash`` could not be started."""
SHELL_UNKNOWN_TASK = "SHELL_UNKNOWN_TASK"
"""No task with that id belongs to this session."""
SHELL_TOO_MANY_TASKS = "SHELL_TOO_MANY_TASKS"
"""The session already runs as many background tasks as allowed."""
