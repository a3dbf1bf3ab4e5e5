"""The execution seam and its local backend: run one command into a ``ShellTask`` (shell).

``ShellExecutor.run(task)`` runs ``task.spec`` to the end and records how it ended on the
task; it never raises for the command's own failure (nonzero exit, timeout, signal) and
records a spawn failure as ``task.failure``. ``LocalExecutor`` runs ``bash -c <command>``
(``subprocess.Popen``, awaited through a pidfd and non-blocking reads):

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
import anyio.to_thread

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


class _Child:
    """A ``subprocess.Popen`` child awaited without threads: its exit through a pidfd (a
    worker thread where the platform has none), its output through ``wait_readable``.

    ``Popen`` forks with ``vfork``/``posix_spawn``, which costs a fraction of asyncio's
    subprocess transport; the shell's overhead over a bare ``subprocess.run`` is the point.
    """

    __slots__ = ("_pidfd", "popen")

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self.popen = popen
        try:
            self._pidfd: int | None = os.pidfd_open(popen.pid)
        except (AttributeError, OSError):
            self._pidfd = None

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        return self.popen.returncode

    async def wait(self) -> int:
        """Wait for the child to exit and reap it."""
        if self.popen.returncode is not None:
            return self.popen.returncode
        if self._pidfd is not None:
            await anyio.wait_readable(self._pidfd)
            return self.popen.wait()
        return await anyio.to_thread.run_sync(self.popen.wait, abandon_on_cancel=True)

    async def read(self, size: int = 65536) -> bytes:
        """The next output chunk; ``b""`` at end of output."""
        stream = self.popen.stdout
        assert stream is not None
        fd = stream.fileno()
        while True:
            try:
                return os.read(fd, size)
            except BlockingIOError:
                await anyio.wait_readable(fd)

    def close(self) -> None:
        """Close the pipe and the pidfd (the child must be reaped already)."""
        if self.popen.stdout is not None:
            self.popen.stdout.close()
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None


class LocalExecutor:
    """``bash -c`` on this machine; see the module docstring."""

    __slots__ = ("_bash",)

    def __init__(self, bash: str = "bash") -> None:
        self._bash = bash

    async def run(self, task: ShellTask) -> None:
        """See ``ShellExecutor.run``."""
        spec = task.spec
        try:
            popen = subprocess.Popen(  # noqa: ASYNC220 - spawning is quick; waiting is async
                [self._bash, "-c", spec.command],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=spec.cwd,
                env=spec.env,
                start_new_session=True,
                bufsize=0,
            )
        except OSError as exc:
            task.failure = exc.strerror or type(exc).__name__
            _finish(task)
            return
        assert popen.stdout is not None
        os.set_blocking(popen.stdout.fileno(), False)
        child = _Child(popen)
        try:
            await self._supervise(task, child)
        finally:
            with anyio.CancelScope(shield=True):
                await stop_group(child, spec.grace_s)
                child.close()
                _record_exit(task, child.returncode)
                _finish(task)

    async def _supervise(self, task: ShellTask, child: _Child) -> None:
        eof = anyio.Event()

        async def pump() -> None:
            try:
                while chunk := await child.read():
                    task.output.write(chunk)
                    task.revision += 1
            except OSError:
                pass
            finally:
                eof.set()

        async with anyio.create_task_group() as group:
            group.start_soon(pump)
            with anyio.move_on_after(task.spec.timeout_s) as timer:
                async with anyio.create_task_group() as race:

                    async def exited() -> None:
                        await child.wait()
                        race.cancel_scope.cancel()

                    async def kill_asked() -> None:
                        await task.kill_requested.wait()
                        task.killed = True
                        race.cancel_scope.cancel()

                    race.start_soon(exited)
                    race.start_soon(kill_asked)
            task.timed_out = timer.cancelled_caught
            with anyio.CancelScope(shield=True):
                await stop_group(child, task.spec.grace_s)
                with anyio.move_on_after(task.spec.grace_s + 1.0):
                    await eof.wait()  # output written after the exit, until the pipe closes
            group.cancel_scope.cancel()


class _Waitable(Protocol):
    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    async def wait(self) -> int: ...


async def stop_group(process: _Waitable, grace_s: float) -> None:
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
