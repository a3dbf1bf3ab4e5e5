"""ShellTasks: every command of this kernel, its live updates and its completion (shell).

``start`` creates a background ``ShellTask`` and runs it through the ``ShellExecutor`` as a
task of the shell plugin's fiber; ``run`` runs one in the caller's task (a foreground call).
Unloading the plugin stops every command either way (``close`` kills them). While commands
run, one throttled loop for all of them (``_tick``) emits ``SHELL_OUTPUT`` for each with new
output. A background task's end is announced on ``SHELL_TASK_DONE`` and injected into the
owning session's agent (when the ``AGENTS`` registry is there) as context the model reads at
its next step.
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass
from typing import Final

import anyio

from dsh_lsp.agent import AGENTS, AgentId
from dsh_lsp.kernel import Context
from dsh_lsp.llm import SessionId

from .config import ShellConfig
from .errors import SHELL_TOO_MANY_TASKS, SHELL_UNKNOWN_TASK, ShellError
from .events import SHELL_OUTPUT, SHELL_TASK_DONE, ShellOutput
from .executor import ShellExecutor, ShellSpec, ShellTask
from .output import OutputBuffer

_log = logging.getLogger(__name__)

LINGER_TICKS: Final = 8
"""Live-output intervals the ticker keeps running after the last command ended."""


@dataclass(slots=True, kw_only=True, eq=False)
class _Live:
    """A running command the ticker follows: when it is due next, the revision it showed."""

    task: ShellTask
    due: float
    seen: int = 0


class ShellTasks:
    """See the module docstring. Built by ``ShellPlugin``."""

    __slots__ = (
        "_config",
        "_ctx",
        "_executor",
        "_idle",
        "_ids",
        "_live",
        "_tasks",
        "_ticking",
        "_wake",
    )

    def __init__(self, ctx: Context, executor: ShellExecutor, config: ShellConfig) -> None:
        self._ctx = ctx
        self._executor = executor
        self._config = config
        self._tasks: dict[str, ShellTask] = {}
        self._ids = itertools.count(1)
        self._live: dict[str, _Live] = {}
        self._ticking = False
        self._idle = False
        self._wake = anyio.Event()

    def start(
        self, spec: ShellSpec, *, session_id: SessionId | None, call_id: str | None
    ) -> ShellTask:
        """Start ``spec`` as a background task of the shell plugin's fiber; returns its task
        at once (its end is announced, see the module docstring). Raises ShellError
        (``SHELL_TOO_MANY_TASKS``) when the session's background tasks are at the limit."""
        running = [
            t
            for t in self._tasks.values()
            if t.background and t.running and t.session_id == session_id
        ]
        if len(running) >= self._config.max_background_tasks:
            raise ShellError(
                f"{len(running)} background commands are running already; wait for one "
                "or stop one with bash_kill",
                code=SHELL_TOO_MANY_TASKS,
            )
        task = self._new(spec, session_id=session_id, call_id=call_id, background=True)
        self._ctx.start_soon(self._run, task, name=f"shell {task.id}")
        return task

    async def run(
        self, spec: ShellSpec, *, session_id: SessionId | None, call_id: str | None
    ) -> ShellTask:
        """Run ``spec`` in the caller's task to its end; returns the ended task.

        Cancelling the caller stops the command (its whole group) before the cancellation
        propagates, and forgets the task. Never raises otherwise.
        """
        task = self._new(spec, session_id=session_id, call_id=call_id, background=False)
        try:
            await self._run(task)
        except anyio.get_cancelled_exc_class():
            self.forget(task)
            raise
        return task

    def _new(
        self,
        spec: ShellSpec,
        *,
        session_id: SessionId | None,
        call_id: str | None,
        background: bool,
    ) -> ShellTask:
        task = ShellTask(
            id=f"bash_{next(self._ids)}",
            spec=spec,
            session_id=session_id,
            call_id=call_id,
            background=background,
            output=OutputBuffer(self._config.output_cap_bytes),
        )
        self._tasks[task.id] = task
        return task

    def get(self, task_id: str, session_id: SessionId | None) -> ShellTask:
        """The task ``task_id`` of this session. Raises ShellError (``SHELL_UNKNOWN_TASK``)."""
        task = self._tasks.get(task_id)
        if task is None or task.session_id != session_id:
            raise ShellError(f"no command {task_id!r} in this session", code=SHELL_UNKNOWN_TASK)
        return task

    def forget(self, task: ShellTask) -> None:
        """Drop a finished task and its spill file."""
        if not task.running:
            self._tasks.pop(task.id, None)
            task.output.close()

    def close(self) -> None:
        """Stop every command and delete every spill file (the plugin is unloading)."""
        for task in self._tasks.values():
            task.kill()
            task.output.close()
        self._tasks.clear()

    async def _run(self, task: ShellTask) -> None:
        self._follow(task)
        try:
            await self._executor.run(task)
        finally:
            self._live.pop(task.id, None)
        if task.background:
            self._announce(task)

    def _follow(self, task: ShellTask) -> None:
        """Have the ticker show ``task``'s output from ``live_interval_s`` after its start."""
        due = anyio.current_time() + self._config.live_interval_s
        self._live[task.id] = _Live(task=task, due=due)
        if not self._ticking:
            self._ticking = True
            self._ctx.start_soon(self._tick, name="shell live output")
        elif self._idle:
            self._wake.set()

    async def _tick(self) -> None:
        """One loop for every running command's live output (a task per command would cost
        a short command more than its output reader): sleeps until the earliest due
        command and emits ``SHELL_OUTPUT`` for each due one with new output. With no
        command running it keeps ticking for ``LINGER_TICKS`` intervals (a command right
        after another costs it nothing), then waits until the next command wakes it. A new
        command is never due before the ones already followed."""
        interval = self._config.live_interval_s
        idle_ticks = 0
        while True:
            if not self._live:
                if idle_ticks >= LINGER_TICKS:
                    self._wake = anyio.Event()
                    self._idle = True
                    await self._wake.wait()
                    self._idle = False
                    idle_ticks = 0
                else:
                    idle_ticks += 1
                    await anyio.sleep(interval)
                continue
            idle_ticks = 0
            now = anyio.current_time()
            due = min(live.due for live in self._live.values())
            if due > now:
                await anyio.sleep(due - now)
                now = anyio.current_time()
            for live in list(self._live.values()):
                if live.due > now:
                    continue
                live.due = now + interval
                task = live.task
                if task.revision != live.seen and task.running:
                    live.seen = task.revision
                    self._emit_output(task)

    def _emit_output(self, task: ShellTask) -> None:
        self._ctx.emit_contained(
            SHELL_OUTPUT,
            ShellOutput(
                session_id=task.session_id,
                call_id=task.call_id,
                task_id=task.id,
                command=task.spec.command,
                tail=task.output.tail(self._config.live_tail_chars),
                total_bytes=task.output.total,
                elapsed_s=task.elapsed(),
            ),
        )

    def _announce(self, task: ShellTask) -> None:
        self._ctx.emit_contained(SHELL_TASK_DONE, task)
        agents = self._ctx.get(AGENTS)
        if agents is None or task.session_id is None:
            return
        agent = agents.get(AgentId(task.session_id))
        if agent is None or agent.status == "disposed":
            return
        text = (
            f"<background-task-done id={task.id}>\nThe background command `{task.spec.command}` "
            f"ended after {task.elapsed():.1f}s: {task.status_line()} "
            f"({task.output.total} bytes of output; read it with bash_output "
            f'{{"task_id": "{task.id}"}}).\n</background-task-done>'
        )
        try:
            agent.inject(text)
        except Exception:
            _log.warning("could not inject the end of %s", task.id, exc_info=True)
