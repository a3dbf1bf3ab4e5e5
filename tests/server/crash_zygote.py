"""A fork server for the crash kit: imports dsh-lsp once, then forks one server per trial.

Run as ``python crash_zygote.py <fd>`` with ``<fd>`` one end of a Unix ``SOCK_SEQPACKET``
socket pair. Each request on it is one message, a JSON object (the server's environment)
sent with three file descriptors (the child's stdin, stdout and stderr). The zygote forks;
the child puts the descriptors on 0, 1 and 2, takes the environment, and runs
``dsh_lsp.__main__.main([])`` — the same code ``python -m dsh_lsp`` runs, minus the ~1 s
of imports that would otherwise dominate every trial. The zygote answers each request with
the child's pid (one message); children are reaped automatically (SIGCHLD ignored). The
zygote exits when the socket closes.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys


def _preload() -> None:
    """Import everything a server imports before and after ``initialize``."""
    import dsh_lsp.__main__
    import dsh_lsp.app
    import dsh_lsp.fs_tools
    import dsh_lsp.llm.deepseek
    import dsh_lsp.server
    import dsh_lsp.server.serve
    import dsh_lsp.session

    del dsh_lsp


def _child(fds: list[int], env: dict[str, str]) -> None:
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.environ.clear()
    os.environ.update(env)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    from dsh_lsp.__main__ import main

    code = 1
    try:
        code = main([])
    finally:
        sys.stdout.flush()
        os._exit(code)


def serve(fd: int) -> None:
    """Answer spawn requests on the socket ``fd`` until it closes."""
    _preload()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    channel = socket.socket(fileno=fd)
    while True:
        data, fds, _, _ = socket.recv_fds(channel, 1 << 20, 3)
        if not data:
            return
        env = json.loads(data)
        pid = os.fork()
        if pid == 0:
            channel.close()
            _child(list(fds), env)
        for received in fds:
            os.close(received)
        channel.sendall(str(pid).encode())


if __name__ == "__main__":
    serve(int(sys.argv[1]))
