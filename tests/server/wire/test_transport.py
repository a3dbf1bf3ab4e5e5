"""StreamConnection: the frames of one event-loop pass go out in one write; closing writes
what is queued; a failed write marks the connection lost."""

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


async def test_frames_queued_in_one_pass_go_out_in_one_write() -> None:
    peer = Peer()
    connection = StreamConnection(peer.receive, peer.write, peer.close)
    connection.write(b"one")
    connection.write(b"two")
    assert peer.writes == []
    await anyio.lowlevel.checkpoint()
    assert peer.writes == [b"onetwo"]
    connection.write(b"three")
    await anyio.lowlevel.checkpoint()
    assert peer.writes == [b"onetwo", b"three"]


async def test_closing_writes_what_is_queued_first() -> None:
    peer = Peer()
    connection = StreamConnection(peer.receive, peer.write, peer.close)
    connection.write(b"last")
    await connection.aclose()
    assert peer.writes == [b"last"]
    assert peer.closed


async def test_a_failed_write_marks_the_connection_lost_and_drops_later_frames() -> None:
    peer = Peer(fail=True)
    connection = StreamConnection(peer.receive, peer.write, peer.close)
    connection.write(b"x")
    await anyio.lowlevel.checkpoint()
    assert connection.lost
    peer.fail = False
    connection.write(b"y")
    await anyio.lowlevel.checkpoint()
    assert peer.writes == []
