"""StreamConnection: the first frame of an event-loop pass goes out at once, the rest of the
pass in one write; closing writes what is queued; a failed write marks the connection lost."""

from __future__ import annotations

import os

import anyio

from dsh_lsp.kernel import loop_options
from dsh_lsp.server.wire.transport import StreamConnection, _terminal_reader


class Peer:
    """The write side of a fake client: what each write call received."""

    def __init__(self, *, fail: bool = False) -> None:
        self.writes: list[bytes] = []
        self.closed = False
        self.fail = fail

    def write(self, data: bytes) -> None:
        if self.fail:
            raise BrokenPipeError("gone")
        self.writes.append(data)

    async def receive(self) -> bytes:
        return b""

    async def close(self) -> None:
        self.closed = True


async def test_the_first_frame_of_a_pass_goes_out_at_once_the_rest_together() -> None:
    peer = Peer()
    connection = StreamConnection(peer.receive, peer.write, peer.close)
    connection.write(b"one")
    connection.write(b"two")
    connection.write(b"three")
    assert peer.writes == [b"one"]
    await anyio.lowlevel.checkpoint()
    assert peer.writes == [b"one", b"twothree"]
    connection.write(b"four")
    assert peer.writes == [b"one", b"twothree", b"four"]


async def test_closing_writes_what_is_queued_first() -> None:
    peer = Peer()
    connection = StreamConnection(peer.receive, peer.write, peer.close)
    connection.write(b"first")
    connection.write(b"last")
    await connection.aclose()
    assert peer.writes == [b"first", b"last"]
    assert peer.closed


async def test_a_failed_write_marks_the_connection_lost_and_drops_later_frames() -> None:
    peer = Peer(fail=True)
    connection = StreamConnection(peer.receive, peer.write, peer.close)
    connection.write(b"x")
    assert connection.lost
    peer.fail = False
    connection.write(b"y")
    await anyio.lowlevel.checkpoint()
    assert peer.writes == []


def _wait_for_input(terminal: int, reader: int) -> None:
    """Type a line on ``terminal``'s pty and wait until ``reader`` sees it, on uvloop."""

    async def wait() -> None:
        await anyio.wait_readable(reader)

    os.write(terminal, b"x\n")
    anyio.run(wait, backend="asyncio", backend_options=loop_options())


def test_waiting_for_terminal_input_leaves_the_terminal_in_blocking_mode() -> None:
    terminal, stdin = os.openpty()
    try:
        # The premise: uvloop puts what it waits on in non-blocking mode. On stdin itself
        # that mode is shared with stdout, stderr and the user's shell, and outlives us.
        shared = os.dup(stdin)
        _wait_for_input(terminal, shared)
        assert not os.get_blocking(stdin)
        os.close(shared)
        os.set_blocking(stdin, True)
        # The server waits on a descriptor of its own: the terminal stays as it was.
        reader = _terminal_reader(stdin)
        assert reader != stdin
        _wait_for_input(terminal, reader)
        assert os.get_blocking(stdin)
        assert os.read(reader, 16) == b"x\n"
        os.close(reader)
    finally:
        os.close(stdin)
        os.close(terminal)
