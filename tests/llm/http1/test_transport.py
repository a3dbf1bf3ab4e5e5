"""KeepAliveTransport under httpx against raw HTTP servers on real sockets (llm.http1).

Each server here is a socket that writes the bytes a test scripts, so the tests see what a
real server can do that a well-behaved one does not: close an idle connection, close one
mid-request, cut a body short, stall, answer HTTP/1.0, send interim heads, speak TLS.
"""

from __future__ import annotations

import gzip
import shutil
import socket
import ssl
import subprocess
from pathlib import Path

import anyio
import anyio.abc
import httpx
import pytest

from dsh_lsp.llm.http1 import KeepAliveTransport
from tests.llm.http1.raw_server import (
    OK,
    RawServer,
    answer_all,
    answer_with,
    read_request,
    read_then_close,
    scripted,
    url,
)


def client(**transport: object) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=KeepAliveTransport(**transport),  # type: ignore[arg-type]
        timeout=httpx.Timeout(5.0),
        trust_env=False,
    )


async def post(http: httpx.AsyncClient, url: str, body: bytes = b'{"q": 1}') -> httpx.Response:
    return await http.post(url, content=body, headers={"Content-Type": "application/json"})


async def test_requests_share_one_kept_alive_connection() -> None:
    async with scripted(answer_all) as server, client() as http:
        for _ in range(3):
            response = await post(http, url(server))
            assert (response.status_code, response.content) == (200, b"hello")
    assert server.connections == 1
    assert server.requests[0].startswith(b"POST /v1/chat/completions HTTP/1.1\r\n")
    assert b"\r\ncontent-length: 8\r\n" in server.requests[0].lower()
    assert server.requests[0].endswith(b'\r\n\r\n{"q": 1}')


async def test_a_connection_the_server_closed_while_idle_is_replaced() -> None:
    async with scripted(answer_with(OK), answer_all) as server, client() as http:
        assert (await post(http, url(server))).content == b"hello"
        await server.closed.wait()
        assert (await post(http, url(server))).content == b"hello"
    assert server.connections == 2


async def test_a_reused_connection_dropped_before_an_answer_sends_the_request_once_more() -> None:
    async def answer_once_then_drop(stream: anyio.abc.ByteStream, server: RawServer) -> None:
        await answer_with(OK)(stream, server)
        await read_request(stream, server)  # the second request: read, never answered

    async with scripted(answer_once_then_drop, answer_all) as server, client() as http:
        assert (await post(http, url(server))).content == b"hello"
        assert (await post(http, url(server), b'{"q": 2}')).content == b"hello"
    assert server.connections == 2
    assert [r.endswith(b'{"q": 2}') for r in server.requests] == [False, True, True]


async def test_a_new_connection_dropped_before_an_answer_is_an_error_not_a_retry() -> None:
    async with scripted(read_then_close) as server, client() as http:
        with pytest.raises(httpx.RemoteProtocolError, match="before a full response head"):
            await post(http, url(server))
    assert server.connections == 1


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
        b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello",
    ],
    ids=["chunked", "length"],
)
async def test_a_body_cut_short_is_a_protocol_error_and_the_connection_is_not_reused(
    answer: bytes,
) -> None:
    cut = answer_with(answer)

    async with scripted(cut, answer_all) as server, client() as http:
        with pytest.raises(httpx.RemoteProtocolError, match="before the body ended"):
            await post(http, url(server))
        assert (await post(http, url(server))).content == b"hello"
    assert server.connections == 2


async def test_malformed_framing_is_a_protocol_error() -> None:
    garbage = answer_with(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n")

    async with scripted(garbage) as server, client() as http:
        with pytest.raises(httpx.RemoteProtocolError, match="chunk size"):
            await post(http, url(server))


async def test_a_stalled_body_is_a_read_timeout() -> None:
    async def stall(stream: anyio.abc.ByteStream, server: RawServer) -> None:
        await read_request(stream, server)
        await stream.send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n")
        await anyio.sleep_forever()

    async with (
        scripted(stall) as server,
        client() as http,
        http.stream("POST", url(server), content=b"{}", timeout=0.2) as response,
    ):
        pieces = response.aiter_bytes()
        assert await anext(pieces) == b"hi"
        with pytest.raises(httpx.ReadTimeout):
            await anext(pieces)


async def test_a_refused_connection_is_a_connect_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with client() as http:
        with pytest.raises(httpx.ConnectError, match=f"127.0.0.1:{port}"):
            await http.post(f"http://127.0.0.1:{port}/x", content=b"{}")


async def test_an_http_1_0_body_runs_to_the_close_and_its_connection_is_not_reused() -> None:
    old = answer_with(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil close")

    async with scripted(old) as server, client() as http:
        assert (await post(http, url(server))).content == b"until close"
        assert (await post(http, url(server))).content == b"until close"
    assert server.connections == 2


async def test_interim_heads_are_skipped_and_encoded_bodies_decoded() -> None:
    packed = gzip.compress(b"unpacked")
    answer = (
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n"
        b"Content-Length: %d\r\nX-Request-Id: r1\r\n\r\n" % len(packed) + packed
    )

    encoded = answer_with(answer, every=True)

    async with scripted(encoded) as server, client() as http:
        response = await post(http, url(server))
        assert (response.content, response.headers["x-request-id"]) == (b"unpacked", "r1")
        assert (await post(http, url(server))).content == b"unpacked"
    assert server.connections == 1


async def test_a_response_abandoned_mid_body_closes_its_connection() -> None:
    async def endless(stream: anyio.abc.ByteStream, server: RawServer) -> None:
        await read_request(stream, server)
        await stream.send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        while True:
            await stream.send(b"4\r\ndata\r\n")
            await anyio.sleep(0.001)

    async with scripted(endless, answer_all) as server, client() as http:
        async with http.stream("POST", url(server), content=b"{}") as response:
            async for piece in response.aiter_bytes():
                assert piece.startswith(b"data")
                break
        assert (await post(http, url(server))).content == b"hello"
    assert server.connections == 2


async def test_an_idle_connection_past_its_expiry_is_not_reused() -> None:
    now = [0.0]
    async with scripted(answer_all) as server, client(clock=lambda: now[0]) as http:
        await post(http, url(server))
        now[0] = 4.0
        await post(http, url(server))
        now[0] = 10.0
        await post(http, url(server))
    assert server.connections == 2


async def test_a_scheme_other_than_http_is_refused() -> None:
    transport = KeepAliveTransport()
    with pytest.raises(httpx.UnsupportedProtocol):
        await transport.handle_async_request(httpx.Request("GET", "ftp://example.invalid/x"))


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for ``localhost`` and its key, made by the openssl CLI."""
    openssl = shutil.which("openssl")
    assert openssl, "the TLS tests need the openssl command"
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "2", "-subj", "/CN=localhost", "-addext",
         "subjectAltName=DNS:localhost", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


async def test_https_verifies_the_server_and_keeps_the_connection(
    certificate: tuple[Path, Path],
) -> None:
    cert, key = certificate
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)
    trusted = ssl.create_default_context(cafile=str(cert))
    async with scripted(answer_all, tls=server_tls) as server:
        async with client(tls_context=lambda: trusted) as http:
            for _ in range(2):
                assert (await post(http, url(server, "https", "localhost"))).content == b"hello"
        assert server.connections == 1
        async with client(tls_context=ssl.create_default_context) as untrusting:
            with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
                await post(untrusting, url(server, "https", "localhost"))
