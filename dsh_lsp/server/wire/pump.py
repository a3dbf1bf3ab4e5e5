"""The read loop: bytes from the connection → frames → JSON → the protocol (server layer).

It replaces pygls's ``run_async`` so the server's owner (not pygls) runs it, inside the
kernel's lifetime, and so every kind of bad input gets an answer instead of a pop-up:

- a body that is not JSON is answered ``-32700`` (id ``null``); a JSON value that is not a
  request, response or notification object ``-32600`` (with its ``id`` when it has one);
- a header block without ``Content-Length`` is logged and skipped;
- params that do not fit a known method are answered by ``DshProtocol`` while decoding.

``pump`` returns at end of input; the caller cancels it to stop earlier (``exit``).
"""

from __future__ import annotations

import json
import logging

from pygls.exceptions import JsonRpcException

from .framing import BadHeader, FrameDecoder
from .protocol import IGNORED, DshProtocol
from .transport import Connection

_log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


async def pump(connection: Connection, protocol: DshProtocol) -> None:
    """Feed every message from ``connection`` to ``protocol`` until the input ends."""
    decoder = FrameDecoder()
    while True:
        data = await connection.receive()
        if not data:
            _log.info("the client closed its output (end of input)")
            return
        for frame in decoder.feed(data):
            if isinstance(frame, BadHeader):
                _log.warning("skipped a malformed message header: %s", frame.reason)
            else:
                dispatch(frame, protocol)


def dispatch(body: bytes, protocol: DshProtocol) -> None:
    """Decode one body and hand it to ``protocol``; never raises."""
    try:
        message = json.loads(body, object_hook=protocol.structure_message)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and bad UTF-8 are ValueErrors
        _log.warning("received a body that is not JSON: %s", exc)
        _reply_error(protocol, None, PARSE_ERROR, f"Parse error: {exc}")
        return
    except JsonRpcException as exc:
        _log.warning("received a message that does not decode: %s", exc)
        return
    if message is IGNORED:
        return
    if isinstance(message, dict) or not hasattr(message, "jsonrpc"):
        msg_id = message.get("id") if isinstance(message, dict) else None
        if not isinstance(msg_id, str | int) or isinstance(msg_id, bool):
            msg_id = None
        _log.warning("received JSON that is not a JSON-RPC 2.0 message")
        _reply_error(protocol, msg_id, INVALID_REQUEST, "Invalid Request: not a JSON-RPC message")
        return
    try:
        protocol.handle_message(message)
    except Exception:
        _log.exception("handling a message failed")


def _reply_error(protocol: DshProtocol, msg_id: str | int | None, code: int, text: str) -> None:
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": text}})
