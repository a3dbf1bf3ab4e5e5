"""StreamConnection: the first frame of an event-loop pass goes out at once, the rest of the
pass in one write; closing writes what is queued; a failed write marks the connection lost."""

from __future__ import annotations

import anyio

from dsh_lsp.server.wire.transport import StreamConnection


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
