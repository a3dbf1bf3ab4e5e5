"""The events of the shell layer: live output, finished background tasks, and the disk seam.

============================  =============================================  ===========
event                         payload → result                               mode
============================  =============================================  ===========
``SHELL_OUTPUT``              ``ShellOutput`` (a running command's tail)     emit
``SHELL_TASK_DONE``           ``ShellTask`` (a background command ended)     emit
``SHELL_BEFORE_RUN``          ``ShellRunIntent`` → ``tuple[str, ...]``       waterfall
``SHELL_AFTER_RUN``           ``ShellRunIntent`` (the command has ended)     emit
============================  =============================================  ===========

``SHELL_OUTPUT`` is throttled (``ShellConfig.live_interval_s``) and never logged: the tool
result is the record. ``SHELL_BEFORE_RUN`` runs before every command: a front end whose
files live in editor buffers brings the agent's unsaved edits to disk there, and returns
notes the model reads with the result (files that still differ on disk); the innermost
answer is no notes.
"""

from __future__ import annotations

from dataclasses import dataclass

from dsh_lsp.kernel import EmitEvent, WaterfallEvent
from dsh_lsp.llm import SessionId

from .executor import ShellTask


@dataclass(frozen=True, slots=True, kw_only=True)
class ShellOutput:
    """A running command's state for its tool card: the output tail and how much there is."""

    session_id: SessionId | None
    call_id: str | None
    task_id: str
    command: str
    tail: str
    total_bytes: int
    elapsed_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class ShellRunIntent:
    """A command about to run (or that just ran) for a session, in ``cwd``."""

    session_id: SessionId | None
    command: str
    cwd: str


SHELL_OUTPUT: EmitEvent[ShellOutput] = EmitEvent("shell/output")
"""A running command printed something (throttled)."""

SHELL_TASK_DONE: EmitEvent[ShellTask] = EmitEvent("shell/task-done")
"""A background command ended; its completion is injected into the owning agent."""

SHELL_BEFORE_RUN: WaterfallEvent[ShellRunIntent, tuple[str, ...]] = WaterfallEvent(
    "shell/before-run"
)
"""Before a command runs: bring buffers to disk; the answer is notes for the model."""

SHELL_AFTER_RUN: EmitEvent[ShellRunIntent] = EmitEvent("shell/after-run")
"""A command ended (files on disk may have changed)."""
