"""``serve``: run the language server in a kernel until the client is done (server layer).

The process owns one asyncio event loop (``anyio.run``; pygls is asyncio-only) and one
``Kernel``. Inside the kernel's lifetime, this module opens the transport, builds the server
and runs the read loop (``wire.pump``) as a task of its own; pygls runs each request handler as
an asyncio task on the same loop, and the agents run as kernel tasks. The loop ends on
``exit``, at end of input (a client that died), or on SIGTERM/SIGINT (Neovim's
``client:stop(true)`` sends SIGTERM; a terminal sends SIGINT), which end it exactly like the
end of input. Either way the bridge is closed before the kernel: running turns are
cancelled, open prompts answered, and every session log flushed. The exit code is 0 after
``shutdown`` + ``exit``, end of input or a stop signal, 1 for ``exit`` without ``shutdown``
(as LSP asks). Ctrl-C before the signal watch starts ends the process the same way, with
no traceback; a second Ctrl-C while the server stops is ignored, so the logs are flushed.
Started on a terminal (stdin is a TTY), the server says on stderr that it speaks LSP on
stdio for an editor and how to stop it (``TERMINAL_NOTICE``).
"""

from __future__ import annotations

import gc
import logging
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import anyio
from anyio import TASK_STATUS_IGNORED
from anyio.abc import TaskStatus

from dsh_lsp.kernel import Kernel

from .early import EarlyStart, answer_initialize
from .wire import DEFAULT_MAX_BODY, Connection, open_stdio, open_tcp

if TYPE_CHECKING:  # pygls and the handlers load after the early ``initialize`` answer
    from .boot import LoadPlugins
    from .handlers import DshLanguageServer

_log = logging.getLogger(__name__)

STOP_SIGNALS: Final = (signal.SIGTERM, signal.SIGINT)
"""Signals that end the server like the end of its input."""
GC_PAUSE: Final = 30.0
"""The longest the cyclic garbage collector stays off while the server starts (seconds)."""

TERMINAL_NOTICE: Final = (
    "dsh-lsp: speaking the Language Server Protocol on stdin/stdout, for an editor to start. "
    'Stop with Ctrl-C or Ctrl-D. To try it by hand: dsh-lsp demo, or dsh-lsp run "<prompt>".\n'
)
"""What a server started on a terminal says on stderr."""


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
    if tcp is None and sys.stdin is not None and sys.stdin.isatty():
        sys.stderr.write(TERMINAL_NOTICE)
        sys.stderr.flush()
    try:
        return anyio.run(_serve, load_plugins, tcp, max_message_bytes, backend="asyncio")
    except KeyboardInterrupt:  # before the signal watch started: the kernel has closed
        _log.info("interrupted while starting: stopping")
        return 0


async def _serve(load_plugins: LoadPlugins, tcp: TcpAddress | None, max_message_bytes: int) -> int:
    # Start-up allocates hundreds of thousands of long-lived objects (classes, schemas):
    # collecting them while they are made is wasted work, so the collector waits until the
    # plugins are loaded, and what exists then is frozen out of later collections.
    gc.disable()
    try:
        async with Kernel() as kernel:
            if tcp is None:
                connection: Connection = await open_stdio()
            else:
                connection = await open_tcp(tcp.host, tcp.port, ready=_announce(tcp.host))
            early = await _first_message(connection, max_message_bytes)
            if early is None:  # stopped by a signal before the client said anything
                with anyio.CancelScope(shield=True):
                    await connection.aclose()
                return 0
            from .handlers import build_server  # pygls and lsprotocol load here

            server = build_server(kernel.context, load_plugins)
            kernel.context.start_soon(_collect_after_start, server, name="dsh-lsp gc")
            code = await run_connection(
                server,
                connection,
                stop_signals=STOP_SIGNALS,
                early=early,
                max_message_bytes=max_message_bytes,
            )
            # Stopping flushes every session log: a second Ctrl-C must not cut that short.
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                with anyio.CancelScope(shield=True):
                    await server.state.aclose()
                    await connection.aclose()
            finally:
                signal.signal(signal.SIGINT, previous)
    finally:
        gc.enable()
    return code


async def _first_message(connection: Connection, max_message_bytes: int) -> EarlyStart | None:
    """``answer_initialize`` with the stop signals already handled (a server started by hand
    waits here until its first message); None when one of them arrived first."""
    early: EarlyStart | None = None
    async with anyio.create_task_group() as group:

        async def answer() -> None:
            nonlocal early
            early = await answer_initialize(connection, max_message_bytes=max_message_bytes)
            group.cancel_scope.cancel()

        async def watch_signals(*, task_status: TaskStatus[None] = TASK_STATUS_IGNORED) -> None:
            with anyio.open_signal_receiver(*STOP_SIGNALS) as received:
                task_status.started()
                async for number in received:
                    _log.info("received %s before the first message: stopping", number.name)
                    group.cancel_scope.cancel()
                    return

        await group.start(watch_signals)
        _log.debug("stop signals are handled from here on")
        group.start_soon(answer)
    return early


async def _collect_after_start(server: DshLanguageServer) -> None:
    with anyio.move_on_after(GC_PAUSE):
        await server.state.started()
    gc.freeze()
    gc.enable()


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
    early: EarlyStart | None = None,
    max_message_bytes: int = DEFAULT_MAX_BODY,
) -> int:
    """Pump ``connection`` into ``server`` until ``exit``, end of input or one of
    ``stop_signals`` (handled only while this runs; main thread only); the exit code.
    ``early``: what ``answer_initialize`` already read (and maybe answered)."""
    from .wire import pump  # the read loop imports pygls

    protocol = server.protocol
    protocol.set_writer(_FrameWriter(connection))
    if early is not None:
        protocol.answered_early = early.answered
    stopped = anyio.Event()

    def on_exit(code: int) -> None:
        stopped.set()

    protocol.on_exit = on_exit
    async with anyio.create_task_group() as group:

        async def read() -> None:
            if early is None:
                await pump(connection, protocol, max_message_bytes=max_message_bytes)
            else:
                await pump(
                    connection,
                    protocol,
                    decoder=early.decoder,
                    frames=early.frames,
                    ended=early.ended,
                )
            stopped.set()

        async def watch_signals(*, task_status: TaskStatus[None] = TASK_STATUS_IGNORED) -> None:
            with anyio.open_signal_receiver(*stop_signals) as received:
                task_status.started()
                async for number in received:  # a repeated signal changes nothing
                    _log.info("received %s: stopping", number.name)
                    stopped.set()

        if stop_signals:
            await group.start(watch_signals)
            _log.debug("stop signals are handled from here on")
        group.start_soon(read)
        await stopped.wait()
        group.cancel_scope.cancel()
    return protocol.exit_code if protocol.exit_code is not None else 0
