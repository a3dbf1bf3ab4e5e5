"""The execution seam and its local backend: run one command into a ``ShellTask`` (shell).

``ShellExecutor.run(task)`` runs ``task.spec`` to the end and records how it ended on the
task; it never raises for the command's own failure (nonzero exit, timeout, signal) and
records a spawn failure as ``task.failure``. ``LocalExecutor`` runs ``bash -c <command>``
(``subprocess.Popen``, followed through a pidfd and non-blocking reads):

- in its own process group (``start_new_session``), stdin closed (``/dev/null``), stdout
  and stderr merged into one stream (as a terminal shows them), cwd and environment from
  the spec (the caller scrubs secrets: ``env.scrubbed_env``);
- until it exits, its timeout passes, or ``task.kill()`` is called; then whatever is left of
  its process group (the command itself, or children it left behind) gets SIGTERM and,
  after ``grace_s``, SIGKILL. Cancelling ``run`` does the same (shielded) before it returns.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, Protocol

import anyio
import anyio.lowlevel
import anyio.to_thread

from dsh_lsp.llm import SessionId

from .output import OutputBuffer

POLL_S: Final = 0.02
"""How often a stopping group is checked for survivors (kernel-level polling, not a test)."""
CHUNK: Final = 65536
"""Bytes read from the output pipe at a time."""
STREAK: Final = 16
"""Chunks read back to back before the reader lets the event loop run."""
EXIT_YIELDS: Final = 2
"""Times ``_Child.wait`` yields the CPU for a child that closed its output to finish exiting
(it almost always has by then) before it waits on the event loop: a loop round trip is a
good part of a short command's cost."""
KILL_SETTLE_S: Final = 1.0
"""Seconds a SIGKILLed group is given to be gone before ``stop_group`` returns anyway."""


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
    on_kill: Callable[[], None] | None = None
    """Set by the executor while the command runs: ``kill()`` calls it to stop at once."""

    @property
    def running(self) -> bool:
        """Whether the command has not ended yet."""
        return not self.done.is_set()

    def kill(self) -> None:
        """Ask the executor to stop the command (idempotent, returns at once)."""
        self.kill_requested.set()
        if self.on_kill is not None:
            self.on_kill()

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
    """A ``subprocess.Popen`` child followed from one task without threads: its output
    through non-blocking reads, its exit through a pidfd, both at once through an epoll
    set the event loop watches (where the platform has no pidfd, the exit is checked every
    ``POLL_S`` while the output is idle, and awaited in a worker thread).

    ``Popen`` forks with ``vfork``/``posix_spawn``, which costs a fraction of asyncio's
    subprocess transport; the shell's overhead over a bare ``subprocess.run`` is the point.
    """

    __slots__ = ("_either", "_fd", "_pidfd", "popen")

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self.popen = popen
        assert popen.stdout is not None
        self._fd = popen.stdout.fileno()
        os.set_blocking(self._fd, False)
        self._pidfd: int | None = None
        self._either: select.epoll | None = None
        try:
            self._pidfd = os.pidfd_open(popen.pid)
            self._either = select.epoll()
            self._either.register(self._fd, select.EPOLLIN)
            self._either.register(self._pidfd, select.EPOLLIN)
        except (AttributeError, OSError):
            self._close_watch()

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
        for _ in range(EXIT_YIELDS):  # it closed its output, so it is exiting: a moment
            code = self.popen.poll()
            if code is not None:
                return code
            os.sched_yield()
        if self._pidfd is not None:
            await anyio.wait_readable(self._pidfd)
            return self.popen.wait()
        return await anyio.to_thread.run_sync(self.popen.wait, abandon_on_cancel=True)

    async def follow(self, task: ShellTask) -> bool:
        """Copy the output into ``task.output`` until the pipe closes or the child exits,
        whichever comes first; True at the end of the output (the child may still run,
        e.g. after closing its stdout), False when the child exited first (it is reaped;
        what it left behind may still hold the pipe)."""
        fd = self._fd
        streak = 0
        while True:
            try:
                chunk = self._read_into(task)
            except OSError:  # the pipe, or the spill file of the output
                return True
            if chunk:
                streak = await _paced(streak)
                continue
            if chunk == b"":
                return True
            if self.popen.poll() is not None:
                return False
            streak = 0
            if self._either is not None:
                await anyio.wait_readable(self._either.fileno())
            else:
                with anyio.move_on_after(POLL_S):
                    await anyio.wait_readable(fd)

    async def drain(self, task: ShellTask) -> None:
        """Copy the output into ``task.output`` until the pipe closes (or cannot be read)."""
        fd = self._fd
        streak = 0
        while True:
            try:
                chunk = self._read_into(task)
            except OSError:
                return
            if chunk is None:
                streak = 0
                await anyio.wait_readable(fd)
                continue
            if not chunk:
                return
            streak = await _paced(streak)

    def _read_into(self, task: ShellTask) -> bytes | None:
        """One read of the pipe into ``task.output``: the chunk (``b""`` at the end of the
        output), None when nothing is there yet. Raises OSError when the pipe or the spill
        file of the output cannot be used."""
        try:
            chunk = os.read(self._fd, CHUNK)
        except BlockingIOError:
            return None
        if chunk:
            task.output.write(chunk)
            task.revision += 1
        return chunk

    def _close_watch(self) -> None:
        if self._either is not None:
            self._either.close()
            self._either = None
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None

    def close(self) -> None:
        """Close the pipe, the epoll set and the pidfd (the child must be reaped already)."""
        self._close_watch()
        if self.popen.stdout is not None:
            self.popen.stdout.close()


