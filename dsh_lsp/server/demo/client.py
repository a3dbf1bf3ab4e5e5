"""The demo's LSP client: a failing handler stops the demo instead of a hang (server layer).

pygls only logs an exception raised in a client handler and goes on, so ``dsh-lsp demo``
could report success with broken output, or wait for an answer that never comes.
``DemoClient`` keeps the first such failure; ``until_failure`` runs the demo until it
finishes or a handler fails (``DemoFailedError``); ``stop_demo_client`` ends the client and
the server in every case, giving a server that still runs end of input (it stops its turn,
flushes its logs and exits) and killing it if it does not exit in time.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Final

import anyio
from pygls.exceptions import JsonRpcException, PyglsError
from pygls.lsp.client import LanguageClient

from dsh_lsp.server.wire.converter import dict_params_converter

STOP_TIMEOUT: Final = 10.0
"""Seconds the server gets to exit after end of input before it is killed."""


class DemoFailedError(Exception):
    """The demo client failed (one of its handlers raised)."""


class DemoClient(LanguageClient):
    """pygls's client, except that a failing handler stops the demo instead of being only
    logged: the first failure is kept and ``failed`` is set."""

    def __init__(self) -> None:
        super().__init__("dsh-lsp-demo", "1", converter_factory=dict_params_converter)
        self.failure: Exception | None = None
        self.failed = anyio.Event()

    def report_server_error(
        self, error: Exception, source: type[PyglsError] | type[JsonRpcException]
    ) -> None:
        """Keep the first failure and wake the demo, which stops."""
        if self.failure is None:
            self.failure = error
            self.failed.set()


async def until_failure(client: DemoClient, drive: Awaitable[int]) -> int:
    """The result of ``drive``, unless a client handler fails first. Raises
    DemoFailedError then (``drive`` is cancelled)."""
    result: list[int] = []
    async with anyio.create_task_group() as group:

        async def run() -> None:
            result.append(await drive)
            group.cancel_scope.cancel()

        async def watch() -> None:
            await client.failed.wait()
            group.cancel_scope.cancel()

        group.start_soon(run)
        group.start_soon(watch)
    if client.failure is not None:
        raise DemoFailedError(f"the demo client failed: {client.failure}")
    return result[0]


async def stop_demo_client(client: LanguageClient) -> None:
    """Stop the client and the server: a server still running gets end of input (it ends
    its turn, flushes and exits) and is killed if it has not exited within ``STOP_TIMEOUT``."""
    server = client._server
    if server is not None and server.returncode is None:
        if server.stdin is not None:
            server.stdin.close()
        with anyio.move_on_after(STOP_TIMEOUT):
            await server.wait()
        if server.returncode is None:
            server.kill()
    if not client.stopped:
        await client.stop()  # type: ignore[no-untyped-call]  # pygls is untyped here
