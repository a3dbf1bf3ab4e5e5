"""The execution seam and its local backend: run one command into a ``ShellTask`` (shell).

``ShellExecutor.run(task)`` runs ``task.spec`` to the end and records how it ended on the
task; it never raises for the command's own failure (nonzero exit, timeout, signal) and
records a spawn failure as ``task.failure``. ``LocalExecutor`` runs ``bash -c <command>``:

- in its own process group (``start_new_session``), stdin closed (``/dev/null``), stdout
  and stderr merged into one stream (as a terminal shows them), cwd and environment from
  the spec (the caller scrubs secrets: ``env.scrubbed_env``);
- until it exits, its timeout passes, or ``task.kill()`` is called; then whatever is left of
  its process group (the command itself, or children it left behind) gets SIGTERM and,
  after ``grace_s``, SIGKILL. Cancelling ``run`` does the same (shielded) before it returns.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from typing import Final, Protocol

import anyio
from anyio.abc import Process

from dsh_lsp.llm import SessionId

from .output import OutputBuffer

POLL_S: Final = 0.02
"""How often a stopping group is checked for survivors (kernel-level polling, not a test)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ShellSpec:
    """One command to run: what, where, with which environment and limits."""

    command: str
    cwd: str
    env: dict[str, str]
    timeout_s: float
    grace_s: float


@dataclass(slots=True, kw_only=True, eq=False)
class ShellTask:
    """One command's live state. The executor writes it; tools and UIs read it.

    ``exit_code`` is the command's exit status (None while running or when it died of a
    signal, then ``signal`` names it); ``timed_out`` / ``killed`` say the executor stopped
    it; ``failure`` says it never ran. ``revision`` grows with every output chunk.
    """

    id: str
    spec: ShellSpec
    session_id: SessionId | None
    output: OutputBuffer
    call_id: str | None = None
    background: bool = False
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None
    exit_code: int | None = None
    signal: str | None = None
    timed_out: bool = False
    killed: bool = False
    failure: str | None = None
    revision: int = 0
    done: anyio.Event = field(default_factory=anyio.Event)
    kill_requested: anyio.Event = field(default_factory=anyio.Event)

    @property
    def running(self) -> bool:
        """Whether the command has not ended yet."""
        return not self.done.is_set()

    def kill(self) -> None:
        """Ask the executor to stop the command (idempotent, returns at once)."""
        self.kill_requested.set()

    def elapsed(self) -> float:
        """Seconds since the task started (until it ended)."""
        return (self.ended or time.monotonic()) - self.started

    def status_line(self) -> str:
        """How the command ended, as the markers the model reads (empty while running)."""
        if self.running:
            return f"[still running after {self.elapsed():.1f}s]"
        if self.failure is not None:
            return f"[could not run: {self.failure}]"
        marks = []
        if self.timed_out:
            marks.append(f"[timed out after {self.spec.timeout_s:g}s]")
        if self.killed:
            marks.append("[stopped on request]")
        if self.signal is not None:
            marks.append(f"[killed by signal: {self.signal}]")
        if self.exit_code is not None:
            marks.append(f"[exit code: {self.exit_code}]")
        return " ".join(marks)


class ShellExecutor(Protocol):
    """Runs commands; see the module docstring."""

    async def run(self, task: ShellTask) -> None:
        """Run ``task.spec`` to its end, recording output and outcome on ``task`` and
        setting ``task.done``. Never raises but for cancellation (after stopping the
        command)."""
        ...


class LocalExecutor:
    """``bash -c`` on this machine; see the module docstring."""

    __slots__ = ("_bash",)

    def __init__(self, bash: str = "bash") -> None:
        self._bash = bash

    async def run(self, task: ShellTask) -> None:
        """See ``ShellExecutor.run``."""
        spec = task.spec
        try:
            process = await anyio.open_process(
                [self._bash, "-c", spec.command],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=spec.cwd,
                env=spec.env,
                start_new_session=True,
            )
        except OSError as exc:
            task.failure = exc.strerror or type(exc).__name__
            _finish(task)
            return
        try:
            await self._supervise(task, process)
        finally:
            with anyio.CancelScope(shield=True):
                await stop_group(process, spec.grace_s)
                await process.aclose()
                _record_exit(task, process.returncode)
                _finish(task)

    async def _supervise(self, task: ShellTask, process: Process) -> None:
        eof = anyio.Event()

        async def pump() -> None:
            stream = process.stdout
            assert stream is not None
            try:
                async for chunk in stream:
                    task.output.write(chunk)
                    task.revision += 1
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                pass
            finally:
                eof.set()

        async with anyio.create_task_group() as group:
            group.start_soon(pump)
            with anyio.move_on_after(task.spec.timeout_s) as timer:
                async with anyio.create_task_group() as race:

                    async def exited() -> None:
                        await process.wait()
                        race.cancel_scope.cancel()

                    async def kill_asked() -> None:
                        await task.kill_requested.wait()
                        task.killed = True
                        race.cancel_scope.cancel()

                    race.start_soon(exited)
                    race.start_soon(kill_asked)
            task.timed_out = timer.cancelled_caught
            with anyio.CancelScope(shield=True):
                await stop_group(process, task.spec.grace_s)
                with anyio.move_on_after(task.spec.grace_s + 1.0):
                    await eof.wait()  # output written after the exit, until the pipe closes
            group.cancel_scope.cancel()


async def stop_group(process: Process, grace_s: float) -> None:
    """SIGTERM the process group led by ``process``; SIGKILL what is left after ``grace_s``.

    Returns once the leader is reaped and no member is left (or after the SIGKILL).
    Never raises.
    """
    pid = process.pid
    if not _signal_group(pid, signal.SIGTERM):
        if process.returncode is None:
            await process.wait()
        return
    with anyio.move_on_after(grace_s):
        await process.wait()
        while _signal_group(pid, 0):  # noqa: ASYNC110 - no event tells when a group is empty
            await anyio.sleep(POLL_S)
        return
    _signal_group(pid, signal.SIGKILL)
    await process.wait()


def _signal_group(pid: int, signum: int) -> bool:
    """Send ``signum`` to the group ``pid``; False when the group no longer exists."""
    try:
        os.killpg(pid, signum)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False
    return True


def _record_exit(task: ShellTask, returncode: int | None) -> None:
    if task.failure is not None or returncode is None:
        return
    if returncode < 0:
        try:
            task.signal = signal.Signals(-returncode).name
        except ValueError:
            task.signal = str(-returncode)
    else:
        task.exit_code = returncode


def _finish(task: ShellTask) -> None:
    if task.ended is None:
        task.ended = time.monotonic()
    task.done.set()
