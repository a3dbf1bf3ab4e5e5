"""``serve``: run the language server in a kernel until the client is done (server layer).

The process owns one asyncio event loop (``anyio.run``; pygls is asyncio-only; uvloop's where
it is installed, ``kernel.loop_options``) and one ``Kernel``. Inside the kernel's lifetime,
this module opens the transport, builds the server and runs the read loop (``wire.pump``) as a
task of its own; pygls runs each request handler as an asyncio task on the same loop, and the
agents run as kernel tasks. The loop ends on ``exit``, at end of input (a client that died), or
on SIGTERM/SIGINT (Neovim's ``client:stop(true)`` sends SIGTERM; a terminal sends SIGINT),
which end it exactly like the end of input. Either way the bridge is closed before the kernel:
running turns are cancelled, open prompts answered, and every session log flushed. The exit
code is 0 after ``shutdown`` + ``exit``, end of input or a stop signal, 1 for ``exit`` without
``shutdown`` (as LSP asks). Ctrl-C before the signal watch starts ends the process the same
way, with no traceback; a second Ctrl-C while the server stops is ignored, so the logs are
flushed. Started on a terminal (stdin is a TTY), the server says on stderr that it speaks LSP
on stdio for an editor and how to stop it (``TERMINAL_NOTICE``).

Start-up order: ``early.answer_initialize`` answers ``initialize`` before pygls loads; then
pygls, the handlers, the modules start-up needs and the caller's ``preload`` (the layers
below) are imported in a worker thread while ``early.answer_sessions`` answers the first
``dsh/session/new`` requests on the event loop; the server is built once the imports are
done, and handles everything else from there.
"""

from __future__ import annotations

import gc
import logging
import signal
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, TypeVar

import anyio
import anyio.abc
import anyio.to_thread
from anyio import TASK_STATUS_IGNORED
from anyio.abc import TaskStatus

from dsh_lsp.kernel import Kernel, loop_options

from .early import EarlyStart, ReadAhead, answer_initialize, answer_sessions
from .wire import DEFAULT_MAX_BODY, Connection, open_stdio, open_tcp

if TYPE_CHECKING:  # pygls and the handlers load after the early ``initialize`` answer
    from .boot import LoadPlugins
    from .handlers import DshLanguageServer

_log = logging.getLogger(__name__)

T = TypeVar("T")

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
    preload: Callable[[], None] | None = None,
) -> int:
    """Serve LSP on stdio (or one TCP client) until the client is done; returns the exit
    code. A message body over ``max_message_bytes`` is skipped unread. ``preload`` imports
    what ``load_plugins`` will need; it runs in a worker thread after ``initialize`` was
    answered (see the module docstring). Raises OSError when the TCP address cannot be
    bound, and what the imports raise."""
    if tcp is None and sys.stdin is not None and sys.stdin.isatty():
        sys.stderr.write(TERMINAL_NOTICE)
        sys.stderr.flush()
    try:
        return anyio.run(
            _serve,
            load_plugins,
            tcp,
            max_message_bytes,
            preload,
            backend="asyncio",
            backend_options=loop_options(),
        )
    except KeyboardInterrupt:  # before the signal watch started: the kernel has closed
        _log.info("interrupted while starting: stopping")
        return 0


async def _serve(
    load_plugins: LoadPlugins,
    tcp: TcpAddress | None,
    max_message_bytes: int,
    preload: Callable[[], None] | None,
) -> int:
    # Start-up allocates hundreds of thousands of long-lived objects (classes, schemas):
    # collecting them while they are made is wasted work, so the collector waits until the
    # plugins are loaded, and what exists then is frozen out of later collections.
    gc.disable()
    try:
        async with Kernel() as kernel, anyio.create_task_group() as reading:
            if tcp is None:
                raw: Connection = await open_stdio()
            else:
                raw = await open_tcp(tcp.host, tcp.port, ready=_announce(tcp.host))
            connection = ReadAhead(raw)
            early = await _unless_stopped(
                lambda: _early_start(connection, reading, max_message_bytes, preload)
            )
            if early is None:  # stopped by a signal before the server loaded
                with anyio.CancelScope(shield=True):
                    await connection.aclose()
                reading.cancel_scope.cancel()
                return 0
            from .handlers import build_server  # imported by _early_start already

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
            reading.cancel_scope.cancel()
    finally:
        gc.enable()
    return code


async def _early_start(
    connection: ReadAhead,
    reading: anyio.abc.TaskGroup,
    max_message_bytes: int,
    preload: Callable[[], None] | None,
) -> EarlyStart:
    """The first message answered early (``answer_initialize``), then the server imported
    in a worker thread while ``answer_sessions`` answers the first sessions; returns once
    the imports are done, with what pygls gets."""
    start = await answer_initialize(connection.raw, max_message_bytes=max_message_bytes)
    if not start.ended:
        reading.start_soon(connection.run, name="dsh-lsp input")
    loaded = anyio.Event()
    async with anyio.create_task_group() as group:

        async def load() -> None:
            try:
                await anyio.to_thread.run_sync(_import_server, preload, abandon_on_cancel=True)
            except Exception:  # raised again where the server is built
                _log.debug("importing the server failed", exc_info=True)
            loaded.set()
            connection.nudge()

        group.start_soon(load)
        start = await answer_sessions(connection, start, loaded)
        await loaded.wait()
    return start


def _import_server(preload: Callable[[], None] | None) -> None:
    """Import pygls, the handlers, the modules start-up needs and ``preload``'s (a worker
    thread: the event loop goes on answering meanwhile)."""
    from .boot import import_start_up
    from .handlers import build_server  # noqa: F401  # pygls and lsprotocol load here

    import_start_up()
    if preload is not None:
        preload()


async def _unless_stopped(work: Callable[[], Awaitable[T]]) -> T | None:
    """``work()`` with the stop signals already handled (a server started by hand waits
    for its first message in here); None when one of them arrived first."""
    done: list[T] = []
    async with anyio.create_task_group() as group:

        async def answer() -> None:
            done.append(await work())
            group.cancel_scope.cancel()

        async def watch_signals(*, task_status: TaskStatus[None] = TASK_STATUS_IGNORED) -> None:
            with anyio.open_signal_receiver(*STOP_SIGNALS) as received:
                task_status.started()
                async for number in received:
                    _log.info("received %s while starting: stopping", number.name)
                    group.cancel_scope.cancel()
                    return

        await group.start(watch_signals)
        _log.debug("stop signals are handled from here on")
        group.start_soon(answer)
    return done[0] if done else None


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
        server.state.early_sessions = early.sessions
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