class LocalExecutor:
    """``bash -c`` on this machine; see the module docstring.

    The caller's task follows the command alone: output and exit are one wait (``_Child``),
    and the timeout and ``task.kill()`` cancel a scope around it rather than being awaited
    by tasks of their own, so a short command costs little more than its ``fork``/``exec``.
    """

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
        grace = task.spec.grace_s
        try:
            with anyio.CancelScope(deadline=anyio.current_time() + task.spec.timeout_s) as limit:
                task.on_kill = limit.cancel
                if task.kill_requested.is_set():
                    limit.cancel()
                if await child.follow(task):
                    await child.wait()  # the output ended; the exit follows
                    return
        finally:
            task.on_kill = None
        if limit.cancelled_caught and child.returncode is None:
            task.killed = task.kill_requested.is_set()
            task.timed_out = not task.killed
        # stopped, or the leader exited first: stop what is left of its group, then take
        # the output until the pipe closes (a survivor outside the group may hold it)
        with anyio.CancelScope(shield=True):
            await stop_group(child, grace)
            with anyio.move_on_after(grace + 1.0):
                await child.drain(task)


class _Waitable(Protocol):
    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    async def wait(self) -> int: ...


async def stop_group(process: _Waitable, grace_s: float) -> None:
    """SIGTERM the process group led by ``process``; SIGKILL what is left after ``grace_s``.

    Returns once the leader is reaped and no member of the group is alive (members that
    died but wait to be reaped by ``init``, zombies, count as gone: only ``init`` can reap
    them), or at most ``KILL_SETTLE_S`` after the SIGKILL. Never raises.
    """
    pid = process.pid
    if not _signal_group(pid, signal.SIGTERM):
        if process.returncode is None:
            await process.wait()
        return
    with anyio.move_on_after(grace_s):
        await process.wait()
        while group_alive(pid):  # noqa: ASYNC110 - no event tells when a group is empty
            await anyio.sleep(POLL_S)
        return
    _signal_group(pid, signal.SIGKILL)
    await process.wait()
    with anyio.move_on_after(KILL_SETTLE_S):
        while group_alive(pid):  # noqa: ASYNC110 - as above
            await anyio.sleep(POLL_S)


def group_alive(pgid: int) -> bool:
    """Whether the process group ``pgid`` has a member that is not a zombie.

    Signal 0 says whether the group exists at all; when it does, ``/proc`` tells the living
    from the zombies (orphans reparented to ``init`` stay in the group until it reaps them).
    Without ``/proc`` an existing group counts as alive. Never raises.
    """
    if not _signal_group(pgid, 0):
        return False
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) >= 3 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False


def _signal_group(pid: int, signum: int) -> bool:
    """Send ``signum`` to the group ``pid``; False when the group no longer exists."""
    try:
        os.killpg(pid, signum)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False
    return True


async def _paced(streak: int) -> int:
    """The count of chunks read in a row, one more; at ``STREAK`` a checkpoint lets the
    event loop run (a flood of output must not starve it) and the count starts again."""
    streak += 1
    if streak >= STREAK:
        await anyio.lowlevel.checkpoint()
        return 0
    return streak


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
