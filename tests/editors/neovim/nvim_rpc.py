"""A minimal msgpack-RPC client for an embedded Neovim (``nvim --embed``), for tests.

Requests are answered in order; notifications (``redraw`` and the like, sent to the UI the
test attached) are read and dropped. The process is closed with ``close``: ``qa!``, then a
wait, then a kill.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any

import msgpack  # type: ignore[import-untyped]  # msgpack ships no type information


class NvimError(Exception):
    """Neovim answered a request with an error."""


class EmbeddedNvim:
    """One ``nvim --embed`` child; owns the process (``close`` it)."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str], cwd: str) -> None:
        self._process = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=dict(env),
            cwd=cwd,
        )
        self._unpacker = msgpack.Unpacker(raw=False)
        self._next_id = 0

    def request(self, method: str, *args: Any) -> Any:  # Any: msgpack values
        """Call the API ``method``; its result. Raises NvimError, EOFError (Neovim exited)."""
        assert self._process.stdin is not None
        assert self._process.stdout is not None
        self._next_id += 1
        msgid = self._next_id
        self._process.stdin.write(msgpack.packb([0, msgid, method, list(args)]))
        self._process.stdin.flush()
        while True:
            for message in self._unpacker:
                if message[0] == 1 and message[1] == msgid:
                    if message[2] is not None:
                        raise NvimError(f"{method}: {message[2]}")
                    return message[3]
            data = os.read(self._process.stdout.fileno(), 65536)
            if not data:
                raise EOFError(f"nvim exited during {method}")
            self._unpacker.feed(data)

    def lua(self, code: str, *args: Any) -> Any:  # Any: what the Lua code returns
        """``nvim_exec_lua(code, args)``."""
        return self.request("nvim_exec_lua", code, list(args))

    def input(self, keys: str) -> None:
        """``nvim_input(keys)``: typed keys, as from a keyboard."""
        self.request("nvim_input", keys)

    def close(self) -> None:
        """Quit Neovim (killed after 10 s) and close the pipes."""
        process = self._process
        try:
            if process.poll() is None and process.stdin is not None:
                process.stdin.write(msgpack.packb([2, "nvim_input", ["<C-c><Esc>"]]))
                process.stdin.write(msgpack.packb([2, "nvim_command", ["qa!"]]))
                process.stdin.flush()
        except BrokenPipeError:
            pass
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                pipe.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
