"""A process on a pseudo-terminal, for tests of what a person at a terminal sees (test kit).

``Terminal`` forks a child whose stdin, stdout and stderr are the slave side of a new pty
(its controlling terminal, so typing Ctrl-C sends SIGINT to it, as in a shell). The test
reads what the terminal shows (``read_until``), types (``keys``), and waits for the exit
status (``wait``). Output is waited for, never slept on.
"""

from __future__ import annotations

import os
import pty
import select
import signal
import time
from collections.abc import Mapping, Sequence
from types import TracebackType


class Terminal:
    """One child process on its own pty; kill it with ``close`` (or the ``with`` block)."""

    def __init__(
        self, argv: Sequence[str], *, env: Mapping[str, str], cwd: str | None = None
    ) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child: never returns
            try:
                if cwd is not None:
                    os.chdir(cwd)
                os.execve(argv[0], list(argv), dict(env))
            finally:
                os._exit(127)
        self.pid = pid
        self._fd = fd
        self._buffer = b""
        self._status: int | None = None

    @property
    def output(self) -> str:
        """Everything the terminal showed so far (``\\r\\n`` as ``\\n``)."""
        return self._buffer.decode("utf-8", "replace").replace("\r\n", "\n")

    def _pump(self, timeout: float) -> bool | None:
        """Read what is there within ``timeout``: True when something was read, None when
        nothing came, False once the child closed the pty."""
        ready, _, _ = select.select([self._fd], [], [], timeout)
        if not ready:
            return None
        try:
            data = os.read(self._fd, 65536)
        except OSError:
            return False
        self._buffer += data
        return bool(data)

    def read_until(self, text: str, timeout: float = 30, *, count: int = 1) -> str:
        """Read until ``text`` has been shown ``count`` times; the output. Raises
        AssertionError on timeout or when the child closed the terminal first."""
        deadline = time.monotonic() + timeout
        while self.output.count(text) < count:
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} never appeared; the terminal shows:\n{self.output}"
            assert self._pump(min(left, 0.5)) is not False or self.output.count(text) >= count, (
                f"the process ended before {text!r}; the terminal shows:\n{self.output}"
            )
        return self.output

    def keys(self, data: str) -> None:
        """Type ``data`` (``\\x03`` is Ctrl-C, ``\\x04`` Ctrl-D)."""
        os.write(self._fd, data.encode())

    def signal(self, number: signal.Signals) -> None:
        """Send ``number`` to the child."""
        os.kill(self.pid, number)

    def wait(self, timeout: float = 30) -> int:
        """The exit status (``-N`` for signal N), reading the output until then. Raises
        AssertionError when the child is still running after ``timeout``."""
        deadline = time.monotonic() + timeout
        closed = False
        while self._status is None:
            done, status = os.waitpid(self.pid, 0 if closed else os.WNOHANG)
            if done:
                self._status = os.waitstatus_to_exitcode(status)
                break
            left = deadline - time.monotonic()
            assert left > 0, f"still running after {timeout}s; the terminal shows:\n{self.output}"
            closed = self._pump(min(left, 0.2)) is False  # then the child is exiting
        while not closed and self._pump(0):
            pass
        return self._status

    def close(self) -> None:
        """Kill the child if it still runs, reap it, close the pty."""
        if self._status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            self._status = -9
        os.close(self._fd)

    def __enter__(self) -> Terminal:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
