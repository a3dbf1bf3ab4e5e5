"""``serve``: run the language server in a kernel until the client is done (server layer).

The process owns one asyncio event loop (``anyio.run``; pygls is asyncio-only) and one
``Kernel``. Inside the kernel's lifetime, this module opens the transport, builds the server
and runs the read loop (``pump``) as a task of its own; pygls runs each request handler as
an asyncio task on the same loop, and the agents run as kernel tasks. The loop ends on
``exit``, at end of input (a client that died), or on SIGTERM/SIGINT (Neovim's
``client:stop(true)`` sends SIGTERM; a terminal sends SIGINT), which end it exactly like the
end of input. Either way the bridge is closed before the kernel: running turns are
cancelled, open prompts answered, and every session log flushed. The exit code is 0 after
``shutdown`` + ``exit``, end of input or a stop signal, 1 for ``exit`` without ``shutdown``
(as LSP asks).
"""

from __future__ import annotations

import logging
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import anyio

from dsh_lsp.kernel import Kernel

from .boot import LoadPlugins
from .handlers import DshLanguageServer, build_server
from .wire.framing import DEFAULT_MAX_BODY
from .wire.pump import pump
from .wire.transport import Connection, open_stdio, open_tcp

_log = logging.getLogger(__name__)

STOP_SIGNALS: Final = (signal.SIGTERM, signal.SIGINT)
"""Signals that end the server like the end of its input."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TcpAddress:
    """Where ``--tcp`` listens."""

    host: str
    port: int


def serve(
    load_plugins: LoadPlugins,
    *,
    tcp: TcpAddress | None = None,
    max_message_bytes: int = DEFAULT_MAX_BODY,
) -> int:
    """Serve LSP on stdio (or one TCP client) until the client is done; returns the exit
    code. A message body over ``max_message_bytes`` is skipped unread. Raises OSError when
    the TCP address cannot be bound."""
    return anyio.run(_serve, load_plugins, tcp, max_message_bytes, backend="asyncio")


async def _serve(load_plugins: LoadPlugins, tcp: TcpAddress | None, max_message_bytes: int) -> int:
    async with Kernel() as kernel:
        server = build_server(kernel.context, load_plugins)
        if tcp is None:
            connection: Connection = await open_stdio()
        else:
            connection = await open_tcp(tcp.host, tcp.port, ready=_announce(tcp.host))
        code = await run_connection(
            server, connection, stop_signals=STOP_SIGNALS, max_message_bytes=max_message_bytes
        )
        with anyio.CancelScope(shield=True):
            await server.state.aclose()
            await connection.aclose()
    return code


def _announce(host: str) -> Callable[[int], None]:
    def ready(port: int) -> None:
        sys.stderr.write(f"dsh-lsp: listening on {host}:{port}\n")
        sys.stderr.flush()

    return ready


class _FrameWriter:
    """pygls's writer interface over a connection; closing is the connection owner's job."""

    __slots__ = ("_connection",)

    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def write(self, data: bytes) -> None:
        self._connection.write(data)

    def close(self) -> None:
        """Nothing to do here: ``serve`` closes the connection after the bridge."""


async def run_connection(
    server: DshLanguageServer,
    connection: Connection,
    *,
    stop_signals: tuple[signal.Signals, ...] = (),
    max_message_bytes: int = DEFAULT_MAX_BODY,
) -> int:
    """Pump ``connection`` into ``server`` until ``exit``, end of input or one of
    ``stop_signals`` (handled only while this runs; main thread only); the exit code."""
    protocol = server.protocol
    protocol.set_writer(_FrameWriter(connection))
    stopped = anyio.Event()

    def on_exit(code: int) -> None:
        stopped.set()

    protocol.on_exit = on_exit
    async with anyio.create_task_group() as group:

        async def read() -> None:
            await pump(connection, protocol, max_message_bytes=max_message_bytes)
            stopped.set()

        async def watch_signals() -> None:
            with anyio.open_signal_receiver(*stop_signals) as received:
                async for number in received:
                    _log.info("received %s: stopping", number.name)
                    stopped.set()
                    return

        group.start_soon(read)
        if stop_signals:
            group.start_soon(watch_signals)
        await stopped.wait()
        group.cancel_scope.cancel()
    return protocol.exit_code if protocol.exit_code is not None else 0
